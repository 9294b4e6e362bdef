"""Ship a trained policy as a ready-made agent (``<game>/ppo``, ``loco/ppo-4p``) and record its
evaluation.

    python -m train.ship runs/<run>/checkpoints/final.npz loco/ppo \\
        --opponents random loco/heuristic loco/heuristic-strong --games 1000

copies the policy files (``.npz`` + ``.json``, and nothing else: no SB3 zip) to
``agents/pretrained/<name>`` (:data:`agents.PRETRAINED`), then plays the shipped agent, as
``agents.make(spec)`` builds it (at its :data:`agents.PRETRAINED_TEMPERATURE`),
against each opponent through the tournament runner: seats rotated on every deal (the
duplicate format), games capped at ``train.evaluate.DEFAULT_MAX_DECISIONS`` and scored as ties, 95%
bootstrap intervals over deals. The table goes into the JSON's ``provenance.evaluation``, with
the source's provenance (config, seed, decisions) kept and the source path added to the config.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from loco_envs import agents
from loco_envs.core.files import atomic_write_bytes
from loco_envs.policy import load_policy, policy_paths, save_policy
from loco_envs.train.warmstart import clone_record, policy_of

__all__ = ["evaluate_spec", "main", "ship"]


def evaluate_spec(spec: str, env_id: str, num_players: int, opponents: Sequence[str],
                  games: int, seed: int, options: dict[str, Any], workers: int) -> dict:
    """Win rate (95% interval) of ``spec`` against each opponent, duplicate format."""
    from loco_envs.benchmarks import ratings as R
    from loco_envs.benchmarks import tournament as T
    from loco_envs.train.evaluate import DEFAULT_MAX_DECISIONS

    table: dict[str, Any] = {}
    capped = 0
    start = time.perf_counter()
    options = {"max_decisions": DEFAULT_MAX_DECISIONS, **options}
    for opponent in opponents:
        t = T.Tournament(env_id, num_players, (spec, *[opponent] * (num_players - 1)), games,
                         seed, options)
        records = T.play(t, workers, progress=False)
        capped += sum(r["capped"] for r in records)
        mine = next(r for r in R.compute_ratings(records, bootstrap=1000, seed=seed)
                    if r.agent == spec)
        table[opponent] = {"rate": round(mine.win_rate, 4), "low": round(mine.win_rate_low, 4),
                           "high": round(mine.win_rate_high, 4)}
        print(f"{spec} vs {opponent}: {mine.win_rate:.3f} ({mine.win_rate_low:.3f}-"
              f"{mine.win_rate_high:.3f})", file=sys.stderr)
    return {"games_per_opponent": games, "seed": seed,
            "format": "tournament runner, seats rotated on each deal (duplicate); "
                      f"games stopped at {options['max_decisions']} decisions count as ties",
            "play": play_mode(spec),
            "win_rate": table, "capped_games": capped,
            "seconds": round(time.perf_counter() - start, 1)}


def play_mode(spec: str) -> str:
    """How a shipped agent picks its move, as its evaluation table records it."""
    temperature = agents.PRETRAINED_TEMPERATURE[spec]
    if temperature == 0:
        return "greedy"
    return "sampling" if temperature == 1 else f"sampling at temperature {temperature:g}"


def ship(source: str | Path, spec: str, opponents: Sequence[str], games: int, seed: int = 2026,
         workers: int = 2, keep_evaluation: bool = False) -> Path:
    """Copy ``source`` to the shipped files of ``spec``, evaluate it there, record the table.

    ``keep_evaluation``: keep the source's own evaluation table instead (the trainer's final
    evaluation: duplicate format, sampling), when the shipped agent samples too.
    """
    if spec not in agents.PRETRAINED:
        raise ValueError(f"{spec!r} is not a shipped agent; known: {sorted(agents.PRETRAINED)}")
    src_npz, src_json = policy_paths(source)
    policy, doc = load_policy(src_npz)
    if doc["env_id"].removesuffix("_v0") != spec.split("/")[0]:
        raise ValueError(f"{source} plays {doc['env_id']}, not the game of {spec}")
    prov = doc["provenance"]
    config = with_method(dict(prov.get("config") or {}))  # before anything is copied
    if keep_evaluation and (agents.PRETRAINED_TEMPERATURE[spec] != 1
                            or not prov.get("evaluation")):
        raise ValueError(f"--keep-evaluation: {source} has no evaluation table, or {spec} "
                         f"plays {play_mode(spec)} and the table is of plain sampling")
    dest = agents.PRETRAINED_DIR / agents.PRETRAINED[spec]
    dest_npz, dest_json = policy_paths(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shipped = {path: path.read_bytes() for path in (dest_npz, dest_json) if path.is_file()}
    options = {k: v for k, v in doc["env_options"].items() if k != "num_players"}
    try:  # copied, evaluated where agents.make finds it, recorded: all of it or none
        shutil.copyfile(src_npz, dest_npz)
        shutil.copyfile(src_json, dest_json)
        if keep_evaluation:
            evaluation = _table_of(prov["evaluation"])
        else:
            evaluation = evaluate_spec(spec, doc["env_id"], doc["env_options"]["num_players"],
                                       opponents, games, seed, options, workers)
        config["shipped_from"] = str(source)
        meta = {"env_id": doc["env_id"], "env_options": doc["env_options"], "config": config,
                "seed": prov.get("seed"), "decisions": prov.get("decisions"),
                "evaluation": evaluation}
        return save_policy(dest, policy, meta)
    except BaseException:  # a failure or an interrupt leaves the old agent shipped
        for path in (dest_npz, dest_json):
            if path in shipped:
                atomic_write_bytes(path, shipped[path])
            else:
                path.unlink(missing_ok=True)
        raise


def with_method(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with ``method`` named and, for a warm-started PPO run, the warm start's own
    provenance (config, seed, decisions) under ``warm_start``: the whole recipe in one file."""
    if "method" in config:
        return config
    init = config.get("init_policy")
    if not init:
        return {"method": "self-play PPO (python -m train)", **config}
    method = ("behaviour cloning (python -m train.imitation), then self-play PPO (python -m "
              "train) from it")
    if "warm_start" in config:  # recorded by the trainer when the run started
        return {"method": method, **config}
    # a run of a trainer before that record: the clone as it is now
    start = clone_record(policy_of(init, config.get("runs_dir", "runs")))
    return {"method": method, **config, "warm_start": {k: v for k, v in start.items()
                                                       if k != "policy"}}


def _table_of(evaluation: dict[str, Any]) -> dict[str, Any]:
    """The trainer's evaluation summary (``train.evaluate.EvalResult.summary``) as our table."""
    if "win_rate" in evaluation:  # already one (train.imitation writes these)
        return evaluation
    rates = evaluation["win_rates"]
    return {"games_per_opponent": evaluation["games"] // len(rates),
            "format": "train.evaluate: tournament runner, seats rotated on each deal "
                      "(duplicate); capped games count as ties",
            "play": "sampling",
            "win_rate": {spec: {"rate": r, "low": lo, "high": hi}
                         for spec, (r, lo, hi) in rates.items()},
            "elo": evaluation.get("elo"), "capped_games": evaluation.get("capped", 0)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.ship", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="the policy to ship (.npz + .json)")
    parser.add_argument("spec", choices=sorted(agents.PRETRAINED))
    parser.add_argument("--opponents", nargs="+", default=["random"])
    parser.add_argument("--games", type=int, default=1000, help="games per opponent")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep-evaluation", action="store_true",
                        help="record the source's own evaluation table instead of playing")
    args = parser.parse_args(argv)
    try:
        path = ship(args.source, args.spec, args.opponents, args.games, args.seed, args.workers,
                    args.keep_evaluation)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
