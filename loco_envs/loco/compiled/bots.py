"""LOCO's scripted bots over the compiled state (numba), move for move the Python bots.

=====================  ===========================================  ===================
function               Python bot (``act(view, mask, rng)``)        ``act_batch`` kind
=====================  ===========================================  ===================
:func:`random`         ``agents.RandomBot``                         :data:`RANDOM` (0)
:func:`heuristic`      ``agents.loco.LocoHeuristic``                :data:`HEURISTIC` (1)
:func:`heuristic_strong`  ``agents.loco.LocoStrong``                :data:`STRONG` (2)
=====================  ===========================================  ===================

Each is ``fn(s, cfg, i, mask, rng_state) -> action`` for row ``i`` of a
:class:`~loco_envs.loco.compiled.state.LocoState`: the seat to act is ``s.actor[i]``, ``mask`` its
legal actions (``int8[242]``), ``rng_state`` the ``uint64[6]`` state of the bot's generator
(:mod:`loco_envs.compiled.rng`), advanced exactly as the Python bot advances its
``Generator`` (the random bot draws once; the scripted bots never draw). They read only what
``LocoGame.view(actor)`` holds: the actor's own hand, the table (top card, colour, direction,
pending penalty and its kind, the turn seat), hand sizes, seats still playing, discard counts,
the call being judged in a Contre-LOCO window and the ``stacking`` option; never another hand or
the draw pile. The actor's visible decision is the true one (a slap window is secret only to
the seats it does not ask).

:func:`act_batch` runs many rows at once (``prange``) for the vector env and tournaments.

Exactness notes (the tests in ``tests/compiled/test_loco_bots.py`` hold them):

- Ties break as the Python ``max``/``min`` keys do (identities ascending, as ``legal_plays``'s
  dict is ordered).
- ``LocoStrong.p_holds`` divides two binomial coefficients as Python ints, which Python rounds
  correctly however large they are (``comb(112, 56)`` is about ``2**109``). Here the
  coefficients are 128-bit integers (a table built from ``math.comb``) and the quotient is
  rounded to nearest-even by long division, so every probability is the same double.
- Play values are computed in the Python order and types (an integer part, then ``- 20 * p``
  in float), so equal values stay equal and comparisons give the same choice.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount
from loco_envs.compiled import rng as R
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.phases import CALL, COLOUR, CONTRE, SLAP, TARGET

__all__ = ["HEURISTIC", "KINDS", "RANDOM", "STRONG", "act", "act_batch", "heuristic",
           "heuristic_strong", "random"]

#: ``act_batch`` bot kinds, and the spec each stands for.
RANDOM, HEURISTIC, STRONG = 0, 1, 2
KINDS = {"random": RANDOM, "loco/heuristic": HEURISTIC, "loco/heuristic-strong": STRONG}

# --- card and action tables (compile-time constants) ---------------------------------------------
_NUM_IDS = C.NUM_IDENTITIES
_NUM_COLOURS = len(C.COLOURS)
_KIND_NAMES = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "R", "+2", "X", "W", "+4", "O")
_K_SKIP, _K_REVERSE, _K_PLUS2, _K_SWAP, _K_WILD, _K_PLUS4, _K_ROTATION = range(9, 16)
_KIND = np.array([_KIND_NAMES.index(k) for k in C.KIND], np.int64)
_COLOUR = np.array(C.COLOUR, np.int64)
_POINTS = np.array(C.POINTS_LIST, np.int64)
_FULL = C.FULL_DECK_COUNTS.astype(np.int64)
_STACKER = np.array([k in ("+2", "+4") for k in C.KIND], np.bool_)
_PLAY_IDENT = np.array(A.PLAY_IDENT_LIST, np.int64)
_PLAY_COUNT = np.array(A.PLAY_COUNT_LIST, np.int64)
_PLAY_BASE = np.array(A.PLAY_BASE, np.int64)
_NUM_PLAYS = A.NUM_PLAYS
_PLAY0, _SLAP0, _DRAW, _PASS = A.PLAY0, A.SLAP0, A.DRAW, A.PASS
_COLOUR0, _TARGET0, _LOCO, _CONTRE = A.COLOUR0, A.TARGET0, A.LOCO, A.CONTRE
_WILD, _ROTATION = C.WILD, C.ROTATION
_ENDGAME = 3  # agents.loco.ENDGAME

# comb(n, k) for 0 <= k <= n <= 112 as 128-bit integers (high, low words): p_holds' exact
# binomials (the unseen cards are at most the deck).
_COMB_N = C.DECK_SIZE + 1
_COMB_HI = np.zeros((_COMB_N, _COMB_N), np.uint64)
_COMB_LO = np.zeros((_COMB_N, _COMB_N), np.uint64)
for _n in range(_COMB_N):
    for _k in range(_n + 1):
        _c = comb(_n, _k)
        _COMB_HI[_n, _k], _COMB_LO[_n, _k] = _c >> 64, _c & ((1 << 64) - 1)
_U0, _U1 = np.uint64(0), np.uint64(1)
_U63 = np.uint64(63)


# --- exact probabilities -------------------------------------------------------------------------
@njit(cache=True)
def _ratio(a_hi: np.uint64, a_lo: np.uint64, b_hi: np.uint64, b_lo: np.uint64) -> float:
    """``a / b`` for 128-bit integers ``0 <= a < b < 2**127``, rounded to nearest-even as
    Python's ``int / int``: long division to 53 bits, a guard bit and a sticky bit."""
    if a_hi == _U0 and a_lo == _U0:
        return 0.0
    r_hi, r_lo = a_hi, a_lo
    mant = np.int64(0)
    bits = 0  # significant bits taken
    pos = 0  # weight 2**-pos of the last bit taken
    guard = 0
    while True:
        pos += 1
        r_hi = (r_hi << _U1) | (r_lo >> _U63)  # r < b < 2**127: no overflow
        r_lo = r_lo << _U1
        bit = 0
        if r_hi > b_hi or (r_hi == b_hi and r_lo >= b_lo):
            borrow = _U1 if r_lo < b_lo else _U0
            r_lo = r_lo - b_lo
            r_hi = r_hi - b_hi - borrow
            bit = 1
        if bits == 53:
            guard = bit
            break
        if bits > 0 or bit:
            mant = mant * 2 + bit
            bits += 1
    sticky = r_hi != _U0 or r_lo != _U0
    if guard and (sticky or (mant & 1)):
        mant += 1  # 2**53 at most: still exact as a double
    return np.ldexp(np.float64(mant), -(pos - 1))


@njit(cache=True)
def _p_holds(total: int, hits: int, hand_size: int) -> float:
    """``LocoStrong.p_holds``: the chance that ``hand_size`` of ``total`` unseen cards include
    one of ``hits`` given ones."""
    if hand_size <= 0 or hits == 0 or total == 0:
        return 0.0
    k = min(hand_size, total)
    return 1.0 - _ratio(_COMB_HI[total - hits, k], _COMB_LO[total - hits, k],
                        _COMB_HI[total, k], _COMB_LO[total, k])


# --- the view's helpers (agents.loco's module functions) -----------------------------------------
# The scripted bots see row i through what LocoGame.view(actor) holds, taken apart by _scripted:
# ``hand`` (the actor's counts), ``sizes`` (hand sizes), ``playing`` (active and in the round),
# ``dcounts`` (discard counts) and the table's scalars. No helper is handed the state itself.
@njit(cache=True)
def _seat_after(playing: np.ndarray, seat: int, step: int) -> int:
    """``seat_after``: the next seat still playing from ``seat`` going ``step`` (1 or -1)."""
    n = playing.shape[0]
    nxt = (seat + step + n) % n
    while not playing[nxt] and nxt != seat:
        nxt = (nxt + step + n) % n
    return nxt


@njit(cache=True)
def _legal_plays(mask: np.ndarray, base: int, plays: np.ndarray) -> int:
    """``legal_plays``: ``plays[ident]`` = most copies the mask allows (0: none); returns the
    smallest identity allowed (-1: none), the first of the Python dict."""
    first = -1
    plays[:] = 0
    for a in range(_NUM_PLAYS):
        if mask[base + a]:
            ident = _PLAY_IDENT[a]
            if _PLAY_COUNT[a] > plays[ident]:
                plays[ident] = _PLAY_COUNT[a]
            if first < 0:
                first = ident
    return first


@njit(cache=True)
def _stackers_held(hand: np.ndarray) -> int:
    held = 0
    for ident in range(_NUM_IDS):
        if _STACKER[ident]:
            held += np.int64(hand[ident])
    return held


@njit(cache=True)
def _answers_one(identical: bool, top: int) -> bool:
    """``answers(view, top)`` is ``[top]`` (else every +2)."""
    return identical or _KIND[top] == _K_PLUS4


@njit(cache=True)
def _turn_plays(hand: np.ndarray, top: int, colour: int, pending: int, identical: bool,
                plays: np.ndarray) -> None:
    """``turn_plays``: the copies held of each identity the regular turn could play."""
    one = _answers_one(identical, top)
    for ident in range(_NUM_IDS):
        if pending:
            ok = ident == top if one else _KIND[ident] == _K_PLUS2
        else:
            ok = _COLOUR[ident] < 0 or _COLOUR[ident] == colour or _KIND[ident] == _KIND[top]
        plays[ident] = np.int64(hand[ident]) if ok else 0


@njit(cache=True)
def _unseen(hand: np.ndarray, dcounts: np.ndarray, out: np.ndarray) -> int:
    """``LocoStrong.unseen`` into ``out``; returns its total."""
    total = 0
    for ident in range(_NUM_IDS):
        u = _FULL[ident] - np.int64(hand[ident]) - np.int64(dcounts[ident])
        out[ident] = u if u > 0 else 0
        total += out[ident]
    return total


# --- LocoHeuristic's predicates ------------------------------------------------------------------
@njit(cache=True)
def _may_spend_stacker(hand: np.ndarray, size: int, count: int) -> bool:
    """Keep the last +2/+4 to answer a stack, unless the hand is nearly out."""
    return _stackers_held(hand) - count >= 1 or size - count <= _ENDGAME


@njit(cache=True)
def _smallest_other(sizes: np.ndarray, playing: np.ndarray, seat: int) -> int:
    """The smallest hand of another seat still playing (-1: none)."""
    best = -1
    for other in range(playing.shape[0]):
        if other != seat and playing[other]:
            size = np.int64(sizes[other])
            if best < 0 or size < best:
                best = size
    return best


@njit(cache=True)
def _rotation_helps(sizes: np.ndarray, playing: np.ndarray, seat: int, direction: int,
                    count: int) -> bool:
    """k Rotations bring the hand of the seat k places back against the direction of play."""
    giver = seat
    for _ in range(count):
        giver = _seat_after(playing, giver, -direction)
    return np.int64(sizes[giver]) < np.int64(sizes[seat]) - count


# --- the regular turn ----------------------------------------------------------------------------
@njit(cache=True)
def _heuristic_choose_play(hand: np.ndarray, sizes: np.ndarray, playing: np.ndarray, seat: int,
                           direction: int, plays: np.ndarray) -> tuple[int, int]:
    """``LocoHeuristic.choose_play``: (identity, copies), identity -1 to draw / pass."""
    left = np.zeros(_NUM_COLOURS, np.int64)
    for ident in range(_NUM_IDS):
        if _COLOUR[ident] >= 0:
            left[_COLOUR[ident]] += np.int64(hand[ident])
    size = np.int64(sizes[seat])
    best, best_count, best_value = -1, 0, 0.0
    for ident in range(_NUM_IDS):
        k = plays[ident]
        if k == 0 or _COLOUR[ident] < 0 or _STACKER[ident]:
            continue
        if _KIND[ident] == _K_SWAP:  # swap_helps
            smallest = _smallest_other(sizes, playing, seat)
            if not (smallest >= 0 and smallest < size - k):
                continue
        value = np.float64(_POINTS[ident] * k) + 5 * left[_COLOUR[ident]]
        if best < 0 or value >= best_value:  # ties to the larger identity
            best, best_count, best_value = ident, k, value
    if best >= 0:
        return best, best_count
    if plays[_WILD]:
        return _WILD, 1
    if plays[_ROTATION] and _rotation_helps(sizes, playing, seat, direction, 1):
        return _ROTATION, 1
    for ident in range(_NUM_IDS):
        if plays[ident] and _STACKER[ident] and _may_spend_stacker(hand, size, 1):
            return ident, 1
    return -1, 0


@njit(cache=True)
def _strong_play_value(hand: np.ndarray, sizes: np.ndarray, playing: np.ndarray, seat: int,
                       direction: int, identical: bool, unseen: np.ndarray, total: int,
                       nxt: int, two: bool, ident: int, count: int) -> tuple[bool, float]:
    """``LocoStrong.play_value``: (worth playing, value)."""
    kind = _KIND[ident]
    size = np.int64(sizes[seat])
    next_size = np.int64(sizes[nxt])
    threat = next_size <= 2  # threatened(): the next seat is nxt
    if kind == _K_SWAP:
        target = _smallest_other(sizes, playing, seat)
        if target < 0:
            target = size
        gain = size - count - target
        return gain > 0, np.float64(100 + 20 * gain)
    if kind == _K_ROTATION:
        if not _rotation_helps(sizes, playing, seat, direction, count):
            return False, 0.0
        giver = _seat_after(playing, seat, -direction)
        return True, np.float64(100 + 20 * (size - count - np.int64(sizes[giver])))
    if _STACKER[ident]:
        if threat:
            return True, np.float64(150 + 10 * count)
        if not _may_spend_stacker(hand, size, count):
            return False, 0.0
        if two:
            one = _answers_one(identical, ident)
            held, hits = -count, 0
            for r in range(_NUM_IDS):
                if (r == ident) if one else (_KIND[r] == _K_PLUS2):
                    held += np.int64(hand[r])
                    hits += unseen[r]
            if held == 0 and _p_holds(total, hits, next_size) > 0.5:
                return False, 0.0  # it would come back doubled
        return True, 5.0 + np.float64(_POINTS[ident] * count) * 0.2
    if kind == _K_WILD:
        return True, 10.0 if not threat else 5.0
    # a coloured card: shed points, stay in our colour, leave a colour they cannot follow
    colour = _COLOUR[ident]
    left = -count
    hits = 0
    for r in range(_NUM_IDS):
        if _COLOUR[r] == colour:
            left += np.int64(hand[r])
        if _COLOUR[r] == colour or _KIND[r] == kind:
            hits += unseen[r]
    value = np.float64(30 + _POINTS[ident] * count + 6 * left)
    value -= 20.0 * _p_holds(total, hits, next_size)
    if threat and (kind == _K_SKIP or kind == _K_REVERSE):
        value += 120
    if two and (kind == _K_SKIP or kind == _K_REVERSE):
        value += 40  # play again at once
    return True, value


@njit(cache=True)
def _strong_choose_play(hand: np.ndarray, sizes: np.ndarray, playing: np.ndarray, seat: int,
                        direction: int, identical: bool, dcounts: np.ndarray,
                        plays: np.ndarray) -> tuple[int, int]:
    """``LocoStrong.choose_play``: (identity, copies), identity -1 to draw / pass."""
    size = np.int64(sizes[seat])
    unseen = np.empty(_NUM_IDS, np.int64)
    total = _unseen(hand, dcounts, unseen)
    nxt = _seat_after(playing, seat, direction)
    two = playing.sum() == 2
    best, best_count, best_value = -1, 0, 0.0
    for ident in range(_NUM_IDS):
        most = plays[ident]
        if most == 0:
            continue
        kind = _KIND[ident]
        count = most
        if two and (kind == _K_SKIP or kind == _K_REVERSE) and most % 2 == 0 and most < size:
            count = most - 1  # an odd number gives the turn straight back
        if count == size:
            return ident, count  # going out
        ok, value = _strong_play_value(hand, sizes, playing, seat, direction, identical, unseen,
                                       total, nxt, two, ident, count)
        if ok and (best < 0 or value >= best_value):  # max((value, ident, count))
            best, best_count, best_value = ident, count, value
    return best, best_count


@njit(cache=True)
def _turn_choice(hand: np.ndarray, sizes: np.ndarray, playing: np.ndarray, seat: int,
                 direction: int, identical: bool, dcounts: np.ndarray, pending: int,
                 plays: np.ndarray, strong: bool) -> tuple[int, int]:
    """``LocoHeuristic.turn_choice``: a pending penalty is answered with every copy."""
    if pending:
        best = -1
        for ident in range(_NUM_IDS):
            if plays[ident] and (best < 0 or plays[ident] >= plays[best]):
                best = ident
        return (best, plays[best]) if best >= 0 else (-1, 0)
    if strong:
        return _strong_choose_play(hand, sizes, playing, seat, direction, identical, dcounts,
                                   plays)
    return _heuristic_choose_play(hand, sizes, playing, seat, direction, plays)


# --- sub-decisions -------------------------------------------------------------------------------
@njit(cache=True)
def _colour_choice(hand: np.ndarray, dcounts: np.ndarray, strong: bool) -> int:
    """``colour``: the colour held most; ties by points (heuristic) or by the fewest unseen
    (strong), then the first colour."""
    counts = np.zeros(_NUM_COLOURS, np.int64)
    second = np.zeros(_NUM_COLOURS, np.int64)  # larger is better
    for ident in range(_NUM_IDS):
        c = _COLOUR[ident]
        if c >= 0:
            held = np.int64(hand[ident])
            counts[c] += held
            if strong:
                u = _FULL[ident] - held - np.int64(dcounts[ident])
                second[c] -= u if u > 0 else 0
            else:
                second[c] += held * _POINTS[ident]
    best = 0
    for c in range(1, _NUM_COLOURS):
        if counts[c] > counts[best] or (counts[c] == counts[best] and second[c] > second[best]):
            best = c
    return best


@njit(cache=True)
def _target(sizes: np.ndarray, seat: int, mask: np.ndarray) -> int:
    """``target``: the legal Swap target with the smallest hand, nearest clockwise on ties."""
    n = sizes.shape[0]
    best, best_size = -1, 0
    for a in range(_TARGET0, _LOCO):
        if mask[a]:
            size = np.int64(sizes[(seat + a - _TARGET0 + 1) % n])
            if best < 0 or size < best_size:
                best, best_size = a, size
    return best


@njit(cache=True)
def _slap(hand: np.ndarray, sizes: np.ndarray, playing: np.ndarray, seat: int, direction: int,
          identical: bool, dcounts: np.ndarray, top: int, colour: int, pending: int,
          turn_seat: int, mask: np.ndarray, strong: bool) -> int:
    """``slap``: out of turn, slap what it does not want to keep; the strong bot also piles a
    penalty on a near winner; the turn seat (L-41) slaps what its turn would play, the strong
    bot only when a rival may hold the card and no penalty is aimed at it."""
    plays = np.empty(_NUM_IDS, np.int64)
    ident = _legal_plays(mask, _SLAP0, plays)
    if ident < 0:
        return _PASS
    count = plays[ident]
    size = np.int64(sizes[seat])
    if strong and seat != turn_seat:
        after = _seat_after(playing, seat, direction)
        if _STACKER[ident] and sizes[after] <= 2:
            return _SLAP0 + _PLAY_BASE[ident] + count - 1  # pile the penalty on a near winner
    if count == size:
        return _SLAP0 + _PLAY_BASE[ident] + count - 1  # going out
    if seat == turn_seat:  # turn_seat_slap
        if strong:
            u = _FULL[ident] - np.int64(hand[ident]) - np.int64(dcounts[ident])
            if u <= 0 or pending:
                return _PASS
        _turn_plays(hand, top, colour, pending, identical, plays)
        choice, copies = _turn_choice(hand, sizes, playing, seat, direction, identical,
                                      dcounts, pending, plays, strong)
        if choice >= 0 and choice == ident:
            return _SLAP0 + _PLAY_BASE[ident] + min(copies, count) - 1
        return _PASS
    if _STACKER[ident]:
        count = min(count, _stackers_held(hand) - 1)
        if count < 1 or not _may_spend_stacker(hand, size, count):
            return _PASS
    if ident == _ROTATION and not _rotation_helps(sizes, playing, seat, direction, count):
        return _PASS
    return _SLAP0 + _PLAY_BASE[ident] + count - 1


@njit(cache=True)
def _scripted(s, cfg, i: int, mask: np.ndarray, strong: bool) -> int:
    """``LocoHeuristic.act`` / ``LocoStrong.act`` for the seat to act in row ``i``: the row
    is read here, through the actor's view, and nowhere else."""
    seat = np.int64(s.actor[i])
    phase = s.phase[i]
    if phase == CALL:
        return _LOCO
    if phase == CONTRE:  # the call this window judges (view.contre_announced)
        return _PASS if s.contre_queue[i, 0, 1] else _CONTRE
    hand = s.hands[i, seat]
    if phase == COLOUR:
        return _COLOUR0 + _colour_choice(hand, s.discard_counts[i], strong)
    sizes = s.hand_sizes[i]
    if phase == TARGET:
        return _target(sizes, seat, mask)
    playing = s.active[i] & s.in_round[i]
    direction = np.int64(s.direction[i])
    identical = cfg.stacking_identical
    pending = np.int64(s.pending[i])
    dcounts = s.discard_counts[i]
    if phase == SLAP:
        return _slap(hand, sizes, playing, seat, direction, identical, dcounts,
                     np.int64(s.discard[i, s.discard_len[i] - 1]), np.int64(s.colour[i]),
                     pending, np.int64(s.turn_seat[i]), mask, strong)
    plays = np.empty(_NUM_IDS, np.int64)
    _legal_plays(mask, _PLAY0, plays)
    ident, count = _turn_choice(hand, sizes, playing, seat, direction, identical, dcounts,
                                pending, plays, strong)
    if ident >= 0:
        return _PLAY0 + _PLAY_BASE[ident] + count - 1
    return _DRAW if mask[_DRAW] else _PASS


# --- the bots ------------------------------------------------------------------------------------
@no_refcount
def random(s, cfg, i: int, mask: np.ndarray, rng_state: np.ndarray) -> int:
    """``agents.RandomBot``: :func:`loco_envs.compiled.rng.random_legal`, the draw every
    game's random bot makes."""
    return R.random_legal(mask, rng_state)


@njit(cache=True)
def heuristic(s, cfg, i: int, mask: np.ndarray, rng_state: np.ndarray) -> int:
    """``agents.loco.LocoHeuristic`` (``loco/heuristic``); draws nothing from ``rng_state``."""
    return _scripted(s, cfg, i, mask, False)


@njit(cache=True)
def heuristic_strong(s, cfg, i: int, mask: np.ndarray, rng_state: np.ndarray) -> int:
    """``agents.loco.LocoStrong`` (``loco/heuristic-strong``); draws nothing from
    ``rng_state``."""
    return _scripted(s, cfg, i, mask, True)


@njit(cache=True)
def act(s, cfg, kind: int, i: int, mask: np.ndarray, rng_state: np.ndarray) -> int:
    """The bot of ``kind`` (:data:`RANDOM`, :data:`HEURISTIC`, :data:`STRONG`) in row ``i``."""
    if kind == RANDOM:
        return random(s, cfg, i, mask, rng_state)
    return _scripted(s, cfg, i, mask, kind == STRONG)


@njit(cache=True, parallel=True)
def act_batch(s, cfg, bot_kind: np.ndarray, rows: np.ndarray, masks: np.ndarray,
              rng_states: np.ndarray, out: np.ndarray) -> None:
    """Many decisions at once, in parallel: ``out[k]`` is the move of bot ``bot_kind[k]`` for
    the seat to act in row ``rows[k]``, whose mask is ``masks[k]`` and generator
    ``rng_states[k]`` (advanced in place). Every array is indexed by ``k``, the position in
    ``rows``: a caller holding per-game (or per-seat) arrays gathers and scatters them."""
    for k in prange(rows.shape[0]):
        out[k] = act(s, cfg, bot_kind[k], rows[k], masks[k], rng_states[k])
