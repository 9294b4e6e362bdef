"""Checkpoints of a training run: written atomically, found again by ``--resume``.

A checkpoint ``checkpoints/<name>`` is five files side by side:

- ``<name>.npz`` + ``<name>.json``: the learner's actor in the data-only agent format of
  :mod:`agents.ppo` (what ``agents.make("ppo:<name>.npz")``, tournaments, ``play`` and the
  evaluation load; ``ppo:<name>.zip`` means these too);
- ``<name>.value.npz``: the critic, plain arrays, so that a run started from this checkpoint
  (``init_policy``, :mod:`train.warmstart`) keeps the value network as well as the actor instead
  of fitting a fresh critic against an already good policy;
- ``<name>.snapshots.npz``: the frozen opponent pool, plain float32 arrays plus a JSON string
  (read back with ``allow_pickle=False``);
- ``<name>.zip``: the Stable-Baselines3 model (optimizer state included), **only** for
  ``--resume`` of one's own runs: SB3 unpickles parts of it on loading, which runs code, so it is
  never loaded as an agent.

Every file is written to a temporary file in the same folder and renamed over its name
(``os.replace``), the zip last: a process killed at any moment leaves each name either absent,
as before, or whole, and a zip only exists once its companions do. ``--resume`` with a run
folder takes the newest checkpoint whose actor, pool and zip all load
(:func:`latest_checkpoint`); it needs no value file (the zip holds the critic too), so
checkpoints written before there was one resume alike.
A write that fails (a full disk, an unwritable folder) raises :class:`CheckpointError` naming
the file, which the command line prints as one line.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.core.files import atomic_write_bytes
from loco_envs.policy import NumpyPolicy, load_policy, policy_paths, save_policy
from loco_envs.train.warmstart import critic_of, save_value, value_path

__all__ = ["CheckpointError", "checkpoint_files", "latest_checkpoint", "load_snapshots",
           "save_checkpoint", "save_snapshots"]


class CheckpointError(RuntimeError):
    """A checkpoint file could not be written (the message names it and the OS error)."""


def checkpoint_files(path: str | Path) -> dict[str, Path]:
    """The files of the checkpoint named ``path`` (``name`` or ``name.zip`` / ``.npz``)."""
    npz, json_path = policy_paths(path)
    base = npz.with_suffix("")
    return {"zip": base.with_name(base.name + ".zip"), "policy": npz, "document": json_path,
            "snapshots": base.with_name(base.name + ".snapshots.npz")}


def save_checkpoint(path: str | Path, model: Any, policy: NumpyPolicy,
                    snapshots: Sequence[NumpyPolicy], meta: dict[str, Any]) -> Path:
    """Write the checkpoint ``path`` (see the module docstring); return the zip's path.

    ``meta`` is :func:`loco_envs.policy.save_policy`'s (``env_id``, ``env_options``, provenance).
    """
    files = checkpoint_files(path)
    try:
        files["zip"].parent.mkdir(parents=True, exist_ok=True)
        save_snapshots(files["snapshots"], snapshots)
        # an earlier critic at this name never sits beside the new actor, even if killed here
        value_path(files["policy"]).unlink(missing_ok=True)
        save_policy(files["policy"], policy, meta)
        save_value(files["policy"], critic_of(model))
        buffer = io.BytesIO()
        model.save(buffer)
        atomic_write_bytes(files["zip"], buffer.getvalue())
    except OSError as exc:
        raise CheckpointError(f"cannot write checkpoint {files['zip'].with_suffix('')}: "
                              f"{exc.strerror or exc}") from None
    return files["zip"]


def save_snapshots(path: Path, snapshots: Sequence[NumpyPolicy]) -> None:
    """The frozen pool as one ``.npz`` of float32 arrays and a JSON description."""
    arrays: dict[str, np.ndarray] = {}
    for i, policy in enumerate(snapshots):
        for j, (w, b) in enumerate([*policy.hidden, policy.action]):
            arrays[f"s{i}_l{j}_w"] = np.asarray(w, np.float32)
            arrays[f"s{i}_l{j}_b"] = np.asarray(b, np.float32)
        for j, array in enumerate(policy.scorer or ()):
            arrays[f"s{i}_scorer{j}"] = np.asarray(array, np.float32)
    meta = [{"layers": len(p.hidden) + 1, "activation": p.activation,
             "obs_transform": p.obs_transform, "feature_shortcut": p.feature_shortcut,
             "scorer": p.scorer is not None}
            for p in snapshots]
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(json.dumps(meta)), **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def load_snapshots(path: Path) -> list[NumpyPolicy]:
    """The pool saved by :func:`save_snapshots`; ``ValueError`` when it is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            out = []
            for i, m in enumerate(meta):
                layers = [(data[f"s{i}_l{j}_w"], data[f"s{i}_l{j}_b"])
                          for j in range(m["layers"])]
                scorer = (tuple(data[f"s{i}_scorer{j}"] for j in range(4))
                          if m.get("scorer") else None)
                out.append(NumpyPolicy(layers[:-1], layers[-1], m["activation"],
                                       m["obs_transform"], m.get("feature_shortcut", False),
                                       scorer))
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"snapshots file {path}: not readable ({exc})") from None
    return out


def _is_whole(files: dict[str, Path]) -> bool:
    if not all(p.is_file() for p in files.values()):
        return False
    try:
        load_policy(files["policy"])
        load_snapshots(files["snapshots"])
    except ValueError:
        return False
    return True


def _decisions(zip_path: Path) -> int:
    match = re.fullmatch(r"ppo_(\d+)", zip_path.stem)
    if match:
        return int(match.group(1))
    doc = json.loads(zip_path.with_suffix(".json").read_text())
    return int(doc["provenance"].get("decisions") or 0)


def latest_checkpoint(path: str | Path) -> Path:
    """The zip to resume from: ``path`` itself, or the newest whole checkpoint of a run folder.

    ``ValueError`` when ``path`` names no checkpoint, or one with a file missing or torn.
    """
    path = Path(path)
    if path.is_dir():
        folder = path / "checkpoints" if (path / "checkpoints").is_dir() else path
        candidates = [z for z in folder.glob("*.zip") if _is_whole(checkpoint_files(z))]
        if not candidates:
            raise ValueError(f"--resume {path}: no whole checkpoint in {folder}")
        return max(candidates, key=lambda z: (_decisions(z), z.stat().st_mtime_ns))
    files = checkpoint_files(path)
    if not files["zip"].is_file():
        raise ValueError(f"--resume {path}: checkpoint {files['zip']} does not exist")
    missing = [p.name for p in files.values() if not p.is_file()]
    if missing:
        raise ValueError(f"--resume {path}: checkpoint files missing: {', '.join(missing)}")
    load_policy(files["policy"])  # ValueError naming a bad field
    load_snapshots(files["snapshots"])
    return files["zip"]
