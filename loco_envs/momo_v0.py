"""Loco Momo in PettingZoo's classic form: ``momo_v0.env(**options)`` / ``momo_v0.raw_env``."""

from loco_envs.momo.env import env, raw_env

__all__ = ["env", "raw_env"]
