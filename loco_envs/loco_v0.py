"""Classic PettingZoo form: ``from loco_envs import loco_v0; loco_v0.env(num_players=4)``."""

from loco_envs.loco.env import env, raw_env

__all__ = ["env", "raw_env"]
