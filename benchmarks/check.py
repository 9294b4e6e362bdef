"""Rating regression check: rerun the baseline tournaments and compare with what was recorded.

``python -m benchmarks.check`` reads every ``benchmarks/baselines/*.json``, replays its fixed-seed
tournament, rates the records and fails (exit code 1) with a readable diff when

- an agent's Elo falls outside the interval recorded for it, or
- the agents' order by Elo differs from the recorded order.

Everything is seeded, so with unchanged code the rerun reproduces the recorded ratings exactly;
the intervals are there for honest changes that deal different games (a rules fix, an engine
that draws its randomness differently), not for noise between two runs of the same code.

A baseline file::

    {
      "name": "loco_4p",
      "about": "one line on what it guards",
      "tournament": {"env_id": "loco_v0", "players": 4, "games": 400, "seed": 0,
                     "agents": ["loco/heuristic-strong", "loco/heuristic", "random", "random"],
                     "options": {}},
      "bootstrap": 1000, "margin": 10,
      "ratings": {"loco/heuristic": {"elo": 1204.1, "ci95": [1181.0, 1230.2],
                                     "interval": [1147.9, 1262.3]}, ...},
      "order": ["loco/heuristic-strong", "loco/heuristic", "random"],
      "order_confidence": 0.998,
      "recorded_with": "0.1.0"
    }

``ci95`` is the 95% bootstrap interval of the recorded run. ``interval``, the one the check
enforces, doubles its half-widths and adds ``margin`` Elo on each side: a rerun on fresh deals of
an agent that did not change then lands inside it about 99% of the time (two independent
estimates differ by more than 1.96·√2 standard errors 16% of the time, by more than 2·1.96 under
1%). An agent that won every one of its pairwise comparisons has a saturated Elo (set by the
prior): its interval has no upper end, and its lower end is the Elo it would have had with three
losses against each opponent it swept (the "rule of three" 95% bound on a rate never observed).
The anchor (``random`` = 1000) is exact by definition and not checked. ``order_confidence`` is the
share of bootstrap resamples that keep the recorded order; ``--update`` warns below 0.95.

CI usage::

    python -m benchmarks.check --workers 2            # exit 0: ratings hold; 1: regression
    python -m benchmarks.check --only loco_2p         # one baseline
    python -m benchmarks.check --update --only loco_2p  # re-record after a deliberate change
    python -m benchmarks.check --backend ray --address auto  # the games on a Ray cluster

A CI job runs the first command after the unit tests (a few minutes on two cores) and keeps
``runs/check/`` (records and tables of every rerun) as an artifact. When a change is meant to move
ratings (a stronger bot, a rules fix), rerun with ``--update``, review the printed old and new
ratings, and commit the baseline files with the change. A new baseline is a JSON file with
``name``, ``about`` and ``tournament`` only, filled in by ``--update --only NAME``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import loco_envs
from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks import tournament as T
from loco_envs.core.threads import check_threads

BASELINES = Path(__file__).with_name("baselines")
DEFAULT_MARGIN = 10.0
RULE_OF_THREE = 3.0
MIN_ORDER_CONFIDENCE = 0.95


# ---------------------------------------------------------------------------------------------
# Baseline files
def load_baseline(path: str | Path) -> dict:
    """Read and check a baseline file; ``ValueError`` names the file and the bad field."""
    path = Path(path)
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except (OSError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"{path}: unreadable ({exc.__class__.__name__})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a baseline must be a JSON object")
    for key in ("name", "tournament"):
        if key not in data:
            raise ValueError(f"{path}: baseline lacks {key!r}")
    spec = data["tournament"]
    required = ("env_id", "players", "games", "seed", "agents")
    missing = [k for k in required if not isinstance(spec, dict) or k not in spec]
    if missing:
        raise ValueError(f"{path}: 'tournament' lacks {missing}")
    try:
        tournament(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: 'tournament': {exc}") from None
    if "ratings" in data:
        if not isinstance(data["ratings"], dict):
            raise ValueError(f"{path}: 'ratings' must map agents to their recorded ratings")
        for agent, entry in data["ratings"].items():
            interval = entry.get("interval") if isinstance(entry, dict) else None
            if not isinstance(interval, list) or len(interval) != 2:
                raise ValueError(f"{path}: 'ratings.{agent}.interval' must be [low, high]")
        if sorted(data.get("order", [])) != sorted(data["ratings"]):
            raise ValueError(f"{path}: 'order' must list the agents of 'ratings'")
    return data


def tournament(baseline: dict) -> T.Tournament:
    spec = baseline["tournament"]
    return T.Tournament(spec["env_id"], spec["players"], tuple(spec["agents"]), spec["games"],
                        spec["seed"], dict(spec.get("options", {})))


def baseline_paths(folder: Path, only: Sequence[str] | None = None) -> list[Path]:
    paths = sorted(folder.glob("*.json"))
    if only:
        names = {p.stem: p for p in paths}
        unknown = [name for name in only if name not in names]
        if unknown:
            raise ValueError(f"--only: no baseline {unknown} in {folder}; have {sorted(names)}")
        paths = [names[name] for name in only]
    if not paths:
        raise ValueError(f"no baselines (*.json) in {folder}")
    return paths


# ---------------------------------------------------------------------------------------------
# Recording
def anchor_of(agents: Sequence[str]) -> str:
    return "random" if "random" in agents else agents[0]


def record_baseline(baseline: dict, records: list[dict]) -> dict:
    """The baseline with its ratings, intervals and order taken from ``records``."""
    bootstrap = int(baseline.get("bootstrap", 1000))
    margin = float(baseline.get("margin", DEFAULT_MARGIN))
    seed = baseline["tournament"]["seed"]
    fit = R.bootstrap_fit(records, bootstrap, seed)
    low95, high95 = np.percentile(fit.elo_samples, [2.5, 97.5], axis=0)
    anchor = anchor_of(fit.agents)
    ratings = {}
    for i, agent in enumerate(fit.agents):
        elo = float(fit.elo[i])
        if agent == anchor:
            interval: list[float | None] = [elo, elo]
        else:
            interval = [elo - 2 * (elo - low95[i]) - margin, elo + 2 * (high95[i] - elo) + margin]
            swept, swept_by = _sweeps(fit.wins, i)
            if swept:
                interval = [_elo_with_losses(fit, i, swept, +1) - margin, None]
            elif swept_by:
                interval = [None, _elo_with_losses(fit, i, swept_by, -1) + margin]
        ratings[agent] = {
            "elo": round(elo, 1),
            "ci95": [round(float(low95[i]), 1), round(float(high95[i]), 1)],
            "interval": [None if v is None else round(float(v), 1) for v in interval],
        }
    order = sorted(fit.agents, key=lambda name: -fit.elo[fit.agents.index(name)])
    out = {key: baseline[key] for key in ("name", "about", "tournament") if key in baseline}
    out.update(bootstrap=bootstrap, margin=margin, ratings=ratings, order=order,
               order_confidence=round(fit.order_confidence(order), 4),
               recorded_with=loco_envs.__version__)
    return out


def _sweeps(wins: np.ndarray, i: int) -> tuple[list[int], list[int]]:
    """Opponents agent ``i`` beat every time, and those that beat it every time."""
    swept = [j for j in range(len(wins)) if j != i and wins[i, j] > 0 and wins[j, i] == 0]
    swept_by = [j for j in range(len(wins)) if j != i and wins[j, i] > 0 and wins[i, j] == 0]
    others = [j for j in range(len(wins)) if j != i and wins[i, j] + wins[j, i] > 0]
    return (swept if len(swept) == len(others) else []), (
        swept_by if len(swept_by) == len(others) else [])


def _elo_with_losses(fit: R.BootstrapFit, i: int, opponents: list[int], sign: int) -> float:
    """Agent i's Elo had ``RULE_OF_THREE`` of its results against ``opponents`` gone the other
    way (sign +1: wins turned into losses; -1: losses into wins)."""
    wins = fit.wins.copy()
    for j in opponents:
        winner, loser = (i, j) if sign > 0 else (j, i)
        moved = min(RULE_OF_THREE, wins[winner, loser])
        wins[winner, loser] -= moved
        wins[loser, winner] += moved
    anchor = fit.agents.index(anchor_of(fit.agents))
    return float(R.elo_from_strengths(R.bradley_terry(wins, 1.0), anchor)[i])


# ---------------------------------------------------------------------------------------------
# Checking
@dataclass
class Outcome:
    """The check of one baseline."""

    name: str
    title: str
    rows: list[tuple[str, float | None, list, float | None, str]] = field(default_factory=list)
    recorded_order: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def compare(baseline: dict, records: list[dict]) -> Outcome:
    """Compare a rerun's ratings with the recorded ones."""
    spec = baseline["tournament"]
    title = (f"{spec['env_id']}, {spec['players']} players, {spec['games']} games, "
             f"seed {spec['seed']}")
    outcome = Outcome(baseline["name"], title, recorded_order=list(baseline["order"]))
    fit = R.bootstrap_fit(records, bootstrap=0)
    now = {name: float(fit.elo[i]) for i, name in enumerate(fit.agents)}
    recorded = baseline["ratings"]
    for agent in sorted(set(recorded) | set(now), key=lambda a: -recorded.get(a, {}).get(
            "elo", now.get(a, 0.0))):
        entry = recorded.get(agent)
        elo = now.get(agent)
        if entry is None:
            outcome.problems.append(f"{agent}: not in the baseline")
            outcome.rows.append((agent, None, [None, None], elo, "new agent"))
            continue
        if elo is None:
            outcome.problems.append(f"{agent}: missing from the rerun")
            outcome.rows.append((agent, entry["elo"], entry["interval"], None, "missing"))
            continue
        low, high = entry["interval"]
        status = "ok"
        if agent == anchor_of(fit.agents):
            status = "anchor"
        elif low is not None and elo < low:
            status = f"BELOW by {low - elo:.0f}"
        elif high is not None and elo > high:
            status = f"ABOVE by {elo - high:.0f}"
        if status.startswith(("BELOW", "ABOVE")):
            outcome.problems.append(f"{agent}: Elo {elo:.0f} outside [{_fmt(low)}, {_fmt(high)}]")
        outcome.rows.append((agent, entry["elo"], entry["interval"], elo, status))
    outcome.order = sorted(now, key=lambda name: -now[name])
    if outcome.order != outcome.recorded_order:
        outcome.problems.append("order changed")
    return outcome


def _fmt(value: float | None) -> str:
    return "-inf" if value is None else f"{value:.0f}"


def report(outcome: Outcome) -> str:
    """The readable diff of one baseline."""
    verdict = "ok" if outcome.ok else "FAIL"
    lines = [f"{outcome.name}: {verdict}  ({outcome.title})"]
    width = max([len("agent")] + [len(row[0]) for row in outcome.rows])
    lines.append(f"  {'agent':<{width}}  {'recorded':>8}  {'accepted interval':>18}  "
                 f"{'now':>6}  status")
    for agent, old, (low, high), new, status in outcome.rows:
        old_s = "-" if old is None else f"{old:.0f}"
        new_s = "-" if new is None else f"{new:.0f}"
        interval = f"[{_fmt(low)}, {'+inf' if high is None else f'{high:.0f}'}]"
        lines.append(f"  {agent:<{width}}  {old_s:>8}  {interval:>18}  {new_s:>6}  {status}")
    if outcome.order != outcome.recorded_order:
        lines.append(f"  order recorded: {' > '.join(outcome.recorded_order)}")
        lines.append(f"        now:      {' > '.join(outcome.order)}")
    return "\n".join(lines)


def rerun(baseline: dict, workers: int, progress: bool, out: Path | None,
          backend: str = "local", address: str | None = None,
          threads: int | None = None) -> list[dict]:
    t = tournament(baseline)
    records = T.play(t, workers=workers, progress=progress, backend=backend, address=address,
                     threads=threads)
    if out is not None:
        folder = out / baseline["name"]
        R.write_records(folder / "records.jsonl", records)
        T.write_ratings(R.compute_ratings(records, bootstrap=200, seed=t.seed), folder,
                        T.title(t), records, plot=False)
    return records


# ---------------------------------------------------------------------------------------------
# Command line
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.check",
        description="Rerun the baseline tournaments and fail when a rating leaves its interval "
                    "or the order of the agents changes.",
    )
    p.add_argument("--baselines", type=Path, default=BASELINES,
                   help=f"folder of baseline *.json files (default {BASELINES})")
    p.add_argument("--only", nargs="+", default=None, metavar="NAME",
                   help="check only these baselines (file names without .json)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="processes (default: all cores)")
    p.add_argument("--threads", type=int, default=None,
                   help="BLAS/torch threads of each process (default: its share of the cores)")
    p.add_argument("--out", type=Path, default=Path("runs") / "check",
                   help="where the rerun records and tables go (default runs/check)")
    p.add_argument("--backend", choices=T.BACKENDS, default="local",
                   help="local processes (default) or a Ray cluster (needs the ray extra)")
    p.add_argument("--address", default=None,
                   help="Ray cluster address for --backend ray (default: a local Ray)")
    p.add_argument("--update", action="store_true",
                   help="re-record the baselines from this code instead of checking")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        check_threads(args.threads, "--threads")
        paths = baseline_paths(args.baselines, args.only)
        baselines = [(path, load_baseline(path)) for path in paths]
        failed = []
        for path, baseline in baselines:
            records = rerun(baseline, args.workers, not args.no_progress, args.out,
                            args.backend, args.address, args.threads)
            if args.update:
                _update(path, baseline, records)
                continue
            if "ratings" not in baseline:
                raise ValueError(f"{path}: no recorded ratings; run with --update first")
            outcome = compare(baseline, records)
            print(report(outcome), flush=True)
            if not outcome.ok:
                failed.append(outcome.name)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.update:
        return 0
    if failed:
        print(f"\nrating check FAILED for {', '.join(failed)}")
        return 1
    print(f"\nrating check passed ({len(baselines)} baselines)")
    return 0


def _update(path: Path, baseline: dict, records: list[dict]) -> None:
    new = record_baseline(baseline, records)
    if "ratings" in baseline:
        print(report(compare(baseline, records)))
    print(f"{path}: recorded")
    for agent in new["order"]:
        entry = new["ratings"][agent]
        low, high = entry["interval"]
        print(f"  {agent:<24} Elo {entry['elo']:7.1f}  95% CI {entry['ci95']}  "
              f"interval [{_fmt(low)}, {'+inf' if high is None else f'{high:.0f}'}]")
    confidence = new["order_confidence"]
    print(f"  order {' > '.join(new['order'])} (held in {confidence:.1%} of resamples)")
    if confidence < MIN_ORDER_CONFIDENCE:
        print(f"  warning: the order is not clear (<{MIN_ORDER_CONFIDENCE:.0%}); add games or "
              "drop an agent, or the check will be fragile")
    path.write_text(json.dumps(new, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
