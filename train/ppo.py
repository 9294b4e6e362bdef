"""Self-play PPO with action masks (sb3-contrib ``MaskablePPO``) for any game of the suite.

Run a config, override any of its keys with flags, watch it in TensorBoard::

    python -m train configs/loco_quick.yaml
    python -m train configs/moco_quick.yaml --seed 2 --total-timesteps 100000
    tensorboard --logdir runs

How it works. One :class:`train.selfplay.SelfPlayVecEnv` holds ``num_envs`` games in a vector env
(:func:`loco_envs.make_vec`, in this process or in ``num_workers`` slices sharing memory): the
learner takes a random seat each episode and the other seats are filled from the opponent pool
(:mod:`train.pool`): bots and frozen snapshots of the learner, drawn with the weights of
``opponent_mix``, every opponent decision batched (one forward pass per snapshot for all games
where it is to act; bots inside the vector env). Every ``snapshot_every`` updates the current
actor is copied (as numpy arrays) into the pool. Rewards are the env's, paid at the end of the
game only; a game reaching ``max_decisions`` is stopped and counts as a draw (reward 0).

What a run writes, under ``runs/<env>__<exp>__<seed>__<time>/``:

- TensorBoard scalars: ``charts/`` (episodic return and length, first-place rate against the
  pool, SPS, learning rate, snapshots), ``losses/`` (policy, value, entropy, approx KL, clip
  fraction, explained variance) and ``eval/`` (``winrate_vs_<bot>`` per opponent and ``elo``);
  the hyperparameters as a text table;
- ``checkpoints/ppo_<steps>`` every ``checkpoint_every`` updates and ``checkpoints/final`` at the
  end (:mod:`train.checkpoints`: the data-only policy ``.npz`` + ``.json``, the frozen pool, and
  the SB3 ``.zip`` for ``--resume``), each file written atomically;
- ``eval/``: the final evaluation's match records, ratings table and plot.

A checkpoint plays as a bot: ``agents.make("ppo:runs/.../checkpoints/final.npz")`` (numpy only).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from loco_envs.core.files import atomic_write_bytes
from loco_envs.core.threads import available_cores, set_threads
from loco_envs.policy import (
    NumpyPolicy,
    check_action_scorer,
    check_feature_shortcut,
    load_policy,
    save_policy,
    transform_extra_size,
)
from loco_envs.train.checkpoints import (
    CheckpointError,
    checkpoint_files,
    latest_checkpoint,
    load_snapshots,
    save_checkpoint,
)
from loco_envs.train.config import SelfPlayArgs, command_line, keyed, parse_command_line
from loco_envs.train.config import usage as config_usage
from loco_envs.train.evaluate import EvalResult, evaluate, resolve_opponent
from loco_envs.train.pool import check_sampling
from loco_envs.train.warmstart import (
    check_clone_config,
    check_compatible,
    clone_record,
    ensure_clone,
    is_clone_config,
    warm_start,
)
from loco_envs.vector import BACKENDS


@dataclass
class Args(SelfPlayArgs):
    """The trainer's arguments: the shared keys (:class:`train.config.SelfPlayArgs`) and the
    keys of this trainer (its vector env, device, schedule, pool sampling, checkpoints)."""

    DEFAULT_NAME: ClassVar[str] = "ppo"

    torch_deterministic: bool = True
    """cudnn deterministic mode (CPU training is deterministic anyway)"""
    device: str = "auto"
    """where the network is updated: 'auto' (a GPU when torch sees one), 'cpu' or 'cuda'"""
    backend: str = "serial"
    """vector env backend: 'serial' (all games in the learner's process) or 'shared_memory'"""
    num_workers: int = 0
    """processes stepping the games with the shared_memory backend, this one among them
    (0: one per core)"""
    anneal_lr: bool = True
    """decay the learning rate linearly to 0 over the run"""
    target_kl: float | None = None
    """stop an update's epochs early past this approx KL (null: never)"""
    feature_shortcut: bool = False
    """the action layer also reads the action features (train/networks.py; needs '+features')"""
    action_scorer: int = 0
    """hidden width of a network shared by every action that scores each move from its own
    features and the state; the hidden layers and the critic then read the observation alone
    (0: none; needs '+features'; with feature_shortcut, each action keeps its own weights over
    its features too; train/networks.py)"""
    fold_inputs: bool = True
    """compute the first layers over the input's distinct columns once (exact: the same
    weights, values and gradients as the full products; loco_envs/policy/folding.py); false
    computes the full products, for comparison"""
    learner_reward: str = "game"
    """what the learner is paid at a game's end: 'game' (the env's reward, env_options'
    'reward': rank by default) or 'first' (its share f of first place, as (n f - 1) / (n - 1):
    1 for a win alone, -1/(n-1) for a loss, zero-sum; the rank reward at 2 players), for a
    learner meant to win at 3 players and more rather than to finish high on average"""
    opponent_sampling: str = "uniform"
    """how seats are drawn from the mix: 'uniform' (as written), 'pfsp' or 'pfsp-even'
    (prioritised fictitious self-play on the learner's recent score, train.pool)"""
    eval_every: int = 0
    """updates between evaluations during training (0: only at the end)"""
    eval_games: int = 60
    """games per opponent in a periodic evaluation (a multiple of num_players)"""
    eval_workers: int = 1
    """processes for the final evaluation's games"""
    checkpoint_every: int = 10
    """updates between checkpoints (0: only the final one)"""
    final_checkpoint: str = ""
    """also save the final checkpoint at this path (e.g. for a tournament afterwards)"""
    resume: str = ""
    """checkpoint (.zip) or run folder (its newest whole checkpoint) to go on from"""
    init_policy: str = ""
    """start from this policy file's actor (and its .value.npz), e.g. train.imitation's output;
    or from the clone an imitation config (.yaml; in a config file, relative to that file) makes,
    made first unless it is already there (train/warmstart.py)"""
    stop_at_decisions: int = 0
    """stop learning once this many decisions are collected (0: at total_timesteps; as with the
    time limit, a rollout cut short is not learned from); the learning rate still anneals over
    total_timesteps, so the decisions of a run a time limit stopped (its provenance) repeat that
    run exactly on any machine"""
    progress_bar: bool = True
    """show a progress bar"""

    def check_own_keys(self) -> None:
        """``ValueError`` naming the first of this trainer's keys with a bad value."""
        super().check_own_keys()
        from loco_envs.train.torch_policy import resolve_device  # torch only when training

        resolve_device(self.device)
        self.at_least(1, "eval_games", "eval_workers")
        self.at_least(0, "num_workers", "eval_every", "checkpoint_every", "stop_at_decisions")
        self.multiple_of_players("eval_games")
        self.require("target_kl", self.target_kl is None or self.target_kl > 0, "> 0 or null")
        self.require("backend", self.backend in BACKENDS, f"one of {list(BACKENDS)}")
        keyed("feature_shortcut", check_feature_shortcut, self.feature_shortcut,
              self.obs_transform, predicate=True)
        keyed("action_scorer", check_action_scorer, self.action_scorer, self.obs_transform,
              predicate=True)
        check_sampling(self.opponent_sampling)
        from loco_envs.train.selfplay import LEARNER_REWARDS
        self.require("learner_reward", self.learner_reward in LEARNER_REWARDS,
                     f"one of {list(LEARNER_REWARDS)}")
        if self.resume:
            latest_checkpoint(self.resume)  # ValueError when it is not a whole checkpoint
        self._check_init_policy()

    @classmethod
    def beside_file(cls, keys: dict[str, Any], folder: Path) -> dict[str, Any]:
        """A clone config named in a config file is read beside that file."""
        policy = keys.get("init_policy")
        if isinstance(policy, str) and is_clone_config(policy) and not Path(policy).is_absolute():
            return {**keys, "init_policy": str(folder / policy)}
        return keys

    def _check_init_policy(self) -> None:
        if self.init_policy and is_clone_config(self.init_policy):
            check_clone_config(self.init_policy, self.runs_dir, self.env_id, self.env_kwargs,
                               self.net_arch, self.activation, self.obs_transform,
                               self.feature_shortcut, self.action_scorer)
        elif self.init_policy:
            try:
                found = Path(f"{Path(self.init_policy).with_suffix('')}.json").exists()
            except OSError as exc:  # e.g. a name too long for the file system
                raise ValueError(f"config key 'init_policy': {exc.strerror or exc}") from None
            if not found:
                raise ValueError(
                    f"config key 'init_policy': no policy at {self.init_policy} (a full config's "
                    f"warm start is made first by python -m train.imitation "
                    f"configs/<game>_bc.yaml)")
            keyed("init_policy", check_compatible, self.init_policy, self.env_id,
                  self.env_kwargs, self.net_arch, self.activation, self.obs_transform,
                  self.feature_shortcut, self.action_scorer)


def hyperparameter_table(args: Args) -> str:
    """The arguments as a Markdown table (TensorBoard's text tab shows it)."""
    rows = "\n".join(f"|{k}|{json.dumps(v)}|" for k, v in dataclasses.asdict(args).items())
    return "|param|value|\n|-|-|\n" + rows


# ---------------------------------------------------------------------------------------------
# Environments
def make_vec_env(args: Args, device: str = "cpu"):
    """The self-play vector env of ``args`` (with SB3's episode statistics); on a ``device``
    other than the CPU (the update's), the frozen opponents' forward passes run there too."""
    from stable_baselines3.common.vec_env import VecMonitor

    from loco_envs.train.pool import OpponentPool
    from loco_envs.train.selfplay import SelfPlayVecEnv

    pool = OpponentPool(args.opponent_mix, args.env_id, args.pool_size, args.opponent_sampling,
                        args.num_players)
    venv = SelfPlayVecEnv(args.env_id, args.num_envs, pool, args.play_options,
                          args.obs_transform, seed=args.seed, backend=args.backend,
                          num_workers=args.num_workers or None,
                          learner_reward=args.learner_reward,
                          device=None if device == "cpu" else device)
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
                if name.split("/")[0] in ("charts", "losses", "eval", "pool"):
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
    decisions_per_second: float = 0.0
    curve: Path | None = None  # eval/curve.png: the evaluations over training


def run_name(args: Args) -> str:
    return f"{args.env_id}__{args.exp_name or 'ppo'}__{args.seed}__{int(time.time())}"


class Checkpointer:
    """Writes the run's checkpoints: the actor as a data-only policy, the pool, the SB3 zip."""

    def __init__(self, args: Args, run_dir: Path, snapshots: list[NumpyPolicy],
                 warm_start: dict[str, Any] | None = None):
        self.args = args
        self.run_dir = run_dir
        self.snapshots = snapshots
        self.warm_start = warm_start  # train.warmstart.clone_record of the policy started from

    def policy(self, model: Any) -> NumpyPolicy:
        from loco_envs.train.torch_policy import from_sb3

        return from_sb3(model.policy, self.args.obs_transform)

    def meta(self, model: Any, evaluation: EvalResult | None = None) -> dict[str, Any]:
        return {"env_id": self.args.env_id, "env_options": self.args.env_kwargs,
                "config": {**dataclasses.asdict(self.args),
                           **({"warm_start": self.warm_start} if self.warm_start else {})},
                "seed": self.args.seed,
                "decisions": int(model.num_timesteps),
                "evaluation": None if evaluation is None else evaluation.summary()}

    def save(self, model: Any, name: str | Path) -> Path:
        """The checkpoint ``checkpoints/<name>`` (or the path ``name``); the zip's path."""
        path = name if isinstance(name, Path) else self.run_dir / "checkpoints" / name
        return save_checkpoint(path, model, self.policy(model), self.snapshots, self.meta(model))

    def export(self, model: Any, name: str, evaluation: EvalResult | None = None) -> Path:
        """Only the data-only policy (``checkpoints/<name>.npz``), e.g. for an evaluation."""
        path = self.run_dir / "checkpoints" / name
        try:
            return save_policy(path, self.policy(model), self.meta(model, evaluation))
        except OSError as exc:
            raise CheckpointError(f"cannot write policy {path}: {exc.strerror or exc}") from None


class Curve:
    """The run's learning curve: each evaluation's win rates, drawn as ``eval/curve.png``.

    Points are the periodic evaluations (``eval_every``) and the final one, with their 95%
    intervals; ``eval/curve.json`` keeps them (in :mod:`train.curves`'s format), so a resumed
    run goes on drawing the same curve.
    """

    def __init__(self, args: Args, run_dir: Path):
        self.args = args
        self.json = run_dir / "eval" / "curve.json"
        self.points: list[dict[str, Any]] = []
        if self.json.is_file():
            self.points = json.loads(self.json.read_text())["points"]

    def add(self, decisions: int, policy: Path, result: EvalResult) -> Path:
        """Add a point, redraw; the PNG's path."""
        from loco_envs.train.curves import plot

        self.points = [p for p in self.points if p["x"] < decisions]
        self.points.append({"x": decisions, "policy": str(policy),
                            "games": len(result.records) // len(result.win_rates),
                            "win_rate": {spec: {"rate": r, "low": lo, "high": hi}
                                         for spec, (r, lo, hi) in result.win_rates.items()}})
        sizes = sorted({p["games"] for p in self.points})
        data = {"env_id": self.args.env_id, "num_players": self.args.num_players,
                "options": self.args.env_options,
                "games": "/".join(str(n) for n in sizes),  # the plot's title shows them
                "seed": self.args.seed, "points": self.points}
        self.json.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.json, (json.dumps(data, indent=1) + "\n").encode())
        return plot(data, self.json.with_suffix(".png"),
                    f"{self.args.exp_name or 'ppo'} (seed {self.args.seed})")


def _make_callback(args: Args, writer: Any, checkpointer: Checkpointer, updates_done: int,
                   curve: Curve):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Snapshots, checkpoints, periodic evaluation, the pool's first-place rate, time limit."""

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
            for i in np.flatnonzero(self.locals["dones"]).tolist():
                info = self.locals["infos"][i]
                if "first" in info:
                    self.firsts.append(float(info["first"]))
                elif info.get("truncated"):
                    self.truncated += 1
            if self.deadline is not None and time.perf_counter() > self.deadline:
                print(f"time limit of {args.time_limit_minutes} minutes reached at "
                      f"{self.model.num_timesteps} decisions", file=sys.stderr)
                return False
            return not args.stop_at_decisions or self.model.num_timesteps < args.stop_at_decisions

        def _on_rollout_end(self) -> None:
            self.updates += 1
            if self.firsts:
                self.logger.record("charts/first_place_rate_vs_pool", float(np.mean(self.firsts)))
            self.logger.record("charts/truncated_games", self.truncated)
            self.logger.record("charts/updates", self.updates)
            self.firsts, self.truncated = [], 0
            pool = self.training_env.venv.pool
            weights, rates = pool.weights(), pool.win_rates()  # the league's state
            for name, chance in weights.items():
                tag = name.replace("/", "_").replace(":", "_")
                self.logger.record(f"pool/weight_{tag}", chance)
                if name in rates:
                    self.logger.record(f"pool/score_vs_{tag}", rates[name])
            if args.snapshot_every and self.updates % args.snapshot_every == 0:
                policy = checkpointer.policy(self.model)
                checkpointer.snapshots.append(policy)
                del checkpointer.snapshots[:-args.pool_size]
                self.training_env.venv.add_snapshot(policy)
                self.logger.record("charts/snapshots", len(checkpointer.snapshots))
            if args.checkpoint_every and self.updates % args.checkpoint_every == 0:
                checkpointer.save(self.model, f"ppo_{self.model.num_timesteps}")
            if args.eval_every and self.updates % args.eval_every == 0:
                path = checkpointer.export(self.model, "latest")
                result = _evaluate(args, path, args.eval_games, 1, None)
                for name, value in result.scalars().items():
                    writer.add_scalar(name, value, self.model.num_timesteps)
                writer.flush()
                curve.add(self.model.num_timesteps, path, result)

    return SelfPlayCallback()


def _evaluate(args: Args, policy: Path, games: int, workers: int,
              out: Path | None) -> EvalResult:
    opponents = [resolve_opponent(s, args.env_id) for s in args.eval_opponents]
    return evaluate(policy, args.env_id, args.num_players, opponents, games,
                    seed=args.seed, options={**args.env_options,
                                             "max_decisions": args.max_decisions or None},
                    workers=workers, bootstrap=args.eval_bootstrap, out=out,
                    threads=args.threads)


def _run_dir(args: Args, resume_zip: Path | None) -> Path:
    """``runs/<name>/``: a new one, or the folder of the checkpoint resumed from."""
    if resume_zip is not None and resume_zip.parent.name == "checkpoints":
        run_dir = resume_zip.parent.parent
    else:
        run_dir = Path(args.runs_dir) / run_name(args)
    try:
        (run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        probe = run_dir / "checkpoints" / ".writable"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise CheckpointError(f"cannot write the run folder {run_dir}: "
                              f"{exc.strerror or exc}") from None
    return run_dir


def policy_network(args: Args) -> tuple[Any, dict[str, Any]]:
    """The SB3 policy class and its ``policy_kwargs`` for ``args``: separate actor and value
    MLPs, the actor with a feature shortcut or an action scorer when asked, the fast masked
    distribution and ``tanh`` (:mod:`train.networks`)."""
    import torch

    from loco_envs.train.networks import ActionFeatureLayout, MaskedMlpPolicy, ShortcutPolicy, Tanh

    kwargs: dict[str, Any] = dict(
        net_arch=dict(pi=list(args.net_arch), vf=list(args.net_arch)),
        activation_fn={"tanh": Tanh, "relu": torch.nn.ReLU}[args.activation],
        # SB3's Adam (its eps), fused: one kernel for all parameters, 0.4 ms a step here
        # against 1.5 ms for torch's per-tensor loop on CPU
        optimizer_kwargs=dict(eps=1e-5, fused=True))
    if not args.feature_shortcut and not args.action_scorer:
        return MaskedMlpPolicy, kwargs
    layout = dict(features=transform_extra_size(args.obs_transform),
                  action_scorer=args.action_scorer, shortcut=args.feature_shortcut)
    return ShortcutPolicy, {**kwargs, "features_extractor_class": ActionFeatureLayout,
                            "features_extractor_kwargs": layout}


def train(args: Args) -> TrainResult:
    """Train as ``args`` says; return the run folder, final checkpoint and final evaluation."""
    args.validate()
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import ConstantSchedule, LinearSchedule, set_random_seed
    from torch.utils.tensorboard import SummaryWriter

    from loco_envs.train.networks import (
        MaskedRolloutBuffer,
        fold_policy,
        refold_policy,
        rollout_folding,
    )

    resume_zip = latest_checkpoint(args.resume) if args.resume else None
    init_policy, warm_record = None, None  # the clone first: it sets its own torch threads
    if args.init_policy and resume_zip is None:
        init_policy = (ensure_clone(args.init_policy, args.runs_dir,
                                    log=lambda line: print(line, file=sys.stderr))
                       if is_clone_config(args.init_policy) else args.init_policy)
        warm_record = clone_record(init_policy)
    elif resume_zip is not None:
        _, doc = load_policy(checkpoint_files(resume_zip)["policy"])
        warm_record = doc["provenance"].get("config", {}).get("warm_start")
    start = time.perf_counter()  # train_seconds: the clone's time is its own (it logs it)
    from loco_envs.train.torch_policy import resolve_device

    device = resolve_device(args.device)
    # the learner is one of the processes stepping the games (shared_memory backend)
    set_threads(args.threads, (args.num_workers or available_cores())
                if args.backend == "shared_memory" else 1)
    torch.backends.cudnn.deterministic = args.torch_deterministic
    set_random_seed(args.seed)
    run_dir = _run_dir(args, resume_zip)
    writer = SummaryWriter(str(run_dir))
    writer.add_text("hyperparameters", hyperparameter_table(args))

    venv = make_vec_env(args, device)
    policy_class, policy_kwargs = policy_network(args)
    rollout = args.num_envs * args.num_steps
    n_updates = -(-args.total_timesteps // rollout)
    lr_schedule = (LinearSchedule(args.learning_rate, 0.0, 1.0) if args.anneal_lr
                   else ConstantSchedule(args.learning_rate))
    hyper = dict(learning_rate=lr_schedule, n_steps=args.num_steps, batch_size=args.batch_size,
                 n_epochs=args.update_epochs, gamma=args.gamma, gae_lambda=args.gae_lambda,
                 clip_range=args.clip_coef, ent_coef=args.ent_coef, vf_coef=args.vf_coef,
                 max_grad_norm=args.max_grad_norm, target_kl=args.target_kl,
                 rollout_buffer_class=MaskedRolloutBuffer)
    snapshots: list[NumpyPolicy] = []
    updates_done = 0
    if resume_zip is not None:
        model = MaskablePPO.load(resume_zip, env=venv, device=device, **hyper)
        model.set_random_seed(args.seed + model.num_timesteps)
        snapshots = load_snapshots(checkpoint_files(resume_zip)["snapshots"])[-args.pool_size:]
        for policy in snapshots:
            venv.venv.add_snapshot(policy)
        updates_done = model.num_timesteps // rollout
        print(f"resuming {resume_zip} at {model.num_timesteps} decisions, "
              f"{len(snapshots)} snapshots", file=sys.stderr)
    else:
        model = MaskablePPO(policy_class, venv, seed=args.seed, device=device, verbose=0,
                            policy_kwargs=policy_kwargs, **hyper)
        if init_policy is not None:  # recorded: whether the run began with a trained critic
            warm_record["critic"] = warm_start(model, init_policy)
    if args.fold_inputs and device == "cpu":  # a GPU has the multiply-adds to spare
        folded = fold_policy(model.policy, args.obs_transform)
        if folded:
            print(f"first layers folded: {folded} of {model.policy.features_dim} input "
                  f"columns", file=sys.stderr)
        folding = rollout_folding(model.policy)
        if folding is not None:  # the update then gathers and folds a fifth of the bytes
            model.rollout_buffer.fold_observations(
                folding, on_refold=functools.partial(refold_policy, model.policy))
    model.set_logger(tensorboard_logger(writer))
    checkpointer = Checkpointer(args, run_dir, snapshots, warm_record)
    curve = Curve(args, run_dir)
    callback = _make_callback(args, writer, checkpointer, updates_done, curve)
    stop = f", stopping at {args.stop_at_decisions}" if args.stop_at_decisions else ""
    print(f"run {run_dir}: {args.env_id}, {args.num_players} players, {args.total_timesteps} "
          f"decisions in about {n_updates} updates of {args.num_envs} games x {args.num_steps}"
          f"{stop}", file=sys.stderr)
    learn_start = time.perf_counter()
    try:
        model.learn(max(0, args.total_timesteps - model.num_timesteps), callback=callback,
                    log_interval=1, reset_num_timesteps=resume_zip is None,
                    progress_bar=args.progress_bar)
        final = checkpointer.save(model, "final")
        if args.final_checkpoint:
            checkpointer.save(model, Path(args.final_checkpoint))
    finally:
        venv.close()
    sps = (model.num_timesteps - callback.first_timestep) / (time.perf_counter() - learn_start)
    train_seconds = time.perf_counter() - start
    print(f"learned at {sps:.0f} decisions/s", file=sys.stderr)
    writer.add_scalar("charts/train_seconds", train_seconds, model.num_timesteps)
    evaluation = None
    if args.final_eval_games:
        evaluation = _evaluate(args, checkpoint_files(final)["policy"], args.final_eval_games,
                               args.eval_workers, run_dir / "eval")
        checkpointer.export(model, "final", evaluation)  # the policy file records its result
        for name, value in evaluation.scalars().items():
            writer.add_scalar(name, value, model.num_timesteps)
        curve.add(int(model.num_timesteps), checkpoint_files(final)["policy"], evaluation)
    writer.close()
    curve_png = curve.json.with_suffix(".png") if curve.points else None
    return TrainResult(run_dir, final, int(model.num_timesteps), train_seconds, evaluation, sps,
                       curve_png)


# ---------------------------------------------------------------------------------------------
# Command line
def usage() -> str:
    return config_usage(Args, "python -m train", "Self-play masked PPO (sb3-contrib MaskablePPO).")


def parse_args(argv: Sequence[str]) -> Args:
    """``[CONFIG] [--key value ...]`` -> validated :class:`Args` (:mod:`train.config`)."""
    return parse_command_line(Args, argv)


def report(result: TrainResult) -> str:
    lines = [f"trained {result.num_timesteps} decisions in {result.seconds:.0f} s",
             f"run: {result.run_dir}  (tensorboard --logdir {result.run_dir.parent})",
             f"learned at {result.decisions_per_second:.0f} decisions/s",
             f"checkpoint: {result.checkpoint}  (agents.make("
             f"'ppo:{checkpoint_files(result.checkpoint)['policy']}'))"]
    ev = result.evaluation
    if ev is not None:
        from loco_envs.benchmarks import ratings as R

        lines.append("")
        for spec, (rate, low, high) in ev.win_rates.items():
            lines.append(f"win rate vs {spec}: {rate:.3f} ({low:.3f}-{high:.3f})")
        lines.append(f"Elo: {ev.elo[0]:.0f} ({ev.elo[1]:.0f}-{ev.elo[2]:.0f})")
        if ev.capped:
            lines.append(f"{ev.capped} games stopped at max_decisions, scored as ties")
        lines += ["", R.markdown_table(ev.table)]
        if "plot" in ev.files:
            lines.append(f"\nplot: {ev.files['plot']}")
    if result.curve is not None:
        lines.append(f"learning curve: {result.curve}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args, code = command_line(Args, sys.argv[1:] if argv is None else argv, usage)
    if args is None:
        return code
    try:
        result = train(args)
    except (CheckpointError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report(result))
    return 0
