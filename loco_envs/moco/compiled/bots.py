"""Moco!'s scripted bots over a compiled batch (numba), exact to their Python versions.

- :func:`heuristic`: ``moco/heuristic`` (:class:`loco_envs.agents.moco.MocoHeuristic`), the
  same float64 arithmetic in the same order and the same tie-breaks (the highest value, then
  the lowest action). It reads only what the seat to act may see (``MocoView``'s fields: its
  own hand, the piles, the chips) and draws nothing, so ``rng_state`` is left as it is, as the
  Python bot leaves its generator.
- :func:`random`: ``agents.RandomBot``, ``legal[rng.integers(legal.size)]``.
- :func:`act_batch`: either bot for many games, ``prange`` over them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount
from loco_envs.compiled import rng as R
from loco_envs.moco.cards import CARDS, FIRST_PLAYABLE, NUM_CARDS, NUM_SUITS
from loco_envs.moco.compiled.engine import (
    CARD_VALUES,
    FIRST_CHIP,
    NO_CHIP,
    NUM_PLAYS,
    PLAY,
    PLAY_CARD,
    PLAY_PILE,
    pile_value,
)
from loco_envs.moco.rules import PILE_LIMIT

__all__ = ["KINDS", "act", "act_batch", "heuristic", "random"]

#: ``act_batch``'s ``bot_kind`` codes by bot name.
KINDS = {"random": 0, "moco/heuristic": 1}
RANDOM, HEURISTIC = 0, 1
#: [card id, suit] -> 1 when the card has that suit (the Excuse has none: it adds no hope).
CARD_SUITS = np.zeros((NUM_CARDS, NUM_SUITS), np.int8)
for _card in CARDS:
    for _suit in _card.suits:
        CARD_SUITS[_card.id, _suit] = 1


@njit(cache=True)
def _play_values(s, cfg, i, me, values, mask, out):
    """``_Table.play_value`` of every legal play into ``out`` (the others: -inf): the pile's
    value change weighted by my chips there minus the others' mean; +-1000 for a play that ends
    the game (M-20) as I then lead or not; minus a hundredth of the card's value. The numbers
    that do not depend on the play are computed once, with Python's operations (the scores a
    game-ending play leaves are the scores now plus each seat's chips times the change,
    exact in integers)."""
    n = cfg.num_players
    edge = np.empty(NUM_SUITS, np.float64)  # my chips minus the others' mean, per pile
    for pile in range(NUM_SUITS):
        theirs_sum = 0
        for seat in range(n):
            if seat != me:
                theirs_sum += s.chips[i, seat, pile]
        edge[pile] = s.chips[i, me, pile] - theirs_sum / (n - 1)  # exact: small integers
    base = np.zeros(n, np.int64)  # every seat's score with the piles as they are
    for seat in range(n):
        for suit in range(NUM_SUITS):
            base[seat] += s.chips[i, seat, suit] * values[suit]
    for a in range(NUM_PLAYS):
        if not mask[a]:
            out[a] = -np.inf
            continue
        card, pile = PLAY_CARD[a], PLAY_PILE[a]
        delta = CARD_VALUES[card] - values[pile]
        value = edge[pile] * delta
        if s.heights[i, pile] + 1 >= PILE_LIMIT:  # this card ends the game (M-20)
            mine = base[me] + s.chips[i, me, pile] * delta
            best = -(1 << 62)
            for seat in range(n):
                if seat != me:
                    score = base[seat] + s.chips[i, seat, pile] * delta
                    if score > best:
                        best = score
            value += 1000.0 if mine > best else -1000.0
        out[a] = value - 0.01 * CARD_VALUES[card]  # on a tie, keep the higher card for later


@njit(cache=True)
def heuristic(s, cfg, i, mask, rng_state):
    """``moco/heuristic``'s ``act(view(actor), mask, rng)``."""
    me = s.actor[i]
    values = np.empty(NUM_SUITS, np.int64)
    for suit in range(NUM_SUITS):
        values[suit] = pile_value(s, i, suit)  # M-21, the view's pile_values
    if s.phase[i] == PLAY:
        play_values = np.empty(NUM_PLAYS, np.float64)
        _play_values(s, cfg, i, me, values, mask, play_values)
        best_a = -1
        best_v = 0.0
        for a in range(NUM_PLAYS):
            if mask[a]:
                if best_a < 0 or play_values[a] > best_v:  # the lowest action among ties
                    best_a, best_v = a, play_values[a]
        return best_a
    # the chip of the suit likely to end highest (MocoHeuristic.expected_values)
    best = np.zeros(NUM_SUITS, np.int64)
    for card in range(FIRST_PLAYABLE, NUM_CARDS):
        if s.hands[i, me, card]:
            for suit in range(NUM_SUITS):
                if CARD_SUITS[card, suit] and CARD_VALUES[card] > best[suit]:
                    best[suit] = CARD_VALUES[card]
    best_a = -1
    best_v = 0.0
    for a in range(FIRST_CHIP, NO_CHIP):
        if mask[a]:
            suit = a - FIRST_CHIP
            settled = s.heights[i, suit] / PILE_LIMIT
            hope = max(0, best[suit] - values[suit]) * 0.5 * (1 - settled)
            estimate = values[suit] + hope
            if best_a < 0 or estimate > best_v:
                best_a, best_v = a, estimate
    if best_a < 0:
        return NO_CHIP
    return best_a


@no_refcount
def random(s, cfg, i, mask, rng_state):
    """``agents.RandomBot``: :func:`loco_envs.compiled.rng.random_legal`, the draw every
    game's random bot makes."""
    return R.random_legal(mask, rng_state)


@njit(cache=True)
def act(s, cfg, kind, i, mask, rng_state):
    """The bot of ``kind`` (:data:`KINDS`) for the seat to act in row ``i``."""
    if kind == HEURISTIC:
        return heuristic(s, cfg, i, mask, rng_state)
    return random(s, cfg, i, mask, rng_state)


@njit(parallel=True, cache=True)
def act_batch(s, cfg, bot_kind, rows, masks, rng_states, out):
    """Bot ``bot_kind`` (:data:`KINDS`) for game ``rows[k]`` with ``masks[k]`` and the
    generator ``rng_states[k]`` into ``out[k]``, for every ``k``."""
    for k in prange(rows.shape[0]):
        if bot_kind == HEURISTIC:
            out[k] = heuristic(s, cfg, rows[k], masks[k], rng_states[k])
        else:
            out[k] = random(s, cfg, rows[k], masks[k], rng_states[k])
