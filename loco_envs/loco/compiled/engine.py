"""LOCO's transitions, compiled: :mod:`loco_envs.loco.rules` over the arrays of
:mod:`loco_envs.loco.compiled.state`, one row per game, exact to the Python engine.

Every function takes the batch state ``s`` (:class:`~loco_envs.loco.compiled.state.LocoState`),
its options ``cfg`` (:class:`~loco_envs.loco.compiled.state.LocoConfig`) and the row ``i`` of
the game, and reads or writes that row only, so the batch functions may step the games in
parallel (``prange``) and give the same arrays on any thread count. Functions are named after
the methods of :class:`~loco_envs.loco.rules.LocoGame` they port, with the same rule ids; the
same random draws happen in the same order on the row's generator (:mod:`loco_envs.compiled.rng`,
numpy's ``default_rng``), so a seed is one game on either engine. ``tests/compiled/
test_loco_engine.py`` holds the two equal, decision by decision (state dicts, generator states,
masks).

Public: :func:`new_game`, :func:`legal_mask`, :func:`is_legal`, :func:`play` (``play_legal``:
the action is known legal), :func:`timeout`, :func:`final_ranks`, :func:`final_scores`, and the
batch functions :func:`reset_batch`, :func:`play_batch`, :func:`masks_batch`.

How the Python engine's calls are compiled:

- A transition of the Python engine ends in a tail call of ``_advance`` (the next decision after
  a landing) or ``_begin_turn`` (the next regular turn). Here a rule function returns that as a
  step code instead (:data:`DECIDED`, :data:`ADVANCE`, :data:`BEGIN_TURN`) and :func:`_run`
  takes the steps. The Python engine's recursions (a turn that times out as it begins, L-62,
  begins the next one; a deal with no number card left deals again, L-02) become loops, and
  no rule function calls the whole engine: numba compiles a function with everything it calls,
  again in every function that calls it.
- The rule functions are called from compiled code only: no Python wrappers, and no reference
  counting (they allocate nothing; the batch state belongs to the caller). Integer arguments
  are passed as ``int64`` (``np.int64(...)`` of a state entry or a constant) so that each is
  compiled for one signature. Three kinds: ``_inline`` helpers (numba inlines them where they
  are used), ``_hot`` functions of every decision (LLVM inlines them: a call passes the batch
  state as some 300 scalars, and inlining them made ``play`` 2.5x faster), ``_rule`` functions
  of the rare paths (deals, Rotations, Contre-LOCO penalties, timeouts, leaves, round ends),
  called.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount, no_refcount_inline
from loco_envs.compiled import rng as R
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco import rules as _rules
from loco_envs.loco.phases import (
    AFTER_DRAW,
    AFTER_PENALTY,
    ANNOUNCED,
    CALL,
    COLOUR,
    CONTRE,
    NO_CALL,
    OVER,
    OWED,
    SILENT,
    SLAP,
    TARGET,
    TURN,
)

__all__ = ["final_ranks", "final_scores", "is_legal", "legal_mask", "masks_batch", "new_game",
           "play", "play_batch", "reset_batch", "timeout"]

# ---------------------------------------------------------------------------- tables
# Numba freezes these module globals into the compiled code as constants.
NUM_IDS = C.NUM_IDENTITIES
DECK_SIZE = C.DECK_SIZE
HAND_SIZE = C.HAND_SIZE
NUM_COLOURS = len(C.COLOURS)
#: The 112 cards in ``cards.deck_list()`` order: what ``_deal`` shuffles.
DECK = np.array(C.deck_list(), np.int8)
IDENT_COLOUR = np.array(C.COLOUR, np.int8)  # -1 for wilds
IS_NUMBER = C.IS_NUMBER.astype(np.bool_)
POINTS = C.POINTS.astype(np.int64)
_KINDS = list(dict.fromkeys(C.KIND))  # "1".."9", "S", "R", "+2", "X", "W", "+4", "O"
#: A kind code per identity: equal codes are equal kinds (equal numbers for number cards).
IDENT_KIND = np.array([_KINDS.index(k) for k in C.KIND], np.int8)
K_SKIP, K_REVERSE, K_PLUS2, K_SWAP = (_KINDS.index(k) for k in ("S", "R", "+2", "X"))
K_PLUS4, K_ROTATION = _KINDS.index("+4"), _KINDS.index("O")
#: ``pending_kind`` codes (``state.PENDING_KINDS``): the penalty per card is the code.
PENDING_NONE, PENDING_PLUS2, PENDING_PLUS4 = 0, 2, 4

PLAY_IDENT = A.PLAY_IDENT.astype(np.int64)
PLAY_COUNT = A.PLAY_COUNT.astype(np.int64)
PLAY_BASE = np.array(A.PLAY_BASE, np.int64)
NUM_PLAYS = A.NUM_PLAYS
PLAY0, SLAP0, DRAW, PASS = A.PLAY0, A.SLAP0, A.DRAW, A.PASS
COLOUR0, TARGET0, LOCO, SILENT_ACTION, CONTRE_ACTION = (A.COLOUR0, A.TARGET0, A.LOCO, A.SILENT,
                                                        A.CONTRE)
NUM_ACTIONS = A.NUM_ACTIONS

#: ``rules._PLAY_ROWS`` per identity instead of per play (a row allows all copies of an
#: identity or none; the hand decides how many): row ``rules._play_row``, column identity.
IDENT_ROWS = np.ascontiguousarray(_rules._PLAY_ROWS[:, A.PLAY_BASE]).astype(np.int8)
assert np.array_equal(IDENT_ROWS[:, A.PLAY_IDENT], _rules._PLAY_ROWS)
PLUS2_ROW, PLUS4_ROW, IDENTICAL_ROW0 = (_rules._PLUS2_ROW, _rules._PLUS4_ROW,
                                        _rules._IDENTICAL_ROW0)
PHASE_MASKS = np.ascontiguousarray(_rules._PHASE_MASKS)
COUNTS = _rules._COUNTS
DRAWN_ROW0, SLAP_ROW0 = _rules._DRAWN_ROW0, _rules._SLAP_ROW0
COLOUR_ROW, CALL_ROW, CONTRE_ROW = _rules._COLOUR_ROW, _rules._CALL_ROW, _rules._CONTRE_ROW

LEAVE_AFTER = _rules.CONSECUTIVE_TIMEOUTS_TO_LEAVE
CONTRE_SILENT_PENALTY = _rules.CONTRE_SILENT_PENALTY
CONTRE_WRONG_SHOUT_PENALTY = _rules.CONTRE_WRONG_SHOUT_PENALTY
#: ``window_kind`` codes (``state.WINDOW_KINDS``).
WINDOW_NONE, WINDOW_CONTRE, WINDOW_SLAP = 0, 1, 2

#: Step codes (see the module docstring): a decision is set; ``_advance`` next;
#: ``_begin_turn`` next.
DECIDED, ADVANCE, BEGIN_TURN = 0, 1, 2

#: The three kinds of rule functions (see the module docstring).
_rule = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False)
_inline = njit(cache=True, inline="always", no_cpython_wrapper=True, no_cfunc_wrapper=True,
               _nrt=False)
_hot = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
            forceinline=True)
#: The public functions: called from Python too; ``new_game`` and the batches need numba's
#: reference counting (the generator's seeding and ``prange`` allocate).
_public = no_refcount


# ---------------------------------------------------------------------------- seats
@_inline
def _playing(s, i, seat):
    return s.active[i, seat] and s.in_round[i, seat]


@_inline
def _num_playing(s, cfg, i):
    count = 0
    for seat in range(cfg.num_players):
        if _playing(s, i, seat):
            count += 1
    return count


@_inline
def _step_from(s, cfg, i, seat, steps):
    """The seat ``steps`` places on in the direction of play, over seats still playing."""
    n, d = cfg.num_players, s.direction[i]
    for _ in range(steps):
        seat = (seat + d) % n
        while not _playing(s, i, seat):
            seat = (seat + d) % n
    return seat


@_inline
def _clockwise_start(cfg, seat):
    """Where ``rules._CLOCKWISE[n][seat]`` starts (Python's index -1 is the last seat)."""
    return seat + cfg.num_players if seat < 0 else seat


@_inline
def _clockwise_after_start(s, cfg, i, seat):
    """``_clockwise_after(seat)`` is the playing seats of ``(start + k) % n``, k = 1..n.

    With ``seat`` playing that is ``seat`` itself; otherwise ``_clockwise_from(seat)`` rotated
    by one, i.e. the same from its first seat (the first playing seat from ``seat`` on).
    """
    n = cfg.num_players
    start = _clockwise_start(cfg, seat)
    if seat >= 0 and _playing(s, i, seat):
        return start
    for k in range(n):
        if _playing(s, i, (start + k) % n):
            return (start + k) % n
    return start


@_inline
def _set_decision(s, i, phase, seat):
    s.phase[i] = phase
    s.actor[i] = seat


# ---------------------------------------------------------------------------- setup and piles
@_inline
def _close_window(s, cfg, i):
    s.window_kind[i] = WINDOW_NONE
    s.window_len[i] = 0
    for seat in range(cfg.num_players):
        s.window_choices[i, seat] = -1


@_rule
def _deal(s, cfg, i, opener):
    """L-01/L-02/L-04: fresh deck, 8 each, open on a number card, clockwise.

    The deck is shuffled in the row's draw pile (``cards.deck_list()`` order first, as the
    Python engine's list); hands are dealt off its top, seat by seat. No number card left to
    open on: deal again from a fresh deck (the Python engine's recursion).
    """
    n = cfg.num_players
    st = s.rng[i]
    deck = s.draw_pile[i]
    top = 0
    while True:
        for k in range(DECK_SIZE):
            deck[k] = DECK[k]
        R.shuffle(st, deck, DECK_SIZE)
        top = DECK_SIZE
        for seat in range(n):
            s.hands[i, seat, :] = 0
            s.hand_sizes[i, seat] = 0
            if _playing(s, i, seat):
                for _ in range(HAND_SIZE):
                    top -= 1
                    s.hands[i, seat, deck[top]] += 1
                s.hand_sizes[i, seat] = HAND_SIZE
        found = False
        for k in range(top):
            if IS_NUMBER[deck[k]]:
                found = True
                break
        if found:
            break
    # L-02: turn up cards until a number shows; the others go back, and the pile is reshuffled
    m = top - 1
    while not IS_NUMBER[deck[m]]:
        m -= 1
    card = deck[m]
    if m < top - 1:
        # the deck less the number card, then the turned cards in the order they were turned up
        lo, hi = m + 1, top - 1
        while lo < hi:
            deck[lo], deck[hi] = deck[hi], deck[lo]
            lo += 1
            hi -= 1
        for k in range(m, top - 1):
            deck[k] = deck[k + 1]
        s.draw_len[i] = top - 1
        R.shuffle(st, deck, top - 1)
    else:
        s.draw_len[i] = m
    s.discard[i, 0] = card
    s.discard_len[i] = 1
    s.discard_counts[i, :] = 0
    s.discard_counts[i, card] = 1
    s.colour[i] = IDENT_COLOUR[card]
    s.direction[i] = 1
    s.pending[i] = 0
    s.pending_kind[i] = PENDING_NONE
    for seat in range(n):
        s.calls[i, seat] = NO_CALL
    s.call_len[i] = 0
    s.contre_len[i] = 0
    _close_window(s, cfg, i)
    s.slap_window_due[i] = False
    s.lander[i] = -1
    s.drawn[i] = -1
    s.swaps_left[i] = 0
    s.rotations_left[i] = 0
    s.turn_seat[i] = opener


@_inline
def _resize(s, i, seat, size):
    """Track hand size and the LOCO call it owes (L-50, L-54: one card, one call)."""
    old = s.hand_sizes[i, seat]
    s.hand_sizes[i, seat] = size
    if size != 1:
        s.calls[i, seat] = NO_CALL
    elif old != 1:
        s.calls[i, seat] = OWED


@_hot
def _draw(s, i, seat, count):
    """L-13: draw up to ``count`` cards, reshuffling the discard pile under its top card.

    Returns the first card drawn, or -1 when the piles gave nothing.
    """
    first = -1
    got = 0
    for _ in range(count):
        if s.draw_len[i] == 0 and s.discard_len[i] > 1:
            rest = s.discard_len[i] - 1
            for k in range(rest):
                s.draw_pile[i, k] = s.discard[i, k]
            s.draw_len[i] = rest
            top = s.discard[i, rest]
            s.discard[i, 0] = top
            s.discard_len[i] = 1
            s.discard_counts[i, :] = 0
            s.discard_counts[i, top] = 1
            R.shuffle(s.rng[i], s.draw_pile[i], rest)
        if s.draw_len[i] == 0:
            break
        s.draw_len[i] -= 1
        card = s.draw_pile[i, s.draw_len[i]]
        s.hands[i, seat, card] += 1
        if got == 0:
            first = card
        got += 1
    if got:
        _resize(s, i, seat, s.hand_sizes[i, seat] + got)
    return first


# ---------------------------------------------------------------------------- legal actions
@_inline
def _play_row(s, cfg, i):
    """The row of ``IDENT_ROWS`` (``rules._PLAY_ROWS``) a turn or an after-penalty allows.

    A card matching the top (L-10; after the penalty draw too, L-32), or with a penalty pending
    only its answers (L-32/L-33, option ``stacking``). The hand is checked apart.
    """
    top = s.discard[i, s.discard_len[i] - 1]
    if s.phase[i] == TURN and s.pending[i]:
        if cfg.stacking_identical:
            return IDENTICAL_ROW0 + top
        return PLUS2_ROW if s.pending_kind[i] == PENDING_PLUS2 else PLUS4_ROW
    return top * NUM_COLOURS + s.colour[i]


@_inline
def _matches(card, top, colour):
    """L-10: same colour as the current one, same number or action kind as the top, or wild."""
    c = IDENT_COLOUR[card]
    return c < 0 or c == colour or IDENT_KIND[card] == IDENT_KIND[top]


@_inline
def _phase_row(s, i):
    """The row of ``PHASE_MASKS`` of an after-draw, colour, call, Contre-LOCO or slap decision."""
    phase = s.phase[i]
    if phase == AFTER_DRAW:  # L-11: the drawn card, with its copies, if it matches; or pass
        card = s.drawn[i]
        if card >= 0 and _matches(card, s.discard[i, s.discard_len[i] - 1], s.colour[i]):
            return DRAWN_ROW0 + card * COUNTS + s.hands[i, s.actor[i], card]
        return DRAWN_ROW0
    if phase == SLAP:  # L-40: copies identical to the top, or pass
        top = s.discard[i, s.discard_len[i] - 1]
        return SLAP_ROW0 + top * COUNTS + s.hands[i, s.actor[i], top]
    if phase == COLOUR:
        return COLOUR_ROW
    if phase == CALL:
        return CALL_ROW
    return CONTRE_ROW


@no_refcount_inline
def legal_mask(s, cfg, i, out):
    """``LocoGame.legal_mask()`` into ``out`` (``int8``, 242): the seat to act's actions."""
    out[:] = 0
    if s.terminal[i]:
        return
    phase = s.phase[i]
    if phase == TURN or phase == AFTER_PENALTY:  # L-10/L-32/L-33; draw, or pass after one
        seat = s.actor[i]
        row = _play_row(s, cfg, i)
        for ident in range(NUM_IDS):
            if IDENT_ROWS[row, ident]:
                held = s.hands[i, seat, ident]
                base = PLAY0 + PLAY_BASE[ident]
                for k in range(held):
                    out[base + k] = 1
        out[DRAW if phase == TURN else PASS] = 1
    elif phase == TARGET:  # L-35: every other seat still playing
        seat, n = s.actor[i], cfg.num_players
        for d in range(1, n):
            if _playing(s, i, (seat + d) % n):
                out[TARGET0 + d - 1] = 1
    else:
        row = _phase_row(s, i)
        for a in range(NUM_ACTIONS):
            out[a] = PHASE_MASKS[row, a]


@_public
def is_legal(s, cfg, i, action):
    """``legal_mask(...)[action]`` without the mask (``False`` out of range or once over)."""
    if s.terminal[i] or action < 0 or action >= NUM_ACTIONS:
        return False
    phase = s.phase[i]
    if phase == TURN or phase == AFTER_PENALTY:
        if action < NUM_PLAYS:
            ident = PLAY_IDENT[action]
            return (IDENT_ROWS[_play_row(s, cfg, i), ident] != 0
                    and s.hands[i, s.actor[i], ident] >= PLAY_COUNT[action])
        return action == (DRAW if phase == TURN else PASS)
    if phase == TARGET:
        d = action - TARGET0 + 1
        n = cfg.num_players
        return 1 <= d < n and action < LOCO and _playing(s, i, (s.actor[i] + d) % n)
    return PHASE_MASKS[_phase_row(s, i), action] != 0


# ---------------------------------------------------------------------------- the landing
@_hot
def _land(s, cfg, i, seat, ident, count):
    """A play or a successful slap (L-43): cards land, effects apply (L-70 first)."""
    s.hands[i, seat, ident] -= count
    _resize(s, i, seat, s.hand_sizes[i, seat] - count)
    for _ in range(count):
        s.discard[i, s.discard_len[i]] = ident
        s.discard_len[i] += 1
    s.discard_counts[i, ident] += count
    s.lander[i] = seat
    s.drawn[i] = -1
    if s.hand_sizes[i, seat] == 0:
        return _end_round(s, cfg, i, seat)  # L-70: before any effect of the last card
    s.slap_window_due[i] = True  # L-44: a landing opens a window
    kind = IDENT_KIND[ident]
    if IDENT_COLOUR[ident] >= 0:
        s.colour[i] = IDENT_COLOUR[ident]  # L-12
    if kind == K_SKIP:
        s.turn_seat[i] = _step_from(s, cfg, i, seat, count + 1)  # L-30
    elif kind == K_REVERSE:
        if count % 2:
            s.direction[i] = -s.direction[i]  # L-31
        steps = count + 1 if _num_playing(s, cfg, i) == 2 else 1
        s.turn_seat[i] = _step_from(s, cfg, i, seat, steps)
    else:
        s.turn_seat[i] = _step_from(s, cfg, i, seat, 1)
    if kind == K_PLUS2:
        s.pending[i] += 2 * count  # L-32/L-20
        s.pending_kind[i] = PENDING_PLUS2
    elif kind == K_PLUS4:
        s.pending[i] += 4 * count  # L-33/L-20
        s.pending_kind[i] = PENDING_PLUS4
    if kind == K_SWAP:
        s.swaps_left[i] = count  # L-35/L-20: a target for each
        _set_decision(s, i, TARGET, seat)
        return DECIDED
    if IDENT_COLOUR[ident] < 0:
        s.rotations_left[i] = count if kind == K_ROTATION else 0  # L-36/L-20
        _set_decision(s, i, COLOUR, seat)  # L-12/L-34
        return DECIDED
    return _after_effects(s, cfg, i)


@_hot
def _name_colour(s, cfg, i, colour):
    """L-12: the wild's colour; then a Rotation's moves (L-36) and the calls they owe (L-54)."""
    s.colour[i] = colour
    if s.rotations_left[i]:
        for _ in range(s.rotations_left[i]):
            _rotate_hands(s, cfg, i)  # L-36
        s.rotations_left[i] = 0
        _owe_calls_at_one_card(s, cfg, i)
    return _after_effects(s, cfg, i)


@_hot
def _swap_with(s, cfg, i, target):
    """L-35: exchange whole hands; with k Swaps a target is named for each in turn."""
    seat = s.actor[i]
    for ident in range(NUM_IDS):
        held = s.hands[i, seat, ident]
        s.hands[i, seat, ident] = s.hands[i, target, ident]
        s.hands[i, target, ident] = held
    size = s.hand_sizes[i, seat]
    s.hand_sizes[i, seat] = s.hand_sizes[i, target]
    s.hand_sizes[i, target] = size
    s.swaps_left[i] -= 1
    if s.swaps_left[i]:
        return DECIDED  # the next Swap's target
    _owe_calls_at_one_card(s, cfg, i)
    return _after_effects(s, cfg, i)


@_rule
def _rotate_hands(s, cfg, i):
    """L-36: every hand moves one seat in the direction of play, over seats that left.

    Along the cycle ``p0, p1 = step(p0), ...`` of the playing seats, swapping ``p0``'s hand
    with ``p1``'s, then ``p2``'s, ... leaves ``p(j+1)`` holding ``pj``'s: no copy of a hand.
    """
    p0 = -1
    for seat in range(cfg.num_players):
        if _playing(s, i, seat):
            p0 = seat
            break
    if p0 < 0:
        return
    p = _step_from(s, cfg, i, p0, 1)
    while p != p0:
        for ident in range(NUM_IDS):
            held = s.hands[i, p0, ident]
            s.hands[i, p0, ident] = s.hands[i, p, ident]
            s.hands[i, p, ident] = held
        size = s.hand_sizes[i, p0]
        s.hand_sizes[i, p0] = s.hand_sizes[i, p]
        s.hand_sizes[i, p] = size
        p = _step_from(s, cfg, i, p, 1)


@_inline
def _owe_calls_at_one_card(s, cfg, i):
    """L-54: after any Swap or Rotation everyone at one card owes a call again."""
    for seat in range(cfg.num_players):
        if s.hand_sizes[i, seat] == 1 and _playing(s, i, seat):
            s.calls[i, seat] = OWED
        else:
            s.calls[i, seat] = NO_CALL


@_inline
def _after_effects(s, cfg, i):
    """Steps 2-5 of the order of decisions, once the landing's effects are in.

    Step 2's queue: the seats owing a call (L-50/L-51), clockwise from the card's player.
    """
    n = cfg.num_players
    start = _clockwise_start(cfg, s.lander[i])
    length = 0
    for k in range(n):
        seat = (start + k) % n
        if _playing(s, i, seat) and s.calls[i, seat] == OWED:
            s.call_queue[i, length] = seat
            length += 1
    s.call_len[i] = length
    s.contre_len[i] = 0
    return ADVANCE


# ---------------------------------------------------------------- the order of decisions
@_hot
def _advance(s, cfg, i):
    """Move to the next decision: calls, Contre-LOCO windows, slap window, regular turn."""
    n = cfg.num_players
    while True:
        if s.call_len[i]:  # step 2 (L-51)
            _set_decision(s, i, CALL, s.call_queue[i, 0])
            return DECIDED
        if s.contre_len[i]:  # step 3 (L-52); skipped once the caller is off one card
            caller = s.contre_queue[i, 0, 0]
            if s.hand_sizes[i, caller] != 1:
                _pop_contre(s, i)
                continue
            # the opponents: _clockwise_from(caller)[1:]
            start = _clockwise_start(cfg, caller)
            length = 0
            skipped = False
            for k in range(n):
                seat = (start + k) % n
                if _playing(s, i, seat):
                    if not skipped:
                        skipped = True
                        continue
                    s.window_to_decide[i, length] = seat
                    length += 1
            _open_window(s, cfg, i, WINDOW_CONTRE, length)
            return DECIDED
        if s.slap_window_due[i]:  # step 4 (L-41): every holder of the top card, nobody excluded
            s.slap_window_due[i] = False
            top = s.discard[i, s.discard_len[i] - 1]
            start = _clockwise_after_start(s, cfg, i, s.lander[i])
            length = 0
            for k in range(1, n + 1):
                seat = (start + k) % n
                if _playing(s, i, seat) and s.hands[i, seat, top] > 0:
                    s.window_to_decide[i, length] = seat
                    length += 1
            if length:
                _open_window(s, cfg, i, WINDOW_SLAP, length)
                return DECIDED
            continue
        return BEGIN_TURN  # step 5


@_inline
def _pop_contre(s, i):
    length = s.contre_len[i] - 1
    for k in range(length):
        s.contre_queue[i, k, 0] = s.contre_queue[i, k + 1, 0]
        s.contre_queue[i, k, 1] = s.contre_queue[i, k + 1, 1]
    s.contre_len[i] = length


@_inline
def _open_window(s, cfg, i, kind, length):
    """A window over ``window_to_decide[:length]`` (written by the caller), no choices yet."""
    s.window_kind[i] = kind
    s.window_len[i] = length
    for seat in range(cfg.num_players):
        s.window_choices[i, seat] = -1
    _set_decision(s, i, CONTRE if kind == WINDOW_CONTRE else SLAP, s.window_to_decide[i, 0])


@_hot
def _next_in_window(s, cfg, i):
    """The next seat of the window decides; after the last, the window resolves."""
    length = s.window_len[i] - 1
    for k in range(length):
        s.window_to_decide[i, k] = s.window_to_decide[i, k + 1]
    s.window_len[i] = length
    if length:
        _set_decision(s, i, s.phase[i], s.window_to_decide[i, 0])
        return DECIDED
    if s.window_kind[i] == WINDOW_CONTRE:
        _resolve_contre(s, cfg, i)  # reads the choices, then closes the window
        return ADVANCE
    return _resolve_slaps(s, cfg, i)


@_rule
def _resolve_contre(s, cfg, i):
    """L-52: a silent caller draws 2 once; after an announcement each shouter draws 1.

    Paying shouters draw one after the other clockwise from the card's player (order of
    decisions, step 3), which decides who gets which card off the draw pile. The draws leave
    the window's choices alone, so they are read in the same pass and the window closed after.
    """
    caller = np.int64(s.contre_queue[i, 0, 0])
    announced = s.contre_queue[i, 0, 1] != 0
    _pop_contre(s, i)
    n = cfg.num_players
    start = _clockwise_start(cfg, s.lander[i])
    for k in range(n):
        seat = (start + k) % n
        if _playing(s, i, seat) and s.window_choices[i, seat] > 0:
            if announced:
                _draw(s, i, seat, np.int64(CONTRE_WRONG_SHOUT_PENALTY))
            else:
                _draw(s, i, caller, np.int64(CONTRE_SILENT_PENALTY))  # the first shout lands
                break
    _close_window(s, cfg, i)


@_hot
def _resolve_slaps(s, cfg, i):
    """L-42/L-43: the first card received wins the race and lands as a play."""
    n = cfg.num_players
    slappers = 0
    for seat in range(n):
        if s.window_choices[i, seat] > 0:
            slappers += 1
    if slappers == 0:
        _close_window(s, cfg, i)
        return ADVANCE
    winner = -1
    if cfg.photo_finish_seat:  # the slapper nearest after the card's player (_order_after)
        lander, d = s.lander[i], s.direction[i]
        for k in range(1, n + 1):
            seat = (lander + d * k) % n
            if s.window_choices[i, seat] > 0:
                winner = seat
                break
    else:  # a seeded draw among the slappers, in seat order
        pick = R.integers(s.rng[i], slappers)
        for seat in range(n):
            if s.window_choices[i, seat] > 0:
                if pick == 0:
                    winner = seat
                    break
                pick -= 1
    count = np.int64(s.window_choices[i, winner])
    _close_window(s, cfg, i)
    return _land(s, cfg, i, winner, np.int64(s.discard[i, s.discard_len[i] - 1]), count)


# ---------------------------------------------------------------------------- turns
@_hot
def _begin_turn(s, cfg, i):
    """Start ``turn_seat``'s regular turn; a slow seat may time out at once (L-62).

    The turn that times out is played by the clock (:func:`_timeout_turn`); while that begins
    another turn, it begins here (the Python engine's recursion as a loop).
    """
    while True:
        seat = s.turn_seat[i]
        _set_decision(s, i, TURN, seat)
        rate = cfg.timeout_rates[seat]
        if not (rate != 0.0 and R.random(s.rng[i]) < rate):
            return DECIDED
        if _timeout_turn(s, cfg, i) != BEGIN_TURN:
            return DECIDED


@_hot
def _run(s, cfg, i, step):
    """Take the steps a transition left (``_advance``, ``_begin_turn``) until a decision."""
    while step != DECIDED:
        if step == ADVANCE:
            step = _advance(s, cfg, i)
        else:
            step = _begin_turn(s, cfg, i)


@_inline
def _end_turn(s, cfg, i):
    s.drawn[i] = -1
    s.turn_seat[i] = _step_from(s, cfg, i, s.turn_seat[i], 1)
    return BEGIN_TURN


@_inline
def _take_draw(s, cfg, i, seat):
    """L-11/L-32/L-33: a normal draw of one, or the whole pending penalty (one call of
    ``_draw``: its code is inlined once)."""
    penalty = np.int64(s.pending[i])
    first = _draw(s, i, seat, penalty if penalty else np.int64(1))
    if penalty:
        s.pending[i] = 0
        s.pending_kind[i] = PENDING_NONE
        _set_decision(s, i, AFTER_PENALTY, seat)
    else:
        s.drawn[i] = first
        _set_decision(s, i, AFTER_DRAW, seat)
    return DECIDED


@_hot
def _play(s, cfg, i, action):
    """``play`` less the steps it leaves (returns the step code).

    The window's answers (a slap, a shout, a pass) share one call of ``_next_in_window``.
    """
    seat, phase = np.int64(s.actor[i]), s.phase[i]
    if action < SLAP0:
        s.timeouts[i, seat] = 0
        return _land(s, cfg, i, seat, PLAY_IDENT[action - PLAY0], PLAY_COUNT[action - PLAY0])
    if action == DRAW:
        s.timeouts[i, seat] = 0  # L-61: a turn the player plays themselves resets the count
        return _take_draw(s, cfg, i, seat)
    if action == PASS and (phase == AFTER_DRAW or phase == AFTER_PENALTY):
        s.timeouts[i, seat] = 0
        return _end_turn(s, cfg, i)
    if action < DRAW or action == PASS or action == CONTRE_ACTION:
        if action < DRAW:
            s.window_choices[i, seat] = PLAY_COUNT[action - SLAP0]  # a slap of k copies
        else:
            s.window_choices[i, seat] = 1 if action == CONTRE_ACTION else 0  # L-52 / no
        return _next_in_window(s, cfg, i)
    if action < TARGET0:
        return _name_colour(s, cfg, i, action - COLOUR0)
    if action < LOCO:
        return _swap_with(s, cfg, i, (seat + action - TARGET0 + 1) % cfg.num_players)
    if action == LOCO or action == SILENT_ACTION:  # L-50/L-51
        s.calls[i, seat] = ANNOUNCED if action == LOCO else SILENT
        length = s.contre_len[i]
        s.contre_queue[i, length, 0] = seat
        s.contre_queue[i, length, 1] = 1 if action == LOCO else 0
        s.contre_len[i] = length + 1
        length = s.call_len[i] - 1
        for k in range(length):
            s.call_queue[i, k] = s.call_queue[i, k + 1]
        s.call_len[i] = length
    return ADVANCE


@no_refcount_inline
def play(s, cfg, i, action):
    """``LocoGame.play_legal(action)``: the seat to act plays ``action``, known legal."""
    row = np.int64(i)  # a prange index is unsigned: one signature for the rules below
    _run(s, cfg, row, _play(s, cfg, row, np.int64(action)))


# ---------------------------------------------------------------------------- the clock
@_rule
def _timeout_turn(s, cfg, i):
    """L-60/L-61: the clock ends a regular turn: the server draws (the whole pending penalty,
    if any) and passes; the fourth in a row frees the seat (``_leave``) after that draw."""
    seat = np.int64(s.actor[i])
    _draw(s, i, seat, np.int64(s.pending[i] if s.pending[i] else 1))
    s.pending[i] = 0
    s.pending_kind[i] = PENDING_NONE
    s.timeouts[i, seat] += 1
    if s.timeouts[i, seat] >= LEAVE_AFTER:
        return _leave(s, cfg, i, seat)
    return _end_turn(s, cfg, i)


@_public
def timeout(s, cfg, i):
    """``LocoGame.timeout()``: the clock ran out for the seat to act (L-60/L-61).

    After the player's own draw the clock only passes (that turn was played, not timed out);
    other decisions take their neutral choice: colour unchanged, the next seat as Swap target,
    silent, no shout, no slap.
    """
    row = np.int64(i)
    if s.terminal[row]:
        raise ValueError("L-72: the match is over")
    seat, phase = np.int64(s.actor[row]), s.phase[row]
    if phase == AFTER_DRAW or phase == AFTER_PENALTY:
        step = _end_turn(s, cfg, row)
    elif phase == TURN:
        step = _timeout_turn(s, cfg, row)
    else:  # the neutral choice, played as the seat's action (one inlined ``_play``)
        action = np.int64(PASS)  # no shout, no slap
        if phase == COLOUR:  # the colour unchanged: ``play_legal`` names it as ``timeout``
            action = np.int64(COLOUR0 + s.colour[row])
        elif phase == TARGET:
            offset = (_step_from(s, cfg, row, seat, 1) - seat) % cfg.num_players
            action = np.int64(TARGET0 + offset - 1)
        elif phase == CALL:
            action = np.int64(SILENT_ACTION)
        step = _play(s, cfg, row, action)
    _run(s, cfg, row, step)


@_rule
def _leave(s, cfg, i, seat):
    """L-61: the seat leaves the match; its hand goes into the draw pile, shuffled."""
    next_seat = _step_from(s, cfg, i, seat, 1)
    s.active[i, seat] = False
    length = s.draw_len[i]
    for ident in range(NUM_IDS):
        for _ in range(s.hands[i, seat, ident]):
            s.draw_pile[i, length] = ident
            length += 1
    s.draw_len[i] = length
    R.shuffle(s.rng[i], s.draw_pile[i], length)
    s.hands[i, seat, :] = 0
    s.hand_sizes[i, seat] = 0
    s.calls[i, seat] = NO_CALL
    s.pending[i] = 0  # no penalty passes on
    s.pending_kind[i] = PENDING_NONE
    active = 0
    for other in range(cfg.num_players):
        if s.active[i, other]:
            active += 1
    if active == 1:
        _end_match(s, cfg, i)
        return DECIDED
    if _num_playing(s, cfg, i) < 2:  # a decisive round emptied: settle it afresh
        return _after_round(s, cfg, i)
    s.turn_seat[i] = next_seat
    s.drawn[i] = -1
    return BEGIN_TURN


# ---------------------------------------------------------------------------- rounds and match
@_rule
def _end_round(s, cfg, i, winner):
    """L-70/L-71: the winner scores the points left in the other hands."""
    points = 0
    for seat in range(cfg.num_players):
        if seat != winner and _playing(s, i, seat):
            left = 0
            for ident in range(NUM_IDS):
                left += s.hands[i, seat, ident] * POINTS[ident]
            s.leftover[i, seat] += left
            points += left
    s.scores[i, winner] += points
    s.rounds_won[i, winner] += 1
    return _after_round(s, cfg, i)


@_rule
def _after_round(s, cfg, i):
    """L-72: the next round, or L-73's decisive round among the tied at the top, or the end."""
    n = cfg.num_players
    if s.round[i] < cfg.rounds and not s.decider[i]:
        s.round[i] += 1
        for seat in range(n):
            s.in_round[i, seat] = s.active[i, seat]
        return _start_round(s, cfg, i)
    if _tied_at_top(s, cfg, i) > 1:  # L-73: one more round among the tied players only
        s.round[i] += 1
        s.decider[i] = True
        best = _best_seat(s, cfg, i)
        for seat in range(n):
            s.in_round[i, seat] = _key_cmp(s, i, seat, best) == 0 and s.active[i, seat]
        return _start_round(s, cfg, i)
    _end_match(s, cfg, i)
    return DECIDED


@_inline
def _start_round(s, cfg, i):
    """L-03: the lowest match total among the seats playing opens (lowest seat among ties).

    ``in_round`` is set by the caller.
    """
    opener = np.int64(-1)
    for seat in range(cfg.num_players):
        if _playing(s, i, seat) and (opener < 0 or s.scores[i, seat] < s.scores[i, opener]):
            opener = seat
    _deal(s, cfg, i, opener)
    return BEGIN_TURN


@_inline
def _key_cmp(s, i, a, b):
    """Compare seats by ``LocoGame._key`` (L-72/L-73: in the match, then total, then rounds
    won, then fewest left-over points): -1, 0 or 1 as ``a``'s key is below, equal, above."""
    ka, kb = not s.active[i, a], not s.active[i, b]
    if ka != kb:
        return -1 if kb else 1
    if s.scores[i, a] != s.scores[i, b]:
        return -1 if s.scores[i, a] > s.scores[i, b] else 1
    if s.rounds_won[i, a] != s.rounds_won[i, b]:
        return -1 if s.rounds_won[i, a] > s.rounds_won[i, b] else 1
    if s.leftover[i, a] != s.leftover[i, b]:
        return -1 if s.leftover[i, a] < s.leftover[i, b] else 1
    return 0


@_inline
def _best_seat(s, cfg, i):
    """A seat with the smallest key (the first one)."""
    best = np.int64(0)
    for seat in range(1, cfg.num_players):
        if _key_cmp(s, i, seat, best) < 0:
            best = seat
    return best


@_inline
def _tied_at_top(s, cfg, i):
    """How many active seats share the best key."""
    best = _best_seat(s, cfg, i)
    count = 0
    for seat in range(cfg.num_players):
        if _key_cmp(s, i, seat, best) == 0 and s.active[i, seat]:
            count += 1
    return count


@_inline
def _end_match(s, cfg, i):
    s.terminal[i] = True
    s.phase[i] = OVER
    s.actor[i] = -1
    _close_window(s, cfg, i)


@_public
def final_ranks(s, cfg, i, out):
    """``LocoGame.final_ranks()``: how many seats have a better key (ties share a rank)."""
    n = cfg.num_players
    for seat in range(n):
        rank = 0
        for other in range(n):
            if _key_cmp(s, i, other, seat) < 0:
                rank += 1
        out[seat] = rank


@_public
def final_scores(s, cfg, i, out):
    """``LocoGame.final_scores()``: the match totals."""
    for seat in range(cfg.num_players):
        out[seat] = s.scores[i, seat]


# ---------------------------------------------------------------------------- a new game
@njit(cache=True)
def new_game(s, cfg, i, seed):
    """Row ``i`` becomes ``LocoGame(rng=np.random.default_rng(seed), **options)``."""
    row = np.int64(i)  # a prange index is unsigned: one signature for the rules below
    n = cfg.num_players
    R.seed_state(np.uint64(seed), s.rng[row])
    s.hands[row, :, :] = 0
    s.draw_len[row] = 0
    s.discard_len[row] = 0
    s.discard_counts[row, :] = 0
    s.colour[row] = 0
    s.direction[row] = 1
    s.pending[row] = 0
    s.pending_kind[row] = PENDING_NONE
    s.phase[row] = TURN
    s.actor[row] = 0
    s.turn_seat[row] = 0
    s.lander[row] = -1
    s.drawn[row] = -1
    s.swaps_left[row] = 0
    s.rotations_left[row] = 0
    s.call_len[row] = 0
    s.contre_len[row] = 0
    s.slap_window_due[row] = False
    for seat in range(n):
        s.hand_sizes[row, seat] = 0
        s.calls[row, seat] = NO_CALL
        s.active[row, seat] = True
        s.in_round[row, seat] = True
        s.scores[row, seat] = 0
        s.rounds_won[row, seat] = 0
        s.leftover[row, seat] = 0
        s.timeouts[row, seat] = 0
    _close_window(s, cfg, row)
    s.round[row] = 1
    s.decider[row] = False
    s.terminal[row] = False
    _deal(s, cfg, row, R.integers(s.rng[row], n))  # L-03: round 1 opens at a random seat
    _run(s, cfg, row, np.int64(BEGIN_TURN))


# ---------------------------------------------------------------------------- batches
@njit(parallel=True, cache=True)
def reset_batch(s, cfg, seeds):
    """``new_game(s, cfg, i, seeds[i])`` for every row."""
    for i in prange(seeds.shape[0]):
        new_game(s, cfg, np.int64(i), seeds[i])


@njit(parallel=True, cache=True)
def play_batch(s, cfg, actions):
    """``play(s, cfg, i, actions[i])`` in every game with ``actions[i] >= 0``."""
    for i in prange(actions.shape[0]):
        if actions[i] >= 0:
            play(s, cfg, np.int64(i), np.int64(actions[i]))


@njit(parallel=True, cache=True)
def masks_batch(s, cfg, out):
    """``legal_mask(s, cfg, i, out[i])`` for every row of ``out``."""
    for i in prange(out.shape[0]):
        legal_mask(s, cfg, np.int64(i), out[i])
