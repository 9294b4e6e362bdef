"""Moco!'s rules over a :class:`~loco_envs.moco.compiled.state.MocoState` (numba), exact to
:mod:`loco_envs.moco.rules`: one small function per rule or phase, named as there, rule ids
(M-xx of ``docs/rules/moco.md``) in the comments.

Every random draw goes through :mod:`loco_envs.compiled.rng` in the Python engine's order: the
dealer (``rng.integers(num_players)``, M-05), then each deal's ``rng.permutation`` of the deck
(M-03), which numpy makes as a ``shuffle`` of ``arange``.

Batch forms (``prange`` over games, one row each, so the results do not depend on the number
of threads): :func:`reset_batch`, :func:`play_batch` (a negative action skips its game) and
:func:`masks_batch`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.compiled import rng as R
from loco_envs.moco import actions as codec
from loco_envs.moco.cards import DECK_WITH_EXCUSE, FIRST_PLAYABLE, NUM_CARDS, NUM_SUITS, VALUES
from loco_envs.moco.rules import (
    ACE_ONLY_VALUE,
    CHIPS_PER_SUIT,
    HAND_SIZE,
    PILE_LIMIT,
    REMOVED,
)

__all__ = ["final_ranks", "final_scores", "is_legal", "legal_mask", "masks_batch", "new_game",
           "play", "play_batch", "reset_batch"]

PLAY, CHIP, OVER = 0, 1, 2
NUM_PLAYS = codec.NUM_PLAYS
FIRST_CHIP = codec.FIRST_CHIP
NO_CHIP = codec.NO_CHIP
NUM_ACTIONS = codec.NUM_ACTIONS

#: Card id and pile of each play action (M-10).
PLAY_CARD = np.array(codec.PLAY_CARD, np.int64)
PLAY_PILE = np.array(codec.PLAY_PILE, np.int64)
#: Each card id's play actions: the first index and how many (they are consecutive).
CARD_FIRST_PLAY = np.array([p[0] if p else 0 for p in codec.CARD_PLAYS], np.int64)
CARD_NUM_PLAYS = np.array([len(p) for p in codec.CARD_PLAYS], np.int64)
assert all(list(p) == list(range(p[0], p[0] + len(p))) for p in codec.CARD_PLAYS if p)
#: M-21: a chip's value with this card on top of its pile.
CARD_VALUES = np.array(VALUES, np.int64)
#: M-02: the deck in id order; without the Excuse it is the first 34 of them.
DECK = np.array(DECK_WITH_EXCUSE, np.int8)
#: M-03 by number of players (index 0, 1 unused).
REMOVED_BY_N = np.array([0, 0] + [REMOVED[n] for n in range(2, 6)], np.int64)
HAND_SIZE_BY_N = np.array([0, 0] + [HAND_SIZE[n] for n in range(2, 6)], np.int64)
assert NUM_CARDS == DECK[-1] + 1 and FIRST_PLAYABLE == NUM_SUITS


@njit(cache=True)
def deck_size(n: int) -> int:
    """M-02: 34 cards, 35 with the Excuse (five players)."""
    return DECK.shape[0] if n == 5 else DECK.shape[0] - 1


@no_refcount_inline
def _deal(s, cfg, i, dealer):
    """M-01 … M-05 (``MocoGame._deal``): Aces as pile bases, shuffle (``rng.permutation``),
    remove unseen, deal evenly, full supply; the seat after the dealer starts."""
    n = cfg.num_players
    size = deck_size(n)
    order = s.deck_order[i]
    for k in range(size):
        order[k] = k
    R.shuffle(s.rng[i], order, size)  # M-03: Generator.permutation = shuffle of arange
    removed = REMOVED_BY_N[n]
    hand = HAND_SIZE_BY_N[n]
    s.removed[i, :] = -1
    for k in range(removed):
        s.removed[i, k] = DECK[order[k]]
    s.removed_len[i] = removed
    s.hands[i, :, :] = 0
    for seat in range(n):
        start = removed + seat * hand
        for k in range(start, start + hand):
            s.hands[i, seat, DECK[order[k]]] = 1
        s.hand_sizes[i, seat] = hand
    s.cards_in_hands[i] = hand * n
    s.piles[i, :, :] = -1
    for suit in range(NUM_SUITS):
        s.heights[i, suit] = 0
        s.supply[i, suit] = CHIPS_PER_SUIT  # M-04
    s.chips[i, :, :] = 0
    s.dealer[i] = dealer
    s.actor[i] = (dealer + 1) % n  # M-05
    s.phase[i] = PLAY
    s.played_pile[i] = -1
    s.terminal[i] = False


@njit(cache=True)
def new_game(s, cfg, i, seed):
    """Row ``i`` becomes ``MocoGame(rng=np.random.default_rng(seed), **options)``."""
    R.seed_state(np.uint64(seed), s.rng[i])
    s.game[i] = 0
    s.match_scores[i, :] = 0
    dealer = R.integers(s.rng[i], cfg.num_players)  # M-05: a randomly drawn dealer
    _deal(s, cfg, i, dealer)


@no_refcount_inline
def _takable(s, cfg, i, suit):
    """M-11 … M-13: may the seat to act take a chip of ``suit`` after its play?"""
    if s.supply[i, suit] <= 0:  # M-13
        return False
    return not (cfg.num_players == 2 and suit == s.played_pile[i])  # M-12


@no_refcount_inline
def legal_mask(s, cfg, i, out):
    """``MocoGame.legal_mask``: M-10 a card of the hand on a pile of its suits (the Excuse on
    any); M-11 … M-13 a takable chip, or no chip when none is; zeros once over."""
    out[:] = 0
    phase = s.phase[i]
    if phase == PLAY:
        seat = s.actor[i]
        for card in range(FIRST_PLAYABLE, NUM_CARDS):
            if s.hands[i, seat, card]:
                first = CARD_FIRST_PLAY[card]
                for a in range(first, first + CARD_NUM_PLAYS[card]):
                    out[a] = 1
    elif phase == CHIP:
        any_chip = False
        for suit in range(NUM_SUITS):
            if _takable(s, cfg, i, suit):
                out[FIRST_CHIP + suit] = 1
                any_chip = True
        if not any_chip:
            out[NO_CHIP] = 1


@no_refcount_inline
def is_legal(s, cfg, i, action):
    """Whether ``action`` is in the legal mask of game ``i`` (False once over)."""
    if action < 0 or action >= NUM_ACTIONS:
        return False
    phase = s.phase[i]
    if phase == PLAY:  # M-10
        return action < NUM_PLAYS and s.hands[i, s.actor[i], PLAY_CARD[action]] != 0
    if phase == CHIP:
        if action < NUM_PLAYS:
            return False
        if action == NO_CHIP:  # M-13: only when no chip may be taken
            for suit in range(NUM_SUITS):
                if _takable(s, cfg, i, suit):
                    return False
            return True
        return _takable(s, cfg, i, action - FIRST_CHIP)
    return False


@no_refcount_inline
def game_scores(s, cfg, i, out):
    """M-21, M-22: each seat's chips valued by the piles of the game on the table."""
    for seat in range(cfg.num_players):
        out[seat] = seat_score(s, i, seat)


@no_refcount_inline
def seat_score(s, i, seat):
    """M-21, M-22: ``seat``'s chips valued by the piles of the game on the table."""
    total = 0
    for suit in range(NUM_SUITS):
        total += s.chips[i, seat, suit] * pile_value(s, i, suit)
    return total


@no_refcount_inline
def pile_value(s, i, suit):
    """M-21: the pile's top card's value, 1 for an Ace-only pile."""
    h = s.heights[i, suit]
    if h == 0:
        return ACE_ONLY_VALUE
    return CARD_VALUES[s.piles[i, suit, h - 1]]


@no_refcount_inline
def _end_game(s, cfg, i):
    """M-20 ends this game; in a match (M-30) the next one is dealt by the next seat."""
    n = cfg.num_players
    if s.game[i] + 1 < cfg.num_games:
        scores = s.match_scores[i]
        for seat in range(n):  # all scored before any is added: a score reads the chips only
            scores[seat] += seat_score(s, i, seat)
        s.game[i] += 1
        _deal(s, cfg, i, (s.dealer[i] + 1) % n)
    else:
        s.phase[i] = OVER
        s.played_pile[i] = -1
        s.actor[i] = -1
        s.terminal[i] = True


@no_refcount_inline
def _play(s, cfg, i, a):
    """M-10: the card leaves the hand onto the pile; M-20 may end the game at once (no chip)."""
    seat = s.actor[i]
    card = PLAY_CARD[a]
    pile = PLAY_PILE[a]
    s.hands[i, seat, card] = 0
    s.hand_sizes[i, seat] -= 1
    s.cards_in_hands[i] -= 1
    h = s.heights[i, pile]
    s.piles[i, pile, h] = card
    s.heights[i, pile] = h + 1
    if h + 1 >= PILE_LIMIT or s.cards_in_hands[i] == 0:
        _end_game(s, cfg, i)  # M-20: at once, before any chip
    else:
        s.phase[i] = CHIP
        s.played_pile[i] = pile


@no_refcount_inline
def _next_seat(s, cfg, i, seat):
    """Clockwise (M-05), passing over empty hands (M-20); some hand holds a card here."""
    n = cfg.num_players
    nxt = (seat + 1) % n
    while s.hand_sizes[i, nxt] == 0:
        nxt = (nxt + 1) % n
    return nxt


@no_refcount_inline
def _take(s, cfg, i, a):
    """M-11 … M-13: a chip from the supply (or none); the turn passes on."""
    seat = s.actor[i]
    if a != NO_CHIP:
        suit = a - FIRST_CHIP
        s.supply[i, suit] -= 1
        s.chips[i, seat, suit] += 1
    s.phase[i] = PLAY
    s.played_pile[i] = -1
    s.actor[i] = _next_seat(s, cfg, i, seat)


@no_refcount_inline
def play(s, cfg, i, action):
    """``MocoGame.play_legal``: ``action`` is known to be legal."""
    if s.phase[i] == PLAY:
        _play(s, cfg, i, action)
    else:
        _take(s, cfg, i, action)


@njit(cache=True)
def final_scores(s, cfg, i, out):
    """``MocoGame.final_scores``: the game's score (M-22), or the match total (M-30)."""
    n = cfg.num_players
    scores = np.zeros(n, np.int64)
    game_scores(s, cfg, i, scores)
    for seat in range(n):
        out[seat] = np.float64(s.match_scores[i, seat] + scores[seat])


@njit(cache=True)
def final_ranks(s, cfg, i, out):
    """M-22 / M-30: 0 for the highest score; tied seats share a position."""
    n = cfg.num_players
    scores = np.zeros(n, np.float64)
    final_scores(s, cfg, i, scores)
    for seat in range(n):
        above = 0
        for other in range(n):
            if scores[other] > scores[seat]:
                above += 1
        out[seat] = above


@njit(parallel=True, cache=True)
def reset_batch(s, cfg, seeds):
    """:func:`new_game` of every row ``i`` from ``seeds[i]``."""
    for i in prange(seeds.shape[0]):
        new_game(s, cfg, i, seeds[i])


@njit(parallel=True, cache=True)
def play_batch(s, cfg, actions):
    """:func:`play` of ``actions[i]`` in every row ``i`` where it is not negative."""
    for i in prange(actions.shape[0]):
        if actions[i] >= 0:
            play(s, cfg, i, actions[i])


@njit(parallel=True, cache=True)
def masks_batch(s, cfg, out):
    """:func:`legal_mask` of every row ``i`` into ``out[i]``."""
    for i in prange(out.shape[0]):
        legal_mask(s, cfg, i, out[i])
