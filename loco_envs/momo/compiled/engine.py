"""Loco Momo's rules (``docs/rules/momo.md``, K-xx) over a :class:`~.state.MomoState` batch.

One small ``@njit`` function per rule or phase, named as in :mod:`loco_envs.momo.rules`, exact
to it: the same seed deals the same game (every draw of the generator in the Python engine's
order), the same actions give the same states. Tokens are ``species * 3 + colour``.

Batch forms (``prange`` over games; a game's result never depends on the thread count, each
game being stepped by one thread from its own arrays): :func:`reset_batch`,
:func:`play_batch` (``actions[i] < 0`` skips game ``i``) and :func:`masks_batch`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.compiled import rng as R

__all__ = ["final_ranks", "final_scores", "is_legal", "legal_mask", "masks_batch", "new_game",
           "play", "play_batch", "reset_batch"]

NUM_TOKEN_TYPES = 15
NUM_COLOURS = 3
NUM_SPECIES = 5
COPIES = 7
NUM_TOKENS = 105
NUM_AREAS = 4
AREA_SIZE = 4
ROWS = 5
COLS = 5
CELLS = 25
PLACE_BASE = 60
NUM_ACTIONS = 135
ROUNDS = 6
NUM_HEXAGONS = 8
#: f(n) of K-22/K-23 for n = 0..5.
F = (0, 1, 2, 5, 9, 14)
PAIR_MATCH_POINTS = 4  # K-20
STACKED_PAIR_POINTS = 3  # K-21
COLOUR_BONUS = 5  # K-24
ENDANGERED_POINTS = 7  # K-30
FLOWER_POINTS = 5  # K-31
_F = np.array(F, np.int64)


# --- set-up (K-01, K-04, K-05, K-30, K-31) ---------------------------------------------------
@no_refcount_inline
def _blank(s, cfg, i) -> None:
    """``MomoGame._blank``: an empty table."""
    s.bag[i, :] = 0
    s.bag_len[i] = 0
    s.bag_counts[i, :] = 0
    s.forest[i, :, :] = 0
    s.area_size[i, :] = 0
    s.boards[i, :, :] = -1
    s.row_fill[i, :, :] = 0
    s.board_fill[i, :] = 0
    s.pending[i, :] = 0
    s.pending_total[i] = 0
    s.discarded[i, :] = 0
    s.first_player[i] = 0
    s.turn[i] = 0
    s.actor[i] = 0
    s.expansion_a[i] = -1
    s.expansion_b[i] = -1
    s.terminal[i] = False


@njit(cache=True)
def new_game(s, cfg, i, seed) -> None:
    """Row ``i`` becomes ``MomoGame(rng=np.random.default_rng(seed), **options)``."""
    st = s.rng[i]
    R.seed_state(np.uint64(seed), st)
    _blank(s, cfg, i)
    # K-01: all 105 tokens in the bag: rng.permutation(np.repeat(np.arange(15), 7)), drawn
    # from its end.
    bag = s.bag[i]
    for t in range(NUM_TOKEN_TYPES):
        for k in range(COPIES):
            bag[t * COPIES + k] = t
    R.shuffle(st, bag, NUM_TOKENS)
    s.bag_len[i] = NUM_TOKENS
    s.bag_counts[i, :] = COPIES
    _refill(s, i)  # K-05: 4 tokens per area, A to D
    s.first_player[i] = R.integers(st, cfg.num_players)  # K-04
    s.actor[i] = s.first_player[i]
    if cfg.expansion_a:  # K-30: one hexagon of 8
        s.expansion_a[i] = R.integers(st, NUM_HEXAGONS)
    if cfg.expansion_b:  # K-31: one flower of 5
        s.expansion_b[i] = R.integers(st, NUM_SPECIES)


@no_refcount_inline
def _refill(s, i) -> None:
    """K-05/K-14: fill every area to 4 tokens, A to D, while the bag lasts."""
    for a in range(NUM_AREAS):
        while s.area_size[i, a] < AREA_SIZE and s.bag_len[i] > 0:
            top = s.bag_len[i] - 1
            t = s.bag[i, top]
            s.bag_len[i] = top
            s.bag_counts[i, t] -= 1
            s.forest[i, a, t] += 1
            s.area_size[i, a] += 1


# --- decisions (K-10 .. K-14) ----------------------------------------------------------------
@no_refcount_inline
def legal_mask(s, cfg, i, out) -> None:
    """The ``int8`` mask of the seat to act (zeros once over)."""
    out[:] = 0
    if s.terminal[i]:
        return
    if s.pending_total[i] == 0:  # K-10: any token on the forest
        for a in range(NUM_AREAS):
            for t in range(NUM_TOKEN_TYPES):
                if s.forest[i, a, t]:
                    out[a * NUM_TOKEN_TYPES + t] = 1
        return
    seat = s.actor[i]  # K-12: any taken token, on any row with room
    for t in range(NUM_TOKEN_TYPES):
        if s.pending[i, t]:
            for r in range(ROWS):
                if s.row_fill[i, seat, r] < COLS:
                    out[PLACE_BASE + t * ROWS + r] = 1


@no_refcount_inline
def is_legal(s, cfg, i, action) -> bool:
    """Whether ``action`` is in the mask of the seat to act."""
    if s.terminal[i] or action < 0 or action >= NUM_ACTIONS:
        return False
    if s.pending_total[i] == 0:
        if action >= PLACE_BASE:
            return False
        return s.forest[i, action // NUM_TOKEN_TYPES, action % NUM_TOKEN_TYPES] > 0
    if action < PLACE_BASE:
        return False
    t, r = (action - PLACE_BASE) // ROWS, (action - PLACE_BASE) % ROWS
    return s.pending[i, t] > 0 and s.row_fill[i, s.actor[i], r] < COLS


@no_refcount_inline
def play(s, cfg, i, action) -> None:
    """``MomoGame.play_legal`` / ``apply`` of a legal action."""
    if s.pending_total[i] == 0:
        _pick(s, cfg, i, action // NUM_TOKEN_TYPES, action % NUM_TOKEN_TYPES)
    else:
        _place(s, cfg, i, (action - PLACE_BASE) // ROWS, (action - PLACE_BASE) % ROWS)


@njit(cache=True)
def destination(forest, a, t) -> int:
    """K-10: the area a token of identity ``t`` picked in area ``a`` moves to (``forest``: the
    4 x 15 counts before the move)."""
    species = t // NUM_COLOURS
    if species == 0:  # rabbit: clockwise
        return (a + 1) % NUM_AREAS
    if species == 1:  # leopard: anticlockwise
        return (a + 3) % NUM_AREAS
    if species == 2:  # eagle: diagonal
        return (a + 2) % NUM_AREAS
    if species == 3:  # bear: stays
        return a
    # duck: clockwise to the first other area holding a duck; stays if none does
    for step in range(1, 4):
        b = (a + step) % NUM_AREAS
        if forest[b, 12] or forest[b, 13] or forest[b, 14]:
            return b
    return a


@no_refcount_inline
def _pick(s, cfg, i, a, t) -> None:
    """K-10: the token moves; K-11: take its colour in the destination, itself included."""
    forest = s.forest[i]
    d = destination(forest, a, t)
    forest[a, t] -= 1
    forest[d, t] += 1
    s.area_size[i, a] -= 1
    taken = 0
    for u in range(t % NUM_COLOURS, NUM_TOKEN_TYPES, NUM_COLOURS):
        k = forest[d, u]
        if k:
            s.pending[i, u] += k
            forest[d, u] = 0
            taken += k
    s.area_size[i, d] += 1 - taken
    s.pending_total[i] = taken
    _settle(s, cfg, i)


@no_refcount_inline
def _place(s, cfg, i, t, row) -> None:
    """K-12: leftmost empty cell of the row; placed tokens never move."""
    seat = s.actor[i]
    col = s.row_fill[i, seat, row]
    s.boards[i, seat, row * COLS + col] = t
    s.row_fill[i, seat, row] = col + 1
    s.board_fill[i, seat] += 1
    s.pending[i, t] -= 1
    s.pending_total[i] -= 1
    _settle(s, cfg, i)


@no_refcount_inline
def _settle(s, cfg, i) -> None:
    seat = s.actor[i]
    if s.pending_total[i] and s.board_fill[i, seat] == CELLS:
        # K-13: what fits nowhere leaves the game at once, without a decision.
        for u in range(NUM_TOKEN_TYPES):
            s.discarded[i, u] += s.pending[i, u]
            s.pending[i, u] = 0
        s.pending_total[i] = 0
    if s.pending_total[i] == 0:
        _end_turn(s, cfg, i)


@no_refcount_inline
def _end_turn(s, cfg, i) -> None:
    """K-14: refill, next seat clockwise; an empty forest skips every turn left."""
    n = cfg.num_players
    total = ROUNDS * n
    _refill(s, i)
    s.turn[i] += 1
    empty = True
    for a in range(NUM_AREAS):
        if s.area_size[i, a]:
            empty = False
    if empty:
        s.turn[i] = total
    if s.turn[i] >= total:
        s.terminal[i] = True
        s.actor[i] = -1
    else:
        s.actor[i] = (s.first_player[i] + s.turn[i]) % n


# --- scoring (K-20 .. K-25, K-30, K-31) ------------------------------------------------------
@njit(cache=True)
def _one_colour(cells, start, step) -> int:
    """K-24: 5 if the line of 5 cells from ``start`` by ``step`` is full and of one colour."""
    first = cells[start]
    if first < 0:
        return 0
    colour = first % NUM_COLOURS
    for k in range(COLS):
        t = cells[start + k * step]
        if t < 0 or t % NUM_COLOURS != colour:
            return 0
    return COLOUR_BONUS


@njit(cache=True)
def board_points(cells) -> int:
    """K-20..K-24 points of one picture (25 cells row-major, -1 empty)."""
    points = 0
    for c in range(COLS):  # K-21 stacked pairs (rows 2-3), K-20 pair match (row 1)
        mid, low = cells[COLS + c], cells[2 * COLS + c]
        if mid >= 0 and low >= 0 and mid // NUM_COLOURS == low // NUM_COLOURS:
            points += STACKED_PAIR_POINTS
            top = cells[c]
            if top >= 0 and top // NUM_COLOURS == mid // NUM_COLOURS:
                points += PAIR_MATCH_POINTS
    for species in range(NUM_SPECIES):  # K-22 groups (row 4)
        count = 0
        for c in range(3 * COLS, 4 * COLS):
            if cells[c] >= 0 and cells[c] // NUM_COLOURS == species:
                count += 1
        points += _F[count]
    present = 0  # K-23 species (row 5)
    for c in range(4 * COLS, 5 * COLS):
        if cells[c] >= 0:
            present |= 1 << (cells[c] // NUM_COLOURS)
    count = 0
    for species in range(NUM_SPECIES):
        if present & (1 << species):
            count += 1
    points += _F[count]
    for r in range(ROWS):  # K-24 one-colour rows and columns
        points += _one_colour(cells, r * COLS, 1)
    for c in range(COLS):
        points += _one_colour(cells, c, COLS)
    return points


@njit(cache=True)
def expansion_points(s, cfg, i, out) -> None:
    """K-30 + K-31 points of each seat into ``out`` (0 without expansions)."""
    n = cfg.num_players
    out[:n] = 0
    k = s.expansion_a[i]
    if k >= 0:  # K-30: fewest tokens of the hexagon's species or colour: +7
        counts = np.zeros(n, np.int64)
        for seat in range(n):
            for c in range(CELLS):
                t = s.boards[i, seat, c]
                if t >= 0:
                    if k < NUM_SPECIES:
                        if t // NUM_COLOURS == k:
                            counts[seat] += 1
                    elif t % NUM_COLOURS == k - NUM_SPECIES:
                        counts[seat] += 1
        fewest = counts.min()
        for seat in range(n):
            if counts[seat] == fewest:
                out[seat] += ENDANGERED_POINTS
    b = s.expansion_b[i]
    if b >= 0:  # K-31: the flower's species in row 1's fifth cell: +5
        for seat in range(n):
            last = s.boards[i, seat, COLS - 1]
            if last >= 0 and last // NUM_COLOURS == b:
                out[seat] += FLOWER_POINTS


@njit(cache=True)
def final_scores(s, cfg, i, out) -> None:
    """``MomoGame.final_scores()``: picture points plus expansion points, as floats."""
    n = cfg.num_players
    extra = np.zeros(n, np.int64)
    expansion_points(s, cfg, i, extra)
    for seat in range(n):
        out[seat] = np.float64(board_points(s.boards[i, seat]) + extra[seat])


@njit(cache=True)
def final_ranks(s, cfg, i, out) -> None:
    """K-25: highest total first; equal totals share a rank (no tie-break)."""
    n = cfg.num_players
    scores = np.zeros(n, np.float64)
    final_scores(s, cfg, i, scores)
    for seat in range(n):
        rank = 0
        for other in range(n):
            if scores[other] > scores[seat]:
                rank += 1
        out[seat] = rank


# --- batches ------------------------------------------------------------------------------
@njit(parallel=True, cache=True)
def reset_batch(s, cfg, seeds) -> None:
    """Game ``i`` becomes ``new_game(seed=seeds[i])`` for every row."""
    for i in prange(seeds.shape[0]):
        new_game(s, cfg, i, seeds[i])


@njit(parallel=True, cache=True)
def play_batch(s, cfg, actions) -> None:
    """Play ``actions[i]`` in game ``i`` (legal); ``actions[i] < 0`` skips the game."""
    for i in prange(actions.shape[0]):
        if actions[i] >= 0:
            play(s, cfg, i, actions[i])


@njit(parallel=True, cache=True)
def masks_batch(s, cfg, out) -> None:
    """``out[i]``: game ``i``'s legal mask (``int8``, zeros once over)."""
    for i in prange(out.shape[0]):
        legal_mask(s, cfg, i, out[i])
