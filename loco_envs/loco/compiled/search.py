"""The compiled twin of :func:`loco_envs.loco.search.evaluate`, for ISMCTS playouts
(:mod:`loco_envs.compiled.ismcts`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from loco_envs.compiled.kernels import rank_rewards
from loco_envs.loco import cards as C
from loco_envs.loco.compiled.engine import final_ranks

__all__ = ["evaluate"]

_POINTS = C.POINTS.astype(np.int64)


@njit(cache=True)
def _ahead(s, i, held, a, b):
    """Seat ``a`` ahead of ``b`` in a cut-off match: (left, -match points, points held)."""
    if s.active[i, a] != s.active[i, b]:
        return s.active[i, a]
    if s.scores[i, a] != s.scores[i, b]:
        return s.scores[i, a] > s.scores[i, b]
    return held[a] < held[b]


@njit(cache=True)
def evaluate(s, cfg, i, out):
    """Rank rewards of row ``i``: its final ranks once over; a playout cut off before the end
    ranks seats as if the match stopped now: still in the match first (L-61), then match
    points, then the fewest points left in hand (L-71)."""
    n = cfg.num_players
    ranks = np.zeros(n, np.int64)
    if s.terminal[i]:
        final_ranks(s, cfg, i, ranks)
    else:
        held = np.zeros(n, np.int64)
        for seat in range(n):
            for ident in range(_POINTS.shape[0]):
                held[seat] += s.hands[i, seat, ident] * _POINTS[ident]
        for seat in range(n):
            for other in range(n):
                if _ahead(s, i, held, other, seat):
                    ranks[seat] += 1
    rank_rewards(ranks, out)
