"""Self-play PPO with action masks (sb3-contrib ``MaskablePPO``) for any game of the suite.

Run a config, override any of its keys with flags, watch it in TensorBoard::

    python -m train configs/loco_quick.yaml
    python -m train configs/moco_quick.yaml --seed 2 --total-timesteps 100000
    tensorboard --logdir runs

How it works. Each of ``num_envs`` collection processes holds a :class:`train.selfplay.SelfPlayEnv`:
the learner takes a random seat each episode and the other seats are filled from the opponent
pool (:mod:`train.pool`): bots and frozen snapshots of the learner, drawn with the weights of
``opponent_mix``. Every ``snapshot_every`` updates the current actor is copied (as numpy arrays)
into every process's pool. Rewards are the env's, paid at the end of the game only.

What a run writes, under ``runs/<env>__<exp>__<seed>__<time>/``:

- TensorBoard scalars: ``charts/`` (episodic return and length, first-place rate against the
  pool, SPS, learning rate, snapshots), ``losses/`` (policy, value, entropy, approx KL, clip
  fraction, explained variance) and ``eval/`` (``winrate_vs_<bot>`` per opponent and ``elo``);
  the hyperparameters as a text table;
- ``checkpoints/ppo_<steps>.zip`` + ``.json`` sidecar every ``checkpoint_every`` updates,
  ``checkpoints/final.zip`` at the end, and ``snapshots.npz`` next to each (the frozen pool),
  so ``--resume <checkpoint>`` goes on where it stopped;
- ``eval/``: the final evaluation's match records, ratings table and plot.

A checkpoint plays as a bot: ``agents.make("ppo:runs/.../checkpoints/final.zip")``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import loco_envs
from train.config import field_docs, load_config, parse_overrides
from train.evaluate import MAX_DECISIONS, EvalResult, evaluate, resolve_opponent
from train.policy import (
    OBS_TRANSFORMS,
    NumpyPolicy,
    checkpoint_paths,
    read_sidecar,
    save_checkpoint,
)
from train.pool import check_mix


@dataclass
class Args:
    exp_name: str = ""
    """name of the experiment (default: the config file's name, else 'ppo')"""
    env_id: str = "loco_v0"
    """the game: loco_v0, moco_v0, momo_v0 or mampfos_v0"""
    num_players: int = 2
    """players per game (the learner holds one seat)"""
    env_options: dict[str, Any] = field(default_factory=dict)
    """other env options, e.g. {rounds: 3} for LOCO (not num_players)"""
    seed: int = 1
    """seed of everything: torch, the collection envs (seed + i), evaluation"""
    torch_deterministic: bool = True
    """cudnn deterministic mode (CPU training is deterministic anyway)"""
    torch_threads: int = 1
    """torch threads in the learner process (the collection processes use the other cores)"""
    total_timesteps: int = 200_000
    """learner decisions to train on"""
    num_envs: int = 4
    """parallel collection envs"""
    vec_env: str = "subproc"
    """'subproc' (one process per env, across the cores) or 'dummy' (all in this process)"""
    num_steps: int = 512
    """decisions collected per env per update (rollout = num_envs * num_steps)"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    gamma: float = 0.995
    """discount (rewards come only at the end of a game)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    batch_size: int = 256
    """minibatch size of the PPO update"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """PPO clipping coefficient"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value-loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float | None = None
    """stop an update's epochs early past this approx KL (null: never)"""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layer sizes of the policy and value networks (separate networks)"""
    activation: str = "tanh"
    """hidden activation: tanh or relu"""
    obs_transform: str = "log1p"
    """observation transform before the network: log1p (tames counts) or none"""
    opponent_mix: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    """opponent kinds and weights: agent specs ('random', '<game>/heuristic') and 'snapshot'"""
    snapshot_every: int = 5
    """updates between frozen snapshots of the learner added to the pool (0: none)"""
    pool_size: int = 5
    """newest snapshots kept in the pool"""
    max_learner_steps: int = 3000
    """truncate a game after this many learner decisions (0: never)"""
    eval_every: int = 0
    """updates between evaluations during training (0: only at the end)"""
    eval_games: int = 60
    """games per opponent in a periodic evaluation (a multiple of num_players)"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation (0: skip it)"""
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """evaluation opponents: agent specs; 'heuristic' means '<game>/heuristic'"""
    eval_workers: int = 1
    """processes for the final evaluation's games"""
    eval_bootstrap: int = 500
    """bootstrap resamples for the evaluation's intervals"""
    checkpoint_every: int = 10
    """updates between checkpoints (0: only the final one)"""
    final_checkpoint: str = ""
    """also save the final checkpoint at this path (e.g. for a tournament afterwards)"""
    resume: str = ""
    """checkpoint (.zip) to go on from; training continues up to total_timesteps"""
    time_limit_minutes: float = 0.0
    """stop learning after this many minutes (0: none); the final checkpoint and eval still run"""
    runs_dir: str = "runs"
    """where runs are written"""
    progress_bar: bool = True
    """show a progress bar"""

    def validate(self) -> None:
        """``ValueError`` naming the first key with a bad value."""
        if self.env_id not in loco_envs.available_envs():
            raise ValueError(f"config key 'env_id' must be one of {loco_envs.available_envs()}, "
                             f"got {self.env_id!r}")
        if "num_players" in self.env_options:
            raise ValueError("config key 'env_options': give the player count as 'num_players'")
        try:
            loco_envs.make(self.env_id, wrapped=False, num_players=self.num_players,
                           **self.env_options)
        except ValueError as exc:
            key = "num_players" if "num_players" in str(exc) else "env_options"
            raise ValueError(f"config key {key!r}: {exc}") from None
        positive = ["total_timesteps", "num_envs", "num_steps", "batch_size", "update_epochs",
                    "pool_size", "eval_games", "torch_threads", "eval_workers"]
        for key in positive:
            if getattr(self, key) < 1:
                raise ValueError(f"config key {key!r} must be >= 1, got {getattr(self, key)!r}")
        for key in ["snapshot_every", "max_learner_steps", "eval_every", "final_eval_games",
                    "checkpoint_every", "eval_bootstrap", "seed"]:
            if getattr(self, key) < 0:
                raise ValueError(f"config key {key!r} must be >= 0, got {getattr(self, key)!r}")
        if self.time_limit_minutes < 0:
            raise ValueError(f"config key 'time_limit_minutes' must be >= 0, got "
                             f"{self.time_limit_minutes!r}")
        for key in ["learning_rate", "clip_coef", "max_grad_norm"]:
            if not getattr(self, key) > 0:
                raise ValueError(f"config key {key!r} must be > 0, got {getattr(self, key)!r}")
        for key in ["gamma", "gae_lambda"]:
            if not 0 < getattr(self, key) <= 1:
                raise ValueError(f"config key {key!r} must be in (0, 1], got "
                                 f"{getattr(self, key)!r}")
        for key in ["ent_coef", "vf_coef"]:
            if getattr(self, key) < 0:
                raise ValueError(f"config key {key!r} must be >= 0, got {getattr(self, key)!r}")
        if self.target_kl is not None and not self.target_kl > 0:
            raise ValueError(f"config key 'target_kl' must be > 0 or null, got {self.target_kl}")
        if self.batch_size > self.num_envs * self.num_steps:
            raise ValueError(f"config key 'batch_size' ({self.batch_size}) must be at most "
                             f"num_envs * num_steps ({self.num_envs * self.num_steps})")
        if self.vec_env not in ("subproc", "dummy"):
            raise ValueError(f"config key 'vec_env' must be 'subproc' or 'dummy', got "
                             f"{self.vec_env!r}")
        if not self.net_arch or any(n < 1 for n in self.net_arch):
            raise ValueError(f"config key 'net_arch' must list positive layer sizes, got "
                             f"{self.net_arch!r}")
        if self.activation not in ("tanh", "relu"):
            raise ValueError(f"config key 'activation' must be 'tanh' or 'relu', got "
                             f"{self.activation!r}")
        if self.obs_transform not in OBS_TRANSFORMS:
            raise ValueError(f"config key 'obs_transform' must be one of "
                             f"{list(OBS_TRANSFORMS)}, got {self.obs_transform!r}")
        check_mix(self.opponent_mix, self.env_id)
        if not self.eval_opponents:
            raise ValueError("config key 'eval_opponents' must name at least one opponent")
        import agents

        for spec in self.eval_opponents:
            full = resolve_opponent(spec, self.env_id)
            if full.startswith("ppo:"):
                continue
            try:
                agents.make(full)
            except ValueError as exc:
                raise ValueError(f"config key 'eval_opponents': {exc}") from None
        for key in ["eval_games", "final_eval_games"]:
            if getattr(self, key) % self.num_players:
                raise ValueError(f"config key {key!r} ({getattr(self, key)}) must be a multiple "
                                 f"of num_players ({self.num_players}): each seat equally often")
        if self.resume:
            read_sidecar(self.resume)  # ValueError when it is not a checkpoint

    @property
    def env_kwargs(self) -> dict[str, Any]:
        return {**self.env_options, "num_players": self.num_players}


def hyperparameter_table(args: Args) -> str:
    """The arguments as a Markdown table (TensorBoard's text tab shows it)."""
    rows = "\n".join(f"|{k}|{json.dumps(v)}|" for k, v in dataclasses.asdict(args).items())
    return "|param|value|\n|-|-|\n" + rows


# ---------------------------------------------------------------------------------------------
# Environments
def make_env(args: Args, index: int):
    """A thunk building the ``index``-th collection env (seeded by the vec env: seed + index)."""

    def thunk():
        from train.selfplay import SelfPlayEnv

        _die_with_parent()
        return SelfPlayEnv(args.env_id, args.env_kwargs, args.opponent_mix, args.pool_size,
                           args.obs_transform, max_learner_steps=args.max_learner_steps)

    return thunk


def _die_with_parent() -> None:
    """In a collection process (Linux): exit when the trainer dies, even by SIGKILL/SIGTERM.

    Forked workers hold each other's pipe ends, so they would not see the trainer go away.
    """
    import multiprocessing
    import signal

    if multiprocessing.parent_process() is None or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM))  # PDEATHSIG
    except (OSError, AttributeError):
        pass


def make_vec_env(args: Args):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    thunks = [make_env(args, i) for i in range(args.num_envs)]
    if args.vec_env == "subproc" and args.num_envs > 1:
        # fork: quick to start, and scripts calling train() need no __main__ guard; the envs
        # never touch torch, and the learner's threads start only after the fork.
        import multiprocessing

        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        venv = SubprocVecEnv(thunks, start_method=method)
    else:
        venv = DummyVecEnv(thunks)
    return VecMonitor(venv)


# ---------------------------------------------------------------------------------------------
# Logging: SB3's logger into CleanRL's namespaces
_RENAME = {
    "rollout/ep_rew_mean": "charts/episodic_return",
    "rollout/ep_len_mean": "charts/episodic_length",
    "time/fps": "charts/SPS",
    "train/learning_rate": "charts/learning_rate",
    "train/loss": "losses/loss",
    "train/policy_gradient_loss": "losses/policy_loss",
    "train/value_loss": "losses/value_loss",
    "train/entropy_loss": "losses/entropy",
    "train/approx_kl": "losses/approx_kl",
    "train/clip_fraction": "losses/clipfrac",
    "train/explained_variance": "losses/explained_variance",
    "train/clip_range": "charts/clip_range",
}


def tensorboard_logger(writer: Any):
    """An SB3 ``Logger`` whose only output is ``writer``, with keys renamed (``_RENAME``)."""
    from stable_baselines3.common.logger import KVWriter, Logger

    class _Writer(KVWriter):
        def write(self, key_values: dict[str, Any], key_excluded: dict, step: int = 0) -> None:
            for key, value in key_values.items():
                excluded = key_excluded.get(key) or ()
                if "tensorboard" in excluded or not isinstance(value, (int, float, np.number)):
                    continue
                name = _RENAME.get(key, key)
                if name.split("/")[0] in ("charts", "losses", "eval"):
                    if key == "train/entropy_loss":  # SB3 logs minus the entropy
                        value = -value
                    writer.add_scalar(name, float(value), step)
            writer.flush()

        def close(self) -> None:
            writer.flush()

    return Logger(folder=None, output_formats=[_Writer()])


# ---------------------------------------------------------------------------------------------
# Training
@dataclass
class TrainResult:
    """What :func:`train` leaves: the run folder, the final checkpoint and its evaluation."""

    run_dir: Path
    checkpoint: Path
    num_timesteps: int
    seconds: float
    evaluation: EvalResult | None


def run_name(args: Args) -> str:
    return f"{args.env_id}__{args.exp_name or 'ppo'}__{args.seed}__{int(time.time())}"


def save_snapshots(path: Path, snapshots: Sequence[NumpyPolicy]) -> None:
    """The frozen pool as one ``.npz`` (loaded back by :func:`load_snapshots` on resume)."""
    arrays: dict[str, np.ndarray] = {}
    for i, policy in enumerate(snapshots):
        for j, (w, b) in enumerate([*policy.hidden, policy.action]):
            arrays[f"s{i}_l{j}_w"], arrays[f"s{i}_l{j}_b"] = w, b
    meta = [{"layers": len(p.hidden) + 1, "activation": p.activation,
             "obs_transform": p.obs_transform} for p in snapshots]
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def load_snapshots(path: Path) -> list[NumpyPolicy]:
    if not path.is_file():
        return []
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        out = []
        for i, m in enumerate(meta):
            layers = [(data[f"s{i}_l{j}_w"], data[f"s{i}_l{j}_b"]) for j in range(m["layers"])]
            out.append(NumpyPolicy(layers[:-1], layers[-1], m["activation"], m["obs_transform"]))
    return out


def snapshots_path(checkpoint: Path) -> Path:
    zip_path, _ = checkpoint_paths(checkpoint)
    return zip_path.with_name(zip_path.stem + ".snapshots.npz")


def _make_callback(args: Args, writer: Any, run_dir: Path, meta: dict[str, Any],
                   snapshots: list[NumpyPolicy], updates_done: int):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Snapshots, checkpoints, periodic evaluation and the pool's first-place rate."""

        def __init__(self) -> None:
            super().__init__()
            self.updates = updates_done
            self.first_timestep = 0
            self.firsts: list[float] = []
            self.truncated = 0
            self.deadline: float | None = None

        def _on_training_start(self) -> None:
            self.first_timestep = self.model.num_timesteps
            if args.time_limit_minutes:
                self.deadline = time.perf_counter() + 60 * args.time_limit_minutes

        def _on_step(self) -> bool:
            for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
                if done and "first" in info:
                    self.firsts.append(float(info["first"]))
                elif done and info.get("truncated"):
                    self.truncated += 1
            if self.deadline is not None and time.perf_counter() > self.deadline:
                print(f"time limit of {args.time_limit_minutes} minutes reached at "
                      f"{self.model.num_timesteps} decisions", file=sys.stderr)
                return False
            return True

        def _on_rollout_end(self) -> None:
            self.updates += 1
            if self.firsts:
                self.logger.record("charts/first_place_rate_vs_pool", float(np.mean(self.firsts)))
            self.logger.record("charts/truncated_games", self.truncated)
            self.logger.record("charts/updates", self.updates)
            self.firsts, self.truncated = [], 0
            if args.snapshot_every and self.updates % args.snapshot_every == 0:
                policy = NumpyPolicy.from_sb3(self.model.policy, args.obs_transform)
                snapshots.append(policy)
                del snapshots[:-args.pool_size]
                self.training_env.env_method("add_snapshot", policy)
                self.logger.record("charts/snapshots", len(snapshots))
            if args.checkpoint_every and self.updates % args.checkpoint_every == 0:
                path = run_dir / "checkpoints" / f"ppo_{self.model.num_timesteps}"
                _checkpoint(self.model, path, meta, snapshots)
            if args.eval_every and self.updates % args.eval_every == 0:
                path = _checkpoint(self.model, run_dir / "checkpoints" / "latest", meta,
                                   snapshots)
                result = _evaluate(args, path, args.eval_games, 1, None)
                for name, value in result.scalars().items():
                    writer.add_scalar(name, value, self.model.num_timesteps)
                writer.flush()

    return SelfPlayCallback()


def _checkpoint(model: Any, path: Path, meta: dict[str, Any],
                snapshots: Sequence[NumpyPolicy]) -> Path:
    zip_path = save_checkpoint(model, path, meta)
    save_snapshots(snapshots_path(zip_path), snapshots)
    return zip_path


def _evaluate(args: Args, checkpoint: Path, games: int, workers: int,
              out: Path | None) -> EvalResult:
    opponents = [resolve_opponent(s, args.env_id) for s in args.eval_opponents]
    return evaluate(checkpoint, args.env_id, args.num_players, opponents, games,
                    seed=args.seed, options=args.env_options, workers=workers,
                    bootstrap=args.eval_bootstrap, out=out)


def train(args: Args) -> TrainResult:
    """Train as ``args`` says; return the run folder, final checkpoint and final evaluation."""
    args.validate()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import ConstantSchedule, LinearSchedule, set_random_seed
    from torch.utils.tensorboard import SummaryWriter

    start = time.perf_counter()
    torch.set_num_threads(args.torch_threads)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    set_random_seed(args.seed)
    resume_zip = checkpoint_paths(args.resume)[0] if args.resume else Path()
    if args.resume and resume_zip.parent.name == "checkpoints":
        run_dir = resume_zip.parent.parent  # go on in runs/<name>/ (checkpoints/<ckpt>.zip)
    else:
        run_dir = Path(args.runs_dir) / run_name(args)
    run_dir.mkdir(parents=True, exist_ok=True)
    writer = SummaryWriter(str(run_dir))
    writer.add_text("hyperparameters", hyperparameter_table(args))

    venv = make_vec_env(args)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[args.activation]
    n_updates = -(-args.total_timesteps // (args.num_envs * args.num_steps))

    lr_schedule = (LinearSchedule(args.learning_rate, 0.0, 1.0) if args.anneal_lr
                   else ConstantSchedule(args.learning_rate))
    hyper = dict(learning_rate=lr_schedule, n_steps=args.num_steps, batch_size=args.batch_size,
                 n_epochs=args.update_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda,
                 clip_range=args.clip_coef, ent_coef=args.ent_coef, vf_coef=args.vf_coef,
                 max_grad_norm=args.max_grad_norm, target_kl=args.target_kl)
    snapshots: list[NumpyPolicy] = []
    updates_done = 0
    if args.resume:
        model = MaskablePPO.load(resume_zip, env=venv, device="cpu", **hyper)
        model.set_random_seed(args.seed + model.num_timesteps)
        snapshots = load_snapshots(snapshots_path(resume_zip))[-args.pool_size:]
        for policy in snapshots:
            venv.env_method("add_snapshot", policy)
        updates_done = model.num_timesteps // (args.num_envs * args.num_steps)
        print(f"resuming {resume_zip} at {model.num_timesteps} decisions, "
              f"{len(snapshots)} snapshots", file=sys.stderr)
    else:
        model = MaskablePPO(
            "MlpPolicy", venv, seed=args.seed, device="cpu", verbose=0,
            policy_kwargs=dict(net_arch=dict(pi=list(args.net_arch), vf=list(args.net_arch)),
                               activation_fn=activation),
            **hyper,
        )
    model.set_logger(tensorboard_logger(writer))
    obs_size = venv.observation_space.shape[0]
    meta = {"env_id": args.env_id, "options": args.env_kwargs, "observation_size": obs_size,
            "num_actions": int(venv.action_space.n), "obs_transform": args.obs_transform,
            "net_arch": list(args.net_arch), "activation": args.activation, "seed": args.seed,
            "exp_name": args.exp_name}
    callback = _make_callback(args, writer, run_dir, meta, snapshots, updates_done)
    print(f"run {run_dir}: {args.env_id}, {args.num_players} players, {args.total_timesteps} "
          f"decisions in about {n_updates} updates of {args.num_envs}x{args.num_steps}",
          file=sys.stderr)
    learn_start = time.perf_counter()
    try:
        model.learn(max(0, args.total_timesteps - model.num_timesteps), callback=callback,
                    log_interval=1,
                    reset_num_timesteps=not args.resume, progress_bar=args.progress_bar)
        final = _checkpoint(model, run_dir / "checkpoints" / "final", meta, snapshots)
        if args.final_checkpoint:
            _checkpoint(model, Path(args.final_checkpoint), meta, snapshots)
    finally:
        venv.close()
    train_seconds = time.perf_counter() - start
    sps = (model.num_timesteps - callback.first_timestep) / (time.perf_counter() - learn_start)
    print(f"learned at {sps:.0f} decisions/s", file=sys.stderr)
    writer.add_scalar("charts/train_seconds", train_seconds, model.num_timesteps)
    evaluation = None
    if args.final_eval_games:
        evaluation = _evaluate(args, final, args.final_eval_games, args.eval_workers,
                               run_dir / "eval")
        for name, value in evaluation.scalars().items():
            writer.add_scalar(name, value, model.num_timesteps)
    writer.close()
    return TrainResult(run_dir, final, int(model.num_timesteps), train_seconds, evaluation)


# ---------------------------------------------------------------------------------------------
# Command line
def usage() -> str:
    docs = field_docs(Args)
    lines = ["usage: python -m train [CONFIG.yaml] [--key value ...]", "",
             "Self-play masked PPO. A YAML config fills the arguments; flags override them",
             "(values read as YAML: --net-arch '[64, 64]', --anneal-lr false).", "",
             "arguments (default):"]
    for f in dataclasses.fields(Args):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = "--" + f.name.replace("_", "-")
        lines.append(f"  {flag:<22} {docs.get(f.name, '')} ({json.dumps(default)})")
    return "\n".join(lines)


def parse_args(argv: Sequence[str]) -> Args:
    """``[CONFIG] [--key value ...]`` -> validated :class:`Args`."""
    argv = list(argv)
    config = None
    if argv and not argv[0].startswith("--"):
        config = argv.pop(0)
    overrides = parse_overrides(Args, argv)
    args = load_config(config, Args, overrides)
    if not args.exp_name:
        args.exp_name = Path(config).stem if config else "ppo"
    args.validate()
    return args


def report(result: TrainResult) -> str:
    lines = [f"trained {result.num_timesteps} decisions in {result.seconds:.0f} s",
             f"run: {result.run_dir}  (tensorboard --logdir {result.run_dir.parent})",
             f"checkpoint: {result.checkpoint}  (agents.make('ppo:{result.checkpoint}'))"]
    ev = result.evaluation
    if ev is not None:
        from benchmarks import ratings as R

        lines.append("")
        for spec, (rate, low, high) in ev.win_rates.items():
            lines.append(f"win rate vs {spec}: {rate:.3f} ({low:.3f}-{high:.3f})")
        lines.append(f"Elo: {ev.elo[0]:.0f} ({ev.elo[1]:.0f}-{ev.elo[2]:.0f})")
        if ev.capped:
            lines.append(f"{ev.capped} games stopped at {MAX_DECISIONS} decisions, scored as ties")
        lines += ["", R.markdown_table(ev.table)]
        if "plot" in ev.files:
            lines.append(f"\nplot: {ev.files['plot']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a in ("-h", "--help") for a in argv):
        print(usage())
        return 0
    try:
        args = parse_args(argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    os.environ.setdefault("OMP_NUM_THREADS", str(args.torch_threads))
    result = train(args)
    print(report(result))
    return 0
