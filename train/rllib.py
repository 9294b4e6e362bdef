"""Self-play PPO on Ray RLlib (the ``ray`` extra): the suite's configs, trained on a cluster.

Run ``python -m train.rllib configs/moco_quick.yaml [--address HOST:PORT] [--key value ...]``:
the same YAML configs as ``python -m train`` (keys that have no meaning here are listed and
left out), RLlib's current API stack (``RLModule`` / ``Learner``, ``EnvRunner`` actors,
``MultiAgentEnv``), a run folder ``runs/<env>__rllib_<exp>__<seed>__<time>/`` with TensorBoard
scalars (``charts/``, ``losses/``, ``eval/``), and the trained actor exported in the suite's
data-only agent format (:mod:`agents.ppo`: ``.npz`` + ``.json``), so
``agents.make("ppo:<run>/policy/final.npz")``, tournaments and ``play`` use it like any other.

Who plays which seat. Each game draws, from the env's seeded generator, the learner's seat
(uniform) and for every other seat an opponent from ``opponent_mix``: a scripted bot
(``random``, ``<game>/heuristic``, any ``agents.make`` spec) or ``snapshot``, one of
``pool_size`` frozen copies of the learner. RLlib sees the seats played by networks as agents
named ``<module>@<seat>`` (``learner@1``, ``frozen_3@0``), and ``policy_mapping_fn`` maps an
agent to the module before the ``@``: the learner's seat to the trained module ``learner``, a
snapshot's seat to its frozen module (in ``policies_to_train`` only ``learner`` is). Scripted bots
read views, not observation vectors, so they cannot be RLModules: the env plays their seats
itself, between the network moves, the way the local trainer's opponent pool does. Every
``snapshot_every`` iterations the learner's weights are copied into the next frozen slot (round
robin); all slots start as copies of the initial learner.

Observations are ``{"observations": vector, "action_mask": int8 0/1}``, the keys of
:class:`loco_envs.wrappers.RLlibObservations` (RLlib's action-masking convention), copied at each
step (the rules engines hand out their cached legal mask).

Why not RLlib's ``PettingZooEnv`` wrapper: it exposes every seat as an agent with PettingZoo's
``observation`` key, while RLlib's masking modules read ``observations``, our scripted seats
must stay inside the env, and the per-seat module choice has to travel in the agent id.
:class:`SeatGameEnv` is that adapter: turn-based, it returns an observation only for the agent
to act, rewards nothing until the end, then pays each network seat its own final reward (also
when another seat's move ended the game) with ``terminateds["__all__"]``; a game stopped by the
env option ``max_decisions`` (LOCO games can stall) is truncated with reward 0.

The network (:class:`MaskedActorCritic`) is the local trainer's: an MLP actor (hidden layers with
one activation, then the action layer) on the transformed observation, masked logits
(illegal actions at the float minimum), and a separate MLP critic. The actor has exactly the
layout of :class:`loco_envs.policy.NumpyPolicy`, so the export is the weights themselves
(:func:`export_policy`); a test checks that the exported policy gives the module's logits.

Learner decisions are the steps of the ``learner`` module (its seat's moves); the run stops at
``total_timesteps`` of them, as the local trainer does.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(f"train.rllib needs the ray and train extras: pip install -e "
                      f"'.[train,ray]' ({exc})") from exc

import loco_envs
from loco_envs import agents
from loco_envs.core.threads import set_threads
from loco_envs.policy import NumpyPolicy, save_policy
from loco_envs.train.config import SelfPlayArgs, command_line, parse_command_line
from loco_envs.train.config import usage as config_usage
from loco_envs.train.evaluate import resolve_opponent
from loco_envs.train.torch_policy import mlp, to_numpy_policy
from loco_envs.wrappers import RLLIB_ACTION_MASK, RLLIB_OBSERVATIONS, RLlibObservations, rename

__all__ = ["Args", "MaskedActorCritic", "SeatGameEnv", "TrainResult", "build_config",
           "export_policy", "load_args", "main", "module_of_agent", "train"]

LEARNER = "learner"
SNAPSHOT = "snapshot"
_ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}
_TORCH_TRANSFORMS = {"none": lambda x: x, "log1p": torch.log1p}


# ---------------------------------------------------------------------------------------------
# Arguments
@dataclass
class Args(SelfPlayArgs):
    """Everything a run depends on: the self-play keys every trainer shares
    (:class:`train.config.SelfPlayArgs`, with this trainer's defaults) and the env runners; a
    YAML config fills it, ``--key value`` overrides it."""

    num_envs: int = 8
    """games each env runner steps together"""
    num_steps: int = 256
    """env steps per game per iteration: a train batch is num_envs x num_steps network moves"""
    final_eval_games: int = 200
    """games per opponent in the final tournament (0: none; a multiple of num_players)"""
    threads: int | None = None
    """BLAS and torch threads of the learner, the driver (null: its share of the cores; Ray
    starts its env runners with one thread each, OMP_NUM_THREADS=1)"""
    num_env_runners: int = 1
    """Ray actors collecting games, one CPU each (0: collect in the driver)"""

    def check_own_keys(self) -> None:
        """``ValueError`` naming the first of this trainer's keys with a bad value."""
        super().check_own_keys()
        self.at_least(0, "num_env_runners")
        self.require("obs_transform", self.obs_transform in _TORCH_TRANSFORMS,
                     f"one of {list(_TORCH_TRANSFORMS)} for RLlib (action features are only in "
                     f"python -m train)")

    def opponent_specs(self) -> dict[str, float]:
        """The mix with 'heuristic' as the game's own (this trainer reads the shorthand)."""
        specs: dict[str, float] = {}
        for spec, weight in self.opponent_mix.items():
            spec = resolve_opponent(spec, self.env_id)
            specs[spec] = specs.get(spec, 0.0) + weight
        return specs

    @property
    def env_config(self) -> dict[str, Any]:
        """What every :class:`SeatGameEnv` is built from."""
        return {"env_id": self.env_id, "env_options": self.play_options,
                "opponent_mix": dict(self.opponent_mix), "pool_size": self.pool_size}

    @property
    def module_ids(self) -> list[str]:
        return [LEARNER] + [f"frozen_{k}" for k in range(self.pool_size)]


def opponent_weights(mix: dict[str, float], env_id: str) -> tuple[list[str], np.ndarray]:
    """The opponent kinds (bot specs and ``snapshot``) and their probabilities, from a mix
    :meth:`Args.validate` accepted."""
    kinds = [resolve_opponent(spec, env_id) for spec in mix]
    weights = np.asarray([float(w) for w in mix.values()])
    return kinds, weights / weights.sum()


def load_args(path: str | Path | None, argv: Sequence[str] = ()) -> tuple[Args, list[str]]:
    """Validated :class:`Args` from a YAML config (a path or a shipped config's name) and
    ``--key value`` flags; also the config's keys that have no meaning here (the local
    trainer's ``backend``, ``eval_every`` ...), left out and listed.

    Flags must name a field of :class:`Args`; a config file written for ``python -m train`` may
    hold more.
    """
    unused: list[str] = []
    argv = [str(path), *argv] if path is not None else list(argv)
    return parse_command_line(Args, argv, unused), unused


# ---------------------------------------------------------------------------------------------
# The game as an RLlib multi-agent env
def module_of_agent(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """``policy_mapping_fn``: the agent ``<module>@<seat>`` is played by ``<module>``."""
    return agent_id.split("@", 1)[0]


class SeatGameEnv(MultiAgentEnv):
    """One game of the suite, the learner and frozen copies as RLlib agents, bots inside.

    ``config``: ``env_id``, ``env_options`` (with ``num_players``), ``opponent_mix`` (spec ->
    weight, ``snapshot`` for a frozen copy), ``pool_size``. See the module docstring.
    """

    def __init__(self, config: dict[str, Any] | None = None):
        super().__init__()
        config = dict(config or {})
        self.env_id = config["env_id"]
        self.raw = loco_envs.make(self.env_id, wrapped=False, **config["env_options"])
        self.num_players = self.raw.num_players
        self.kinds, self.weights = opponent_weights(config["opponent_mix"], self.env_id)
        self.frozen = [f"frozen_{k}" for k in range(config["pool_size"])]
        self.bots = {spec: agents.make(spec) for spec in self.kinds if spec != SNAPSHOT}
        seats = range(self.num_players)
        self.possible_agents = [f"{m}@{s}" for m in [LEARNER, *self.frozen] for s in seats]
        self.agents = []
        agent = self.raw.possible_agents[0]
        single = RLlibObservations(self.raw).observation_space(agent)  # the RLlib keys
        self.observation_spaces = dict.fromkeys(self.possible_agents, single)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.raw.action_space(agent))
        self.rng = np.random.default_rng()
        self.players: list[str] = []  # per seat: an RLlib agent id, or a bot spec

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        while True:  # a deal the bots finish before any network moves is dealt again
            self._seat_players()
            self.raw.reset(seed=int(self.rng.integers(2**31 - 1)))
            self.seen: set[str] = set()
            if self._play_bots():
                break
        return self._observation_of_mover(), {}

    def _seat_players(self) -> None:
        learner_seat = int(self.rng.integers(self.num_players))
        self.players = []
        for seat in range(self.num_players):
            if seat == learner_seat:
                self.players.append(f"{LEARNER}@{seat}")
                continue
            kind = self.kinds[int(self.rng.choice(len(self.kinds), p=self.weights))]
            if kind == SNAPSHOT:
                kind = f"{self.frozen[int(self.rng.integers(len(self.frozen)))]}@{seat}"
            self.players.append(kind)
        self.agents = [p for p in self.players if "@" in p]

    def _play_bots(self) -> bool:
        """Scripted seats move until a network's turn; False when the game ended first."""
        raw = self.raw
        while not raw.over:
            seat = raw.game.current_seat
            player = self.players[seat]
            if "@" in player:
                return True
            raw.step(self.bots[player].act(raw.view(seat), raw.game.legal_mask(), self.rng))
        return False

    def _observation_of(self, agent_id: str) -> dict[str, np.ndarray]:
        """The seat's observation under RLlib's keys, copied: the rules engines hand out
        their cached legal mask, which nothing downstream may write into."""
        seat = int(agent_id.rsplit("@", 1)[1])
        obs = rename(self.raw.observe(self.raw.possible_agents[seat]))
        return {key: np.array(value, copy=True) for key, value in obs.items()}

    def _observation_of_mover(self) -> dict[str, dict[str, np.ndarray]]:
        mover = self.players[self.raw.game.current_seat]
        self.seen.add(mover)
        return {mover: self._observation_of(mover)}

    def _mover(self) -> str:
        return self.players[self.raw.game.current_seat]

    def step(self, action_dict: dict[str, int]):
        mover = self.players[self.raw.game.current_seat]
        if set(action_dict) != {mover}:
            raise ValueError(f"SeatGameEnv.step: {mover} is to act, got actions for "
                             f"{sorted(action_dict)}")
        self.raw.step(int(action_dict[mover]))
        if self._play_bots():  # RLlib wants a reward (0 until the end) with every next obs
            return (self._observation_of_mover(), {self._mover(): 0.0}, {"__all__": False},
                    {"__all__": False}, {})
        final = self.raw.final_rewards() if not self.raw.truncated_game else None
        observations, rewards = {}, {}
        for agent_id in sorted(self.seen):
            seat = int(agent_id.rsplit("@", 1)[1])
            observations[agent_id] = self._observation_of(agent_id)
            rewards[agent_id] = 0.0 if final is None else float(final[seat])
        ended = final is not None
        return (observations, rewards, {"__all__": ended}, {"__all__": not ended}, {})


# ---------------------------------------------------------------------------------------------
# The network
class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """MLP actor with masked logits and a separate MLP critic, on ``{"observations",
    "action_mask"}`` observations; ``model_config``: ``net_arch``, ``activation``,
    ``obs_transform``. The actor is :class:`loco_envs.policy.NumpyPolicy`'s layout."""

    def setup(self) -> None:
        config = self.model_config
        size = int(self.observation_space[RLLIB_OBSERVATIONS].shape[0])
        widths = [size, *config["net_arch"]]
        self.activation = config["activation"]
        self.obs_transform = config["obs_transform"]
        self.actor = mlp(widths, _ACTIVATIONS[self.activation])
        self.action_head = torch.nn.Linear(widths[-1], int(self.action_space.n))
        self.critic = mlp(widths, _ACTIVATIONS[self.activation])
        self.value_head = torch.nn.Linear(widths[-1], 1)
        torch.nn.init.orthogonal_(self.action_head.weight, 0.01)  # near-uniform first policy
        torch.nn.init.zeros_(self.action_head.bias)

    def _inputs(self, batch: dict[str, Any]) -> torch.Tensor:
        return _TORCH_TRANSFORMS[self.obs_transform](batch[Columns.OBS][RLLIB_OBSERVATIONS])

    def unmasked_logits(self, observations: torch.Tensor) -> torch.Tensor:
        """The actor's logits of raw observation vectors (what the numpy export computes)."""
        x = _TORCH_TRANSFORMS[self.obs_transform](observations)
        return self.action_head(self.actor(x))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits = self.action_head(self.actor(self._inputs(batch)))
        mask = batch[Columns.OBS][RLLIB_ACTION_MASK].to(logits.dtype)  # int8 0/1 from the env
        return {Columns.ACTION_DIST_INPUTS: logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.value_head(self.critic(self._inputs(batch))).squeeze(-1)


def module_spec(args: Args) -> RLModuleSpec:
    return RLModuleSpec(module_class=MaskedActorCritic,
                        model_config={"net_arch": list(args.net_arch),
                                      "activation": args.activation,
                                      "obs_transform": args.obs_transform})


def export_policy(module: MaskedActorCritic) -> NumpyPolicy:
    """The learner's actor as the suite's data-only policy (:func:`train.torch_policy.
    to_numpy_policy`: the same logits)."""
    return to_numpy_policy(module.actor, module.action_head, module.obs_transform)


# ---------------------------------------------------------------------------------------------
# Training
class LearnerResults(RLlibCallback):
    """Per finished game: the learner's final reward and whether it came first."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        for agent_id, rewards in episode.get_rewards().items():
            if module_of_agent(agent_id) == LEARNER:
                value = float(np.sum(rewards))
                metrics_logger.log_value("learner_return", value, reduce="mean", window=200)
                metrics_logger.log_value("learner_first", float(value >= 1.0), reduce="mean",
                                         window=200)


def build_config(args: Args) -> PPOConfig:
    """The PPO config of a run: the env, the env runners, the modules and their mapping."""
    return (
        PPOConfig()
        # RLlib's env check steps random actions, which our rules refuse as illegal
        .environment(SeatGameEnv, env_config=args.env_config, disable_env_checking=True)
        .env_runners(num_env_runners=args.num_env_runners,
                     num_envs_per_env_runner=args.num_envs, rollout_fragment_length="auto")
        .multi_agent(policies=set(args.module_ids), policy_mapping_fn=module_of_agent,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={m: module_spec(args) for m in args.module_ids}))
        .training(lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda,
                  train_batch_size_per_learner=args.num_envs * args.num_steps,
                  minibatch_size=args.batch_size, num_epochs=args.update_epochs,
                  clip_param=args.clip_coef, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm,
                  grad_clip_by="global_norm", use_kl_loss=False)
        .learners(num_learners=0)
        .callbacks(LearnerResults)
        .debugging(seed=args.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=200)
    )


@dataclass
class TrainResult:
    """What a run left: its folder, the exported policy, how much it learned and how fast."""

    run_dir: Path
    policy: Path
    learner_decisions: int
    iterations: int
    seconds: float
    evaluation: Any = None

    @property
    def decisions_per_second(self) -> float:
        return self.learner_decisions / self.seconds if self.seconds > 0 else 0.0


def copy_weights(algo: Any, source: str, targets: Sequence[str]) -> None:
    """Load ``source``'s weights into each of ``targets`` (learner and every env runner)."""
    state = algo.get_module(source).get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": dict.fromkeys(targets, state)}}})


def _learner_steps(result: dict) -> int:
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(LEARNER, 0))


def _scalars(result: dict) -> dict[str, float]:
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(LEARNER, {})
    out = {}
    for name, key in (("charts/learner_return", "learner_return"),
                      ("charts/learner_first", "learner_first"),
                      ("charts/episode_len_mean", "episode_len_mean")):
        if key in runners:
            out[name] = float(runners[key])
    for name, key in (("losses/policy_loss", "policy_loss"), ("losses/value_loss", "vf_loss"),
                      ("losses/entropy", "entropy"),
                      ("losses/explained_variance", "vf_explained_var")):
        if key in learner:
            out[name] = float(learner[key])
    return out


def run_dir_for(args: Args) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path(args.runs_dir) / f"{args.env_id}__rllib_{args.exp_name}__{args.seed}__{stamp}"


def train(args: Args, address: str | None = None, progress: bool = True) -> TrainResult:
    """Train on the Ray cluster at ``address`` (or the session already open, or a local one)."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from loco_envs.benchmarks import ray_backend

    args.validate()
    set_threads(args.threads)
    ray_backend.connect(address)
    run_dir = run_dir_for(args)
    writer = SummaryWriter(str(run_dir))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()))
    algo = build_config(args).build_algo()
    try:
        copy_weights(algo, LEARNER, args.module_ids[1:])
        bar = tqdm(total=args.total_timesteps, unit="decision", desc="rllib", disable=not progress,
                   file=sys.stderr)
        start, steps, iteration = time.perf_counter(), 0, 0
        deadline = start + 60 * args.time_limit_minutes if args.time_limit_minutes else None
        while steps < args.total_timesteps and (deadline is None or time.perf_counter() < deadline):
            result = algo.train()
            iteration += 1
            if _learner_steps(result) <= steps:
                raise RuntimeError(f"iteration {iteration} collected no learner decisions "
                                   "(an env runner failed: see its error above)")
            bar.update(_learner_steps(result) - steps)
            steps = _learner_steps(result)
            seconds = time.perf_counter() - start
            for name, value in _scalars(result).items():
                writer.add_scalar(name, value, steps)
            writer.add_scalar("charts/learner_decisions_per_s", steps / seconds, steps)
            if args.snapshot_every and iteration % args.snapshot_every == 0:
                slot = (iteration // args.snapshot_every - 1) % args.pool_size
                copy_weights(algo, LEARNER, [f"frozen_{slot}"])
        bar.close()
        seconds = time.perf_counter() - start
        policy = export_policy(algo.get_module(LEARNER))
    finally:
        algo.stop()
    path = save_policy(run_dir / "policy" / "final", policy, {
        "env_id": args.env_id,
        "env_options": {**args.env_options, "num_players": args.num_players},
        "config": {"trainer": "train.rllib", **dataclasses.asdict(args)},
        "seed": args.seed, "decisions": steps})
    result = TrainResult(run_dir, path, steps, iteration, seconds)
    (run_dir / "speed.json").write_text(json.dumps({
        "learner_decisions": steps, "iterations": iteration, "seconds": round(seconds, 2),
        "learner_decisions_per_s": round(result.decisions_per_second, 1)}, indent=2) + "\n")
    if args.final_eval_games:
        result.evaluation = final_evaluation(args, path, run_dir, writer, steps)
    writer.close()
    return result


def final_evaluation(args: Args, policy: Path, run_dir: Path, writer: Any, step: int) -> Any:
    """The exported policy against the evaluation opponents, played on the same Ray cluster."""
    from loco_envs.train.evaluate import evaluate

    opponents = [resolve_opponent(s, args.env_id) for s in args.eval_opponents]
    result = evaluate(policy, args.env_id, args.num_players, opponents, args.final_eval_games,
                      seed=args.seed, options=args.env_options, bootstrap=args.eval_bootstrap,
                      out=run_dir / "eval", backend="ray")
    for name, value in result.scalars().items():
        writer.add_scalar(name, value, step)
    return result


# ---------------------------------------------------------------------------------------------
# Command line
#: The command's own flags, beside the config keys.
RAY_FLAGS = ["  --address HOST:PORT   the Ray cluster (or auto); default: a local Ray here",
             "  --no-progress         no progress bar"]


def usage() -> str:
    return config_usage(Args, "python -m train.rllib", "Self-play PPO on Ray RLlib.", RAY_FLAGS)


def split_ray_flags(argv: Sequence[str]) -> tuple[str | None, bool, list[str]]:
    """``--address`` and ``--no-progress`` taken out of ``argv`` (the Ray session's, not the
    run's: they are no config keys); the address, whether to show progress, the rest."""
    address, progress, rest = None, True, []
    tokens = iter(argv)
    for token in tokens:
        if token == "--no-progress":
            progress = False
        elif token == "--address":
            address = next(tokens, None)
            if address is None:
                raise ValueError("flag --address needs a value")
        elif token.startswith("--address="):
            address = token.partition("=")[2]
        else:
            rest.append(token)
    return address, progress, rest


def main(argv: Sequence[str] | None = None) -> int:
    try:
        address, progress, rest = split_ray_flags(sys.argv[1:] if argv is None else argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    unused: list[str] = []
    args, code = command_line(Args, rest, usage, unused)
    if args is None:
        return code
    if unused:
        print(f"note: not used by train.rllib: {', '.join(unused)}", file=sys.stderr)
    try:
        result = train(args, address, progress=progress)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{result.learner_decisions} learner decisions in {result.iterations} iterations, "
          f"{result.seconds:.1f} s: {result.decisions_per_second:,.0f} learner decisions/s")
    print(f"policy: {result.policy}  (agents.make('ppo:{result.policy}'))")
    if result.evaluation is not None:
        for spec, (rate, low, high) in result.evaluation.win_rates.items():
            print(f"win rate vs {spec}: {rate:.3f} ({low:.3f}-{high:.3f})")
        elo, low, high = result.evaluation.elo
        print(f"Elo {elo:.0f} ({low:.0f}-{high:.0f})")
    print(f"tensorboard --logdir {result.run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
