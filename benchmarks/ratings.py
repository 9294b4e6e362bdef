"""Ratings from tournament match records: Elo (Bradley–Terry), OpenSkill, tables and plots.

Match records
-------------
A tournament writes one JSON object per game, one per line (JSON Lines)::

    {"env": "loco_v0", "version": "0.1.0", "options": {"num_players": 2, ...},
     "num_players": 2, "game": 17, "seed": 123456, "agents": ["loco/heuristic", "random"],
     "seats": ["random", "loco/heuristic"], "ranks": [1, 0], "scores": [0.0, 57.0],
     "steps": 412}

``agents`` lists the tournament's agents (its line-up, in order); ``seats`` the agent in each
seat of this game (an agent may hold several seats); ``ranks`` the final position of each seat
(0 is best, tied seats share a position); ``scores`` the game's own points. Games that share a
``seed`` were played on the same deal with the seats rotated (duplicate format); the bootstrap
resamples such deals whole.

Elo
---
Each game's final order implies pairwise outcomes: for every two seats held by *different*
agents, the better-ranked one wins; a tie counts half a win each way. Pairs of seats of the same
agent carry no information and are skipped. A Bradley–Terry model, P(i beats j) = p_i / (p_i +
p_j), is fitted to the pairwise win matrix by Hunter's MM algorithm (Hunter 2004, "MM algorithms
for generalized Bradley–Terry models"): p_i ← W_i / Σ_j N_ij / (p_i + p_j), where W_i is i's
total wins and N_ij the comparisons between i and j. Strengths go to the Elo scale as
400 · log10(p_i), shifted so that the anchor is at 1000: ``random`` when it took part, otherwise
the first agent of the line-up. So a 400-point gap means 10:1 odds in a pairwise comparison.

A small prior (default ``prior=1``: one virtual drawn comparison between every two agents) keeps
every rating finite when an agent wins or loses every comparison, and links agents that never
met; it pulls ratings together by a negligible amount once there are a few dozen games.
``prior=0`` gives the plain maximum-likelihood fit.

Intervals are 95% percentile bootstrap intervals: the deals (games sharing a seed) are resampled
with replacement by a seeded generator and the fit repeated. They are relative to the anchor
(whose interval is a point).

OpenSkill
---------
OpenSkill's Plackett–Luce model rates the whole finishing order of each game, in game order, each
seat a team of one. An agent holding several seats of one game is rated once per seat and takes
the mean of those updates. The table reports the ordinal, mu − 3·sigma.

Win rate
--------
The share of an agent's seats that finished first; a first place shared by k seats counts 1/k.
Its interval is bootstrapped with the Elo one.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "AgentRating",
    "RECORD_FIELDS",
    "BootstrapFit",
    "bootstrap_fit",
    "bradley_terry",
    "compute_ratings",
    "elo_from_strengths",
    "head_to_head_table",
    "markdown_table",
    "openskill_ratings",
    "pairwise_wins",
    "plot_ratings",
    "ratings_from_file",
    "read_records",
    "write_records",
]

ELO_SCALE = 400.0
ANCHOR_ELO = 1000.0
#: Fields every match record line carries.
RECORD_FIELDS = ("env", "version", "options", "num_players", "game", "seed", "agents", "seats",
                 "ranks", "scores")


# ---------------------------------------------------------------------------------------------
# Match records
def write_records(path: str | Path, records: Iterable[dict]) -> Path:
    """Write match records as JSON Lines (one game per line) and return the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        for record in records:
            handle.write(json.dumps(_check_record(record, "record")) + "\n")
    return path


def read_records(path: str | Path) -> list[dict]:
    """Read match records; ``ValueError`` names the first bad line and what is wrong with it."""
    records = []
    try:
        handle = Path(path).open("rb")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"{path} line {number}: not UTF-8 text") from None
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path} line {number}: not JSON ({exc.msg})") from None
            except RecursionError:
                raise ValueError(f"{path} line {number}: JSON nested too deeply") from None
            records.append(_check_record(record, f"{path} line {number}"))
    if not records:
        raise ValueError(f"{path}: no match records")
    return records


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_record(record: Any, where: str) -> dict:
    if not isinstance(record, dict):
        raise ValueError(f"{where}: a match record must be a JSON object")
    missing = [key for key in RECORD_FIELDS if key not in record]
    if missing:
        raise ValueError(f"{where}: match record lacks {missing}")
    n = record["num_players"]
    if not _is_int(n) or not 1 <= n <= 64:
        raise ValueError(f"{where}: 'num_players' must be an integer from 1 to 64, got {n!r}")
    if not _is_int(record["seed"]):  # the deal: games sharing it are resampled together
        raise ValueError(f"{where}: 'seed' must be an integer, got {record['seed']!r}")
    for key in ("seats", "ranks", "scores"):
        if not isinstance(record[key], list) or len(record[key]) != n:
            raise ValueError(f"{where}: {key!r} must be a list of num_players={n} entries")
    kinds = {"seats": (str, "agent specs"), "agents": (str, "agent specs"),
             "ranks": (int, "integers"), "scores": ((int, float), "numbers")}
    for key, (kind, name) in kinds.items():
        value = record[key]
        if (not isinstance(value, list) or any(isinstance(x, bool) or not isinstance(x, kind)
                                               for x in value)):
            raise ValueError(f"{where}: {key!r} must be a list of {name}")
    if not all(math.isfinite(x) for x in record["scores"]):
        raise ValueError(f"{where}: 'scores' must be finite numbers")
    unknown = sorted(set(record["seats"]) - set(record["agents"]))
    if unknown:
        raise ValueError(f"{where}: seats hold {unknown}, which are not in 'agents'")
    return record


# ---------------------------------------------------------------------------------------------
# Bradley–Terry / Elo
def pairwise_wins(records: Sequence[dict], agents: Sequence[str]) -> np.ndarray:
    """``W[i, j]``: wins of agent i over agent j implied by the final orders (ties: ½ each)."""
    return _per_game_wins(records, agents).sum(axis=0)


def _per_game_wins(records: Sequence[dict], agents: Sequence[str]) -> np.ndarray:
    index = {name: i for i, name in enumerate(agents)}
    wins = np.zeros((len(records), len(agents), len(agents)))
    for g, record in enumerate(records):
        seats = [index[name] for name in record["seats"]]
        ranks = record["ranks"]
        for s in range(len(seats)):
            for t in range(s + 1, len(seats)):
                a, b = seats[s], seats[t]
                if a == b:
                    continue  # two seats of one agent: no information
                if ranks[s] < ranks[t]:
                    wins[g, a, b] += 1.0
                elif ranks[s] > ranks[t]:
                    wins[g, b, a] += 1.0
                else:
                    wins[g, a, b] += 0.5
                    wins[g, b, a] += 0.5
    return wins


def bradley_terry(wins: np.ndarray, prior: float = 0.0, tol: float = 1e-12,
                  max_iter: int = 100_000) -> np.ndarray:
    """Bradley–Terry strengths (geometric mean 1) from a pairwise win matrix, by Hunter's MM.

    ``prior`` adds that many virtual comparisons, drawn, between every two agents. Without it
    the maximum-likelihood fit must exist: every agent needs a win and a loss in each part of
    the comparison graph, else ``ValueError``.
    """
    wins = np.array(wins, dtype=float)
    k = wins.shape[0]
    if wins.shape != (k, k) or k == 0:
        raise ValueError(f"wins must be a square matrix, got shape {wins.shape}")
    if np.any(wins < 0):
        raise ValueError("wins must be non-negative")
    if prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    off_diagonal = ~np.eye(k, dtype=bool)
    wins = np.where(off_diagonal, wins + prior / 2.0, 0.0)
    total_wins = wins.sum(axis=1)
    games = wins + wins.T
    if k == 1:
        return np.ones(1)
    if prior == 0:
        _check_fit_exists(wins)
    strength = np.ones(k)
    for _ in range(max_iter):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = total_wins / denominator
        new /= np.exp(np.log(new).mean())
        change = np.max(np.abs(np.log(new) - np.log(strength)))
        strength = new
        if change < tol:
            break
    return strength


def _check_fit_exists(wins: np.ndarray) -> None:
    """Zermelo/Ford condition: for every split of the agents, each side beat the other."""
    k = wins.shape[0]
    beats = wins > 0
    reach = beats.copy()  # reach[i, j]: a chain of wins leads from i to j
    for m in range(k):
        reach |= reach[:, m : m + 1] & reach[m : m + 1, :]
    if not np.all(reach | np.eye(k, dtype=bool)):
        raise ValueError(
            "the maximum-likelihood Bradley–Terry fit does not exist (some agent never beat, "
            "directly or by a chain of wins, some other agent); use prior > 0"
        )


def elo_from_strengths(strength: np.ndarray, anchor: int = 0) -> np.ndarray:
    """Elo ratings (400·log10 p) shifted so that agent ``anchor`` is at 1000."""
    elo = ELO_SCALE * np.log10(strength)
    return elo - elo[anchor] + ANCHOR_ELO


# ---------------------------------------------------------------------------------------------
# OpenSkill
def openskill_ratings(records: Sequence[dict], agents: Sequence[str]) -> dict[str, tuple]:
    """``name -> (mu, sigma, ordinal)`` from OpenSkill's Plackett–Luce model, in game order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in agents}
    for record in records:
        seats = record["seats"]
        teams = [[model.rating(mu=current[name].mu, sigma=current[name].sigma)] for name in seats]
        rated = model.rate(teams, ranks=[float(r) for r in record["ranks"]])
        for name in set(seats):
            mine = [rated[s][0] for s, seat_name in enumerate(seats) if seat_name == name]
            current[name] = model.rating(mu=float(np.mean([r.mu for r in mine])),
                                         sigma=float(np.mean([r.sigma for r in mine])),
                                         name=name)
    return {name: (r.mu, r.sigma, r.ordinal()) for name, r in current.items()}


# ---------------------------------------------------------------------------------------------
# The table
@dataclass(frozen=True)
class AgentRating:
    """One agent's line of the ratings table."""

    agent: str
    games: int
    seats: int
    win_rate: float
    win_rate_low: float
    win_rate_high: float
    elo: float
    elo_low: float
    elo_high: float
    mu: float
    sigma: float
    ordinal: float

    def to_dict(self) -> dict:
        return asdict(self)


def _agents_of(records: Sequence[dict]) -> list[str]:
    agents: list[str] = []
    for record in records:
        for name in record["agents"]:
            if name not in agents:
                agents.append(name)
    return agents


def compute_ratings(records: Sequence[dict], bootstrap: int = 1000, seed: int = 0,
                    prior: float = 1.0, anchor: str | None = None) -> list[AgentRating]:
    """The ratings table of a list of match records, best Elo first.

    ``anchor`` (default: ``random`` if present, else the first agent) is fixed at Elo 1000;
    ``bootstrap`` resamples of the deals give the 95% intervals, drawn from
    ``numpy.random.default_rng(seed)``.
    """
    fit = bootstrap_fit(records, bootstrap, seed, prior, anchor)
    if bootstrap:
        elo_lo, elo_hi = np.percentile(fit.elo_samples, [2.5, 97.5], axis=0)
        wr_lo, wr_hi = np.percentile(fit.win_rate_samples, [2.5, 97.5], axis=0)
    else:
        elo_lo = elo_hi = fit.elo
        wr_lo = wr_hi = fit.win_rate
    skill = openskill_ratings(records, fit.agents)
    table = [
        AgentRating(agent=name, games=int(fit.games[i]), seats=int(fit.seats[i]),
                    win_rate=float(fit.win_rate[i]), win_rate_low=float(wr_lo[i]),
                    win_rate_high=float(wr_hi[i]), elo=float(fit.elo[i]),
                    elo_low=float(elo_lo[i]), elo_high=float(elo_hi[i]), mu=skill[name][0],
                    sigma=skill[name][1], ordinal=skill[name][2])
        for i, name in enumerate(fit.agents)
    ]
    return sorted(table, key=lambda r: (-r.elo, r.agent))


@dataclass(frozen=True)
class BootstrapFit:
    """The Elo fit of a set of records and its bootstrap resamples (one row per resample)."""

    agents: list[str]
    elo: np.ndarray
    elo_samples: np.ndarray
    win_rate: np.ndarray
    win_rate_samples: np.ndarray
    wins: np.ndarray  # pairwise win matrix of all the records
    games: np.ndarray
    seats: np.ndarray

    def order_confidence(self, order: Sequence[str]) -> float:
        """Share of resamples in which the Elo ratings keep ``order`` (best first) strictly."""
        if not len(self.elo_samples):
            return 1.0
        idx = [self.agents.index(name) for name in order]
        ordered = self.elo_samples[:, idx]
        return float(np.mean(np.all(ordered[:, :-1] > ordered[:, 1:], axis=1)))


def bootstrap_fit(records: Sequence[dict], bootstrap: int = 1000, seed: int = 0,
                  prior: float = 1.0, anchor: str | None = None) -> BootstrapFit:
    """Fit Elo to ``records`` and to ``bootstrap`` resamples of their deals."""
    if not records:
        raise ValueError("no match records to rate")
    agents = _agents_of(records)
    if anchor is None:
        anchor = "random" if "random" in agents else agents[0]
    if anchor not in agents:
        raise ValueError(f"anchor {anchor!r} is not among the agents {agents}")
    a = agents.index(anchor)
    per_game = _per_game_wins(records, agents)
    firsts, seats, played = _per_game_firsts(records, agents)
    # Deals: games sharing a seed are resampled together.
    deal_of: dict[Any, int] = {}
    deal_index = np.array([deal_of.setdefault(r["seed"], len(deal_of)) for r in records])
    n_deals = len(deal_of)

    def by_deal(per: np.ndarray) -> np.ndarray:
        out = np.zeros((n_deals, *per.shape[1:]))
        np.add.at(out, deal_index, per)
        return out

    deal_wins, deal_firsts, deal_seats = by_deal(per_game), by_deal(firsts), by_deal(seats)
    wins = per_game.sum(axis=0)
    elo = elo_from_strengths(bradley_terry(wins, prior), a)
    win_rate = firsts.sum(axis=0) / np.maximum(seats.sum(axis=0), 1)
    rng = np.random.default_rng(seed)
    boot_elo = np.empty((bootstrap, len(agents)))
    boot_wr = np.empty((bootstrap, len(agents)))
    for b in range(bootstrap):
        counts = rng.multinomial(n_deals, np.full(n_deals, 1.0 / n_deals)).astype(float)
        resampled = np.tensordot(counts, deal_wins, axes=1)
        boot_elo[b] = elo_from_strengths(bradley_terry(resampled, prior, tol=1e-9), a)
        boot_wr[b] = (counts @ deal_firsts) / np.maximum(counts @ deal_seats, 1)
    return BootstrapFit(agents, elo, boot_elo, win_rate, boot_wr, wins, played,
                        seats.sum(axis=0))


def _per_game_firsts(records: Sequence[dict], agents: Sequence[str]):
    index = {name: i for i, name in enumerate(agents)}
    firsts = np.zeros((len(records), len(agents)))
    seats = np.zeros((len(records), len(agents)))
    for g, record in enumerate(records):
        ranks = record["ranks"]
        best = min(ranks)
        shared = sum(r == best for r in ranks)
        for name, rank in zip(record["seats"], ranks, strict=True):
            seats[g, index[name]] += 1
            if rank == best:
                firsts[g, index[name]] += 1.0 / shared
    played = (seats > 0).sum(axis=0)
    return firsts, seats, played


def ratings_from_file(path: str | Path, **kwargs: Any) -> list[AgentRating]:
    """:func:`compute_ratings` of a match-records file (keyword arguments pass through)."""
    return compute_ratings(read_records(path), **kwargs)


def markdown_table(ratings: Sequence[AgentRating]) -> str:
    """The ratings as a Markdown table (Elo and win rate with their 95% intervals)."""
    lines = [
        "| agent | games | win rate (95% CI) | Elo (95% CI) | OpenSkill ordinal |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in ratings:
        lines.append(
            f"| {r.agent} | {r.games} | {r.win_rate:.3f} ({r.win_rate_low:.3f}–"
            f"{r.win_rate_high:.3f}) | {r.elo:.0f} ({r.elo_low:.0f}–{r.elo_high:.0f}) | "
            f"{r.ordinal:.2f} |"
        )
    return "\n".join(lines)


def head_to_head_table(records: Sequence[dict], order: Sequence[str]) -> str:
    """Each agent's score against each other as a Markdown table, agents in ``order``.

    A cell is the row agent's share of its finishing-order comparisons with the column agent
    over the games where both sat (a tie counts ½): the duels behind the ratings, which a
    single rating per agent hides (an agent may beat the field yet lose to one bot).
    """
    wins = pairwise_wins(records, order)
    lines = ["| | " + " | ".join(f"vs {name}" for name in order) + " |",
             "|---|" + "---:|" * len(order)]
    for i, name in enumerate(order):
        cells = []
        for j in range(len(order)):
            met = wins[i, j] + wins[j, i]
            cells.append("" if i == j or met == 0 else f"{wins[i, j] / met:.3f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot_ratings(ratings: Sequence[AgentRating], path: str | Path, title: str = "") -> Path:
    """A PNG of Elo with its bootstrap interval and OpenSkill mu ± 2·sigma, per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = list(reversed(ratings))  # best at the top
    names = [r.agent for r in order]
    y = np.arange(len(order))
    fig, (ax_elo, ax_skill) = plt.subplots(
        1, 2, figsize=(10, 1.5 + 0.55 * len(order)), sharey=True, layout="constrained"
    )
    elo = np.array([r.elo for r in order])
    err = np.array([[r.elo - r.elo_low for r in order], [r.elo_high - r.elo for r in order]])
    err = np.clip(err, 0.0, None)  # with few games the estimate can lie outside its interval
    ax_elo.errorbar(elo, y, xerr=err, fmt="o", color="tab:blue", capsize=4)
    ax_elo.axvline(ANCHOR_ELO, color="grey", lw=0.8, ls="--")
    for yi, value in zip(y, elo, strict=True):
        ax_elo.annotate(f"{value:.0f}", (value, yi), textcoords="offset points", xytext=(0, 7),
                        ha="center", fontsize=8)
    ax_elo.set_yticks(y, names)
    ax_elo.set_xlabel("Elo (Bradley–Terry), 95% bootstrap interval")
    mu = np.array([r.mu for r in order])
    sigma = np.array([r.sigma for r in order])
    ax_skill.errorbar(mu, y, xerr=2 * sigma, fmt="s", color="tab:orange", capsize=4,
                      label="mu ± 2σ")
    ax_skill.plot([r.ordinal for r in order], y, "x", color="black", label="ordinal (mu − 3σ)")
    ax_skill.set_xlabel("OpenSkill (Plackett–Luce)")
    fig.legend(*ax_skill.get_legend_handles_labels(), loc="outside lower right", ncol=2,
               fontsize=8, frameon=False)
    ax_elo.set_ylim(-0.7, len(order) - 0.3)
    if title:
        fig.suptitle(title)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
