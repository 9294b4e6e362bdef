"""``momo/heuristic``: a scripted Loco Momo bot that reads only the :class:`MomoView` and the mask.

The bot values its picture as :mod:`loco_envs.momo.picture` does: the points it scores now
(K-20 … K-24) plus a *potential* for structures still open (one-colour lines, half-built
stacked pairs), weighted by how many of its turns are left. Groups (row 4) and species (row 5)
count at once through the points.

- **Pick** (K-10/K-11): for every token it could pick, it works out where the token moves (by
  its animal) and which tokens of that colour it would take there, places them greedily on a
  copy of its picture, and picks the take that adds most to that value.
- **Place** (K-12): the taken token and row that add most to that value, one at a time.

Expansions A and B (K-30/K-31) are ignored.
"""

from __future__ import annotations

import numpy as np

from loco_envs.momo.actions import NUM_TOKEN_TYPES, PLACE_BASE, ROWS
from loco_envs.momo.picture import (
    greedy_placement,
    hope_for,
    picture_value,
    place,
    taken_tokens,
)
from loco_envs.momo.rules import MomoView

__all__ = ["MomoHeuristic"]


class MomoHeuristic:
    """``momo/heuristic`` (see the module docstring)."""

    name = "momo/heuristic"

    def act(self, view: MomoView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        cells = tuple(view.boards[view.seat])
        hope = self.hope(view)
        if view.phase == "place":
            return max(legal, key=lambda a: (self.place_value(cells, a, hope), -a))
        forest = view.forest
        return max(legal, key=lambda a: (self.pick_value(cells, forest, a, hope), -a))

    @staticmethod
    def hope(view: MomoView) -> float:
        """Weight of potential: full with two turns or more to come, nothing on the last."""
        return hope_for(view.turns_left(view.seat))

    @staticmethod
    def place_value(cells: tuple[int, ...], action: int, hope: float) -> float:
        token, row = divmod(action - PLACE_BASE, ROWS)
        after = place(cells, token, row)
        return -1e9 if after is None else picture_value(after, hope)

    @staticmethod
    def pick_value(cells: tuple[int, ...], forest, action: int, hope: float) -> float:
        area, token = divmod(action, NUM_TOKEN_TYPES)
        board, _ = greedy_placement(cells, tuple(taken_tokens(forest, area, token)), hope)
        return picture_value(board, hope)
