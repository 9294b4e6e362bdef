"""The opponent pool: who fills the seats the learner does not hold.

A *mix* weighs the kinds of opponent: agent specs (``random``, ``<game>/heuristic``, ...) and
``snapshot``, the frozen copies of the learner that the trainer adds every few updates (the
newest ``max_snapshots`` are kept, each equally likely). Before the first snapshot exists its
weight is shared out among the others. Each opponent seat of each episode is drawn on its own,
from the episode's generator, so a run is a function of its seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import agents
from train.policy import NumpyPolicy, PPOBot, view_encoder

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
    """Samples an opponent per seat from a mix of bots and frozen learner snapshots."""

    def __init__(self, mix: Mapping[str, float], env_id: str, max_snapshots: int = 5):
        self.mix = check_mix(mix, env_id)
        self.env_id = env_id
        if max_snapshots < 1:
            raise ValueError(f"config key 'pool_size' must be >= 1, got {max_snapshots}")
        self.max_snapshots = max_snapshots
        self.bots: dict[str, Any] = {s: agents.make(s) for s in self.mix if s != SNAPSHOT}
        self.snapshots: list[PPOBot] = []
        self._added = 0
        self._encode = view_encoder(env_id)

    def add_snapshot(self, policy: NumpyPolicy) -> None:
        """Freeze a copy of the learner; it samples its moves (a varied sparring partner)."""
        self.snapshots.append(PPOBot(policy, self._encode, f"{SNAPSHOT}-{self._added}",
                                     deterministic=False))
        self._added += 1
        del self.snapshots[:-self.max_snapshots]

    def weights(self) -> dict[str, float]:
        """The mix in force now (``snapshot`` at zero until one exists), normalised."""
        mix = {s: (0.0 if s == SNAPSHOT and not self.snapshots else w)
               for s, w in self.mix.items()}
        total = sum(mix.values())
        return {s: w / total for s, w in mix.items()}

    def sample(self, rng: np.random.Generator) -> Any:
        """One opponent: a bot (``act(view, ...)``) or a snapshot (``act_observation`` too)."""
        weights = self.weights()
        specs = list(weights)
        kind = specs[int(rng.choice(len(specs), p=list(weights.values())))]
        if kind == SNAPSHOT:
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return self.bots[kind]
