"""Trained policies outside the trainer: frozen snapshots, checkpoints and the ``ppo:`` bot.

A checkpoint is two files side by side:

- ``<name>.zip``: the ``MaskablePPO`` model as Stable-Baselines3 saves it (resume from it);
- ``<name>.json``: a small sidecar naming the env id and options, the observation size and
  transform, the network and the number of decisions trained on.

To play, the actor part of the network is copied into :class:`~agents.ppo.NumpyPolicy` (defined
in :mod:`agents.ppo` with :class:`~agents.ppo.PPOBot` and the data-only policy files that
``agents.make("ppo:<path>")`` loads); this module keeps the SB3 side of checkpoints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.ppo import OBS_TRANSFORMS, NumpyPolicy, PPOBot, transform_observation, view_encoder

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
