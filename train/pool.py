"""The opponent pool: who fills the seats the learner does not hold.

A *mix* weighs the kinds of opponent: agent specs (``random``, ``<game>/heuristic``, ...),
trained agents saved as data (``ppo:<path>``, ``<game>/ppo``: fixed members of the field, played
in batches like snapshots), and ``snapshot``, the frozen copies of the learner that the trainer
adds every few updates (the newest ``max_snapshots`` are drawn from). Before the first snapshot
exists its weight is shared out among the others. The pool only draws: :meth:`OpponentPool.sample`
returns an opponent *code* (an index into :attr:`OpponentPool.bots`, or ``len(bots)`` + the id of
a frozen policy: the ``ppo`` agents first, then the learner's snapshots), and the self-play env
plays it: bots inside the vector env, where the games live, frozen policies batched in one
forward pass each. Each opponent seat of each episode is drawn on its own from the generator it
is handed, so a run is a function of its seed.

How a seat is drawn (``sampling``, the config key ``opponent_sampling``):

=================  ===========================================================================
``uniform``        the mix as written: a kind by its weight, then one of the eligible
                   snapshots, each equally likely
``pfsp``           prioritised fictitious self-play (AlphaStar's PFSP, "hard" weighting): each
                   member (every bot and ``ppo`` agent, every eligible snapshot, which share the
                   ``snapshot`` weight) is drawn with weight ``prior * ((1 - p)^2 + floor)``,
                   where ``p`` is the learner's recent score against it: the field is weighted
                   toward the opponents that still beat the learner, so it stops polishing
                   its play against one it has already solved
``pfsp-even``      as ``pfsp`` with ``p (1 - p)``: toward opponents of the learner's own level
=================  ===========================================================================

The score ``p`` comes from the games themselves: the self-play env hands every finished episode
to :meth:`OpponentPool.record` (the learner's final reward, mapped from ``[-1, 1]`` onto
``[0, 1]``: a win 1, a tie 1/2, a loss 0), credited to each opponent that sat at the table. Per
member the last :data:`PFSP_WINDOW` results count, with one pseudo-win and one pseudo-loss, so
a newcomer starts at ``p = 1/2`` and is tried at once. The ``floor`` (:data:`PFSP_FLOOR`) keeps
a beaten opponent in the field at a low rate, so its score stays current.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from loco_envs import agents
from loco_envs.policy import NumpyPolicy, load_policy

__all__ = ["PFSP_FLOOR", "PFSP_WINDOW", "SAMPLING", "SNAPSHOT", "FrozenAgent", "OpponentPool",
           "check_mix", "check_sampling", "pfsp_weight"]

#: The mix key of the learner's frozen snapshots.
SNAPSHOT = "snapshot"
#: Values of the config key ``opponent_sampling`` (the module docstring).
SAMPLING = ("uniform", "pfsp", "pfsp-even")
#: Results per member that PFSP's win rate is taken over: about a few rollouts' worth of one
#: member's games, so the weights follow the learner as it improves.
PFSP_WINDOW = 400
#: Added to every member's PFSP weight (before the prior): an opponent the learner always beats
#: is still met about 2% as often as a 50/50 one, which keeps its measured rate fresh.
PFSP_FLOOR = 0.02


def check_sampling(sampling: Any) -> str:
    """The opponent sampling mode; ``ValueError`` naming ``opponent_sampling`` when unknown."""
    if sampling not in SAMPLING:
        raise ValueError(f"config key 'opponent_sampling' must be one of {list(SAMPLING)}, "
                         f"got {sampling!r}")
    return sampling


def pfsp_weight(p: np.ndarray | float, sampling: str) -> np.ndarray:
    """PFSP's weight of members the learner scores ``p`` against (before the prior)."""
    p = np.asarray(p, np.float64)
    shaped = (1.0 - p) ** 2 if sampling == "pfsp" else p * (1.0 - p)
    return shaped + PFSP_FLOOR


def _is_policy_spec(spec: str) -> bool:
    return spec.startswith("ppo:") or spec in agents.PRETRAINED


def _policy_document(spec: str) -> dict[str, Any]:
    if spec.startswith("ppo:"):
        return load_policy(spec[len("ppo:"):])[1]
    return load_policy(agents.PRETRAINED_DIR / agents.PRETRAINED[spec])[1]


def check_mix(mix: Mapping[str, float], env_id: str, key: str = "opponent_mix",
              num_players: int | None = None) -> dict:
    """The mix as a dict of float weights; ``ValueError`` naming ``key`` when it is bad.

    A ``ppo:`` or ``<game>/ppo`` member must be a policy of ``env_id`` (and of ``num_players``,
    when given) that loads.
    """
    if not isinstance(mix, Mapping) or not mix:
        raise ValueError(f"config key {key!r} must be a non-empty mapping of opponent -> weight")
    game = env_id.removesuffix("_v0")
    out = {}
    for spec, weight in mix.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ValueError(f"config key {key!r}: weight of {spec!r} must be a number >= 0, "
                             f"got {weight!r}")
        if spec != SNAPSHOT:
            if not isinstance(spec, str):
                raise ValueError(f"config key {key!r}: {spec!r} is not an opponent; use "
                                 f"'random', '{game}/heuristic', 'ppo:<path>' or '{SNAPSHOT}'")
            if "/" in spec and not spec.startswith("ppo:") and spec.split("/")[0] != game:
                raise ValueError(f"config key {key!r}: {spec!r} plays {spec.split('/')[0]}, "
                                 f"not {env_id}")
            try:
                if _is_policy_spec(spec):
                    _check_policy(spec, env_id, num_players)
                else:
                    agents.make(spec)
            except ValueError as exc:
                raise ValueError(f"config key {key!r}: {exc}") from None
        out[spec] = float(weight)
    if sum(w for s, w in out.items() if s != SNAPSHOT) <= 0:
        raise ValueError(f"config key {key!r}: give some weight to a bot (not only "
                         f"{SNAPSHOT!r}: there is no snapshot before the first update)")
    return out


def _check_policy(spec: str, env_id: str, num_players: int | None) -> None:
    doc = _policy_document(spec)
    if doc["env_id"] != env_id:
        raise ValueError(f"{spec!r} is a policy of {doc['env_id']}, not {env_id}")
    theirs = doc.get("env_options", {}).get("num_players")
    if num_players is not None and theirs is not None and theirs != num_players:
        raise ValueError(f"{spec!r} plays {theirs} players, not {num_players}")


class FrozenAgent:
    """A saved agent (``ppo:`` / ``<game>/ppo``) as a pool member: a batch of games' moves at
    the temperature the agent plays at (the shipped ones greedily), like a snapshot's."""

    def __init__(self, spec: str):
        self.spec = spec
        self.bot = agents.make(spec)
        self.policy: NumpyPolicy = self.bot.policy
        self.obs_transform = self.policy.obs_transform

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  inputs: np.ndarray | None = None,
                  logits: np.ndarray | None = None) -> np.ndarray:
        return self.policy.act_batch(obs, masks, rng, temperature=self.bot.temperature,
                                     inputs=inputs, logits=logits)


class OpponentPool:
    """Draws an opponent code per seat from a mix of bots, saved agents and learner snapshots."""

    def __init__(self, mix: Mapping[str, float], env_id: str, max_snapshots: int = 5,
                 sampling: str = "uniform", num_players: int | None = None):
        self.mix = check_mix(mix, env_id, num_players=num_players)
        if max_snapshots < 1:
            raise ValueError(f"config key 'pool_size' must be >= 1, got {max_snapshots}")
        self.sampling = check_sampling(sampling)
        self.max_snapshots = max_snapshots
        self.bot_specs = [s for s in self.mix if s != SNAPSHOT and not _is_policy_spec(s)]
        self.bots: list[Any] = [agents.make(s) for s in self.bot_specs]
        #: frozen policies by id: the saved agents of the mix (ids 0.., never dropped), then the
        #: learner's snapshots (the newest few drawn from, older ones kept while games play them)
        self.agent_specs = [s for s in self.mix if _is_policy_spec(s)]
        self._frozen: dict[int, Any] = {i: FrozenAgent(s) for i, s in enumerate(self.agent_specs)}
        self._next_id = len(self.agent_specs)
        self._results: dict[str, deque] = {}  # member name -> the learner's recent scores

    @property
    def snapshots(self) -> list[NumpyPolicy]:
        """The snapshots drawn from now, oldest first."""
        return [self._frozen[i] for i in self._eligible()]

    def _eligible(self) -> list[int]:
        learner = sorted(i for i in self._frozen if i >= len(self.agent_specs))
        return learner[-self.max_snapshots:]

    def add_snapshot(self, policy: NumpyPolicy, in_use: Iterable[int] = ()) -> int:
        """Freeze a copy of the learner; drop old ones no game plays (``in_use``); its code."""
        code = len(self.bots) + self._next_id
        self._frozen[self._next_id] = policy
        self._next_id += 1
        keep = (set(self._eligible()) | {c - len(self.bots) for c in in_use}
                | set(range(len(self.agent_specs))))
        for sid in [s for s in self._frozen if s not in keep]:
            del self._frozen[sid]
            self._results.pop(f"{SNAPSHOT}-{sid - len(self.agent_specs)}", None)
        return code

    def policy(self, code: int) -> Any:
        """The frozen policy behind an opponent code ``>= len(bots)`` (``act_batch``)."""
        return self._frozen[code - len(self.bots)]

    def holds(self, code: int) -> bool:
        """Whether the frozen policy of opponent code ``code`` is still in the pool."""
        return code - len(self.bots) in self._frozen

    def is_snapshot(self, code: int) -> bool:
        """Whether ``code`` is played by a frozen policy (a snapshot or a saved agent)."""
        return code >= len(self.bots)

    def name(self, code: int) -> str:
        if code < len(self.bots):
            return self.bot_specs[code]
        fid = code - len(self.bots)
        if fid < len(self.agent_specs):
            return self.agent_specs[fid]
        return f"{SNAPSHOT}-{fid - len(self.agent_specs)}"

    # --- results (PFSP) --------------------------------------------------------------------------
    def record(self, opponents: Iterable[str], reward: float) -> None:
        """One finished episode: the learner's final reward against the named opponents."""
        score = 0.5 * (1.0 + min(1.0, max(-1.0, float(reward))))
        for name in set(opponents):
            self._results.setdefault(name, deque(maxlen=PFSP_WINDOW)).append(score)

    def win_rates(self) -> dict[str, float]:
        """The learner's recent score against each member met so far (with the pseudo-counts)."""
        return {name: (sum(r) + 1.0) / (len(r) + 2.0) for name, r in self._results.items()}

    def _members(self) -> tuple[list[int], np.ndarray]:
        """Every member's code and its weight under the sampling mode in force."""
        eligible = self._eligible()
        codes, prior = [], []
        for spec, weight in self.mix.items():
            if spec == SNAPSHOT:
                for sid in eligible:
                    codes.append(len(self.bots) + sid)
                    prior.append(weight / len(eligible))
            elif _is_policy_spec(spec):
                codes.append(len(self.bots) + self.agent_specs.index(spec))
                prior.append(weight)
            else:
                codes.append(self.bot_specs.index(spec))
                prior.append(weight)
        weights = np.array(prior, np.float64)
        if self.sampling != "uniform":
            rates = self.win_rates()
            p = np.array([rates.get(self.name(c), 0.5) for c in codes])
            weights *= pfsp_weight(p, self.sampling)
        return codes, weights / weights.sum()

    def weights(self) -> dict[str, float]:
        """The chance of each member (snapshots by name) per seat now; they sum to 1."""
        codes, weights = self._members()
        return {self.name(c): float(w) for c, w in zip(codes, weights, strict=True)}

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` opponent codes, each drawn on its own."""
        if self.sampling == "uniform":
            return self._sample_uniform(rng, size)
        codes, weights = self._members()
        return np.asarray(codes, np.int64)[rng.choice(len(codes), size=size, p=weights)]

    def _sample_uniform(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """The mix as written: a kind, then a snapshot among the eligible (the draws of old)."""
        mix = {s: (0.0 if s == SNAPSHOT and not self._eligible() else w)
               for s, w in self.mix.items()}
        total = sum(mix.values())
        specs = list(mix)
        kinds = rng.choice(len(specs), size=size, p=[w / total for w in mix.values()])
        eligible = self._eligible()
        picks = rng.integers(len(eligible), size=size) if eligible else np.zeros(size, int)
        codes = np.empty(size, np.int64)
        for j, kind in enumerate(kinds.tolist()):
            spec = specs[kind]
            if spec == SNAPSHOT:
                codes[j] = len(self.bots) + eligible[int(picks[j])]
            elif _is_policy_spec(spec):
                codes[j] = len(self.bots) + self.agent_specs.index(spec)
            else:
                codes[j] = self.bot_specs.index(spec)
        return codes
