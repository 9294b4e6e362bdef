"""Behaviour cloning: a game's scripted bot copied into the actor network PPO trains.

Why. A masked-PPO agent that starts from random weights spends most of a CPU budget learning
what the scripted heuristics already know (play a legal card, keep the wilds, ...). Cloning the
heuristic first gives near-heuristic play in minutes, and since the network is exactly the actor
of sb3-contrib's ``MlpPolicy`` as the trainer builds it (``net_arch`` hidden layers with
``activation``, then the action layer, on the observation after ``obs_transform``), the weights
can start a PPO run, together with the value network fitted here to the games' outcomes.

Run a config (keys of :class:`BCArgs`; flags override them, values read as YAML)::

    python -m train.imitation configs/loco_bc.yaml
    python -m train.imitation configs/moco_bc.yaml --games 2000 --epochs 5

How.

1. *Collect*: ``games`` seeded games in one in-process vector env per worker; in each game one
   seat (drawn per episode) is the *student* seat, played by the ``teacher`` bot, and the other
   seats are drawn per episode from ``opponent_mix`` (agent specs; ``teacher`` means the teacher
   itself). Every decision of the student seat is recorded: the seat's own observation, its
   action mask and the teacher's action, and when the game ends the seat's final reward (the
   env's ``rank`` reward) as the value target. The student policy sees nothing else.
2. *Fit* the actor by masked cross-entropy (illegal actions get no probability) and the value
   network by mean squared error, with Adam, for ``epochs`` passes over the data.
3. *DAgger* (``dagger_rounds``): play again with the fitted student choosing the student seat's
   moves (sampling from its masked softmax) while the teacher still labels every one; add these
   decisions to the data and fit again. The student then learns what the teacher would do in
   the positions its own mistakes lead to, not only in the teacher's.
4. *Save* the actor with :func:`loco_envs.policy.save_policy` (``<out>.npz`` + ``.json``, numpy
   only, the config, seed, decisions and evaluation table as provenance) and the value network as
   ``<out>.value.npz``; then evaluate it through the tournament runner (seats rotated on every
   deal: the duplicate format) against ``eval_opponents``.

Randomness: game ``i`` of round ``r`` is dealt from ``[seed, r, i]``, seats and opponents from
``default_rng([seed, r, i, 1])``, the bots' moves from ``default_rng([seed, r, i, 2])``, torch from
``seed``; so a run is a function of its config (and of the number of workers, which only splits
the games).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import loco_envs
from loco_envs import agents
from loco_envs.core.threads import set_threads
from loco_envs.policy import (
    NumpyPolicy,
    check_action_scorer,
    check_feature_shortcut,
    policy_paths,
    save_policy,
    transform_extra_size,
    transform_observation,
)
from loco_envs.train.config import BaseArgs, command_line, keyed
from loco_envs.train.config import usage as config_usage
from loco_envs.train.pool import SNAPSHOT
from loco_envs.train.warmstart import save_value
from loco_envs.vector.play import CALLER, SeatGenerators, bot_actions, play

__all__ = ["BCArgs", "Dataset", "collect", "fit", "main", "output_path", "run"]

#: The opponent-mix key meaning the teacher bot itself.
TEACHER = "teacher"


@dataclass
class BCArgs(BaseArgs):
    """Behaviour cloning's arguments: the shared keys (:class:`train.config.BaseArgs`, with this
    command's defaults) and its own (teacher, collection, DAgger, fit, output)."""

    DEFAULT_NAME: ClassVar[str] = "bc"

    max_decisions: int = 3000
    """a collected game is stopped after this many decisions (stalled LOCO games; >= 1: a
    collection must end)"""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the actor and the value network (the trainer's net_arch)"""
    learning_rate: float = 1e-3
    """Adam learning rate (decayed linearly to a tenth over each fit)"""
    batch_size: int = 512
    """minibatch size"""
    opponent_mix: dict[str, float] = field(default_factory=lambda: {TEACHER: 1.0})
    """who fills the other seats while collecting: agent specs and 'teacher', with weights"""
    teacher: str = "loco/heuristic-strong"
    """the agent spec cloned (plays the student seat while collecting)"""
    games: int = 2000
    """games collected in the first round"""
    dagger_rounds: int = 1
    """rounds of collection with the student playing (teacher labelling), each of dagger_games"""
    dagger_games: int = 1000
    """games per DAgger round"""
    feature_shortcut: bool = False
    """the action layer also reads the action features (train/networks.py; the trainer's)"""
    action_scorer: int = 0
    """hidden width of a network shared by every action that scores each move from its own
    features and the state (0: none; needs '+features'; the trainer's, train/networks.py)"""
    epochs: int = 8
    """passes over the data per fit"""
    value_coef: float = 0.5
    """weight of the value loss next to the cross-entropy"""
    workers: int = 2
    """processes collecting games"""
    device: str = "auto"
    """where the fit runs: 'auto' (a GPU when torch sees one), 'cpu' or 'cuda'"""
    out: str = ""
    """where the policy goes (<out>.npz/.json); default runs/imitation/<exp_name>"""
    eval_games: int = 1000
    """games per evaluation opponent (0: none), a multiple of num_players"""
    eval_workers: int = 2
    """processes for the evaluation games"""

    def check_own_keys(self) -> None:
        """``ValueError`` naming the first of this trainer's keys with a bad value."""
        super().check_own_keys()
        from loco_envs.train.torch_policy import resolve_device  # torch only when fitting

        resolve_device(self.device)
        self.at_least(1, "max_decisions", "games", "epochs", "workers", "eval_workers")
        self.at_least(0, "dagger_rounds", "dagger_games", "eval_games", "value_coef")
        keyed("feature_shortcut", check_feature_shortcut, self.feature_shortcut,
              self.obs_transform, predicate=True)
        keyed("action_scorer", check_action_scorer, self.action_scorer, self.obs_transform,
              predicate=True)
        self.multiple_of_players("eval_games")

    def opponent_specs(self) -> dict[str, float]:
        """The mix with 'teacher' as the teacher's spec (checked first: the mix relies on it);
        'snapshot' means nothing here, there is no learner to copy."""
        self.check_spec("teacher", self.teacher)
        if SNAPSHOT in self.opponent_mix:
            raise ValueError(f"config key 'opponent_mix': {SNAPSHOT!r} is the trainer's; "
                             f"imitation plays agent specs and {TEACHER!r}")
        specs: dict[str, float] = {}
        for spec, weight in self.opponent_mix.items():
            spec = self.teacher if spec == TEACHER else spec
            specs[spec] = specs.get(spec, 0.0) + weight
        return specs


# ---------------------------------------------------------------------------------------------
# Collection
@dataclass
class Dataset:
    """The student seat's decisions: raw observation, mask (bit-packed), teacher action, value."""

    obs: np.ndarray  # (M, D) float32, as the env gives it (transform applied when fitting)
    masks: np.ndarray  # (M, ceil(A / 8)) uint8, np.packbits of the int8 masks
    actions: np.ndarray  # (M,) int64
    returns: np.ndarray  # (M,) float32: the seat's final reward (0 for a stopped game)
    games: int = 0
    student_actions: int = 0  # decisions where the student's own choice was played

    @staticmethod
    def concat(parts: Sequence[Dataset]) -> Dataset:
        return Dataset(np.concatenate([p.obs for p in parts]),
                       np.concatenate([p.masks for p in parts]),
                       np.concatenate([p.actions for p in parts]),
                       np.concatenate([p.returns for p in parts]),
                       sum(p.games for p in parts), sum(p.student_actions for p in parts))

    def __len__(self) -> int:
        return len(self.actions)


def collect(args: BCArgs, round_index: int, games: Sequence[int],
            student: NumpyPolicy | None = None) -> Dataset:
    """Play the games numbered ``games`` of round ``round_index`` (see the module docstring) on
    the suite's batched loop, the student seat being the loop's caller."""
    vec = loco_envs.make_vec(args.env_id, len(games), autoreset_mode="Disabled",
                             **{**args.env_kwargs, "max_decisions": args.max_decisions})
    n = vec.num_players
    teacher = agents.make(args.teacher)
    kinds = list(args.opponent_mix)
    players = [teacher if spec == TEACHER else agents.make(spec) for spec in kinds]
    lineup, students = _lineups(args, round_index, games, kinds, n)
    generators = SeatGenerators.per_game(
        [np.random.default_rng([args.seed, round_index, g, 2]) for g in games], n)
    rows: list[tuple[int, np.ndarray, np.ndarray, int]] = []  # (game, obs, mask, action)
    returns = np.zeros(len(games), np.float32)

    def decide(mine: np.ndarray) -> np.ndarray:
        """The teacher labels every student decision; the student (if any) plays its own."""
        if student is not None:
            chosen = student.act_batch(vec.obs[mine], vec.masks[mine],
                                       generators.generator(int(mine[0]), students[mine[0]]))
        labels = bot_actions(vec, teacher, mine, generators)
        for i, label in zip(mine.tolist(), labels.tolist(), strict=True):
            rows.append((i, vec.obs[i].copy(), np.packbits(vec.masks[i].astype(bool)), label))
        return labels if student is None else chosen

    def ended(stepped: np.ndarray) -> None:
        for i in stepped[vec.terminations[stepped]].tolist():
            returns[i] = vec.rewards[i, students[i]]

    vec.reset(seed=[int(np.random.SeedSequence([args.seed, round_index, g]).generate_state(1)[0])
                    for g in games])
    try:
        play(vec, lineup, players, generators, decide, ended)
    finally:
        vec.close()
    index = np.array([r[0] for r in rows], np.int64)
    return Dataset(np.stack([r[1] for r in rows]), np.stack([r[2] for r in rows]),
                   np.array([r[3] for r in rows], np.int64), returns[index], len(games),
                   len(rows) if student is not None else 0)


def _lineups(args: BCArgs, round_index: int, games: Sequence[int], kinds: list[str],
             n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each game's seats (indices into ``kinds``; the student's seat the loop's caller) and
    student seat, drawn from ``default_rng([seed, round, game, 1])``."""
    weights = np.array([args.opponent_mix[k] for k in kinds], float)
    lineup = np.zeros((len(games), n), np.int64)
    students = np.zeros(len(games), np.int64)
    for i, g in enumerate(games):
        rng = np.random.default_rng([args.seed, round_index, g, 1])
        students[i] = int(rng.integers(n))
        lineup[i] = rng.choice(len(kinds), size=n, p=weights / weights.sum())
        lineup[i, students[i]] = CALLER
    return lineup, students


def _collect_task(task: tuple) -> Dataset:
    args, round_index, games, student = task
    return collect(args, round_index, games, student)


def collect_round(args: BCArgs, round_index: int, num_games: int,
                  student: NumpyPolicy | None = None) -> Dataset:
    """``num_games`` games of one round, split over ``args.workers`` processes."""
    chunks = [c.tolist() for c in np.array_split(np.arange(num_games),
                                                  max(1, 4 * args.workers)) if len(c)]
    tasks = [(args, round_index, chunk, student) for chunk in chunks]
    if args.workers == 1:
        parts = [_collect_task(t) for t in tasks]
    else:
        with multiprocessing.get_context("spawn").Pool(
                args.workers, initializer=set_threads, initargs=(args.threads, args.workers)
        ) as pool:
            parts = pool.map(_collect_task, tasks)
    return Dataset.concat(parts)


# ---------------------------------------------------------------------------------------------
# Fitting
def build_networks(obs_size: int, num_actions: int, net_arch: Sequence[int], activation: str,
                   shortcut: int = 0, scorer: int = 0, features: int = 0):
    """Actor and value MLPs shaped as SB3's ``MlpPolicy`` with separate pi/vf networks (the
    actor with a feature shortcut of width ``shortcut``, and with an action scorer of hidden
    width ``scorer`` over the last ``features`` inputs, the action features, whose critic then
    reads the observation alone: :mod:`train.networks`). ``obs_size`` is the input's width,
    features included."""
    import torch.nn as nn

    from loco_envs.train.networks import ObservationOnly, Tanh, build_actor
    from loco_envs.train.torch_policy import mlp

    act = {"tanh": Tanh, "relu": nn.ReLU}[activation]
    actor = build_actor(obs_size, num_actions, net_arch, act, shortcut, scorer, features)
    cut = (features or shortcut) if scorer else 0
    value = nn.Sequential(ObservationOnly(cut), mlp([obs_size - cut, *net_arch], act),
                          nn.Linear(net_arch[-1], 1))
    return actor, value


def fit(args: BCArgs, data: Dataset, actor: Any = None, value: Any = None,
        log: Any = print) -> tuple[Any, Any, dict[str, float]]:
    """Fit (or go on fitting) the actor and value networks on ``data``; return them and stats."""
    import torch

    from loco_envs.train.networks import fold_first_layers
    from loco_envs.train.torch_policy import resolve_device

    torch.manual_seed(args.seed)
    device = torch.device(resolve_device(args.device))
    num_actions = int(loco_envs.make(args.env_id, wrapped=False, **args.env_kwargs)
                      .action_space("player_0").n)
    obs = torch.from_numpy(transform_observation(data.obs, args.obs_transform)).to(device)
    if actor is None:  # the input is the transformed observation, action features included
        extra = transform_extra_size(args.obs_transform)
        actor, value = build_networks(obs.shape[1], num_actions, args.net_arch,
                                      args.activation, extra if args.feature_shortcut else 0,
                                      args.action_scorer, extra)
    actor, value = actor.to(device), value.to(device)  # the export copies back to the CPU
    if device.type == "cpu":  # the first layers over the input's distinct columns (exact)
        fold_first_layers((actor.body, value[1]), args.obs_transform, obs.shape[1])
    legal = torch.from_numpy(np.unpackbits(data.masks, axis=1, count=num_actions).astype(bool))
    legal = legal.to(device)
    target = torch.from_numpy(data.actions).to(device)
    returns = torch.from_numpy(data.returns).to(device)
    params = list(actor.parameters()) + list(value.parameters())
    optim = torch.optim.Adam(params, lr=args.learning_rate)
    steps = args.epochs * -(-len(data) // args.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda k: 1 - 0.9 * k / steps)
    gen = torch.Generator().manual_seed(args.seed)
    stats: dict[str, float] = {}
    for epoch in range(args.epochs):
        order = torch.randperm(len(data), generator=gen)
        total = correct = ce_sum = v_sum = 0.0
        for start in range(0, len(data), args.batch_size):
            idx = order[start:start + args.batch_size].to(device)
            logits = actor(obs[idx]).masked_fill(~legal[idx], -1e9)
            ce = torch.nn.functional.cross_entropy(logits, target[idx])
            v_loss = torch.mean((value(obs[idx]).squeeze(1) - returns[idx]) ** 2)
            loss = ce + args.value_coef * v_loss
            optim.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            optim.step()
            sched.step()
            total += len(idx)
            ce_sum += float(ce.detach()) * len(idx)
            v_sum += float(v_loss.detach()) * len(idx)
            correct += float((logits.argmax(1) == target[idx]).sum())
        stats = {"cross_entropy": ce_sum / total, "value_mse": v_sum / total,
                 "agreement": correct / total}
        log(f"  epoch {epoch + 1}/{args.epochs}: cross-entropy {stats['cross_entropy']:.4f}, "
            f"agreement with the teacher {stats['agreement']:.3f}, value MSE "
            f"{stats['value_mse']:.4f}")
    return actor, value, stats


def actor_policy(actor: Any, obs_transform: str) -> NumpyPolicy:
    """The cloned actor (:func:`train.networks.build_actor`) as the data-only policy."""
    from loco_envs.train.torch_policy import to_numpy_policy

    return to_numpy_policy(actor.body, actor.head, obs_transform, actor.scores, actor.scorer)


# ---------------------------------------------------------------------------------------------
# The run
def evaluation_table(args: BCArgs, policy_path: Path) -> dict[str, Any]:
    """Duplicate-format tournaments of the saved policy against each evaluation opponent."""
    from loco_envs.train.evaluate import evaluate, resolve_opponent

    opponents = [resolve_opponent(s, args.env_id) for s in args.eval_opponents]
    result = evaluate(policy_path, args.env_id, args.num_players, opponents, args.eval_games,
                      seed=args.seed + 1000, workers=args.eval_workers,
                      options={**args.env_options, "max_decisions": args.max_decisions},
                      bootstrap=500, threads=args.threads)
    return {
        "games_per_opponent": args.eval_games,
        "format": "tournament runner, seats rotated on each deal (duplicate)",
        "seed": args.seed + 1000,
        "win_rate": {spec: {"rate": round(r, 4), "low": round(lo, 4), "high": round(hi, 4)}
                     for spec, (r, lo, hi) in result.win_rates.items()},
        "elo": {"elo": round(result.elo[0], 1), "low": round(result.elo[1], 1),
                "high": round(result.elo[2], 1)},
        "capped_games": result.capped,
    }


def output_path(args: BCArgs) -> Path:
    """Where :func:`run` writes the clone (``<it>.npz``, ``.json``, ``.value.npz``): ``out``
    less any ``.npz``/``.json``, or ``runs/imitation/<exp_name>``."""
    return policy_paths(args.out or f"runs/imitation/{args.exp_name or 'bc'}")[0].with_suffix("")


def run(args: BCArgs, log: Any = print) -> Path:
    """Collect, fit, DAgger, save and evaluate as ``args`` says; return the ``.npz`` path."""
    args.validate()
    import torch  # noqa: F401 - imported first, so that set_threads reaches its threads

    set_threads(args.threads)  # the fit has the process to itself; collectors set their own
    start = time.perf_counter()
    out = output_path(args)
    args.out = str(out)  # recorded as written: the trainer's init_policy reuses it by its config
    log(f"collecting {args.games} games of {args.teacher} against {args.opponent_mix}")
    data = collect_round(args, 0, args.games)
    log(f"{len(data)} decisions in {time.perf_counter() - start:.0f} s; fitting")
    actor, value, stats = fit(args, data, log=log)
    for r in range(1, args.dagger_rounds + 1):
        student = actor_policy(actor, args.obs_transform)
        more = collect_round(args, r, args.dagger_games, student)
        data = Dataset.concat([data, more])
        log(f"DAgger round {r}: +{len(more)} decisions ({time.perf_counter() - start:.0f} s); "
            f"fitting on {len(data)}")
        actor, value, stats = fit(args, data, actor, value, log=log)
    policy = actor_policy(actor, args.obs_transform)
    seconds = time.perf_counter() - start
    config = dataclasses.asdict(args)
    meta = {"env_id": args.env_id, "env_options": args.env_kwargs, "seed": args.seed,
            "decisions": len(data),
            "config": {"method": "behaviour cloning (train.imitation)", **config,
                       "fit": {k: round(v, 4) for k, v in stats.items()},
                       "games_collected": data.games, "wall_seconds": round(seconds, 1)}}
    path = save_policy(out, policy, meta)
    save_value(out, value)
    log(f"saved {path} after {seconds:.0f} s")
    if args.eval_games:
        meta["evaluation"] = evaluation_table(args, path)
        meta["config"]["wall_seconds_with_evaluation"] = round(time.perf_counter() - start, 1)
        path = save_policy(out, policy, meta)
        log(json.dumps(meta["evaluation"], indent=2))
    return path


def usage() -> str:
    return config_usage(BCArgs, "python -m train.imitation",
                        "Behaviour cloning of a scripted bot into the PPO actor network.")


def main(argv: Sequence[str] | None = None) -> int:
    args, code = command_line(BCArgs, sys.argv[1:] if argv is None else argv, usage)
    if args is None:
        return code
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
