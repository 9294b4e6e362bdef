"""Los Mampfos's rules (``docs/rules/mampfos.md``) over the batch state, compiled with numba.

One small function per rule or phase, named as the methods of
:class:`loco_envs.mampfos.rules.MampfosGame` (``_draw``, ``_feed_one``, ``_move``,
``_start_feed``, ``_start_wheels``, ``_resolve_droppings``, ``_finish``,
``_flip_until_decision``), each doing what its twin does, in the same order: the only random
draws are P-10's card flips (``rng.integers(len(stack))``) and P-10's first player
(``rng.integers(n)``), so a seed deals the same game on both engines.

Row functions (``new_game``, ``legal_mask``, ``is_legal``, ``play``, ``final_ranks``,
``final_scores``) take the batch state ``s`` (:class:`~.state.MampfosState`), its config and a
row ``i``; the batch forms (``reset_batch``, ``play_batch``, ``masks_batch``) run over all rows
with ``prange``. Games share nothing, so results do not depend on the thread count.

The millwheels (P-12) are asked one seat at a time into ``s.wheels``; nothing but ``state_dict``
reads them before the share-out (the encoder shows only that a wheel was set).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.compiled import rng as R
from loco_envs.mampfos import actions as codec
from loco_envs.mampfos import components as K

__all__ = ["final_ranks", "final_scores", "is_legal", "legal_mask", "masks_batch",
           "new_game", "play", "play_batch", "reset_batch", "NUM_ACTIONS"]

NUM_ACTIONS = codec.NUM_ACTIONS
NC = codec.NUM_COLOURS
ND = codec.NUM_DONKEYS
DONKEY_BASE = codec.DONKEY_BASE
FEED_BASE = codec.FEED_BASE
WHEEL_BASE = codec.WHEEL_BASE
PATH_LENGTH = K.PATH_LENGTH
BISCUITS = K.BISCUITS_PER_COLOUR
NUM_LETTERS = len(K.LETTERS)
FEED, DROP, END = K.FEED, K.DROP, K.END
ANY = K.ANY
END_CARD = K.END_CARD
PH_DONKEY, PH_FEED, PH_WHEEL, PH_OVER = K.PH_DONKEY, K.PH_FEED, K.PH_WHEEL, K.PH_OVER
CARD_KIND = np.array(K.CARD_KIND, np.int64)
CARD_DONKEY = np.array(K.CARD_DONKEY, np.int64)
CARD_NUMBER = np.array(K.CARD_NUMBER, np.int64)
START_POSITIONS = np.array(K.START_POSITIONS, np.int64)
#: The full deck (P-04): per letter, its card ids sorted (``MampfosGame.__init__``'s pile).
DECK_IDS = np.array([sorted(K.CARD_ID[c] for c in K.DECK[letter]) for letter in K.LETTERS],
                    np.int64)


# --- transitions (MampfosGame's private methods) ----------------------------------------------
@no_refcount_inline
def _clear_news(s, i, seat):
    """A decision marks what the seat has seen; what follows it is news again (P-31)."""
    s.fed_since[i, seat, :] = 0
    s.share_new[i, seat] = False


@no_refcount_inline
def _feed_one(s, i, donkey, colour):
    """P-11: one biscuit from the supply into ``donkey``, announced to every seat."""
    s.supply[i, colour] -= 1
    s.bellies[i, donkey, colour] += 1
    s.card_fed[i, colour] += 1
    k = donkey * NC + colour
    for seat in range(s.fed_since.shape[1]):
        s.fed_since[i, seat, k] += 1


@no_refcount_inline
def _move(s, i, donkey, steps):
    """P-11: move clockwise; a move ending on a donkey goes on to the next free space."""
    pos = (s.positions[i, donkey] + steps) % PATH_LENGTH
    while True:
        taken = False
        for d in range(ND):
            if d != donkey and s.positions[i, d] == pos:
                taken = True
        if not taken:
            break
        pos = (pos + 1) % PATH_LENGTH
    s.positions[i, donkey] = pos


@no_refcount_inline
def _start_wheels(s, i):
    """P-12: every seat sets its millwheel, asked from the active seat clockwise."""
    s.phase[i] = PH_WHEEL
    s.wheels[i, :] = -1
    s.wheel_count[i] = 0
    s.actor[i] = s.active[i]


@no_refcount_inline
def _start_feed(s, i):
    """P-11: begin feeding ``s.donkey[i]``; True when it needed no decision (the supply holds
    the card's number or fewer: all of it is fed, then the donkey moves)."""
    k = CARD_NUMBER[s.card[i]]
    s.feed_left[i] = k
    s.card_fed[i, :] = 0
    total = 0
    for c in range(NC):
        total += s.supply[i, c]
    if total > k:
        s.phase[i] = PH_FEED
        s.actor[i] = s.active[i]
        return False
    donkey = s.donkey[i]
    for c in range(NC):
        for _ in range(s.supply[i, c]):
            _feed_one(s, i, donkey, c)
    s.feed_left[i] = 0
    _move(s, i, donkey, k)
    return True


@no_refcount_inline
def _draw(s, i):
    """P-04/P-10 chance: a random card of the top letter (each letter stack is shuffled):
    ``stack.pop(rng.integers(len(stack)))`` of the first non-empty letter."""
    for letter in range(NUM_LETTERS):
        length = s.pile_len[i, letter]
        if length > 0:
            j = R.integers(s.rng[i], length)
            card = s.pile[i, letter, j]
            for k in range(j, length - 1):
                s.pile[i, letter, k] = s.pile[i, letter, k + 1]
            s.pile[i, letter, length - 1] = 0
            s.pile_len[i, letter] = length - 1
            return np.int64(card)
    return np.int64(-1)  # unreachable from a valid state: the end card comes first (P-04)


@no_refcount_inline
def _finish(s, i):
    """P-20: the game is over."""
    s.phase[i] = PH_OVER
    s.terminal[i] = True
    s.actor[i] = -1
    s.card[i] = -1
    s.donkey[i] = -1


@no_refcount_inline
def _flip_until_decision(s, i, advance):
    """P-10: the next seat turns over the top card; cards needing no decision are carried out
    at once. ``advance=False`` (the first turn) keeps the active seat."""
    n = s.wheels.shape[1]
    while True:
        if advance:
            s.active[i] = (s.active[i] + 1) % n
        advance = True
        card = _draw(s, i)
        if card < 0:  # no card left (not a valid state): end rather than loop
            _finish(s, i)
            return
        s.card[i] = card
        s.donkey[i] = -1
        s.card_fed[i, :] = 0
        s.feed_left[i] = 0
        s.actor[i] = s.active[i]
        kind, who = CARD_KIND[card], CARD_DONKEY[card]
        if kind == END:  # P-13: all three donkeys once more; the active seat picks the order
            s.end_left[i, 0], s.end_left[i, 1], s.end_left[i, 2] = 0, 1, 2
            s.end_len[i] = 3
            s.phase[i] = PH_DONKEY
            return
        if who == ANY:  # P-11/P-12 ★: the active seat chooses the donkey
            s.phase[i] = PH_DONKEY
            return
        s.donkey[i] = who
        if kind == DROP:  # P-12
            _start_wheels(s, i)
            return
        if not _start_feed(s, i):  # P-11
            return


@no_refcount_inline
def _share_out(s, i):
    """P-12's share-out of ``s.donkey[i]``'s belly by ``s.wheels[i]``: the gains go into
    ``share_gains``, what goes back into ``share_back``."""
    n = s.wheels.shape[1]
    d = s.donkey[i]
    for seat in range(n):
        s.share_gains[i, seat] = 0
    for colour in range(NC):
        out = np.int64(s.bellies[i, d, colour])
        s.share_out[i, colour] = out
        s.share_back[i, colour] = out
        p = 0
        for seat in range(n):
            if s.wheels[i, seat] == colour:
                p += 1
        if p == 0 or out == 0 or out < p:  # nobody chose it, nothing there, too few to go round
            continue
        each = out // p
        for seat in range(n):
            if s.wheels[i, seat] == colour:
                s.share_gains[i, seat] = each
        s.share_back[i, colour] = out - each * p


@no_refcount_inline
def _resolve_droppings(s, i):
    """P-12: empty the donkey, reveal the millwheels, share out, put the rest back; then the
    next card (P-10), or P-13's next donkey, or the end (P-20)."""
    n = s.wheels.shape[1]
    d = s.donkey[i]
    _share_out(s, i)
    for seat in range(n):
        gain = s.share_gains[i, seat]
        if gain:
            s.collected[i, seat, s.wheels[i, seat]] += gain
    for colour in range(NC):
        s.bellies[i, d, colour] = s.share_back[i, colour]
    s.has_share[i] = True
    s.share_donkey[i] = d
    for seat in range(n):
        s.share_wheels[i, seat] = s.wheels[i, seat]
        s.share_new[i, seat] = True
        for colour in range(NC):
            s.fed_since[i, seat, d * NC + colour] = 0
    s.wheels[i, :] = -1
    s.wheel_count[i] = 0
    if s.card[i] != END_CARD:
        _flip_until_decision(s, i, True)
    elif s.end_len[i] == 0:
        _finish(s, i)
    elif s.end_len[i] == 1:  # P-13: the last donkey goes by itself
        s.end_len[i] = 0
        s.donkey[i] = s.end_left[i, 0]
        s.end_left[i, 0] = -1
        _start_wheels(s, i)
    else:  # P-13: the active seat chooses the next donkey
        s.phase[i] = PH_DONKEY
        s.donkey[i] = -1
        s.actor[i] = s.active[i]


@no_refcount_inline
def _remove_end_left(s, i, donkey):
    """``end_left.remove(donkey)``."""
    m = s.end_len[i]
    k = 0
    while s.end_left[i, k] != donkey:
        k += 1
    for j in range(k, m - 1):
        s.end_left[i, j] = s.end_left[i, j + 1]
    s.end_left[i, m - 1] = -1
    s.end_len[i] = m - 1


# --- the decisions (MampfosGame.apply) ----------------------------------------------------------
@no_refcount_inline
def choose_donkey(s, i, seat, donkey):
    """P-11/P-12 ★ card or P-13's next donkey: the active seat picks ``donkey``."""
    _clear_news(s, i, seat)
    s.donkey[i] = donkey
    card = s.card[i]
    if card == END_CARD:
        _remove_end_left(s, i, donkey)
    if CARD_KIND[card] == FEED:
        if _start_feed(s, i):
            _flip_until_decision(s, i, True)
    else:
        _start_wheels(s, i)


@no_refcount_inline
def feed(s, i, seat, colour):
    """P-11: the active seat feeds one biscuit of ``colour``; the last one moves the donkey."""
    _clear_news(s, i, seat)
    _feed_one(s, i, s.donkey[i], colour)
    s.feed_left[i] -= 1
    if s.feed_left[i] == 0:
        _move(s, i, s.donkey[i], CARD_NUMBER[s.card[i]])
        _flip_until_decision(s, i, True)


@no_refcount_inline
def set_wheel(s, i, seat, colour):
    """P-12: ``seat`` sets its millwheel in secret; the last one resolves the droppings."""
    n = s.wheels.shape[1]
    _clear_news(s, i, seat)
    s.wheels[i, seat] = colour
    s.wheel_count[i] += 1
    if s.wheel_count[i] < n:
        s.actor[i] = (s.active[i] + s.wheel_count[i]) % n
    else:
        _resolve_droppings(s, i)


# --- the contract -----------------------------------------------------------------------------
@njit(cache=True)
def new_game(s, cfg, i, seed):
    """Row ``i`` becomes ``MampfosGame(rng=np.random.default_rng(seed), **options)``."""
    n = cfg.num_players
    R.seed_state(np.uint64(seed), s.rng[i])
    for d in range(ND):  # P-01
        s.positions[i, d] = START_POSITIONS[d]
        s.end_left[i, d] = -1
        for c in range(NC):
            s.bellies[i, d, c] = 0
    for c in range(NC):  # P-02
        s.supply[i, c] = BISCUITS
        s.card_fed[i, c] = 0
        s.share_out[i, c] = 0
        s.share_back[i, c] = 0
    for letter in range(NUM_LETTERS):  # P-04
        s.pile_len[i, letter] = DECK_IDS.shape[1]
        for k in range(DECK_IDS.shape[1]):
            s.pile[i, letter, k] = DECK_IDS[letter, k]
    s.phase[i] = PH_DONKEY
    s.card[i] = -1
    s.donkey[i] = -1
    s.feed_left[i] = 0
    s.end_len[i] = 0
    s.wheel_count[i] = 0
    for seat in range(n):
        s.wheels[i, seat] = -1  # P-03
        s.share_new[i, seat] = False
        s.share_wheels[i, seat] = -1
        s.share_gains[i, seat] = 0
        s.fed_since[i, seat, :] = 0
        s.collected[i, seat, :] = 0
        s.bot_memory[i, seat] = 0
    s.has_share[i] = False
    s.share_donkey[i] = -1
    s.terminal[i] = False
    s.actor[i] = -1
    s.active[i] = R.integers(s.rng[i], n)  # P-10: the first player is drawn at random
    _flip_until_decision(s, i, False)


@no_refcount_inline
def legal_mask(s, cfg, i, out):
    """The ``int8`` mask of the seat to act (``MampfosGame.legal_mask``)."""
    out[:] = 0
    phase = s.phase[i]
    if phase == PH_WHEEL:  # P-12: all five colours, always
        for c in range(NC):
            out[WHEEL_BASE + c] = 1
    elif phase == PH_FEED:  # P-11: a colour the supply still has
        for c in range(NC):
            if s.supply[i, c] > 0:
                out[FEED_BASE + c] = 1
    elif phase == PH_DONKEY:
        if s.card[i] == END_CARD:  # P-13: a donkey not yet done
            for k in range(s.end_len[i]):
                out[DONKEY_BASE + s.end_left[i, k]] = 1
        else:  # ★ card: any donkey
            for d in range(ND):
                out[DONKEY_BASE + d] = 1


@no_refcount_inline
def is_legal(s, cfg, i, action):
    """Whether ``MampfosGame.apply(action)`` accepts ``action`` (an int) now."""
    if s.terminal[i] or action < 0 or action >= NUM_ACTIONS:
        return False
    phase = s.phase[i]
    if phase == PH_DONKEY:
        d = action - DONKEY_BASE
        if not 0 <= d < ND:
            return False
        if s.card[i] == END_CARD:
            for k in range(s.end_len[i]):
                if s.end_left[i, k] == d:
                    return True
            return False
        return True
    if phase == PH_FEED:
        c = action - FEED_BASE
        return 0 <= c < NC and s.supply[i, c] > 0
    if phase == PH_WHEEL:
        c = action - WHEEL_BASE
        return 0 <= c < NC
    return False


@no_refcount_inline
def play(s, cfg, i, action):
    """``MampfosGame.play_legal(action)``: the action is known legal."""
    seat = s.actor[i]
    phase = s.phase[i]
    if phase == PH_DONKEY:
        choose_donkey(s, i, seat, action - DONKEY_BASE)
    elif phase == PH_FEED:
        feed(s, i, seat, action - FEED_BASE)
    else:
        set_wheel(s, i, seat, action - WHEEL_BASE)


@no_refcount_inline
def final_scores(s, cfg, i, out):
    """P-20: each seat's biscuits, colours aside (``MampfosGame.final_scores``)."""
    for seat in range(cfg.num_players):
        total = 0
        for c in range(NC):
            total += s.collected[i, seat, c]
        out[seat] = total


@njit(cache=True)
def final_ranks(s, cfg, i, out):
    """P-20: how many seats have more biscuits (ties share the rank)."""
    n = cfg.num_players
    scores = np.zeros(n, np.int64)
    for seat in range(n):
        for c in range(NC):
            scores[seat] += s.collected[i, seat, c]
    for seat in range(n):
        better = 0
        for other in range(n):
            if scores[other] > scores[seat]:
                better += 1
        out[seat] = better


# --- batch forms ------------------------------------------------------------------------------
@njit(parallel=True, cache=True)
def reset_batch(s, cfg, seeds):
    """Every row ``i`` becomes a new game from ``seeds[i]``."""
    for i in prange(seeds.shape[0]):
        new_game(s, cfg, i, seeds[i])


@njit(parallel=True, cache=True)
def play_batch(s, cfg, actions):
    """Row ``i`` plays ``actions[i]`` (known legal); a negative action skips the row."""
    for i in prange(actions.shape[0]):
        if actions[i] >= 0:
            play(s, cfg, i, actions[i])


@njit(parallel=True, cache=True)
def masks_batch(s, cfg, out):
    """``out[i]`` becomes row ``i``'s mask."""
    for i in prange(out.shape[0]):
        legal_mask(s, cfg, i, out[i])
