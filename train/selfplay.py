"""A game of the suite as a single-agent Gymnasium env: the learner in one seat, bots in the rest.

At ``reset`` the learner takes a seat drawn from the env's seeded generator (or the fixed
``seat``), every other seat gets an opponent from the :class:`~train.pool.OpponentPool`, and the
opponents play until it is the learner's turn. ``step`` plays the learner's action, then the
opponents again, so every observation returned is the *learner's*, and the learner may be asked
several times in a row (a wild and its colour, a pick and its placements): nothing special is
needed for that, it is just the learner's turn again.

When the game ends, on the learner's move or on anyone else's, ``step`` returns the learner's own
final reward (``rewards[<learner's agent>]`` of the raw env) with ``terminated=True``. This is
where PettingZoo's SB3 tutorial wrapper goes wrong: it hands back the next player's observation
with the mover's reward, and a player who loses on another's move never sees its reward.
Nothing is paid before the end, as in the env.

``action_masks()`` is what ``MaskablePPO`` reads: the learner's legal actions.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import loco_envs
from train.policy import OBS_TRANSFORMS, NumpyPolicy, transform_observation
from train.pool import OpponentPool

__all__ = ["SelfPlayEnv"]


class SelfPlayEnv(gym.Env):
    """The learner's side of a game against the pool (see the module docstring).

    ``max_learner_steps`` truncates a game that drags on (``truncated=True``, reward 0);
    0 means never.
    """

    metadata = {"render_modes": []}

    def __init__(self, env_id: str, env_options: dict[str, Any] | None = None,
                 opponent_mix: dict[str, float] | None = None, pool_size: int = 5,
                 obs_transform: str = "log1p", seat: int | None = None,
                 max_learner_steps: int = 0):
        super().__init__()
        self.env_id = env_id
        self.raw = loco_envs.make(env_id, wrapped=False, **(env_options or {}))
        self.num_players = self.raw.num_players
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} out of range 0..{self.num_players - 1}")
        if obs_transform not in OBS_TRANSFORMS:
            raise ValueError(f"config key 'obs_transform' must be one of {list(OBS_TRANSFORMS)}, "
                             f"got {obs_transform!r}")
        self.fixed_seat = seat
        self.obs_transform = obs_transform
        self.max_learner_steps = max_learner_steps
        self.pool = OpponentPool(opponent_mix or {"random": 1.0}, env_id, pool_size)
        size = self.raw.observation_size()
        high = float(transform_observation(np.array([self.raw.observation_high]),
                                           obs_transform)[0])
        self.observation_space = spaces.Box(0.0, high, (size,), np.float32)
        self.action_space = spaces.Discrete(self.raw.game_class.NUM_ACTIONS)
        self.seat = 0
        self.agent = self.raw.possible_agents[0]
        self.opponents: dict[int, Any] = {}
        self._steps = 0
        self._done = True

    # --- Gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else int(rng.integers(self.num_players)))
        self.agent = self.raw.possible_agents[self.seat]
        self.opponents = {s: self.pool.sample(rng) for s in range(self.num_players)
                          if s != self.seat}
        self.raw.reset(seed=int(rng.integers(2**31 - 1)))
        self._steps = 0
        self._done = False
        self._play_opponents()
        if self.raw.game.terminal:  # a game the learner never acted in (not in these games)
            self._done = True
        return self._observation(), {"seat": self.seat}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("step() after the end of the episode: call reset()")
        if self.raw.agent_selection != self.agent:  # cannot happen: opponents played
            raise RuntimeError("the learner was asked to act out of turn")
        self.raw.step(int(action))  # an illegal action raises, naming the rule
        self._steps += 1
        self._play_opponents()
        if self.raw.game.terminal:
            self._done = True
            reward = float(self.raw.rewards[self.agent])
            return self._observation(), reward, True, False, self._final_info(reward)
        if self.max_learner_steps and self._steps >= self.max_learner_steps:
            self._done = True
            return self._observation(), 0.0, False, True, {"seat": self.seat, "truncated": True}
        return self._observation(), 0.0, False, False, {}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (all zeros once the game is over)."""
        return self.raw.observe(self.agent)["action_mask"].astype(bool)

    def add_snapshot(self, policy: NumpyPolicy) -> None:
        """Put a frozen copy of the learner into the pool (the trainer broadcasts it)."""
        self.pool.add_snapshot(policy)

    # --- internals -----------------------------------------------------------------------
    def _play_opponents(self) -> None:
        raw, game, rng = self.raw, self.raw.game, self.np_random
        while not game.terminal and raw.agent_selection != self.agent:
            agent = raw.agent_selection
            opponent = self.opponents[raw.seat(agent)]
            if hasattr(opponent, "act_observation"):  # a snapshot: its own observation vector
                obs = raw.observe(agent)
                action = opponent.act_observation(obs["observation"], obs["action_mask"], rng)
            else:
                action = opponent.act(raw.view(agent), game.legal_mask(), rng)
            raw.step(action)

    def _observation(self) -> np.ndarray:
        return transform_observation(self.raw.observe(self.agent)["observation"],
                                     self.obs_transform)

    def _final_info(self, reward: float) -> dict[str, Any]:
        info = dict(self.raw.infos[self.agent])  # score and rank
        ranks = self.raw.game.final_ranks()
        best = min(ranks)
        info.update(
            seat=self.seat,
            final_reward=reward,
            first=(ranks[self.seat] == best) / sum(r == best for r in ranks),
            opponents=[getattr(self.opponents[s], "name", "?") for s in sorted(self.opponents)],
        )
        return info
