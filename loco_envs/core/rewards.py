"""Final rewards shared by every game (see ``shared/API.md``)."""

from __future__ import annotations

from collections.abc import Sequence


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """(players beaten − players beating me) / (n − 1); zero-sum, ties count as neither."""
    n = len(ranks)
    if n == 1:
        return [0.0]
    return [
        (sum(r > mine for r in ranks) - sum(r < mine for r in ranks)) / (n - 1) for mine in ranks
    ]


def score_rewards(scores: Sequence[float]) -> list[float]:
    """Own final score minus the mean of the others' (the score itself when playing solo)."""
    n = len(scores)
    if n == 1:
        return [float(scores[0])]
    total = float(sum(scores))
    return [float(s) - (total - s) / (n - 1) for s in scores]
