"""Trained policies outside the trainer: frozen snapshots, checkpoints and the ``ppo:`` bot.

A checkpoint is two files side by side:

- ``<name>.zip``: the ``MaskablePPO`` model as Stable-Baselines3 saves it (resume from it);
- ``<name>.json``: a small sidecar naming the env id and options, the observation size and
  transform, the network and the number of decisions trained on.

To play, the actor part of the network is copied into :class:`NumpyPolicy`, a few numpy matrix
products with no torch in the loop: that is what the opponent pool ships to the collection
processes as a frozen snapshot, and what ``agents.make("ppo:<path>")`` wraps as a bot
(:class:`PPOBot`). Bots are handed a view, not a vector, so :class:`PPOBot` encodes the view with
the game's own ``observation.encode`` first, the same vector the env's ``observe`` gives.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.core.registry import GAMES

__all__ = [
    "CHECKPOINT_FORMAT",
    "NumpyPolicy",
    "OBS_TRANSFORMS",
    "PPOBot",
    "checkpoint_paths",
    "load_bot",
    "load_policy",
    "read_sidecar",
    "save_checkpoint",
    "transform_observation",
    "view_encoder",
]

CHECKPOINT_FORMAT = "loco-envs-ppo/1"

#: Observation transforms (counts such as a draw pile of 100 cards would swamp the 0/1 entries).
OBS_TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda x: x,
    "log1p": np.log1p,
}

_ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


def transform_observation(obs: np.ndarray, transform: str) -> np.ndarray:
    """The network's input for a raw observation vector (float32)."""
    return OBS_TRANSFORMS[transform](np.asarray(obs, np.float32)).astype(np.float32, copy=False)


@dataclass
class NumpyPolicy:
    """The actor of a masked PPO policy as plain arrays: hidden layers, then the action layer."""

    hidden: list[tuple[np.ndarray, np.ndarray]]  # (weight [out, in], bias [out]) per layer
    action: tuple[np.ndarray, np.ndarray]
    activation: str = "tanh"
    obs_transform: str = "log1p"

    @property
    def observation_size(self) -> int:
        first = self.hidden[0][0] if self.hidden else self.action[0]
        return int(first.shape[1])

    @property
    def num_actions(self) -> int:
        return int(self.action[0].shape[0])

    @classmethod
    def from_sb3(cls, policy: Any, obs_transform: str) -> NumpyPolicy:
        """Copy the actor of a ``MaskableActorCriticPolicy`` with an MLP extractor."""
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import FlattenExtractor

        extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
        if not isinstance(extractor, FlattenExtractor):
            raise ValueError(f"only flat observations are supported, got {type(extractor)}")
        hidden: list[tuple[np.ndarray, np.ndarray]] = []
        activation = None
        names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, nn.Linear):
                hidden.append(_linear(module))
            elif type(module) in names:
                if activation not in (None, names[type(module)]):
                    raise ValueError("mixed activations are not supported")
                activation = names[type(module)]
            else:
                raise ValueError(f"unsupported layer in the policy network: {module}")
        return cls(hidden, _linear(policy.action_net), activation or "tanh", obs_transform)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one raw observation (or a batch of them)."""
        x = transform_observation(obs, self.obs_transform)
        act = _ACTIVATIONS[self.activation]
        for weight, bias in self.hidden:
            x = act(x @ weight.T + bias)
        weight, bias = self.action
        return x @ weight.T + bias

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator, deterministic: bool = True) -> int:
        """The best legal action, or one sampled from the masked softmax with ``rng``."""
        legal = np.asarray(action_mask, bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action")
        logits = np.where(legal, self.logits(obs).astype(np.float64), -np.inf)
        if not deterministic:  # Gumbel-max: a draw from softmax(logits) over the legal actions
            logits = logits - np.log(-np.log(rng.random(logits.shape[-1]) + 1e-300) + 1e-300)
        return int(np.argmax(logits))


def _linear(module: Any) -> tuple[np.ndarray, np.ndarray]:
    return (module.weight.detach().cpu().numpy().astype(np.float32).copy(),
            module.bias.detach().cpu().numpy().astype(np.float32).copy())


def view_encoder(env_id: str) -> Callable[[Any], np.ndarray]:
    """``observation.encode`` of the game of ``env_id``: view -> the vector ``observe`` gives."""
    if env_id not in GAMES:
        raise ValueError(f"unknown env id {env_id!r}; known: {list(GAMES)}")
    return importlib.import_module(GAMES[env_id][0] + ".observation").encode


class PPOBot:
    """A trained policy behind the bot protocol (``act(view, action_mask, rng)``).

    By default it samples from the masked policy with the ``rng`` handed in: that is the policy
    PPO optimised (mixing matters with hidden cards), and it cannot lock a game into a loop,
    which a greedy LOCO policy can (always drawing, say). ``deterministic=True`` plays the most
    likely legal action. ``act_observation`` skips the encoding when the caller has the vector
    already (the self-play env does).
    """

    def __init__(self, policy: NumpyPolicy, encode: Callable[[Any], np.ndarray], name: str,
                 deterministic: bool = False):
        self.policy = policy
        self.encode = encode
        self.name = name
        self.deterministic = deterministic

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return self.act_observation(self.encode(view), action_mask, rng)

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator) -> int:
        if obs.shape[-1] != self.policy.observation_size:
            raise ValueError(f"{self.name}: observation of size {obs.shape[-1]}, the policy was "
                             f"trained on size {self.policy.observation_size} (another player "
                             "count or game?)")
        return self.policy.act_observation(obs, action_mask, rng, self.deterministic)


# ---------------------------------------------------------------------------------------------
# Checkpoints
def checkpoint_paths(path: str | Path) -> tuple[Path, Path]:
    """``(zip, sidecar)`` of a checkpoint given as ``name``, ``name.zip`` or ``name.json``."""
    path = Path(path)
    base = path.with_suffix("") if path.suffix in (".zip", ".json") else path
    return base.with_name(base.name + ".zip"), base.with_name(base.name + ".json")


def save_checkpoint(model: Any, path: str | Path, meta: dict[str, Any]) -> Path:
    """Save ``model`` as ``path`` (.zip) with its JSON sidecar; return the zip's path."""
    zip_path, json_path = checkpoint_paths(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(zip_path)
    sidecar = {"format": CHECKPOINT_FORMAT, **meta, "num_timesteps": int(model.num_timesteps)}
    json_path.write_text(json.dumps(sidecar, indent=2) + "\n")
    return zip_path


def read_sidecar(path: str | Path) -> dict[str, Any]:
    """The checkpoint's sidecar; ``ValueError`` when it is missing or not ours."""
    zip_path, json_path = checkpoint_paths(path)
    if not zip_path.is_file():
        raise ValueError(f"checkpoint {zip_path} does not exist")
    if not json_path.is_file():
        raise ValueError(f"checkpoint {zip_path} has no sidecar {json_path.name}")
    try:
        meta = json.loads(json_path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"checkpoint sidecar {json_path}: not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint sidecar {json_path}: not a {CHECKPOINT_FORMAT} sidecar")
    for key in ("env_id", "options", "observation_size", "obs_transform"):
        if key not in meta:
            raise ValueError(f"checkpoint sidecar {json_path}: missing field {key!r}")
    return meta


_CACHE: dict[tuple[str, int], tuple[NumpyPolicy, dict[str, Any]]] = {}


def load_policy(path: str | Path) -> tuple[NumpyPolicy, dict[str, Any]]:
    """The actor of a checkpoint and its sidecar (cached per file, per process)."""
    meta = read_sidecar(path)
    zip_path, _ = checkpoint_paths(path)
    key = (str(zip_path.resolve()), zip_path.stat().st_mtime_ns)
    if key not in _CACHE:
        try:
            from sb3_contrib import MaskablePPO
        except ImportError as exc:
            raise ValueError(f"loading a PPO checkpoint needs the 'train' extra ({exc})") from None
        model = MaskablePPO.load(zip_path, device="cpu")
        policy = NumpyPolicy.from_sb3(model.policy, meta["obs_transform"])
        if policy.observation_size != meta["observation_size"]:
            raise ValueError(f"checkpoint {zip_path}: network input {policy.observation_size} "
                             f"!= sidecar observation_size {meta['observation_size']}")
        _CACHE[key] = (policy, meta)
    return _CACHE[key]


def load_bot(path: str | Path, deterministic: bool = False) -> PPOBot:
    """``agents.make("ppo:<path>")``: the checkpoint's policy playing from views (sampling)."""
    policy, meta = load_policy(path)
    return PPOBot(policy, view_encoder(meta["env_id"]), f"ppo:{path}", deterministic)
