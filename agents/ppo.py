"""The ``ppo:`` bot: a trained policy, saved as data, playing from views.

A policy file (``<name>.npz`` + ``.json``, the data-only format of :mod:`loco_envs.policy`)
holds an actor network; :class:`PPOBot` puts it behind the bot protocol. Bots are handed a
view, not a vector, so the bot encodes the view with the game's own ``observation.encode``
first, the same vector the env's ``observe`` gives, then lets the numpy actor
(:class:`loco_envs.policy.NumpyPolicy`) choose. Nothing here imports torch:
``agents.make("ppo:<path>")`` needs numpy alone.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.core.registry import GAMES
from loco_envs.policy import NumpyPolicy, check_temperature, load_policy

__all__ = ["PPOBot", "load_bot", "view_encoder"]


def view_encoder(env_id: str) -> Callable[[Any], np.ndarray]:
    """``observation.encode`` of the game of ``env_id``: view -> the vector ``observe`` gives."""
    if env_id not in GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known: {list(GAMES)}")
    return importlib.import_module(GAMES[env_id][0] + ".observation").encode


class PPOBot:
    """A trained policy behind the bot protocol (``act(view, action_mask, rng)``).

    By default it samples from the masked policy with the ``rng`` handed in: that is the policy
    PPO optimised (mixing matters with hidden cards), and it cannot lock a game into a loop,
    which a greedy LOCO policy can (always drawing, say). ``temperature`` below 1 samples from
    a sharper softmax (the logits over it): most of a trained policy's remaining mistakes are
    unlikely moves it still draws now and then, and a little noise still breaks loops;
    ``temperature=0`` plays the most likely legal action. ``act_observation`` skips the
    encoding when the caller has the vector already (the self-play env does); ``act_batch``
    decides for many games at once.
    """

    def __init__(self, policy: NumpyPolicy, encode: Callable[[Any], np.ndarray], name: str,
                 temperature: float = 1.0):
        self.policy = policy
        self.encode = encode
        self.name = name
        self.temperature = check_temperature(temperature)

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return self.act_observation(self.encode(view), action_mask, rng)

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator) -> int:
        if obs.shape[-1] != self.policy.observation_size:
            raise ValueError(f"{self.name}: observation of size {obs.shape[-1]}, the policy was "
                             f"trained on size {self.policy.observation_size} (another player "
                             "count or game?)")
        return self.policy.act_observation(obs, action_mask, rng, self.temperature)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray,
                  rng: np.random.Generator) -> np.ndarray:
        """:meth:`NumpyPolicy.act_batch` at this bot's temperature."""
        return self.policy.act_batch(obs, masks, rng, temperature=self.temperature)


def load_bot(path: str | Path, temperature: float = 1.0) -> PPOBot:
    """``agents.make("ppo:<path>")``: the saved policy playing from views (sampling at
    ``temperature``, 0: greedy)."""
    policy, doc = load_policy(path)
    return PPOBot(policy, view_encoder(doc["env_id"]), f"ppo:{path}", temperature)
