"""Loco Momo's observation (:mod:`loco_envs.momo.observation`) and ``momo_actions`` features
(:func:`loco_envs.momo.features.momo_actions`), compiled, exact to the Python ones.

:func:`encode` writes ``observation.encode(game.view(seat))``: what ``seat`` may know, never
the bag's order (only its counts). :func:`features` computes the per-action features of rows of
raw observations, from the observation alone, as the Python features do (they value pictures
with the heuristic bot's helpers, :mod:`~loco_envs.momo.compiled.bots`).

Observation layout (``n`` players; ``127 + 204 n`` floats): forest 0..59, pending 60..74, bag
75..89, bag_size 90, discarded 91..105, phase 106..107, round 108..113, expansion_a 114..121,
expansion_b 122..126, then to_act, first_player, turns_left, points (``n`` each, relative seats)
and the boards (``n * 25 * 8``).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.momo.compiled.bots import (
    greedy_placement,
    hope_for,
    picture_value,
    points_and_potential,
    taken_tokens,
    turns_left,
)
from loco_envs.momo.compiled.engine import (
    CELLS,
    COLS,
    NUM_ACTIONS,
    NUM_AREAS,
    NUM_COLOURS,
    NUM_SPECIES,
    NUM_TOKEN_TYPES,
    PLACE_BASE,
    ROUNDS,
    ROWS,
    board_points,
)

__all__ = ["FEATURES_K", "encode", "encode_batch", "features", "features_batch",
           "observation_size"]

FOREST, PENDING, BAG, BAG_SIZE, DISCARDED = 0, 60, 75, 90, 91
PHASE, ROUND, EXPANSION_A, EXPANSION_B, PER_SEAT = 106, 108, 114, 122, 127
CELL_FEATURES = NUM_SPECIES + NUM_COLOURS  # 8
FEATURES_K = 5  # loco_envs.momo.features.MOMO_K


@njit(cache=True)
def observation_size(num_players) -> int:
    return PER_SEAT + num_players * (4 + CELLS * CELL_FEATURES)


@no_refcount_inline
def encode(s, cfg, i, seat, out) -> None:
    """``observation.encode(game.view(seat))`` into ``out`` (``float32``, the observation's
    length); seat-indexed parts in relative order, observer first."""
    n = cfg.num_players
    out[:] = 0.0
    for a in range(NUM_AREAS):
        for t in range(NUM_TOKEN_TYPES):
            out[FOREST + a * NUM_TOKEN_TYPES + t] = s.forest[i, a, t]
    bag_size = 0
    for t in range(NUM_TOKEN_TYPES):
        out[PENDING + t] = s.pending[i, t]
        out[BAG + t] = s.bag_counts[i, t]
        bag_size += s.bag_counts[i, t]
        out[DISCARDED + t] = s.discarded[i, t]
    out[BAG_SIZE] = bag_size
    turn = s.turn[i]
    out[ROUND + min(ROUNDS, turn // n + 1) - 1] = 1.0
    if not s.terminal[i]:
        out[PHASE + (1 if s.pending_total[i] else 0)] = 1.0
    if s.expansion_a[i] >= 0:
        out[EXPANSION_A + s.expansion_a[i]] = 1.0
    if s.expansion_b[i] >= 0:
        out[EXPANSION_B + s.expansion_b[i]] = 1.0
    to_act, first = PER_SEAT, PER_SEAT + n
    left, points, boards = PER_SEAT + 2 * n, PER_SEAT + 3 * n, PER_SEAT + 4 * n
    if s.actor[i] >= 0:
        out[to_act + (s.actor[i] - seat) % n] = 1.0
    out[first + (s.first_player[i] - seat) % n] = 1.0
    for r in range(n):
        other = (seat + r) % n
        out[left + r] = turns_left(turn, s.first_player[i], n, other)
        out[points + r] = board_points(s.boards[i, other])
        base = boards + r * CELLS * CELL_FEATURES
        for c in range(CELLS):
            t = s.boards[i, other, c]
            if t >= 0:
                out[base + c * CELL_FEATURES + t // NUM_COLOURS] = 1.0
                out[base + c * CELL_FEATURES + NUM_SPECIES + t % NUM_COLOURS] = 1.0


@njit(parallel=True, cache=True)
def encode_batch(s, cfg, rows, seats, out) -> None:
    """:func:`encode` of game ``rows[k]`` for ``seats[k]`` into ``out[k]``, for every ``k``."""
    for k in prange(rows.shape[0]):
        encode(s, cfg, rows[k], seats[k], out[k])


@njit(cache=True)
def _argmax(row, start, count) -> int:
    best = start
    for k in range(start + 1, start + count):
        if row[k] > row[best]:
            best = k
    return best - start


@njit(cache=True)
def _own_picture(row, boards, cells) -> None:
    """The observer's 25 cells (identity or -1) from its one-hot cells (relative seat 0)."""
    for c in range(CELLS):
        base = boards + c * CELL_FEATURES
        any_set = False
        for k in range(CELL_FEATURES):
            if row[base + k] != 0:
                any_set = True
        if any_set:
            species = _argmax(row, base, NUM_SPECIES)
            colour = _argmax(row, base + NUM_SPECIES, NUM_COLOURS)
            cells[c] = species * NUM_COLOURS + colour
        else:
            cells[c] = -1


@njit(cache=True)
def _pick_features(row, cells, hope, out) -> None:
    value = picture_value(cells, hope)
    points = points_and_potential(cells)[0]
    forest = np.zeros((NUM_AREAS, NUM_TOKEN_TYPES), np.int64)
    for a in range(NUM_AREAS):
        for t in range(NUM_TOKEN_TYPES):
            forest[a, t] = np.int64(row[FOREST + a * NUM_TOKEN_TYPES + t])
    taken = np.zeros(NUM_TOKEN_TYPES, np.int64)
    board = np.empty(CELLS, np.int64)
    for a in range(NUM_AREAS):
        for t in range(NUM_TOKEN_TYPES):
            if forest[a, t]:
                count = taken_tokens(forest, a, t, taken)
                lost = greedy_placement(cells, taken, hope, board)
                base = (a * NUM_TOKEN_TYPES + t) * FEATURES_K
                out[base] = (picture_value(board, hope) - value) / 10
                out[base + 1] = (points_and_potential(board)[0] - points) / 10
                out[base + 2] = count / 5
                out[base + 3] = lost / 5
                out[base + 4] = 1.0


@njit(cache=True)
def _place_features(row, cells, hope, out) -> None:
    value = picture_value(cells, hope)
    points, open_now = points_and_potential(cells)
    for t in range(NUM_TOKEN_TYPES):
        if row[PENDING + t] != 0:
            for r in range(ROWS):
                col = -1
                for c in range(COLS):
                    if cells[r * COLS + c] < 0:
                        col = c
                        break
                if col >= 0:
                    cell = r * COLS + col
                    cells[cell] = t
                    points_after, open_after = points_and_potential(cells)
                    after_value = picture_value(cells, hope)
                    cells[cell] = -1
                    base = (PLACE_BASE + t * ROWS + r) * FEATURES_K
                    out[base] = (after_value - value) / 10
                    out[base + 1] = (points_after - points) / 10
                    out[base + 2] = (open_after - open_now) / 5
                    out[base + 3] = 1.0 if col == COLS - 1 else 0.0
                    out[base + 4] = 1.0


@njit(cache=True)
def _features_row(row, num_players, out) -> None:
    out[:] = 0.0
    n = num_players
    if (row[PHASE] != 0 or row[PHASE + 1] != 0) and row[PER_SEAT] != 0:  # observer to move
        cells = np.empty(CELLS, np.int64)
        _own_picture(row, PER_SEAT + 4 * n, cells)
        hope = hope_for(np.int64(row[PER_SEAT + 2 * n]))
        if row[PHASE] != 0:
            _pick_features(row, cells, hope, out)
        else:
            _place_features(row, cells, hope, out)


@njit(cache=True)
def features(obs, num_players, out) -> None:
    """``loco_envs.momo.features.momo_actions(obs)`` into ``out`` (rows x 675, ``float32``)."""
    for k in range(obs.shape[0]):
        _features_row(obs[k], num_players, out[k])


@njit(parallel=True, cache=True)
def features_batch(obs, num_players, out) -> None:
    """:func:`features` with ``prange`` over the rows."""
    for k in prange(obs.shape[0]):
        _features_row(obs[k], num_players, out[k])


assert NUM_ACTIONS * FEATURES_K == 675
