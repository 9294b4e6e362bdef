"""Solo Loco Momo as a single-agent Gymnasium environment (K-40).

>>> import gymnasium, loco_envs
>>> env = gymnasium.make("loco_envs/MomoSolo-v0")
>>> obs, info = env.reset(seed=0)
>>> action = int(info["action_mask"].nonzero()[0][0])

=================  ==========================================================================
observation        ``Box(low, high, (331,), float32)``: the 1-player observation of ``momo_v0``
                   (slices and each entry's range in :mod:`loco_envs.momo.observation`)
action             ``Discrete(135)``: the ``momo_v0`` action codec (picks 0..59, places 60..134)
info               ``action_mask`` (``int8``, 135) on every reset and step; on the last step
                   also ``score`` and ``photographer_level`` (K-40: ``"career change"`` <= 45,
                   ``"assistant photographer"`` 46-55, ``"nearly there"`` 56-61,
                   ``"chief photographer"`` >= 62)
reward             0 until the end, then the final score
illegal action     an action outside the mask ends the episode (``terminated``) with
                   ``illegal_reward`` (default -1) and ``info["illegal_action"] = True``;
                   nothing is played in its place
reset options      ``{"state": state_dict}`` starts from a ``MomoGame.state_dict`` (1 player)
=================  ==========================================================================

An episode has at most 36 steps (6 turns of one pick and up to 5 placements).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from loco_envs.momo.actions import NUM_ACTIONS
from loco_envs.momo.observation import bounds, encode
from loco_envs.momo.rules import MomoGame, MomoView, photographer_level

ENV_ID = "loco_envs/MomoSolo-v0"


class MomoSoloEnv(gym.Env):
    """One player, normal rules, no expansions (K-40); see the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, render_mode: str | None = None, illegal_reward: float = -1.0):
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"option 'render_mode' must be one of {[None, *self.metadata['render_modes']]}, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.observation_space = spaces.Box(*bounds(1), dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: MomoGame | None = None
        self._done = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        state = (options or {}).get("state")
        if state is not None:
            self.game = MomoGame.from_state_dict(state, self.np_random, {"num_players": 1})
        else:
            self.game = MomoGame(rng=self.np_random, num_players=1)
        self._done = self.game.terminal
        info = self._info()
        if self.render_mode == "human":
            self.render()
        return encode(self.game.view(0)), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        game = self.game
        try:
            index = int(action)
        except (TypeError, ValueError):
            index = -1
        if not 0 <= index < NUM_ACTIONS or not game.legal_mask()[index]:
            self._done = True
            info = {"action_mask": np.zeros(NUM_ACTIONS, np.int8), "illegal_action": True}
            return encode(game.view(0)), self.illegal_reward, True, False, info
        game.apply(index)
        reward = 0.0
        if game.terminal:
            self._done = True
            reward = float(game.final_scores()[0])
        if self.render_mode == "human":
            self.render()
        return encode(game.view(0)), reward, game.terminal, False, self._info()

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self.game.legal_mask()}
        if self.game.terminal:
            score = self.game.final_scores()[0]
            info["score"] = score
            info["photographer_level"] = photographer_level(score)
        return info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask (the name sb3-contrib's MaskablePPO looks for)."""
        if self.game is None or self._done:
            return np.zeros(NUM_ACTIONS, np.int8)
        return self.game.legal_mask()

    def view(self) -> MomoView:
        return self.game.view(0)

    def state_dict(self) -> dict:
        return self.game.state_dict()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(0)
        text = self.game.render_text(0)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def register() -> None:
    """Register ``loco_envs/MomoSolo-v0`` with Gymnasium (once)."""
    if ENV_ID not in gym.registry:
        gym.register(ENV_ID, entry_point="loco_envs.momo.solo:MomoSoloEnv")
