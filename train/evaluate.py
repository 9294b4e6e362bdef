"""Evaluation of a trained policy through the tournament runner: win rates and Elo against bots.

For each opponent spec, a tournament seats the policy (``ppo:<path>``, the data-only ``.npz``
of :mod:`agents.ppo`) at one seat and the opponent at all the others, rotating through the seats
on a shared deal (the runner's duplicate format), so the win rate is the share of games the
policy finished first (1/n is chance level with n players). The records of all these
tournaments are rated together: Elo (Bradley-Terry) anchored at ``random`` = 1000 when random
took part.

Games are scheduled and recorded by the runner (:mod:`benchmarks.tournament`), which plays a
line-up with a ``ppo:`` agent through the batched path (:mod:`benchmarks.batched`: games in one
vector env, one forward pass per decision round) and the same seeds, so the records are those of
the game-by-game runner. Their length is capped by the env option ``max_decisions`` (the
trainer's ``max_decisions``; :data:`DEFAULT_MAX_DECISIONS` on this module's command line): a
LOCO game between two bots can stall for good (both hands near 55 cards, the draw pile empty).
A game stopped at the cap is recorded as a tie of all seats, with ``"capped": true``;
:class:`EvalResult` counts them.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks import tournament as T
from loco_envs.core.threads import check_threads, set_threads

__all__ = ["DEFAULT_MAX_DECISIONS", "EvalResult", "evaluate", "main", "metric_name",
           "resolve_opponent"]

#: The command line's cap when ``--option max_decisions=N`` is not given (finished LOCO games
#: between the bots and trained agents took at most ~1,700 decisions in our runs).
DEFAULT_MAX_DECISIONS = 5000


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
    capped: int = 0  # games stopped at the max_decisions cap and scored as ties

    def scalars(self) -> dict[str, float]:
        """What goes to TensorBoard: ``eval/winrate_vs_<bot>`` and ``eval/elo``."""
        out = {metric_name(spec): rate for spec, (rate, _, _) in self.win_rates.items()}
        out["eval/elo"] = self.elo[0]
        return out

    def summary(self) -> dict[str, Any]:
        """JSON-safe: what a policy file records as its evaluation."""
        return {"games": len(self.records), "capped": self.capped,
                "win_rates": {spec: [round(v, 4) for v in rate]
                              for spec, rate in self.win_rates.items()},
                "elo": [round(v, 1) for v in self.elo]}


def evaluate(checkpoint: str | Path, env_id: str, num_players: int, opponents: Sequence[str],
             games: int, seed: int = 0, options: dict[str, Any] | None = None,
             workers: int = 1, bootstrap: int = 200, out: str | Path | None = None,
             backend: str = "local", address: str | None = None,
             threads: int | None = None) -> EvalResult:
    """Play ``games`` games against each opponent; with ``out``, write records, table, plot.

    ``options`` are the env's (``max_decisions`` caps the games). ``backend="ray"`` plays them
    on a Ray cluster (``address``, or a local one), same records. ``threads``: each worker
    process's BLAS threads (``None``: its share of the cores; :mod:`loco_envs.core.threads`).
    """
    me = f"ppo:{checkpoint}"
    options = {k: v for k, v in (options or {}).items() if k != "num_players"}
    records: list[dict] = []
    per_opponent: dict[str, list[dict]] = {}
    for spec in opponents:
        t = T.Tournament(env_id, num_players, (me, *([spec] * (num_players - 1))), games, seed,
                         options)
        played = T.play(t, workers, progress=False, backend=backend, address=address,
                        threads=threads)
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
                   + (f" ({result.capped} stopped at {options.get('max_decisions')} "
                      "decisions: ties)" if result.capped else ""))
        result.files.update(T.write_ratings(table, out, heading, records))
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.evaluate``: the tournament runner's command line, with capped games.

    Same arguments as ``python -m benchmarks.tournament`` (but not ``--game-records`` or
    ``--from-records``), e.g. ``python -m train.evaluate loco_v0 --games 300 --workers 2
    --agents ppo:runs/x/checkpoints/final.npz loco/heuristic random``; games are capped at
    ``--option max_decisions=N`` (default :data:`DEFAULT_MAX_DECISIONS`).
    """
    parser = T.build_parser()
    parser.prog = "python -m train.evaluate"
    parser.description = "Tournament with a trained agent (games capped, stalled ones tied)."
    args = parser.parse_args(argv)
    if args.from_records is not None or args.game_records:
        parser.error("--from-records and --game-records: use python -m benchmarks.tournament")
    if args.env_id is None:
        parser.error("give an env id")
    try:
        if not args.agents:
            raise ValueError("--agents: give at least one agent spec")
        if isinstance(args.workers, bool) or args.workers < 1:
            raise ValueError(f"--workers must be a positive integer, got {args.workers!r}")
        check_threads(args.threads, "--threads")
        set_threads(args.threads)  # this process plays the games when --workers is 1
        options = {"max_decisions": DEFAULT_MAX_DECISIONS,
                   **dict(T.parse_option(o) for o in args.option)}
        t = T.Tournament(args.env_id, args.players, tuple(args.agents), args.games, args.seed,
                         options)
        start = time.perf_counter()
        records = T.play(t, args.workers, progress=not args.no_progress, backend=args.backend,
                         address=args.address, threads=args.threads)
        seconds = time.perf_counter() - start
        out = args.out if args.out is not None else T.default_out(t)
        files = {"records": R.write_records(Path(out) / "records.jsonl", records)}
        table = R.compute_ratings(records, bootstrap=args.bootstrap, seed=t.seed)
        files.update(T.write_ratings(table, Path(out), T.title(t), records))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"# {T.title(t)}  ({seconds:.1f} s of play)\n")
    capped = sum(r["capped"] for r in records)
    if capped:
        print(f"{capped} games stopped at {options['max_decisions']} decisions, scored as "
              "ties\n")
    print(R.markdown_table(table))
    print(f"\nwrote {', '.join(str(p) for p in files.values())}")
    if "plot" in files:
        print(f"plot: {files['plot']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
