"""The compiled twin of :func:`loco_envs.moco.search.evaluate`, for ISMCTS playouts
(:mod:`loco_envs.compiled.ismcts`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from loco_envs.compiled.kernels import rank_rewards
from loco_envs.moco.compiled.engine import final_ranks

__all__ = ["evaluate"]


@njit(cache=True)
def evaluate(s, cfg, i, out):
    """Rank rewards of row ``i`` as it stands (chips valued by the piles, M-21)."""
    ranks = np.zeros(cfg.num_players, np.int64)
    final_ranks(s, cfg, i, ranks)
    rank_rewards(ranks, out)
