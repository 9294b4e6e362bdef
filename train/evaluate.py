"""Evaluation of a checkpoint through the tournament runner: win rates and Elo against bots.

For each opponent spec, a tournament seats the checkpoint (``ppo:<path>``) at one seat and the
opponent at all the others, rotating through the seats on a shared deal (the runner's duplicate
format), so the win rate is the share of games the checkpoint finished first (1/n is chance
level with n players). The records of all these tournaments are rated together: Elo
(Bradley-Terry) anchored at ``random`` = 1000 when random took part.

Games are scheduled by the runner (:func:`benchmarks.tournament.schedule`: seatings, deal seeds,
bot seeds) and written as its match records, but played here with a cap on their length: a LOCO
game between two bots can stall for good (both hands near 55 cards, the draw pile empty), and
the runner only gives up after a million decisions, with an error. A game stopped at the cap is
recorded as a tie of all seats, with ``"capped": true``; :class:`EvalResult` counts them.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import agents
import loco_envs
from benchmarks import ratings as R
from benchmarks import tournament as T

__all__ = ["MAX_DECISIONS", "EvalResult", "evaluate", "metric_name", "play_capped",
           "resolve_opponent"]

#: Decisions after which an evaluation game is stopped and scored as a tie (finished LOCO games
#: between the bots and trained agents took at most ~1,700 in our runs).
MAX_DECISIONS = 5000


def resolve_opponent(spec: str, env_id: str) -> str:
    """``heuristic`` / ``heuristic-strong`` as shorthand for the game's own bot."""
    game = env_id.removesuffix("_v0")
    return f"{game}/{spec}" if spec in ("heuristic", "heuristic-strong") else spec


def metric_name(spec: str) -> str:
    """``loco/heuristic`` -> ``eval/winrate_vs_loco_heuristic``."""
    return "eval/winrate_vs_" + spec.replace("/", "_").replace("-", "_")


@dataclass
class EvalResult:
    """Win rates (with 95% bootstrap intervals) per opponent, and the ratings table."""

    checkpoint: str
    win_rates: dict[str, tuple[float, float, float]]  # spec -> (rate, low, high)
    elo: tuple[float, float, float]  # the checkpoint's (elo, low, high)
    table: list[R.AgentRating]
    records: list[dict] = field(repr=False, default_factory=list)
    files: dict[str, Path] = field(default_factory=dict)
    capped: int = 0  # games stopped at MAX_DECISIONS and scored as ties

    def scalars(self) -> dict[str, float]:
        """What goes to TensorBoard: ``eval/winrate_vs_<bot>`` and ``eval/elo``."""
        out = {metric_name(spec): rate for spec, (rate, _, _) in self.win_rates.items()}
        out["eval/elo"] = self.elo[0]
        return out


def play_capped(env_id: str, seats: Sequence[str], seed: int, game_index: int = 0,
                options: dict[str, Any] | None = None,
                max_decisions: int = MAX_DECISIONS) -> dict:
    """:func:`benchmarks.tournament.play_game` (same bots, seeds, record) with a length cap."""
    options = {**(options or {}), "num_players": len(seats)}
    env = loco_envs.make(env_id, wrapped=False, **options)
    env.reset(seed=seed)
    bots = [agents.make(spec) for spec in seats]
    rngs = [np.random.default_rng([seed, game_index, s]) for s in range(len(seats))]
    game = env.game
    steps = 0
    while not game.terminal and steps < max_decisions:
        agent = env.agent_selection
        seat = env.seat(agent)
        env.step(bots[seat].act(env.view(agent), game.legal_mask(), rngs[seat]))
        steps += 1
    header = env.record_lines()[0]
    capped = not game.terminal
    return {
        "env": env_id, "version": header["version"], "options": header["options"],
        "num_players": len(seats), "game": game_index, "seed": seed, "agents": None,
        "seats": list(seats),
        "ranks": [0] * len(seats) if capped else [int(r) for r in game.final_ranks()],
        "scores": [0.0] * len(seats) if capped else [float(x) for x in game.final_scores()],
        "steps": steps, "capped": capped,
    }


def _play_task(task: tuple) -> dict:
    return play_capped(*task)


def _play(t: T.Tournament, workers: int) -> list[dict]:
    tasks = [(t.env_id, seats, seed, g, dict(t.options)) for g, seed, seats in T.schedule(t)]
    if workers == 1:
        records = [_play_task(task) for task in tasks]
    else:
        chunk = max(1, min(8, len(tasks) // (4 * workers)))
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            records = list(pool.imap(_play_task, tasks, chunksize=chunk))
    for record in records:
        record["agents"] = list(dict.fromkeys(t.agents))
    return records


def evaluate(checkpoint: str | Path, env_id: str, num_players: int, opponents: Sequence[str],
             games: int, seed: int = 0, options: dict[str, Any] | None = None,
             workers: int = 1, bootstrap: int = 200, out: str | Path | None = None) -> EvalResult:
    """Play ``games`` games against each opponent; with ``out``, write records, table, plot."""
    me = f"ppo:{checkpoint}"
    options = {k: v for k, v in (options or {}).items() if k != "num_players"}
    records: list[dict] = []
    per_opponent: dict[str, list[dict]] = {}
    for spec in opponents:
        t = T.Tournament(env_id, num_players, (me, *([spec] * (num_players - 1))), games, seed,
                         options)
        played = _play(t, workers)
        per_opponent[spec] = played
        records.extend(played)
    win_rates = {}
    for spec, played in per_opponent.items():
        mine = next(r for r in R.compute_ratings(played, bootstrap=bootstrap, seed=seed)
                    if r.agent == me)
        win_rates[spec] = (mine.win_rate, mine.win_rate_low, mine.win_rate_high)
    table = R.compute_ratings(records, bootstrap=bootstrap, seed=seed)
    mine = next(r for r in table if r.agent == me)
    result = EvalResult(str(checkpoint), win_rates, (mine.elo, mine.elo_low, mine.elo_high),
                        table, records, capped=sum(r["capped"] for r in records))
    if out is not None:
        out = Path(out)
        result.files = {"records": R.write_records(out / "records.jsonl", records)}
        heading = (f"{env_id}, {num_players}p: {Path(checkpoint).name} vs "
                   f"{', '.join(opponents)}, {games} games each"
                   + (f" ({result.capped} stopped at {MAX_DECISIONS} decisions: ties)"
                      if result.capped else ""))
        result.files.update(T.write_ratings(table, out, heading))
    return result
