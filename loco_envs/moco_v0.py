"""Moco! in PettingZoo's classic form: ``from loco_envs import moco_v0; moco_v0.env()``."""

from __future__ import annotations

from loco_envs.moco.env import env, raw_env

__all__ = ["env", "raw_env"]
