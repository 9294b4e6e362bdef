"""LOCO's observation encoder and per-action features, compiled: exact to the Python ones.

- :func:`encode` (``s, cfg, i, seat, out``): row ``i`` of a :class:`~.state.LocoState` as
  ``seat`` observes it, bit for bit :func:`loco_envs.loco.observation.encode` of
  ``game.view(seat)`` (the env's ``encode(seat)``), with the same secrecy: a seat not deciding in
  a slap window sees the regular turn with the turn seat to act (L-41,
  ``LocoGame.visible_decision``); the drawn card only in its own ``after_draw``; the judged seat
  and its announcement only in a Contre-LOCO window. :func:`encode_batch` does many rows at
  once (``prange``).
- :func:`features` (``obs, num_players, out``): bit for bit
  :func:`loco_envs.loco.features.loco_actions` of each row of ``obs``
  (``(rows, 242 * 12)`` float32);
  :func:`features_batch` is its parallel form.

Exactness. Every float expression keeps numpy's dtypes: ``float32`` where numpy computes in
``float32`` (a Python scalar with a ``float32`` array stays ``float32``), ``float64`` where it
promotes (``int64 * float32`` tables: the stacker penalty; the log-factorial chances, then one
rounding to ``float32``). Sums of the observation's counts are sums of small integers, exact in
any order, so the compiled code needs neither numpy's pairwise order nor BLAS's. The one
function that differs is ``exp``: numpy's SIMD ``exp`` (AVX-512) and libm's disagree in the last
bit of some ``float64`` results; ``tests/compiled/test_loco_encode.py`` checks the chances they
give after the rounding to ``float32`` over every (unseen, hits, hand size) the features can meet,
and they are equal.

The matching tables of :mod:`loco_envs.loco.features` (``_L_MATCH``, ``_L_FOLLOW``,
``_L_ANSWER``) are
not carried as arrays: a card matches (L-10) when it is wild, of the colour in force or of the
top's kind, so a count of matching cards is the wilds, that colour's 13 identities and the other
colours' cards of the top's kind (:func:`_match_count`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.observation import MAX_CARDS, NUM_PHASES, PER_SEAT, slices
from loco_envs.loco.phases import AFTER_DRAW, CONTRE, SLAP, TURN

__all__ = ["FEATURES_PER_ACTION", "encode", "encode_batch", "features", "features_batch"]

#: Features per action (``loco_envs.loco.features.LOCO_K``).
FEATURES_PER_ACTION = 12
_K = FEATURES_PER_ACTION
_IDS = C.NUM_IDENTITIES  # 55
_KINDS = C.KINDS_PER_COLOUR  # 13 coloured kinds a colour
_NCOL = len(C.COLOURS)

# observation offsets (the slices before the seats do not depend on the player count)
_SL = slices(2)
_TOP = _SL["top"].start
_COLOUR = _SL["colour"].start
_DIRECTION = _SL["direction"].start
_PENDING = _SL["pending"].start
_PHASE = _SL["phase"].start
_DRAWN = _SL["drawn"].start
_SWAPS = _SL["swaps_left"].start
_SEATS = _SL["seats"].start
for _n in range(2, 11):  # what comes after the seats: contre_announced, match, draw_pile, discard
    _s = slices(_n)
    assert _s["seats"].start == _SEATS and _s["contre_announced"].start == _SEATS + PER_SEAT * _n
    assert _s["match"].start == _SEATS + PER_SEAT * _n + 1
    assert _s["draw_pile"].start == _SEATS + PER_SEAT * _n + 4
    assert _s["discard"].start == _SEATS + PER_SEAT * _n + 5
_MAX_CARDS = MAX_CARDS

# identities by kind (cards.py: colour * 13 + kind, then W, +4, O)
_SKIP_Q = C.KIND.index("S")
_REVERSE_Q = C.KIND.index("R")
_PLUS2_Q = C.KIND.index("+2")
_SWAP_Q = C.KIND.index("X")
_WILD0 = _KINDS * _NCOL  # first wild identity
_PLUS4 = C.PLUS4
_ROTATION = C.ROTATION
assert C.KIND[_PLUS2_Q] == "+2" and all(C.KIND[c * _KINDS + q] == C.KIND[q] and C.COLOUR[
    c * _KINDS + q] == c for c in range(_NCOL) for q in range(_KINDS))

_FULL = C.FULL_DECK_COUNTS.astype(np.float32)
_POINTS = C.POINTS.astype(np.float32)
_PLAY_IDENT = A.PLAY_IDENT.astype(np.int64)
_PLAY_COUNT = A.PLAY_COUNT.astype(np.int64)
#: log(n!) as loco_envs.loco.features computes it (``_L_LOG_FACTORIAL``).
_LOG_FACTORIAL = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, C.DECK_SIZE + 1)))])

_DRAW, _PASS, _COLOUR0, _TARGET0 = A.DRAW, A.PASS, A.COLOUR0, A.TARGET0
_LOCO, _SILENT, _CONTRE = A.LOCO, A.SILENT, A.CONTRE
_SLAP0, _NUM_PLAYS, _MAX_TARGET = A.SLAP0, A.NUM_PLAYS, A.MAX_TARGET


# ---------------------------------------------------------------------------- observation
@no_refcount_inline
def encode(s, cfg, i, seat, out):
    """``observation.encode(game.view(seat))`` of game ``i`` into the float32 row ``out``."""
    n = s.hands.shape[1]
    out[:] = 0.0
    for c in range(_IDS):
        out[c] = s.hands[i, seat, c]
    out[_TOP + s.discard[i, s.discard_len[i] - 1]] = 1.0
    out[_COLOUR + s.colour[i]] = 1.0
    if s.direction[i] == 1:
        out[_DIRECTION] = 1.0
    out[_PENDING] = min(s.pending[i], _MAX_CARDS)  # the same effect on any draw (L-13)
    if s.pending_kind[i] == 2:
        out[_PENDING + 1] = 1.0
    elif s.pending_kind[i] == 4:
        out[_PENDING + 2] = 1.0
    phase, actor = s.phase[i], s.actor[i]
    if phase == SLAP and seat != actor:  # L-41: a secret window looks like the turn
        phase, actor = TURN, s.turn_seat[i]
    if phase < NUM_PHASES:
        out[_PHASE + phase] = 1.0
    if s.phase[i] == AFTER_DRAW and seat == s.actor[i] and s.drawn[i] >= 0:
        out[_DRAWN + s.drawn[i]] = 1.0  # own normal draw only
    out[_SWAPS] = s.swaps_left[i]
    for p in range(n):
        row = _SEATS + ((p - seat) % n) * PER_SEAT
        out[row] = s.hand_sizes[i, p]
        out[row + 1 + s.calls[i, p]] = 1.0
        if s.active[i, p]:
            out[row + 5] = 1.0
        if s.in_round[i, p]:
            out[row + 6] = 1.0
        out[row + 7] = s.scores[i, p] / 100  # float64, then rounded to float32 as in Python
        out[row + 8] = s.rounds_won[i, p]
        out[row + 9] = s.leftover[i, p] / 100
    caller, announced = -1, False
    if s.phase[i] == CONTRE:  # the Contre-LOCO window judges the first call in the queue
        caller, announced = s.contre_queue[i, 0, 0], s.contre_queue[i, 0, 1] != 0
    _flag_seat(out, n, seat, s.turn_seat[i], 10)
    _flag_seat(out, n, seat, actor, 11)
    _flag_seat(out, n, seat, s.lander[i], 12)
    _flag_seat(out, n, seat, caller, 13)
    after = _SEATS + PER_SEAT * n
    if announced:
        out[after] = 1.0
    out[after + 1] = s.round[i]
    out[after + 2] = cfg.rounds
    if s.decider[i]:
        out[after + 3] = 1.0
    out[after + 4] = s.draw_len[i]
    for c in range(_IDS):
        out[after + 5 + c] = s.discard_counts[i, c]


@njit(cache=True)
def _flag_seat(out, n, seat, who, column):
    if who >= 0:
        out[_SEATS + ((who - seat) % n) * PER_SEAT + column] = 1.0


@njit(cache=True, parallel=True)
def encode_batch(s, cfg, rows, seats, out):
    """``out[k] = encode(s, cfg, rows[k], seats[k])`` for every ``k``, in parallel."""
    for k in prange(rows.shape[0]):
        encode(s, cfg, rows[k], seats[k], out[k])


# ---------------------------------------------------------------------------- features
@njit(cache=True)
def _p_holds(hits, total, hand):
    """``loco_envs.loco.features._p_holds`` of one entry: the chance that ``hand`` cards drawn from
    ``total`` unseen ones include one of ``hits`` (float64 as numpy, rounded to float32)."""
    h, t = np.int64(hits), np.int64(total)
    d = min(np.int64(hand), t)
    if h <= 0:
        return np.float32(0.0)
    rest = t - h
    fact = _LOG_FACTORIAL
    log_none = fact[rest] + fact[t - d] - fact[max(rest - d, 0)] - fact[t]
    none = math.exp(log_none) if rest >= d else 0.0
    return np.float32(1.0 - none)


@njit(cache=True)
def _match_count(v, wilds, colour_sums, top, colour):
    """Cards of ``v`` (counts per identity) that match ``top`` with ``colour`` in force (L-10):
    wilds, the colour's identities and the other colours' cards of the top's kind."""
    m = wilds + colour_sums[colour]
    if top < _WILD0:
        q = top % _KINDS
        for c in range(_NCOL):
            if c != colour:
                m += v[c * _KINDS + q]
    return m


@njit(cache=True)
def _sums(v, colour_sums):
    """The wilds of ``v``, and its count per colour into ``colour_sums``."""
    for c in range(_NCOL):
        acc = np.float32(0.0)
        for q in range(_KINDS):
            acc += v[c * _KINDS + q]
        colour_sums[c] = acc
    return v[_WILD0] + v[_WILD0 + 1] + v[_WILD0 + 2]


@njit(cache=True)
def _features_row(obs, n, out):
    """``loco_actions`` of one observation ``obs`` into ``out`` (``242 * 12`` float32)."""
    f32 = np.float32
    one, zero = f32(1.0), f32(0.0)
    out[:] = 0.0
    after = _SEATS + PER_SEAT * n
    discard0 = after + 5
    hand = obs[:_IDS]
    unseen = np.empty(_IDS, np.float32)
    size, total, discarded, stack_sum = zero, zero, zero, zero
    for c in range(_IDS):
        h = obs[c]
        size += h
        u = _FULL[c] - h - obs[discard0 + c]
        if u < zero:
            u = zero
        unseen[c] = u
        total += u
        discarded += obs[discard0 + c]
    for c in range(_NCOL):
        stack_sum += obs[c * _KINDS + _PLUS2_Q]
    stack_sum += obs[_PLUS4]
    pending = obs[_PENDING]

    # seats: the playing opponents' hand sizes in the order of play (ahead) and against it
    sizes = np.empty(n, np.float32)
    playing = np.empty(n, np.bool_)
    for p in range(n):
        sizes[p] = obs[_SEATS + p * PER_SEAT]
        playing[p] = obs[_SEATS + p * PER_SEAT + 5] > 0 and obs[_SEATS + p * PER_SEAT + 6] > 0
    clockwise = obs[_DIRECTION] >= 0.5
    ahead = np.zeros(n - 1, np.float32)
    behind = np.zeros(n - 1, np.float32)
    others = 0
    for j in range(n - 1):
        p = j + 1 if clockwise else n - 1 - j
        if playing[p]:
            ahead[others] = sizes[p]
            others += 1
    m = 0
    for j in range(n - 1):
        p = n - 1 - j if clockwise else j + 1
        if playing[p]:
            behind[m] = sizes[p]
            m += 1
    smallest = f32(np.inf)
    for j in range(n - 1):
        if ahead[j] > zero and ahead[j] < smallest:
            smallest = ahead[j]

    # per identity: the unseen answers to it (min over a wild's colours) and my cards that
    # follow it (max over a wild's colours), before the played copies leave my hand
    hand_cols = np.empty(_NCOL, np.float32)
    unseen_cols = np.empty(_NCOL, np.float32)
    hand_wilds = _sums(hand, hand_cols)
    unseen_wilds = _sums(unseen, unseen_cols)
    hits = np.empty(_IDS, np.float32)
    follows = np.empty(_IDS, np.float32)
    for t in range(_IDS):
        if t < _WILD0:
            col = t // _KINDS
            follows[t] = _match_count(hand, hand_wilds, hand_cols, t, col)
            if t % _KINDS == _PLUS2_Q:  # L-32: any +2 answers (stacking "any")
                plus2 = zero
                for c in range(_NCOL):
                    plus2 += unseen[c * _KINDS + _PLUS2_Q]
                hits[t] = plus2
            else:
                hits[t] = _match_count(unseen, unseen_wilds, unseen_cols, t, col)
        else:
            best, worst = -f32(np.inf), f32(np.inf)
            for c in range(_NCOL):
                best = max(best, _match_count(hand, hand_wilds, hand_cols, t, c))
                worst = min(worst, _match_count(unseen, unseen_wilds, unseen_cols, t, c))
            follows[t] = best
            hits[t] = unseen[_PLUS4] if t == _PLUS4 else worst  # L-33: +4 answers a +4

    # plays (0-111); a slap (112-223) is the same play out of turn (L-43). The plays of one
    # identity are adjacent and mostly face the same next hand: one chance serves them all.
    last_t, last_size, last_p = -1, zero, zero
    for a in range(_NUM_PLAYS):
        t, k = _PLAY_IDENT[a], _PLAY_COUNT[a]
        kf = f32(k)
        q = t % _KINDS if t < _WILD0 else -1
        stacker = q == _PLUS2_Q or t == _PLUS4
        left = size - kf
        going_out = left == zero
        on = not going_out  # L-70: the last card has no effect
        if q == _SKIP_Q:  # L-30: k Skips move the turn k + 1 seats
            steps = (k + 1) % (others + 1)
        elif q == _REVERSE_Q:  # L-31: a Skip with two playing, else back the other way
            if others == 1:
                steps = (k + 1) % 2
            elif k % 2 == 1:
                steps = others
            else:
                steps = 1
        else:
            steps = 1
        again = steps == 0 and on
        next_size = ahead[max(steps - 1, 0)]
        o = a * _K
        out[o] = going_out
        out[o + 1] = left == one
        out[o + 2] = (_POINTS[t] * kf) / f32(100.0)
        if stacker and on:  # L-20: float64 as numpy's int64 * float32 table
            penalty = (4.0 if t == _PLUS4 else 2.0) * np.float64(k)
            out[o + 4] = min(np.float64(pending) + penalty, 20.0) / 20.0
        out[o + 5] = min(follows[t] - kf, f32(10.0)) / f32(10.0) * (one if on else zero)
        out[o + 6] = again
        if on and not again:
            out[o + 7] = one / (one + next_size)
            if t != last_t or next_size != last_size:
                last_t, last_size, last_p = t, next_size, _p_holds(hits[t], total, next_size)
            out[o + 8] = last_p
        if on and (q == _SWAP_Q or t == _ROTATION):
            if q == _SWAP_Q:  # L-35: the smallest other hand
                received = smallest
            elif k % (others + 1) == 0:  # L-36: k Rotations bring my own hand back
                received = left
            else:
                received = behind[max(k % (others + 1) - 1, 0)]
            out[o + 9] = min(max((left - received) / f32(10.0), -one), one)
        stackers_left = stack_sum - (kf if stacker else zero)
        out[o + 10] = min(stackers_left, f32(4.0)) / f32(4.0) * (one if on else zero)
        out[o + 11] = unseen[t] > zero and on
        s = (_SLAP0 + a) * _K
        for f in range(_K):
            out[s + f] = out[o + f]

    next_close = one / (one + ahead[0])  # the seat after me, when my turn ends
    # draw: the penalty or one card, as far as the piles reach (L-13, L-32)
    reach = obs[after + 4] + discarded - one
    drawn = min(pending if pending > zero else one, max(reach, zero))
    out[_DRAW * _K + 3] = min(drawn, f32(20.0)) / f32(20.0)
    out[_DRAW * _K + 7] = next_close
    out[_DRAW * _K + 10] = min(stack_sum, f32(4.0)) / f32(4.0)
    out[_PASS * _K + 7] = next_close
    # colours after a wild (L-12)
    top = np.argmax(obs[_TOP:_TOP + _IDS])
    for c in range(_NCOL):
        o = (_COLOUR0 + c) * _K
        out[o + 5] = min(_match_count(hand, hand_wilds, hand_cols, top, c),
                         f32(10.0)) / f32(10.0)
        out[o + 7] = next_close
        out[o + 8] = _p_holds(_match_count(unseen, unseen_wilds, unseen_cols, top, c), total,
                              ahead[0])
    # Swap targets (L-35), by relative seat
    for j in range(min(n - 1, _MAX_TARGET)):
        target = sizes[1 + j]
        o = (_TARGET0 + j) * _K
        out[o + 1] = target == one
        out[o + 7] = one / (one + target)
        out[o + 9] = min(max((size - target) / f32(10.0), -one), one)
    # calls (L-50..L-52)
    announced = obs[after]
    out[_LOCO * _K + 1] = size == one
    out[_SILENT * _K + 1] = size == one
    out[_SILENT * _K + 3] = 2 / 20
    out[_CONTRE * _K + 3] = announced / f32(20.0)
    out[_CONTRE * _K + 4] = (one - announced) * f32(2.0) / f32(20.0)


@njit(cache=True)
def features(obs, num_players, out):
    """``loco_envs.loco.features.loco_actions(obs)`` into ``out`` (``(rows, 242 * 12)`` float32)."""
    for r in range(obs.shape[0]):
        _features_row(obs[r], num_players, out[r])


@njit(cache=True, parallel=True)
def features_batch(obs, num_players, out):
    """:func:`features`, the rows in parallel."""
    for r in prange(obs.shape[0]):
        _features_row(obs[r], num_players, out[r])
