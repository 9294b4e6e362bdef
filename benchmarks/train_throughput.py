"""Training throughput: the vector self-play path against the subprocess path it replaced.

Two tables, every row measured in the same run, the repeats going round all rows in turn (a
slow spell on a shared machine hits every row alike), medians shown; each ratio is the median of
the ratios within a repeat:

- **training**: learner decisions/s of ``MaskablePPO.learn`` (collection and updates) with the
  quick config's network, opponent mix and PPO settings, one frozen snapshot in the pool, for
  ``reference`` (the trainer before the vector env: 8 single-game envs in an SB3
  ``SubprocVecEnv``, the config's rollout shared among them (256 steps each), every opponent
  decided one observation at a time; kept here, and only here, as the yardstick, with
  sb3-contrib's ``MlpPolicy`` as then), ``vector serial`` (the trainer now: the config's games
  and steps, LOCO 256 x 8 and Moco! 128 x 16, in one process, its policy class from
  ``train.ppo.policy_network``: the same networks, with ``train.networks``' masked distribution,
  inverse-CDF sampling and numpy ``tanh``, fused Adam, and its rollout buffer) and ``vector
  shared memory`` (the same, the games in one slice per core: this process's and a worker's
  for each other core). The rollout is 2,048 decisions in every row;
  each row runs in a fresh process (spawned), whose peak resident memory (plus its children's,
  counted as many times as there are children) is reported too, and its CPU time with its
  workers' (decisions per CPU-second: on a shared machine the wall clock favours the row with
  more processes, which get more of the scheduler's time);
- **vector env**: random legal play through :func:`loco_envs.make_vec` at N = 1, 64, 256 games,
  against the single raw env playing the same way (``observe`` then ``step``, one core), and
  the shared-memory backend at N = 256 over all cores, per core. Each draws its uniform legal
  actions as cheaply as its form allows (one draw a row among the batch's legal indices found
  in one call; one draw among the legal indices for the single env), so the rates are the
  envs' more than the drawing's. A repeat plays its rows in turn in ten slices each (a game
  in progress goes on in the next slice), so a row and the single env it is divided by share
  the machine's slow spells, which here last seconds.

- **beside a busy process** (``--busy``): the jobs that suffer when thread pools fight, each
  with a pure-Python busy loop running beside it (another user's job on one core): training
  (``vector serial``, learner decisions/s) and a ``ppo:`` tournament (an untrained agent of the
  quick config's network against ``random``, ``--workers 2``, games/s including the workers'
  start), each with every process at one thread per core (what OpenBLAS and torch take unasked)
  and with the suite's setting (:mod:`loco_envs.core.threads`: ``--threads`` for training, each
  worker's share of the cores for the tournament).

Every row's process sets its BLAS and torch threads with ``--threads`` (default 1).

    python -m benchmarks.train_throughput                     # LOCO and Moco 2p
    python -m benchmarks.train_throughput --envs loco_v0 --updates 3 --repeats 5
    python -m benchmarks.train_throughput --only vector       # the vector-env table alone
    python -m benchmarks.train_throughput --envs loco_v0 --only busy --updates 1 --repeats 1
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import loco_envs
from loco_envs.core.threads import available_cores, set_threads

PATHS = ("reference", "vector serial", "vector shared memory")
VECTOR_SIZES = (1, 64, 256)
TABLES = ("training", "vector", "busy")
#: The jobs of the busy table, and the games of its tournament rows (under a minute each).
BUSY_JOBS = ("training", "ppo: tournament, --workers 2")
BUSY_GAMES = 16
SINGLE_ENV_LEVEL = "single raw env"


# ---------------------------------------------------------------------------------------------
# The reference: the trainer's collection before the vector env (one game per env, 8 processes)
def _reference_env_class():
    import gymnasium as gym
    from gymnasium import spaces

    from loco_envs.policy import transform_observation

    class ReferenceSelfPlayEnv(gym.Env):
        """One seat of one game against the pool, opponents decided one at a time."""

        def __init__(self, env_id: str, options: dict, pool: Any, obs_transform: str):
            self.raw = loco_envs.make(env_id, wrapped=False, **options)
            self.pool, self.obs_transform = pool, obs_transform
            size = self.raw.observation_size()
            self.observation_space = spaces.Box(0.0, 10.0, (size,), np.float32)
            self.action_space = spaces.Discrete(self.raw.game_class.NUM_ACTIONS)
            self.transform = transform_observation

        def reset(self, *, seed: int | None = None, options: dict | None = None):
            super().reset(seed=seed)
            rng, n = self.np_random, self.raw.num_players
            self.seat = int(rng.integers(n))
            self.agent = self.raw.possible_agents[self.seat]
            self.opponents = {s: int(self.pool.sample(rng, 1)[0]) for s in range(n)
                              if s != self.seat}
            self.raw.reset(seed=int(rng.integers(2**31 - 1)))
            self._play_opponents()
            return self._obs(), {}

        def step(self, action: int):
            self.raw.step(int(action))
            self._play_opponents()
            if self.raw.over:
                return self._obs(), float(self.raw.rewards[self.agent]), True, False, {}
            return self._obs(), 0.0, False, False, {}

        def action_masks(self) -> np.ndarray:
            return self.raw.observe(self.agent)["action_mask"].astype(bool)

        def add_snapshot(self, policy: Any) -> None:
            self.pool.add_snapshot(policy)

        def _play_opponents(self) -> None:
            raw, rng = self.raw, self.np_random
            while not raw.over and raw.agent_selection != self.agent:
                agent = raw.agent_selection
                code = self.opponents[raw.seat(agent)]
                if self.pool.is_snapshot(code):
                    obs = raw.observe(agent)
                    action = self.pool.policy(code).act_observation(
                        obs["observation"], obs["action_mask"], rng, temperature=1.0)
                else:
                    action = self.pool.bots[code].act(raw.view(agent), raw.game.legal_mask(),
                                                      rng)
                raw.step(action)

        def _obs(self) -> np.ndarray:
            return self.transform(self.raw.observe(self.agent)["observation"],
                                  self.obs_transform)

    return ReferenceSelfPlayEnv


def _reference_venv(args: Any):
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecMonitor

    from loco_envs.train.pool import OpponentPool

    cls = _reference_env_class()

    def thunk():
        pool = OpponentPool(args.opponent_mix, args.env_id, args.pool_size)
        return cls(args.env_id, args.play_options, pool, args.obs_transform)

    venv = SubprocVecEnv([thunk] * 8, start_method="fork")
    venv.seed(args.seed)
    return VecMonitor(venv)


# ---------------------------------------------------------------------------------------------
# Training rows (each in a spawned process)
def _training_row(task: tuple[str, str, str, int, int, int | None]) -> dict[str, float]:
    path, config, env_id, updates, seed, threads = task
    import torch  # noqa: F401 - imported before set_threads, which then sets its threads
    from sb3_contrib import MaskablePPO

    from loco_envs.train.networks import MaskedRolloutBuffer
    from loco_envs.train.ppo import Args, make_vec_env, parse_args, policy_network

    set_threads(threads)  # every row alike: BLAS and torch
    # The quick configs' from-scratch network, as the tables have always measured it (LOCO's
    # config now starts from a clone with action features: a bigger input, train/README.md).
    args: Args = parse_args([config, "--seed", str(seed), "--init-policy", "",
                             "--obs-transform", "log1p"])
    extra: dict[str, Any] = {}
    if path == "reference":
        args.num_envs, args.num_steps = 8, args.num_envs * args.num_steps // 8
        venv = _reference_venv(args)
        arch = list(args.net_arch)  # sb3-contrib's MlpPolicy, as the trainer built it then
        policy, policy_kwargs = "MlpPolicy", dict(net_arch=dict(pi=arch, vf=arch))
    else:
        args.backend = "serial" if path == "vector serial" else "shared_memory"
        venv = make_vec_env(args)
        policy, policy_kwargs = policy_network(args)  # the same networks, as the trainer now
        extra["rollout_buffer_class"] = MaskedRolloutBuffer  # and its buffer
    model = MaskablePPO(policy, venv, n_steps=args.num_steps, batch_size=args.batch_size,
                        n_epochs=args.update_epochs, learning_rate=args.learning_rate,
                        gamma=args.gamma, gae_lambda=args.gae_lambda, ent_coef=args.ent_coef,
                        seed=seed, device="cpu", policy_kwargs=policy_kwargs, **extra)
    from loco_envs.train.torch_policy import from_sb3

    snapshot = from_sb3(model.policy, args.obs_transform)
    if path == "reference":
        venv.env_method("add_snapshot", snapshot)
    else:
        venv.venv.add_snapshot(snapshot)
    rollout = args.num_envs * args.num_steps
    model.learn(rollout)  # warm-up: process start, first resets, first update
    pids = _worker_pids(venv.venv)
    start, cpu = time.perf_counter(), _cpu_seconds(pids)
    model.learn(updates * rollout, reset_num_timesteps=False)
    seconds, cpu = time.perf_counter() - start, _cpu_seconds(pids) - cpu
    venv.close()
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"decisions_per_s": updates * rollout / seconds,
            "decisions_per_cpu_s": updates * rollout / cpu,
            "peak_mb": me + len(pids) * kids}


def _worker_pids(venv: Any) -> list[int]:
    """The collection processes of a vec env (SB3's subprocesses, or the vector env's)."""
    if hasattr(venv, "processes"):
        return [p.pid for p in venv.processes]
    return venv.vec.worker_pids


def _cpu_seconds(pids: list[int]) -> float:
    """CPU time of this process and of ``pids`` (user + system, from /proc on Linux)."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


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
        task = ("vector serial", config, row["env"], updates, seed, row["threads"])
        result = _in_fresh_process(ctx, task, busy=True)
        return {"rate": result["decisions_per_s"]}
    task = (config, row["env"], seed, row["threads"], BUSY_GAMES)
    return _in_fresh_process(ctx, task, _tournament_row, busy=True)


# ---------------------------------------------------------------------------------------------
# Vector env rows (in this process)
#: Each repeat of the vector-env table plays its rows in turn, this many slices each, so that a
#: row and the single env it is compared with are measured within seconds of each other.
SLICES = 10


class _RandomPlay:
    """Uniform random legal play in one row's env (``vec``; ``None``: the single raw env),
    run slice by slice (:meth:`play`), the game in progress kept between slices."""

    def __init__(self, env_id: str, vec: Any):
        self.vec = vec
        self.env = loco_envs.make(env_id, wrapped=False, num_players=2) if vec is None else None
        self.rng = np.random.default_rng(0)
        self.game = 0

    def start(self, seed: int) -> None:
        """A repeat's start: the same games in every repeat."""
        self.rng = np.random.default_rng(seed)
        self.game = seed
        if self.vec is not None:
            self.vec.reset(seed=seed)
        else:
            self.env.reset(seed=seed)

    def play(self, seconds: float) -> tuple[int, float]:
        """(decisions, elapsed seconds) of play for ``seconds``."""
        step = self._single_decision if self.vec is None else self._vector_step
        decisions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            decisions += step()
        return decisions, time.perf_counter() - start

    def _single_decision(self) -> int:
        env = self.env
        if env.over:
            self.game += 1
            env.reset(seed=self.game)
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[int(self.rng.random() * legal.size)]))  # cheaper than integers()
        return 1

    def _vector_step(self) -> int:
        self.vec.step(_uniform_legal(self.vec.masks, self.rng))
        return self.vec.num_envs


def _uniform_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per row of ``masks`` (each row has one at least).

    The legal entries of all rows in one flat, row-major index list; row ``i``'s are a run
    of ``counts[i]`` of them, and one uniform draw a row picks within its run. (A bool view
    is used because ``flatnonzero`` is ten times faster on it than on ``int8``.)
    """
    legal = np.flatnonzero(masks.view(np.bool_))
    counts = masks.sum(axis=1, dtype=np.int64)
    ends = np.cumsum(counts)
    picks = legal[ends - 1 - (rng.random(len(counts)) * counts).astype(np.int64)]
    return picks - np.arange(len(counts)) * masks.shape[1]


def _vector_repeat(rows: list[dict], seconds: float, seed: int) -> None:
    """One repeat of the vector-env rows: ``seconds`` each, in ``SLICES`` interleaved slices."""
    totals = [[0, 0.0] for _ in rows]
    for row in rows:
        row["player"].start(seed)
    for _ in range(SLICES):
        for row, total in zip(rows, totals, strict=True):
            decisions, elapsed = row["player"].play(seconds / SLICES)
            total[0] += decisions
            total[1] += elapsed
    for row, (decisions, elapsed) in zip(rows, totals, strict=True):
        row["samples"].append({"decisions_per_s": decisions / elapsed})


def _vector_rows(env_id: str) -> list[tuple[str, int, Any]]:
    cores = os.cpu_count() or 1
    rows: list[tuple[str, int, Any]] = [(SINGLE_ENV_LEVEL, 1, None)]
    for n in VECTOR_SIZES:
        rows.append((f"make_vec N={n}, serial", 1,
                     loco_envs.make_vec(env_id, n, num_players=2)))
    rows.append((f"make_vec N=256, shared memory ({cores} processes)", cores,
                 loco_envs.make_vec(env_id, 256, backend="shared_memory", num_workers=cores,
                                    num_players=2)))
    return rows


# ---------------------------------------------------------------------------------------------
def measure(envs: list[str], updates: int, repeats: int, seconds: float, seed: int,
            only: tuple[str, ...] = ("training", "vector"),
            threads: int | None = 1) -> tuple[list[dict], list[dict], list[dict]]:
    """The rows of the tables in ``only`` (training and vector by default), the repeats
    interleaved."""
    from tqdm import tqdm

    configs = {env_id: str(Path("configs") / f"{env_id.removesuffix('_v0')}_quick.yaml")
               for env_id in envs}
    training = [{"env": env_id, "path": path, "samples": []} for env_id in envs
                for path in PATHS if "training" in only]
    vector = [{"env": env_id, "level": name, "cores": cores, "vec": vec,
               "player": _RandomPlay(env_id, vec), "samples": []}
              for env_id in envs if "vector" in only
              for name, cores, vec in _vector_rows(env_id)]
    busy = _busy_rows(envs, threads) if "busy" in only else []
    ctx = multiprocessing.get_context("spawn")
    total = repeats * (len(training) + len(vector) + len(busy))
    with tqdm(total=total, desc="train throughput", unit="run", file=sys.stderr) as bar:
        for _ in range(repeats):
            for env_id in envs:
                rows = [row for row in vector if row["env"] == env_id]
                _vector_repeat(rows, seconds, seed)
                bar.update(len(rows))
            for row in training:
                task = (row["path"], configs[row["env"]], row["env"], updates, seed, threads)
                row["samples"].append(_in_fresh_process(ctx, task))
                bar.update()
            for row in busy:
                row["samples"].append(_busy_sample(row, ctx, configs[row["env"]], updates, seed))
                bar.update()
    for row in vector:
        if row["vec"] is not None:
            row["vec"].close()
        del row["vec"], row["player"]
    for row in training:
        ref = next(r for r in training if r["env"] == row["env"] and r["path"] == "reference")
        row["vs_reference"] = _paired_median(row, ref, "decisions_per_s")
        row["cpu_vs_reference"] = _paired_median(row, ref, "decisions_per_cpu_s")
    for row in vector:
        single = next(r for r in vector
                      if r["env"] == row["env"] and r["level"] == SINGLE_ENV_LEVEL)
        row["vs_single"] = _paired_median(row, single, "decisions_per_s") / row["cores"]
    for row in busy:
        base = next(r for r in busy if r["env"] == row["env"] and r["job"] == row["job"])
        row["vs_one_per_core"] = _paired_median(row, base, "rate")
    for row in training + vector + busy:
        samples = row.pop("samples")
        for key in samples[0]:
            row[key] = statistics.median(s[key] for s in samples)
    return training, vector, busy


def _paired_median(row: dict, base: dict, key: str) -> float:
    """The median over the repeats of ``row``'s rate over ``base``'s in the same repeat.

    The rows of one repeat run minutes apart at most, so a slow spell of a shared machine
    mostly hits both sides of a ratio; the ratio of two medians would pair different spells.
    """
    return statistics.median(a[key] / b[key]
                             for a, b in zip(row["samples"], base["samples"], strict=True))


def tables(training: list[dict], vector: list[dict], busy: list[dict] = ()) -> str:
    """The measured tables as Markdown (a table without rows is left out)."""
    blocks = []
    if training:
        lines = ["| game | path | learner decisions/s | vs reference | decisions per CPU-second "
                 "| vs reference | peak memory (MB) |", "|---|---|---:|---:|---:|---:|---:|"]
        for row in training:
            lines.append(f"| {row['env']} 2p | {row['path']} | {row['decisions_per_s']:,.0f} | "
                         f"{row['vs_reference']:.2f}x | {row['decisions_per_cpu_s']:,.0f} | "
                         f"{row['cpu_vs_reference']:.2f}x | {row['peak_mb']:,.0f} |")
        blocks.append("\n".join(lines))
    if vector:
        lines = ["| game | level | decisions/s | per core | per core vs single raw env |",
                 "|---|---|---:|---:|---:|"]
        for row in vector:
            per_core = row["decisions_per_s"] / row["cores"]
            lines.append(f"| {row['env']} 2p | {row['level']} | {row['decisions_per_s']:,.0f} | "
                         f"{per_core:,.0f} | {row['vs_single']:.2f}x |")
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
    parser.add_argument("--updates", type=int, default=2,
                        help="timed PPO updates (rollouts of 2048 decisions) per training run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (median shown)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall time of one vector-env row in one repeat (played in slices)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=TABLES, nargs="+", default=["training", "vector"],
                        help="the tables to measure (default: training and vector)")
    parser.add_argument("--busy", action="store_true",
                        help="also the table of training and a ppo: tournament with a busy "
                             "process beside them")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS and torch threads of every training row (2 on an idle "
                             "2-core machine speeds the PPO update; default 1)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.envs) - set(loco_envs.available_envs()))
    if unknown:
        parser.error(f"unknown env id(s) {unknown}; available: {loco_envs.available_envs()}")
    if args.updates < 1 or args.repeats < 1 or args.seconds <= 0 or args.threads < 1:
        parser.error("--updates, --repeats and --threads must be >= 1, --seconds > 0")
    set_threads(args.threads)  # the vector-env table is played in this process
    only = tuple(dict.fromkeys([*args.only, *(["busy"] if args.busy else [])]))
    load = os.getloadavg()
    tables_ = measure(args.envs, args.updates, args.repeats, args.seconds, args.seed, only,
                      args.threads)
    print(tables(*tables_))
    print(f"\n{os.cpu_count()} cores; load average {load[0]:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end (other processes share the machine)")


if __name__ == "__main__":
    main()
