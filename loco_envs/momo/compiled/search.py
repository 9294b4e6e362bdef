"""The compiled twin of :func:`loco_envs.momo.search.evaluate`, for ISMCTS playouts
(:mod:`loco_envs.compiled.ismcts`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from loco_envs.compiled.kernels import rank_rewards
from loco_envs.momo.compiled.engine import final_ranks, final_scores

__all__ = ["evaluate"]


@njit(cache=True)
def evaluate(s, cfg, i, out):
    """Rank rewards of row ``i`` as it stands (the pictures' points so far); solo (K-40),
    which has no rank, gets its score scaled to about [-1, 1]."""
    n = cfg.num_players
    if n == 1:
        scores = np.zeros(1, np.float64)
        final_scores(s, cfg, i, scores)
        out[0] = (scores[0] - 50.0) / 25.0
        return
    ranks = np.zeros(n, np.int64)
    final_ranks(s, cfg, i, ranks)
    rank_rewards(ranks, out)
