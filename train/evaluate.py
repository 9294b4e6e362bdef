"""Evaluation of a checkpoint through the tournament runner: win rates and Elo against bots.

For each opponent spec, a tournament seats the checkpoint (``ppo:<path>``) at one seat and the
opponent at all the others, rotating through the seats on a shared deal (the runner's duplicate
format), so the win rate is the share of games the checkpoint finished first (1/n is chance
level with n players). The records of all these tournaments are rated together: Elo
(Bradley-Terry) anchored at ``random`` = 1000 when random took part.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks import ratings as R
from benchmarks import tournament as T

__all__ = ["EvalResult", "evaluate", "metric_name", "resolve_opponent"]


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

    def scalars(self) -> dict[str, float]:
        """What goes to TensorBoard: ``eval/winrate_vs_<bot>`` and ``eval/elo``."""
        out = {metric_name(spec): rate for spec, (rate, _, _) in self.win_rates.items()}
        out["eval/elo"] = self.elo[0]
        return out


def evaluate(checkpoint: str | Path, env_id: str, num_players: int, opponents: Sequence[str],
             games: int, seed: int = 0, options: dict[str, Any] | None = None,
             workers: int = 1, bootstrap: int = 200, out: str | Path | None = None,
             progress: bool = False) -> EvalResult:
    """Play ``games`` games against each opponent; with ``out``, write records, table, plot."""
    me = f"ppo:{checkpoint}"
    options = {k: v for k, v in (options or {}).items() if k != "num_players"}
    records: list[dict] = []
    per_opponent: dict[str, list[dict]] = {}
    for spec in opponents:
        t = T.Tournament(env_id, num_players, (me, *([spec] * (num_players - 1))), games, seed,
                         options)
        played = T.play(t, workers=workers, progress=progress)
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
                        table, records)
    if out is not None:
        out = Path(out)
        result.files = {"records": R.write_records(out / "records.jsonl", records)}
        heading = (f"{env_id}, {num_players}p: {Path(checkpoint).name} vs "
                   f"{', '.join(opponents)}, {games} games each")
        result.files.update(T.write_ratings(table, out, heading))
    return result
