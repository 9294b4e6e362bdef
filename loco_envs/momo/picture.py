"""What a Loco Momo picture is worth to its owner, and where a pick's tokens would go.

Why a module of its own: the scripted bot (``momo/heuristic``, :mod:`agents.momo`) and the
per-action features (:mod:`loco_envs.momo.features`) value pictures the same way, and the
features are a fact of the game that must not depend on any bot. A picture is valued as the
points it scores now (K-20 ... K-24) plus a *potential* for structures still open, weighted by
how many of its owner's turns are left:

- a one-colour row or column in progress (towards the +5 colour bonus, K-24), more the fuller;
- a half-built stacked pair in rows 2-3 (K-21), and a row-1 token over a column whose rows 2-3
  may still pair its species (K-20).

A pick's simulation (:func:`taken_tokens`, :func:`greedy_placement`) reads only the public
forest and the owner's own picture (K-10 ... K-13). Pictures are tuples of 25 cells (token
identity or -1), row-major; the functions are cached on them, since a pick meets the same
pictures again and again.
"""

from __future__ import annotations

from functools import lru_cache

from loco_envs.momo.actions import (
    COLOUR_OF,
    COLS,
    NUM_AREAS,
    NUM_SPECIES,
    NUM_TOKEN_TYPES,
    ROWS,
    SPECIES_OF,
    TOKENS_OF_COLOUR,
    TOKENS_OF_SPECIES,
)
from loco_envs.momo.rules import (
    COLOUR_BONUS,
    PAIR_MATCH_POINTS,
    ROUNDS,
    STACKED_PAIR_POINTS,
    F,
)

__all__ = ["destination", "greedy_placement", "hope_for", "picture_value", "place",
           "points_and_potential", "taken_tokens"]

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


@lru_cache(maxsize=1 << 16)
def _line_terms(line: tuple[int, ...]) -> tuple[int, float]:
    """A row or column: its colour bonus (K-24) and its potential as an open one-colour line."""
    placed = [t for t in line if t >= 0]
    if not placed or len({COLOUR_OF[t] for t in placed}) > 1:
        return 0, 0.0
    if len(placed) == COLS:
        return COLOUR_BONUS, 0.0
    return 0, LINE_POTENTIAL[len(placed)]


@lru_cache(maxsize=1 << 12)
def _column_terms(top: int, mid: int, low: int) -> tuple[int, tuple[float, ...]]:
    """Rows 1-3 of a column: K-20/K-21 points, and the potential's addends in the order the
    sum has always taken them (so the floats, and the bot's ties, stay the same)."""
    species = [SPECIES_OF[t] if t >= 0 else -1 for t in (top, mid, low)]
    points = 0
    if species[1] >= 0 and species[1] == species[2]:
        points = STACKED_PAIR_POINTS + (PAIR_MATCH_POINTS if species[0] == species[1] else 0)
    if (mid >= 0) != (low >= 0):
        half = species[1] if mid >= 0 else species[2]
        return points, ((HALF_PAIR, PAIR_MATCH_HOPE) if top >= 0 and species[0] == half
                        else (HALF_PAIR,))
    if mid < 0 and low < 0 and top >= 0:
        return points, (PAIR_MATCH_HOPE / 2,)
    return points, ()


@lru_cache(maxsize=1 << 12)
def _bottom_points(groups_row: tuple[int, ...], species_row: tuple[int, ...]) -> int:
    """K-22 (row 4: F of each species' count) plus K-23 (row 5: F of the species present)."""
    counts = [0] * NUM_SPECIES
    for t in groups_row:
        if t >= 0:
            counts[SPECIES_OF[t]] += 1
    return sum(F[k] for k in counts) + F[len({SPECIES_OF[t] for t in species_row if t >= 0})]


@lru_cache(maxsize=1 << 16)
def points_and_potential(cells: tuple[int, ...]) -> tuple[int, float]:
    """The picture's points (K-20..K-24, equal to :func:`~loco_envs.momo.rules.board_points`)
    and the potential of its open structures: one-colour lines in progress, more the fuller;
    half-built stacked pairs in rows 2-3; a row-1 token over a column that may still pair it.

    Why this shape: the bot and the features score some 200 pictures a pick, and a picture is
    the sum of its ten lines, five columns and two bottom rows, each met again and again, so
    each part is cached on its own cells.
    """
    points, value = _bottom_points(cells[3 * COLS:4 * COLS], cells[4 * COLS:]), 0.0
    for line in [cells[r * COLS:(r + 1) * COLS] for r in range(ROWS)] + \
            [cells[c::COLS] for c in range(COLS)]:
        bonus, open_value = _line_terms(line)
        points += bonus
        value += open_value
    for c in range(COLS):
        pair_points, addends = _column_terms(cells[c], cells[COLS + c], cells[2 * COLS + c])
        points += pair_points
        for addend in addends:
            value += addend
    return points, value


@lru_cache(maxsize=1 << 16)
def picture_value(cells: tuple[int, ...], hope: float) -> float:
    """Points now plus ``hope`` times the potential. Cached: a pick's simulations, the place
    decisions that follow it and the features of :mod:`loco_envs.momo.features` meet the same
    pictures again and again (about 230 evaluations a pick)."""
    points, open_value = points_and_potential(cells)
    return points + hope * open_value


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
