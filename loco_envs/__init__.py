"""loco-envs: PettingZoo environments for LOCO, Moco!, Loco Momo and Los Mampfos.

>>> import loco_envs
>>> env = loco_envs.make("loco_v0", num_players=4)
"""

from __future__ import annotations

from loco_envs._version import __version__
from loco_envs.core import available_envs, make, replay
from loco_envs.core.registry import register_with_pettingzoo
from loco_envs.momo.solo import register as register_momo_solo
from loco_envs.vector import make_vec

register_with_pettingzoo()
register_momo_solo()


__all__ = ["__version__", "available_envs", "make", "make_vec", "replay"]
