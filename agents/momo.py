"""``momo/heuristic``: a scripted Loco Momo bot that reads only the :class:`MomoView` and the mask.

The bot values its picture as the points it scores now (K-20 … K-24) plus a *potential* for
structures still open, weighted by how many of its turns are left:

- a one-colour row or column in progress (towards the +5 colour bonus, K-24), more the fuller;
- a half-built stacked pair in rows 2–3 (K-21), and a row-1 token over a column whose rows 2–3
  may still pair its species (K-20).

Groups (row 4) and species (row 5) count at once through the points.

- **Pick** (K-10/K-11): for every token it could pick, it works out where the token moves (by
  its animal) and which tokens of that colour it would take there, places them greedily on a
  copy of its picture, and picks the take that adds most to that value.
- **Place** (K-12): the taken token and row that add most to that value, one at a time.

Expansions A and B (K-30/K-31) are ignored.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from loco_envs.momo.actions import (
    COLOUR_OF,
    COLS,
    NUM_AREAS,
    NUM_TOKEN_TYPES,
    PLACE_BASE,
    ROWS,
    SPECIES_OF,
    TOKENS_OF_COLOUR,
    TOKENS_OF_SPECIES,
)
from loco_envs.momo.rules import ROUNDS, MomoView, board_points

__all__ = ["MomoHeuristic", "destination", "greedy_placement", "picture_value", "taken_tokens"]

_DUCKS = TOKENS_OF_SPECIES[4]
#: Potential of a one-colour line holding k tokens (k = 0..4); a full one scores 5 as points.
LINE_POTENTIAL = (0.0, 0.2, 0.6, 1.2, 2.2)
HALF_PAIR = 0.8
PAIR_MATCH_HOPE = 0.8


def hope_for(turns_left: int) -> float:
    """Weight of potential with ``turns_left`` turns to play (the current one included)."""
    return min(1.0, (turns_left - 1) / 2) if ROUNDS > 1 else 0.0


def destination(forest: tuple[tuple[int, ...], ...], area: int, token: int) -> int:
    """K-10: where a token picked in ``area`` moves (the rules, read off the public forest)."""
    species = SPECIES_OF[token]
    if species == 0:  # rabbit: clockwise
        return (area + 1) % NUM_AREAS
    if species == 1:  # leopard: anticlockwise
        return (area + 3) % NUM_AREAS
    if species == 2:  # eagle: the diagonal
        return (area + 2) % NUM_AREAS
    if species == 3:  # bear: stays
        return area
    for step in (1, 2, 3):  # duck: the first other area clockwise holding a duck
        other = (area + step) % NUM_AREAS
        if any(forest[other][d] for d in _DUCKS):
            return other
    return area


def taken_tokens(forest: tuple[tuple[int, ...], ...], area: int, token: int) -> list[int]:
    """K-11: the tokens a pick takes (the moved token and its colour in the destination)."""
    dest = destination(forest, area, token)
    counts = [forest[dest][u] for u in range(NUM_TOKEN_TYPES)]
    if dest != area:
        counts[token] += 1  # the moved token joins them
    return [u for u in TOKENS_OF_COLOUR[COLOUR_OF[token]] for _ in range(counts[u])]


def place(cells: tuple[int, ...], token: int, row: int) -> tuple[int, ...] | None:
    """The picture with ``token`` in the leftmost empty cell of ``row`` (``None`` if full)."""
    for col in range(COLS):
        cell = row * COLS + col
        if cells[cell] < 0:
            return cells[:cell] + (token,) + cells[cell + 1:]
    return None


def potential(cells: tuple[int, ...]) -> float:
    """What the open structures of a picture are likely to be worth later."""
    value = 0.0
    lines = [cells[r * COLS:(r + 1) * COLS] for r in range(ROWS)]
    lines += [cells[c::COLS] for c in range(COLS)]
    for line in lines:
        placed = [t for t in line if t >= 0]
        if 0 < len(placed) < COLS and len({COLOUR_OF[t] for t in placed}) == 1:
            value += LINE_POTENTIAL[len(placed)]
    for c in range(COLS):
        top, mid, low = cells[c], cells[COLS + c], cells[2 * COLS + c]
        if (mid >= 0) != (low >= 0):
            value += HALF_PAIR
            half = SPECIES_OF[mid if mid >= 0 else low]
            if top >= 0 and SPECIES_OF[top] == half:
                value += PAIR_MATCH_HOPE
        elif mid < 0 and low < 0 and top >= 0:
            value += PAIR_MATCH_HOPE / 2
    return value


@lru_cache(maxsize=1 << 16)
def picture_value(cells: tuple[int, ...], hope: float) -> float:
    """Points now plus ``hope`` times the potential. Cached: a pick's simulations, the place
    decisions that follow it and the features of :mod:`agents.features` meet the same pictures
    again and again (about 230 evaluations a pick)."""
    return board_points(cells) + hope * potential(cells)


@lru_cache(maxsize=1 << 14)
def greedy_placement(cells: tuple[int, ...], taken: tuple[int, ...],
                     hope: float) -> tuple[tuple[int, ...], int]:
    """K-12/K-13: ``taken`` placed one at a time, the best single step first, on ``cells``.

    Returns the picture and how many of the tokens found no room (discarded, K-13). Cached:
    picks that take the same tokens, and the features of the same position, share the result.
    """
    todo = list(taken)
    board = cells
    while todo and min(board) < 0:
        best = None
        for t in set(todo):
            for row in range(ROWS):
                after = place(board, t, row)
                if after is not None:
                    v = picture_value(after, hope)
                    if best is None or v > best[0]:
                        best = (v, t, after)
        _, t, board = best
        todo.remove(t)
    return board, len(todo)


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
