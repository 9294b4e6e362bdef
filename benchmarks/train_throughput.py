"""Training throughput: the trainer on each quick config against the Python raw env.

Two tables, every row measured in the same run, the repeats going round all rows in turn (a
slow spell on a shared machine hits every row alike), medians shown; each ratio is the median of
the ratios within a repeat:

- **training**: learner decisions/s of the trainer, :func:`train.ppo.train` on the game's quick
  config (``configs/<game>_quick.yaml``: its games and steps, network, features, opponent mix
  and PPO settings, on the compiled engine), whole: collection, opponents, PPO updates and
  logging, the first rollout included, in a fresh (spawned) process with each vector-env
  backend (``serial``: the games in the learner's process; ``shared_memory``: one slice per
  core) and, where the config has action features, each network: ``flat`` (hidden layers
  over the observation and every action's features), its first layers ``folded`` (the
  trainer's default, :mod:`loco_envs.policy.folding`: the same arithmetic over the input's
  distinct columns) or with the ``full products``, and ``scorer`` (the action scorer of
  :mod:`train.networks` and the feature shortcut: the hidden layers over the observation
  alone, one small network shared by the actions; the config's ``action_scorer`` width, else
  :data:`SCORER_WIDTH`).
  Left out: the warm-start clone (the network is the same, its weights start fresh),
  evaluations and intermediate checkpoints. Each row is divided by the **Python raw env**
  of the same game (``observe`` then ``step`` with uniform random legal actions, one core,
  :func:`benchmarks.throughput.aec_game`) measured in the same repeat: the yardstick of the
  trainer's throughput target. Peak memory is the learner's resident peak plus its largest
  worker's.
- **beside a busy process** (``--busy``): the jobs that suffer when thread pools fight, each
  with a pure-Python busy loop running beside it (another user's job on one core): training
  (``serial``, learner decisions/s) and a ``ppo:`` tournament (an untrained agent of the quick
  config's network against ``random``, ``--workers 2``, games/s including the workers' start),
  each with every process at one thread per core (what OpenBLAS and torch take unasked) and
  with the suite's setting (:mod:`loco_envs.core.threads`: ``--threads`` for training, each
  worker's share of the cores for the tournament).

Every training row sets its BLAS and torch threads with ``--threads`` (default: its share of
the cores, as the trainer does). ``--trainer-args`` adds trainer flags to every training row
(on a GPU machine: the device and rollouts wide enough to feed it); a row that trained on a
GPU says so in its label (the trainer's ``device: auto`` takes one wherever torch sees it).

    python -m benchmarks.train_throughput                     # LOCO and Moco! 2p
    python -m benchmarks.train_throughput --envs loco_v0 --updates 20 --repeats 5
    python -m benchmarks.train_throughput --envs loco_v0 --only busy --updates 2 --repeats 1
    python -m benchmarks.train_throughput --envs loco_v0 \
        --trainer-args "--device cuda --num-envs 8192 --batch-size 16384"   # a GPU machine
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import loco_envs
from loco_envs.core.threads import available_cores, set_threads

BACKENDS = ("serial", "shared_memory")
TABLES = ("training", "busy")
#: The jobs of the busy table, and the games of its tournament rows (under a minute each).
BUSY_JOBS = ("training", "ppo: tournament, --workers 2")
BUSY_GAMES = 16
#: The action scorer's width in a ``scorer`` row of a config that names none.
SCORER_WIDTH = 8


# ---------------------------------------------------------------------------------------------
# Training rows (each in a spawned process)
def _training_row(task: tuple[str, str, int, int, int | None, tuple[str, ...]]
                  ) -> dict[str, float]:
    """The trainer on ``config`` (with the command-line ``overrides``) for ``updates``
    rollouts with ``backend``: its learner decisions/s
    (:attr:`train.ppo.TrainResult.decisions_per_second`) and peak memory."""
    backend, config, updates, seed, threads, overrides = task
    from loco_envs.train.ppo import parse_args, train
    from loco_envs.train.torch_policy import resolve_device

    with tempfile.TemporaryDirectory() as runs:
        args = parse_args([config, "--seed", str(seed), "--init-policy", "", "--backend",
                           backend, "--runs-dir", runs, "--eval-every", "0",
                           "--final-eval-games", "0", "--checkpoint-every", "0",
                           "--progress-bar", "false", *overrides])
        args.threads = threads
        args.total_timesteps = updates * args.num_envs * args.num_steps
        result = train(args)
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"decisions_per_s": result.decisions_per_second, "peak_mb": me + worker,
            "device": resolve_device(args.device)}


def _tournament_row(task: tuple[str, str, int, int | None, int]) -> dict[str, float]:
    """Games/s of a ``ppo:`` tournament (2 workers, each with ``threads``; ``None``: its
    share) between an untrained agent of the quick config's network and ``random``."""
    import torch

    from loco_envs.benchmarks import tournament as T
    from loco_envs.policy import save_policy, transform_observation
    from loco_envs.train.imitation import actor_policy, build_networks
    from loco_envs.train.ppo import parse_args

    config, env_id, seed, threads, games = task
    set_threads(threads)
    args = parse_args([config, "--seed", str(seed), "--init-policy", ""])
    raw = loco_envs.make(env_id, wrapped=False, **args.env_kwargs)
    width = transform_observation(np.zeros((1, raw.observation_size()), np.float32),
                                  args.obs_transform).shape[1]
    torch.manual_seed(seed)
    actor, _ = build_networks(width, raw.game_class.NUM_ACTIONS, args.net_arch, args.activation)
    policy = actor_policy(actor, args.obs_transform)
    with tempfile.TemporaryDirectory() as folder:
        path = save_policy(Path(folder) / "agent", policy,
                           {"env_id": env_id, "env_options": args.env_kwargs})
        t = T.Tournament(env_id, args.num_players, (f"ppo:{path}", "random"), games, seed,
                         {"max_decisions": args.max_decisions})
        start = time.perf_counter()
        T.play(t, workers=2, progress=False, threads=threads)
        seconds = time.perf_counter() - start
    return {"rate": games / seconds}


def _busy_loop() -> None:
    """Another user's job on one core: a pure-Python spin, until it is terminated."""
    while True:
        pass


def _child(queue: Any, row: Any, task: tuple) -> None:
    queue.put(row(task))


def _in_fresh_process(ctx: Any, task: tuple, row: Any = _training_row,
                      busy: bool = False) -> dict[str, float]:
    """One row in a spawned (non-daemon: it starts workers of its own) process, with a busy
    process beside it while it runs when ``busy``."""
    spinner = ctx.Process(target=_busy_loop, daemon=True) if busy else None
    if spinner is not None:
        spinner.start()
    try:
        queue = ctx.Queue()
        proc = ctx.Process(target=_child, args=(queue, row, task))
        proc.start()
        result = queue.get()
        proc.join()
    finally:
        if spinner is not None:
            spinner.terminate()
            spinner.join()
    return result


def _busy_rows(envs: list[str], threads: int | None) -> list[dict]:
    """The busy table's rows: each job at one thread per core, then with the suite's setting."""
    cores = available_cores()
    rows = []
    for env_id in envs:
        for job, setting in zip(BUSY_JOBS, (threads, None), strict=True):
            suite = "each process's share" if setting is None else str(setting)
            for count, label in ((cores, f"{cores}, one per core"), (setting, suite)):
                rows.append({"env": env_id, "job": job, "threads": count, "label": label,
                             "samples": []})
    return rows


def _busy_sample(row: dict, ctx: Any, config: str, updates: int, seed: int) -> dict:
    if row["job"] == "training":
        task = ("serial", config, updates, seed, row["threads"], ())
        result = _in_fresh_process(ctx, task, busy=True)
        return {"rate": result["decisions_per_s"]}
    task = (config, row["env"], seed, row["threads"], BUSY_GAMES)
    return _in_fresh_process(ctx, task, _tournament_row, busy=True)


# ---------------------------------------------------------------------------------------------
def measure(envs: list[str], updates: int, repeats: int, seconds: float, seed: int,
            only: tuple[str, ...] = ("training",), threads: int | None = None,
            trainer_args: tuple[str, ...] = ()) -> tuple[list[dict], list[dict]]:
    """The rows of the tables in ``only`` (training by default), the repeats interleaved:
    in each repeat, each game's Python raw env plays for ``seconds`` in this process, then
    its training rows run, each with the trainer's flags ``trainer_args`` after its own."""
    from tqdm import tqdm

    from loco_envs.benchmarks.throughput import aec_game, run_for

    configs = {env_id: _quick_config(env_id) for env_id in envs}
    training = [{"env": env_id, "backend": backend, "network": network, "overrides": overrides,
                 "samples": []}
                for env_id in envs for backend in BACKENDS if "training" in only
                for network, overrides in _networks(configs[env_id]).items()]
    raw = {env_id: {"play": aec_game(env_id, 2, seed, wrapped=False), "samples": []}
           for env_id in envs if "training" in only}
    busy = _busy_rows(envs, threads) if "busy" in only else []
    ctx = multiprocessing.get_context("spawn")
    total = repeats * (len(training) + len(raw) + len(busy))
    with tqdm(total=total, desc="train throughput", unit="run", file=sys.stderr) as bar:
        for _ in range(repeats):
            for yardstick in raw.values():
                yardstick["play"](0)  # warm: the first deal made
                yardstick["samples"].append({"decisions_per_s": run_for(
                    seconds, yardstick["play"])[0]})
                bar.update()
            for row in training:
                task = (row["backend"], configs[row["env"]], updates, seed, threads,
                        (*row["overrides"], *trainer_args))
                row["samples"].append(_in_fresh_process(ctx, task))
                bar.update()
            for row in busy:
                row["samples"].append(_busy_sample(row, ctx, configs[row["env"]], updates, seed))
                bar.update()
    for row in training:
        yardstick = raw[row["env"]]
        row["vs_raw_env"] = _paired_median(row, yardstick, "decisions_per_s")
        row["raw_env_per_s"] = statistics.median(
            r["decisions_per_s"] for r in yardstick["samples"])
    for row in busy:
        base = next(r for r in busy if r["env"] == row["env"] and r["job"] == row["job"])
        row["vs_one_per_core"] = _paired_median(row, base, "rate")
    for row in training + busy:
        row.pop("overrides", None)
        samples = row.pop("samples")
        row["device"] = samples[0].get("device", "cpu")
        for key in (key for key in samples[0] if key != "device"):
            row[key] = statistics.median(s[key] for s in samples)
    return training, busy


def _quick_config(env_id: str) -> str:
    """The path of the game's quick config (``configs/<game>_quick.yaml``)."""
    return str(Path("configs") / f"{env_id.removesuffix('_v0')}_quick.yaml")


def _networks(config: str) -> dict[str, tuple[str, ...]]:
    """The networks measured for ``config``: ``flat``; where it has action features, the flat
    network folded (the trainer's default) and with the full products (``fold_inputs:
    false``), and ``scorer`` (with the feature shortcut; its own ``action_scorer`` width,
    else :data:`SCORER_WIDTH`)."""
    from loco_envs.policy import transform_extra_size
    from loco_envs.train.ppo import parse_args

    args = parse_args([config])
    if not transform_extra_size(args.obs_transform):
        return {"flat": ()}
    width = args.action_scorer or SCORER_WIDTH
    flat = ("--action-scorer", "0", "--feature-shortcut", "false")
    return {"flat (folded)": (*flat, "--fold-inputs", "true"),
            "flat (full products)": (*flat, "--fold-inputs", "false"),
            "scorer": ("--action-scorer", str(width), "--feature-shortcut", "true")}


def _paired_median(row: dict, base: dict, key: str) -> float:
    """The median over the repeats of ``row``'s rate over ``base``'s in the same repeat.

    The rows of one repeat run minutes apart at most, so a slow spell of a shared machine
    mostly hits both sides of a ratio; the ratio of two medians would pair different spells.
    """
    return statistics.median(a[key] / b[key]
                             for a, b in zip(row["samples"], base["samples"], strict=True))


def tables(training: list[dict], busy: list[dict] = ()) -> str:
    """The measured tables as Markdown (a table without rows is left out)."""
    blocks = []
    if training:
        lines = ["| game | trainer, backend, network | learner decisions/s "
                 "| Python raw env decisions/s | vs Python raw env | peak memory (MB) |",
                 "|---|---|---:|---:|---:|---:|"]
        for row in training:
            device = "" if row.get("device", "cpu") == "cpu" else f" on {row['device']}"
            lines.append(f"| {row['env']} 2p | quick config, {row['backend']}, "
                         f"{row['network']} network{device} | "
                         f"{row['decisions_per_s']:,.0f} | {row['raw_env_per_s']:,.0f} | "
                         f"{row['vs_raw_env']:.3f} | {row['peak_mb']:,.0f} |")
        blocks.append("\n".join(lines))
    if busy:
        lines = ["| game | job, a busy process beside | threads per process | rate "
                 "| vs one per core |", "|---|---|---|---:|---:|"]
        for row in busy:
            unit = "decisions/s" if row["job"] == "training" else "games/s"
            lines.append(f"| {row['env']} 2p | {row['job']} | {row['label']} | "
                         f"{row['rate']:,.2f} {unit} | {row['vs_one_per_core']:.2f}x |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=["loco_v0", "moco_v0"],
                        help="env ids (2 players, configs/<game>_quick.yaml)")
    parser.add_argument("--updates", type=int, default=10,
                        help="rollouts of each training run (each the config's games x "
                             "steps: loco_quick 8,192 decisions, moco_quick 2,048)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (median shown)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall time of the Python raw env in one repeat")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=TABLES, nargs="+", default=["training"],
                        help="the tables to measure (default: training)")
    parser.add_argument("--busy", action="store_true",
                        help="also the table of training and a ppo: tournament with a busy "
                             "process beside them")
    parser.add_argument("--threads", type=int, default=None,
                        help="BLAS and torch threads of every training row (default: its "
                             "share of the cores, the trainer's default)")
    parser.add_argument("--trainer-args", default="",
                        help="trainer flags for every training row, after the row's own, "
                             "e.g. on a GPU machine \"--device cuda --num-envs 8192 "
                             "--batch-size 16384\" (default: the quick configs as they are)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.envs) - set(loco_envs.available_envs()))
    if unknown:
        parser.error(f"unknown env id(s) {unknown}; available: {loco_envs.available_envs()}")
    if args.updates < 1 or args.repeats < 1 or args.seconds <= 0 or (
            args.threads is not None and args.threads < 1):
        parser.error("--updates, --repeats and --threads must be >= 1, --seconds > 0")
    trainer_args = tuple(shlex.split(args.trainer_args))
    _check_trainer_args(parser, args.envs, trainer_args)  # imports the trainer: checked last
    set_threads(1)  # the Python raw env is played in this process, on one core
    only = tuple(dict.fromkeys([*args.only, *(["busy"] if args.busy else [])]))
    load = os.getloadavg()
    tables_ = measure(args.envs, args.updates, args.repeats, args.seconds, args.seed, only,
                      args.threads, trainer_args)
    print(tables(*tables_))
    if trainer_args:
        print(f"\ntrainer flags of every training row: {shlex.join(trainer_args)}")
    print(f"\n{os.cpu_count()} cores; load average {load[0]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end (other processes share the machine)")


def _check_trainer_args(parser: argparse.ArgumentParser, envs: list[str],
                        trainer_args: tuple[str, ...]) -> None:
    """Refuse, before any row runs, trainer flags that a quick config of ``envs`` would not
    take (the trainer's own ``ValueError``, naming the key)."""
    from loco_envs.train.ppo import parse_args

    for env_id in envs:
        try:
            parse_args([_quick_config(env_id), *trainer_args])
        except ValueError as error:
            parser.error(f"--trainer-args: {error}")


if __name__ == "__main__":
    main()
