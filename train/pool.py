"""The opponent pool: who fills the seats the learner does not hold.

A *mix* weighs the kinds of opponent: agent specs (``random``, ``<game>/heuristic``, ...) and
``snapshot``, the frozen copies of the learner that the trainer adds every few updates (the
newest ``max_snapshots`` are drawn from, each equally likely). Before the first snapshot exists
its weight is shared out among the others. The pool only draws: :meth:`OpponentPool.sample`
returns an opponent *code* (an index into :attr:`OpponentPool.bots`, or ``len(bots)`` + a
snapshot id), and the self-play env plays it: bots inside the vector env, where the games live,
snapshots batched in one forward pass each. Each opponent seat of each episode is drawn on its
own from the generator it is handed, so a run is a function of its seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from loco_envs import agents
from loco_envs.agents.ppo import NumpyPolicy

__all__ = ["SNAPSHOT", "OpponentPool", "check_mix"]

#: The mix key of the learner's frozen snapshots.
SNAPSHOT = "snapshot"


def check_mix(mix: Mapping[str, float], env_id: str, key: str = "opponent_mix") -> dict:
    """The mix as a dict of float weights; ``ValueError`` naming ``key`` when it is bad."""
    if not isinstance(mix, Mapping) or not mix:
        raise ValueError(f"config key {key!r} must be a non-empty mapping of opponent -> weight")
    game = env_id.removesuffix("_v0")
    out = {}
    for spec, weight in mix.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            raise ValueError(f"config key {key!r}: weight of {spec!r} must be a number >= 0, "
                             f"got {weight!r}")
        if spec != SNAPSHOT:
            if not isinstance(spec, str) or spec.startswith("ppo:"):
                raise ValueError(f"config key {key!r}: {spec!r} is not an opponent; use "
                                 f"'random', '{game}/heuristic' or '{SNAPSHOT}'")
            if "/" in spec and spec.split("/")[0] != game:
                raise ValueError(f"config key {key!r}: {spec!r} plays {spec.split('/')[0]}, "
                                 f"not {env_id}")
            try:
                agents.make(spec)
            except ValueError as exc:
                raise ValueError(f"config key {key!r}: {exc}") from None
        out[spec] = float(weight)
    if sum(w for s, w in out.items() if s != SNAPSHOT) <= 0:
        raise ValueError(f"config key {key!r}: give some weight to a bot (not only "
                         f"{SNAPSHOT!r}: there is no snapshot before the first update)")
    return out


class OpponentPool:
    """Draws an opponent code per seat from a mix of bots and frozen learner snapshots."""

    def __init__(self, mix: Mapping[str, float], env_id: str, max_snapshots: int = 5):
        self.mix = check_mix(mix, env_id)
        if max_snapshots < 1:
            raise ValueError(f"config key 'pool_size' must be >= 1, got {max_snapshots}")
        self.max_snapshots = max_snapshots
        self.bot_specs = [s for s in self.mix if s != SNAPSHOT]
        self.bots: list[Any] = [agents.make(s) for s in self.bot_specs]
        self._snapshots: dict[int, NumpyPolicy] = {}  # id -> policy (drawn: the newest few)
        self._next_id = 0

    @property
    def snapshots(self) -> list[NumpyPolicy]:
        """The snapshots drawn from now, oldest first."""
        return [self._snapshots[i] for i in self._eligible()]

    def _eligible(self) -> list[int]:
        return sorted(self._snapshots)[-self.max_snapshots:]

    def add_snapshot(self, policy: NumpyPolicy, in_use: Iterable[int] = ()) -> int:
        """Freeze a copy of the learner; drop old ones no game plays (``in_use``); its code."""
        code = len(self.bots) + self._next_id
        self._snapshots[self._next_id] = policy
        self._next_id += 1
        keep = set(self._eligible()) | {c - len(self.bots) for c in in_use}
        for sid in [s for s in self._snapshots if s not in keep]:
            del self._snapshots[sid]
        return code

    def policy(self, code: int) -> NumpyPolicy:
        """The snapshot behind an opponent code ``>= len(bots)``."""
        return self._snapshots[code - len(self.bots)]

    def is_snapshot(self, code: int) -> bool:
        return code >= len(self.bots)

    def name(self, code: int) -> str:
        if code < len(self.bots):
            return self.bot_specs[code]
        return f"{SNAPSHOT}-{code - len(self.bots)}"

    def weights(self) -> dict[str, float]:
        """The mix in force now (``snapshot`` at zero until one exists), normalised."""
        mix = {s: (0.0 if s == SNAPSHOT and not self._snapshots else w)
               for s, w in self.mix.items()}
        total = sum(mix.values())
        return {s: w / total for s, w in mix.items()}

    def sample(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """``size`` opponent codes, each drawn on its own."""
        weights = self.weights()
        specs = list(weights)
        kinds = rng.choice(len(specs), size=size, p=list(weights.values()))
        eligible = self._eligible()
        picks = rng.integers(len(eligible), size=size) if eligible else np.zeros(size, int)
        codes = np.empty(size, np.int64)
        for j, kind in enumerate(kinds.tolist()):
            spec = specs[kind]
            if spec == SNAPSHOT:
                codes[j] = len(self.bots) + eligible[int(picks[j])]
            else:
                codes[j] = self.bot_specs.index(spec)
        return codes
