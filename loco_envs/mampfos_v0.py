"""Classic PettingZoo form: ``from loco_envs import mampfos_v0; mampfos_v0.env()``."""

from __future__ import annotations

from loco_envs.mampfos.env import env, raw_env

__all__ = ["env", "raw_env"]
