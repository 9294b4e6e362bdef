"""Loco Momo's scripted bots, compiled: ``momo/heuristic`` (:mod:`agents.momo`) and ``random``
(:class:`agents.RandomBot`), exact to the Python bots move for move.

Each bot is ``<bot>(s, cfg, i, mask, rng_state) -> action`` for the seat to act in row ``i``,
reading only what that seat may see (its ``view``: the pictures, the forest, the turn and the
first player; never the bag's order). :func:`act_batch` runs many decisions in parallel.

The picture helpers (:func:`points_and_potential`, :func:`picture_value`,
:func:`greedy_placement`, :func:`taken_tokens`) are :mod:`agents.momo`'s, float for float: the
potential is summed in the Python bot's order, and :func:`greedy_placement` tries the taken
tokens in the order Python iterates ``set(todo)`` (:func:`_set_order`), so ties break alike.
The ``momo_actions`` features (:mod:`~loco_envs.momo.compiled.encode`) use them too.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount
from loco_envs.compiled import rng as R
from loco_envs.momo.compiled.engine import (
    COLOUR_BONUS,
    COLS,
    NUM_AREAS,
    NUM_COLOURS,
    NUM_SPECIES,
    NUM_TOKEN_TYPES,
    PAIR_MATCH_POINTS,
    PLACE_BASE,
    ROUNDS,
    ROWS,
    STACKED_PAIR_POINTS,
    destination,
)

__all__ = ["HEURISTIC", "KINDS", "RANDOM", "act", "act_batch", "greedy_placement", "heuristic",
           "hope_for", "picture_value", "points_and_potential", "random", "taken_tokens"]

#: ``bot_kind`` codes of :func:`act` / :func:`act_batch`.
RANDOM, HEURISTIC = 0, 1
#: The spec each bot kind stands for (the vector env's compiled twins).
KINDS = {"random": RANDOM, "momo/heuristic": HEURISTIC}

_F = np.array((0, 1, 2, 5, 9, 14), np.int64)
#: Potential of a one-colour line holding k tokens (k = 0..4); a full one scores 5 as points.
_LINE_POTENTIAL = np.array((0.0, 0.2, 0.6, 1.2, 2.2), np.float64)
HALF_PAIR = 0.8
PAIR_MATCH_HOPE = 0.8
_SET_SLOTS = 8  # CPython's smallest set table (PySet_MINSIZE)


@njit(cache=True)
def hope_for(turns_left) -> float:
    """``agents.momo.hope_for``: weight of potential with ``turns_left`` turns to play."""
    return min(1.0, (turns_left - 1) / 2)


@njit(cache=True)
def turns_left(turn, first_player, n, seat) -> int:
    """``MomoView.turns_left(seat)``: turns ``seat`` still plays, the current one included."""
    offset = (seat - first_player) % n
    done = 0 if turn <= offset else -(-(turn - offset) // n)
    return ROUNDS - min(ROUNDS, done)


@njit(cache=True)
def _line_terms(cells, start, step):
    """A row or column: its colour bonus (K-24) and its potential as an open one-colour line."""
    placed = 0
    colour = -1
    for k in range(COLS):
        t = cells[start + k * step]
        if t >= 0:
            placed += 1
            c = t % NUM_COLOURS
            if colour < 0:
                colour = c
            elif c != colour:
                return 0, 0.0
    if placed == 0:
        return 0, 0.0
    if placed == COLS:
        return COLOUR_BONUS, 0.0
    return 0, _LINE_POTENTIAL[placed]


@njit(cache=True)
def _bottom_points(cells) -> int:
    """K-22 (row 4: F of each species' count) plus K-23 (row 5: F of the species present);
    no allocation (this runs some 200 times a pick)."""
    points = 0
    for species in range(NUM_SPECIES):
        count = 0
        for c in range(3 * COLS, 4 * COLS):
            t = cells[c]
            if t >= 0 and t // NUM_COLOURS == species:
                count += 1
        points += _F[count]
    present = 0
    for c in range(4 * COLS, 5 * COLS):
        t = cells[c]
        if t >= 0:
            present |= 1 << (t // NUM_COLOURS)
    count = 0
    for species in range(NUM_SPECIES):
        if present & (1 << species):
            count += 1
    return points + _F[count]


@njit(cache=True)
def points_and_potential(cells):
    """``agents.momo.points_and_potential``: (K-20..K-24 points, potential of open structures),
    the potential summed in the same order (rows, columns, then each column's addends)."""
    points = _bottom_points(cells)
    value = 0.0
    for r in range(ROWS):
        bonus, open_value = _line_terms(cells, r * COLS, 1)
        points += bonus
        value += open_value
    for c in range(COLS):
        bonus, open_value = _line_terms(cells, c, COLS)
        points += bonus
        value += open_value
    for c in range(COLS):  # K-20/K-21 and the half-built pairs
        top, mid, low = cells[c], cells[COLS + c], cells[2 * COLS + c]
        s_top = top // NUM_COLOURS if top >= 0 else -1
        s_mid = mid // NUM_COLOURS if mid >= 0 else -1
        s_low = low // NUM_COLOURS if low >= 0 else -1
        if s_mid >= 0 and s_mid == s_low:
            points += STACKED_PAIR_POINTS
            if s_top == s_mid:
                points += PAIR_MATCH_POINTS
        if (mid >= 0) != (low >= 0):
            half = s_mid if mid >= 0 else s_low
            value += HALF_PAIR
            if top >= 0 and s_top == half:
                value += PAIR_MATCH_HOPE
        elif mid < 0 and low < 0 and top >= 0:
            value += PAIR_MATCH_HOPE / 2
    return points, value


@njit(cache=True)
def picture_value(cells, hope) -> float:
    """``agents.momo.picture_value``: points now plus ``hope`` times the potential."""
    points, open_value = points_and_potential(cells)
    return points + hope * open_value


@njit(cache=True)
def _free_col(cells, row) -> int:
    """The leftmost empty column of ``row`` (``agents.momo.place``), -1 if the row is full."""
    for col in range(COLS):
        if cells[row * COLS + col] < 0:
            return col
    return -1


@njit(cache=True)
def taken_tokens(forest, area, token, out) -> int:
    """K-11 (``agents.momo.taken_tokens``): the tokens a pick takes, as counts per identity
    into ``out``; returns how many. ``forest``: 4 x 15 counts before the pick."""
    dest = destination(forest, area, token)
    out[:] = 0
    total = 0
    for u in range(token % NUM_COLOURS, NUM_TOKEN_TYPES, NUM_COLOURS):
        k = forest[dest, u]
        if u == token and dest != area:
            k += 1  # the moved token joins them
        out[u] = k
        total += k
    return total


@njit(cache=True)
def _set_order(todo, order, table) -> int:
    """The order CPython iterates ``set(todo)`` when ``todo`` lists identities in increasing
    order (``todo``: counts per identity): each distinct value is inserted in that order into
    an 8-slot table probed ``i = (5 * i + 1) & 7`` (small ints hash to themselves, so the
    perturbation is 0); a fifth value resizes the table to 32 slots, where every identity sits
    at its own index (increasing order). Returns how many values ``order`` holds; ``table``:
    scratch of 8 ints."""
    count = 0
    for t in range(NUM_TOKEN_TYPES):
        if todo[t]:
            count += 1
    if count >= 5:
        k = 0
        for t in range(NUM_TOKEN_TYPES):
            if todo[t]:
                order[k] = t
                k += 1
        return count
    table[:] = -1
    for t in range(NUM_TOKEN_TYPES):
        if todo[t]:
            slot = t & (_SET_SLOTS - 1)
            while table[slot] >= 0:
                slot = (slot * 5 + 1) & (_SET_SLOTS - 1)
            table[slot] = t
    k = 0
    for slot in range(_SET_SLOTS):
        if table[slot] >= 0:
            order[k] = table[slot]
            k += 1
    return count


@njit(cache=True)
def _column_terms(cells, c, adds):
    """Rows 1-3 of column ``c``: K-20/K-21 points, and the potential's addends in the Python
    bot's order into ``adds``; returns (points, how many addends)."""
    top, mid, low = cells[c], cells[COLS + c], cells[2 * COLS + c]
    s_top = top // NUM_COLOURS if top >= 0 else -1
    s_mid = mid // NUM_COLOURS if mid >= 0 else -1
    s_low = low // NUM_COLOURS if low >= 0 else -1
    points = 0
    if s_mid >= 0 and s_mid == s_low:
        points = STACKED_PAIR_POINTS
        if s_top == s_mid:
            points += PAIR_MATCH_POINTS
    if (mid >= 0) != (low >= 0):
        half = s_mid if mid >= 0 else s_low
        adds[0] = HALF_PAIR
        if top >= 0 and s_top == half:
            adds[1] = PAIR_MATCH_HOPE
            return points, 2
        return points, 1
    if mid < 0 and low < 0 and top >= 0:
        adds[0] = PAIR_MATCH_HOPE / 2
        return points, 1
    return points, 0


@njit(cache=True)
def _line_of(k, cells):
    """Line ``k`` of the picture's ten: rows 0-4, then columns 0-4 (the Python sum's order)."""
    if k < ROWS:
        return _line_terms(cells, k * COLS, 1)
    return _line_terms(cells, k - ROWS, COLS)


@njit(cache=True)
def greedy_placement(cells, taken, hope, board) -> int:
    """``agents.momo.greedy_placement``: the ``taken`` tokens (counts per identity) placed on a
    copy of ``cells`` one at a time, the best single step first; the picture goes to ``board``
    and the count of tokens that found no room (K-13) is returned.

    Each step tries every token and row; a try changes one row, one column and either the
    column's rows 1-3 terms or the bottom rows, so only those parts are worked out again, and
    the value is summed from the parts in :func:`points_and_potential`'s order (the same
    floats)."""
    for c in range(cells.shape[0]):
        board[c] = cells[c]
    todo = taken.copy()
    left = 0
    for t in range(NUM_TOKEN_TYPES):
        left += todo[t]
    empty = 0
    for c in range(cells.shape[0]):
        if board[c] < 0:
            empty += 1
    if not left or not empty:
        return left
    line_pts = np.zeros(2 * ROWS, np.int64)
    line_val = np.zeros(2 * ROWS, np.float64)
    col_pts = np.zeros(COLS, np.int64)
    col_adds = np.zeros((COLS, 2), np.float64)
    col_num = np.zeros(COLS, np.int64)
    for k in range(2 * ROWS):
        line_pts[k], line_val[k] = _line_of(k, board)
    for c in range(COLS):
        col_pts[c], col_num[c] = _column_terms(board, c, col_adds[c])
    bottom = _bottom_points(board)
    new_adds = np.zeros(2, np.float64)
    order = np.zeros(5, np.int64)
    table = np.empty(_SET_SLOTS, np.int64)
    while left and empty:
        distinct = _set_order(todo, order, table)
        best_v = 0.0
        best_t, best_cell = -1, -1
        for k in range(distinct):
            t = order[k]
            for row in range(ROWS):
                col = _free_col(board, row)
                if col < 0:
                    continue
                cell = row * COLS + col
                board[cell] = t
                row_pts, row_val = _line_of(row, board)
                cl_pts, cl_val = _line_of(ROWS + col, board)
                points = bottom
                n_adds = col_num[col]
                c_pts = col_pts[col]
                if row < 3:
                    c_pts, n_adds = _column_terms(board, col, new_adds)
                else:
                    points = _bottom_points(board)
                board[cell] = -1
                value = 0.0
                for j in range(2 * ROWS):
                    if j == row:
                        points += row_pts
                        value += row_val
                    elif j == ROWS + col:
                        points += cl_pts
                        value += cl_val
                    else:
                        points += line_pts[j]
                        value += line_val[j]
                for c in range(COLS):
                    if c == col:
                        points += c_pts
                        for j in range(n_adds):
                            value += new_adds[j] if row < 3 else col_adds[c, j]
                    else:
                        points += col_pts[c]
                        for j in range(col_num[c]):
                            value += col_adds[c, j]
                v = points + hope * value
                if best_t < 0 or v > best_v:
                    best_v, best_t, best_cell = v, t, cell
        board[best_cell] = best_t
        row, col = best_cell // COLS, best_cell % COLS
        line_pts[row], line_val[row] = _line_of(row, board)
        line_pts[ROWS + col], line_val[ROWS + col] = _line_of(ROWS + col, board)
        col_pts[col], col_num[col] = _column_terms(board, col, col_adds[col])
        bottom = _bottom_points(board)
        todo[best_t] -= 1
        left -= 1
        empty -= 1
    return left


@njit(cache=True)
def _place_value(cells, action, hope) -> float:
    token, row = (action - PLACE_BASE) // ROWS, (action - PLACE_BASE) % ROWS
    col = _free_col(cells, row)
    if col < 0:
        return -1e9
    cell = row * COLS + col
    cells[cell] = token
    v = picture_value(cells, hope)
    cells[cell] = -1
    return v


@njit(cache=True)
def heuristic(s, cfg, i, mask, rng_state) -> int:
    """``momo/heuristic`` (``MomoHeuristic.act``) for the seat to act in row ``i``: the legal
    action of the highest value, the lowest index among equals (-1 when nothing is legal).
    No random draw."""
    seat = s.actor[i]
    cells = s.boards[i, seat].astype(np.int64)
    hope = hope_for(turns_left(s.turn[i], s.first_player[i], cfg.num_players, seat))
    best_v, best_a = 0.0, -1
    if s.pending_total[i]:  # place: the token and row that add most
        for a in range(PLACE_BASE, mask.shape[0]):
            if mask[a]:
                v = _place_value(cells, a, hope)
                if best_a < 0 or v > best_v:
                    best_v, best_a = v, a
        return best_a
    forest = s.forest[i]
    taken = np.zeros(NUM_TOKEN_TYPES, np.int64)
    board = np.empty(cells.shape[0], np.int64)
    for a in range(NUM_AREAS * NUM_TOKEN_TYPES):  # pick: the take that adds most
        if mask[a]:
            taken_tokens(forest, a // NUM_TOKEN_TYPES, a % NUM_TOKEN_TYPES, taken)
            greedy_placement(cells, taken, hope, board)
            v = picture_value(board, hope)
            if best_a < 0 or v > best_v:
                best_v, best_a = v, a
    return best_a


@no_refcount
def random(s, cfg, i, mask, rng_state) -> int:
    """``agents.RandomBot``: :func:`loco_envs.compiled.rng.random_legal`, the draw every
    game's random bot makes."""
    return R.random_legal(mask, rng_state)


@njit(cache=True)
def act(s, cfg, kind, i, mask, rng_state) -> int:
    """The bot of ``kind`` (:data:`RANDOM`, :data:`HEURISTIC`) in row ``i``."""
    if kind == RANDOM:
        return random(s, cfg, i, mask, rng_state)
    return heuristic(s, cfg, i, mask, rng_state)


@njit(parallel=True, cache=True)
def act_batch(s, cfg, bot_kind, rows, masks, rng_states, out) -> None:
    """Many decisions at once, in parallel: ``out[k]`` is the move of bot ``bot_kind[k]`` for
    the seat to act in row ``rows[k]``, whose mask is ``masks[k]`` and generator
    ``rng_states[k]`` (advanced in place). Every array is indexed by ``k``, the position in
    ``rows``."""
    for k in prange(rows.shape[0]):
        out[k] = act(s, cfg, bot_kind[k], rows[k], masks[k], rng_states[k])
