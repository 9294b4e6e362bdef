"""Moco!'s observation and ``moco_actions`` features over a compiled batch (numba).

:func:`encode` is exactly :func:`loco_envs.moco.observation.encode` of ``game.view(seat)``: it
reads the seat's own hand and the public table only (never the others' hands or the removed
cards, of which only the count is public). :func:`features` is exactly
:func:`loco_envs.loco_envs.moco.features.moco_actions` for rows of observations, in the same
``float32`` operations in the same order, so the numbers are bit for bit numpy's.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.moco.cards import CARDS, FIRST_PLAYABLE, NUM_CARDS, NUM_PLAYABLE, NUM_SUITS, VALUES
from loco_envs.moco.compiled.engine import (
    CHIP,
    FIRST_CHIP,
    NUM_ACTIONS,
    NUM_PLAYS,
    PLAY,
    PLAY_CARD,
    PLAY_PILE,
    pile_value,
)
from loco_envs.moco.observation import MATCH_SCORE_SCALE
from loco_envs.moco.rules import PILE_LIMIT

__all__ = ["encode", "encode_batch", "features", "features_batch", "FEATURES_K",
           "observation_size"]

#: Entries per action of ``moco_actions``.
FEATURES_K = 6
# Where the slices start (``observation.slices``): fixed blocks, then n-dependent ones.
_HAND = 0
_PILE_CARDS = _HAND + NUM_PLAYABLE
_PILE_TOPS = _PILE_CARDS + NUM_SUITS * NUM_PLAYABLE
_HEIGHTS = _PILE_TOPS + NUM_SUITS * NUM_PLAYABLE
_VALUES = _HEIGHTS + NUM_SUITS
_SUPPLY = _VALUES + NUM_SUITS
_CHIPS = _SUPPLY + NUM_SUITS
_SCALE = np.float64(MATCH_SCORE_SCALE)
_PLAY_VALUE = np.array(VALUES, np.float32)[np.array(PLAY_CARD)]
#: [playable card, suit] -> the card's value if it has that suit, else 0
#: (as loco_envs.moco.features).
_VALUE_IN_SUIT = np.zeros((NUM_PLAYABLE, NUM_SUITS), np.float32)
for _c in range(NUM_PLAYABLE):
    for _s in CARDS[FIRST_PLAYABLE + _c].suits:
        _VALUE_IN_SUIT[_c, _s] = VALUES[FIRST_PLAYABLE + _c]


@njit(cache=True)
def observation_size(n):
    """484 + 10 n."""
    return _CHIPS + 11 + 10 * n


@no_refcount_inline
def encode(s, cfg, i, seat, out):
    """``observation.encode(game.view(seat))`` into ``out`` (``float32``, the observation's
    length): per-seat blocks in the observer's order, relative seat r = (seat + r) % n."""
    n = cfg.num_players
    hand_sizes = _CHIPS + NUM_SUITS * n
    removed = hand_sizes + n
    phase0 = removed + 1
    played0 = phase0 + 2
    act0 = played0 + NUM_SUITS
    dealer0 = act0 + n
    match0 = dealer0 + n
    out[:] = 0
    for card in range(FIRST_PLAYABLE, NUM_CARDS):  # hand: the observer's own cards only
        if s.hands[i, seat, card]:
            out[_HAND + card - FIRST_PLAYABLE] = 1
    for suit in range(NUM_SUITS):  # the piles: public history
        h = s.heights[i, suit]
        row = suit * NUM_PLAYABLE - FIRST_PLAYABLE
        for k in range(h):
            out[_PILE_CARDS + row + s.piles[i, suit, k]] = 1
        if h:
            out[_PILE_TOPS + row + s.piles[i, suit, h - 1]] = 1
        out[_HEIGHTS + suit] = h
        out[_VALUES + suit] = pile_value(s, i, suit)  # M-21
        out[_SUPPLY + suit] = s.supply[i, suit]
    for r in range(n):
        other = (seat + r) % n
        for suit in range(NUM_SUITS):
            out[_CHIPS + NUM_SUITS * r + suit] = s.chips[i, other, suit]
        out[hand_sizes + r] = s.hand_sizes[i, other]
        score = s.match_scores[i, other]
        out[match0 + 2 + r] = np.float32(np.float64(score) / _SCALE)
    out[removed] = s.removed_len[i]
    phase = s.phase[i]
    if phase == PLAY or phase == CHIP:
        out[phase0 + phase] = 1
    if s.played_pile[i] >= 0:
        out[played0 + s.played_pile[i]] = 1
    if s.actor[i] >= 0:
        out[act0 + (s.actor[i] - seat) % n] = 1
    out[dealer0 + (s.dealer[i] - seat) % n] = 1
    out[match0] = s.game[i]
    out[match0 + 1] = cfg.num_games


@njit(parallel=True, cache=True)
def encode_batch(s, cfg, rows, seats, out):
    """:func:`encode` of game ``rows[k]`` for ``seats[k]`` into ``out[k]``, for every ``k``."""
    for k in prange(rows.shape[0]):
        encode(s, cfg, rows[k], seats[k], out[k])


@njit(cache=True)
def _features_row(obs, n, out):
    """``moco_actions`` of one observation row into ``out`` (79 x 6, flat), numpy's float32
    operations one by one."""
    f32 = np.float32
    ten, five, six, twenty = f32(10), f32(5), f32(6), f32(20)
    values = obs[_VALUES:_VALUES + NUM_SUITS]
    heights = obs[_HEIGHTS:_HEIGHTS + NUM_SUITS]
    mine = np.empty(NUM_SUITS, np.float32)
    theirs = np.empty(NUM_SUITS, np.float32)
    count = f32(n - 1)
    for suit in range(NUM_SUITS):
        mine[suit] = obs[_CHIPS + suit]
        total = f32(0)
        for r in range(1, n):  # chips[:, 1:].mean(axis=1): small integers, exact sum
            total += obs[_CHIPS + NUM_SUITS * r + suit]
        theirs[suit] = total / count
    scores = np.empty(n, np.float32)  # every seat's score if the game ended now
    for r in range(n):
        total = f32(0)
        for suit in range(NUM_SUITS):
            total += obs[_CHIPS + NUM_SUITS * r + suit] * values[suit]
        scores[r] = total
    out[:] = 0
    for a in range(NUM_PLAYS):
        pile = PLAY_PILE[a]
        delta = _PLAY_VALUE[a] - values[pile]
        ends = heights[pile] + f32(1) >= f32(PILE_LIMIT)
        at = a * FEATURES_K
        out[at] = ((mine[pile] - theirs[pile]) * delta) / ten
        out[at + 1] = delta / ten
        if ends:
            mine_after = scores[0] + obs[_CHIPS + pile] * delta
            best = -np.inf
            for r in range(1, n):
                after = scores[r] + obs[_CHIPS + NUM_SUITS * r + pile] * delta
                if after > best:
                    best = after
            lead = f32(mine_after - f32(best)) / twenty
            out[at + 2] = 1
            out[at + 3] = min(max(lead, f32(-1)), f32(1))
        out[at + 4] = mine[pile] / five
        out[at + 5] = theirs[pile] / five
    for suit in range(NUM_SUITS):
        best = f32(0)  # hand * value-in-suit, max over the cards (all >= 0)
        for c in range(NUM_PLAYABLE):
            v = obs[_HAND + c] * _VALUE_IN_SUIT[c, suit]
            if v > best:
                best = v
        rise = best - values[suit]
        if rise < f32(0):
            rise = f32(0)
        hope = (rise * f32(0.5)) * (f32(1) - heights[suit] / six)
        at = (FIRST_CHIP + suit) * FEATURES_K
        out[at] = (values[suit] + hope) / ten
        out[at + 1] = values[suit] / ten
        out[at + 2] = mine[suit] / five
        out[at + 3] = (mine[suit] - theirs[suit]) / five
        out[at + 4] = heights[suit] / six
        out[at + 5] = obs[_SUPPLY + suit] / five


@njit(cache=True)
def features(obs, num_players, out):
    """``loco_envs.moco.features.moco_actions(obs)`` into ``out`` (rows x 474, ``float32``)."""
    for k in range(obs.shape[0]):
        _features_row(obs[k], num_players, out[k])


@njit(parallel=True, cache=True)
def features_batch(obs, num_players, out):
    """:func:`features` with ``prange`` over the rows."""
    for k in prange(obs.shape[0]):
        _features_row(obs[k], num_players, out[k])


assert NUM_ACTIONS * FEATURES_K == 474
