"""Small policies saved in the data-only format, and payloads that would leave a trace if run."""

from __future__ import annotations

import base64
import pickle
from pathlib import Path

import numpy as np

import loco_envs
from loco_envs.policy import NumpyPolicy, save_policy


def random_policy(env_id: str, layer_sizes: tuple[int, ...] = (16,), seed: int = 0,
                  activation: str = "tanh", obs_transform: str = "log1p",
                  **options) -> NumpyPolicy:
    """An untrained actor with the sizes of ``env_id`` (with ``options``)."""
    env = loco_envs.make(env_id, wrapped=False, **options)
    agent = env.possible_agents[0]
    widths = [env.observation_space(agent)["observation"].shape[0], *layer_sizes,
              env.action_space(agent).n]
    rng = np.random.default_rng(seed)
    layers = [((rng.normal(size=(out, inp)) / np.sqrt(inp)).astype(np.float32),
               rng.normal(size=out).astype(np.float32))
              for inp, out in zip(widths, widths[1:], strict=False)]
    return NumpyPolicy(layers[:-1], layers[-1], activation, obs_transform)


def saved_policy(tmp_path: Path, env_id: str = "moco_v0", name: str = "agent",
                 **options) -> Path:
    """A random policy for ``env_id`` saved under ``tmp_path / name``; returns the base path."""
    options = {"num_players": 2, **options}
    base = tmp_path / name
    save_policy(base, random_policy(env_id, **options),
                {"env_id": env_id, "env_options": options, "seed": 0, "decisions": 0,
                 "config": {"note": "test"}, "evaluation": None})
    return base


class Touch:
    """Unpickling an instance creates ``marker``: proof that a loader ran code from a file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def touching_pickle(marker: Path) -> bytes:
    return pickle.dumps(Touch(marker))


def sb3_style_data(marker: Path) -> str:
    """The ``data`` entry of an SB3 ``.zip``: JSON whose ``:serialized:`` fields are pickles."""
    import json

    payload = base64.b64encode(touching_pickle(marker)).decode()
    return json.dumps({
        "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload},
        "num_timesteps": 4096,
        "observation_space": {":type:": "<class 'gymnasium.spaces.box.Box'>",
                              ":serialized:": payload},
    })
