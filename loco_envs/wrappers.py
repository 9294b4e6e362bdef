"""Wrappers that fit the suite's envs to other libraries' conventions.

:class:`RLlibObservations` is for Ray RLlib: its action-masking module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``)
reads an observation dict with the keys ``"observations"`` and ``"action_mask"``, while
PettingZoo's convention, which the suite follows, is ``"observation"``. The wrapper renames the
key (the ``int8`` mask stays as it is: the module takes its log, which torch computes in
floating point, and PettingZoo's own tools sample with it); everything else (agents, rewards,
``max_decisions`` truncation) passes through, so RLlib's own ``PettingZooEnv`` drives it::

    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    import loco_envs
    from loco_envs.wrappers import RLlibObservations

    env = PettingZooEnv(RLlibObservations(loco_envs.make("moco_v0", num_players=2)))

See ``docs/integrations.md`` for the whole recipe, and the other libraries.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

#: The observation keys RLlib's action-masking module expects.
RLLIB_OBSERVATIONS, RLLIB_ACTION_MASK = "observations", "action_mask"


class RLlibObservations(BaseWrapper):
    """An AEC env whose observations are ``{"observations": vector, "action_mask": mask}``."""

    def __init__(self, env: Any):
        super().__init__(env)
        self._spaces: dict[str, spaces.Dict] = {}

    def observation_space(self, agent: str) -> spaces.Dict:
        if agent not in self._spaces:
            inner = self.env.observation_space(agent)
            self._spaces[agent] = spaces.Dict({
                RLLIB_OBSERVATIONS: inner["observation"],
                RLLIB_ACTION_MASK: inner["action_mask"],
            })
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return rename(self.env.observe(agent))


def rename(obs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A suite observation under RLlib's keys."""
    return {RLLIB_OBSERVATIONS: obs["observation"], RLLIB_ACTION_MASK: obs["action_mask"]}
