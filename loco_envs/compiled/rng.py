"""numpy's ``default_rng`` (SeedSequence + PCG64) inside numba-compiled code, draw for draw.

Why not numba's own ``np.random.Generator`` support: a compiled engine keeps the state of N
games in arrays and must step them without Python objects, and its games must deal exactly as
the Python engines do for the same seed. So the generator is an array of six ``uint64`` per game
(:data:`STATE_WORDS`), and the functions below are numpy's own algorithms over it:

- :func:`seed_state`: ``np.random.default_rng(seed)`` (SeedSequence's hash mixing, PCG64's
  ``srandom``); :func:`seed_state_pair` for ``default_rng([seed, k])``;
- :func:`next_uint64` / :func:`next_uint32` / :func:`next_double`: PCG64 XSL-RR (128-bit LCG
  emulated with 64-bit halves) with numpy's buffered 32-bit half;
- :func:`integers`: ``Generator.integers(n)`` (Lemire's method on 32-bit draws, numpy's
  ``buffered_bounded_lemire_uint32``);
- :func:`shuffle`: ``Generator.shuffle`` (Fisher-Yates with ``random_interval``, masked
  rejection sampling);
- :func:`random`: ``Generator.random()``.

:func:`from_generator`, :func:`to_generator` and :func:`set_generator` move a state between a
numpy ``Generator`` and the array, so a game (or a bot's generator) can go from one engine to
the other mid-play. ``tests/compiled`` holds
each function equal to numpy's over many draws.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

__all__ = ["STATE_WORDS", "from_generator", "integers", "next_double", "next_uint32",
           "next_uint64", "random", "random_legal", "seat_states", "seed_state",
           "seed_state_pair", "set_generator", "shuffle", "to_generator"]

#: The words of one generator: state (high, low), increment (high, low), has_uint32, uinteger.
STATE_WORDS = 6
_MASK32 = np.uint64(0xFFFFFFFF)
_MULT_HI = np.uint64(2549297995355413924)
_MULT_LO = np.uint64(4865540595714422341)
# SeedSequence's constants (numpy/random/bit_generator.pyx)
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_POOL = 4


@njit(cache=True, inline="always")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:
    """The high 64 bits of the 128-bit product ``a * b``."""
    s32 = np.uint64(32)
    a_lo, a_hi = a & _MASK32, a >> s32
    b_lo, b_hi = b & _MASK32, b >> s32
    p0, p1, p2, p3 = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    mid = (p0 >> s32) + (p1 & _MASK32) + (p2 & _MASK32)
    return p3 + (p1 >> s32) + (p2 >> s32) + (mid >> s32)


@njit(cache=True, inline="always")
def _step(st: np.ndarray) -> None:
    """PCG's LCG step: state = state * multiplier + increment (mod 2**128)."""
    sh, sl = st[0], st[1]
    lo = sl * _MULT_LO
    hi = sh * _MULT_LO + sl * _MULT_HI + _mulhi(sl, _MULT_LO)
    lo2 = lo + st[3]
    carry = np.uint64(1) if lo2 < lo else np.uint64(0)
    st[0] = hi + st[2] + carry
    st[1] = lo2


@njit(cache=True)
def next_uint64(st: np.ndarray) -> np.uint64:
    """PCG64's next 64-bit output (XSL-RR of the new state)."""
    _step(st)
    hi, lo = st[0], st[1]
    x = hi ^ lo
    rot = hi >> np.uint64(58)
    return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))


@njit(cache=True)
def next_uint32(st: np.ndarray) -> np.uint64:
    """numpy's 32-bit draw: the low half of a 64-bit one, the high half kept for the next."""
    if st[4]:
        st[4] = np.uint64(0)
        return st[5]
    value = next_uint64(st)
    st[4] = np.uint64(1)
    st[5] = value >> np.uint64(32)
    return value & _MASK32


@njit(cache=True)
def next_double(st: np.ndarray) -> float:
    return np.float64(next_uint64(st) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def random(st: np.ndarray) -> float:
    """``Generator.random()``."""
    return next_double(st)


@njit(cache=True)
def integers(st: np.ndarray, n: int) -> int:
    """``Generator.integers(n)`` for ``1 <= n <= 2**32``: Lemire's bounded 32-bit draw."""
    rng = np.uint64(n - 1)
    if rng == np.uint64(0):
        return 0
    if rng == _MASK32:
        return np.int64(next_uint32(st))
    excl = rng + np.uint64(1)
    m = next_uint32(st) * excl
    leftover = m & _MASK32
    if leftover < excl:
        threshold = (_MASK32 - rng) % excl
        while leftover < threshold:
            m = next_uint32(st) * excl
            leftover = m & _MASK32
    return np.int64(m >> np.uint64(32))


#: The block of :func:`random_legal`'s scan.
_BLOCK = 16


@njit(cache=True)
def random_legal(mask: np.ndarray, st: np.ndarray) -> int:
    """``agents.RandomBot``'s move: ``legal[Generator.integers(legal.size)]`` with ``legal``
    the nonzero entries of ``mask``; -1, drawing nothing, when none is (the Python bot raises).
    Every game's random bot is this draw. ``st`` must be a seeded state: on an all-zero array
    the bounded draw never ends."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a] != 0
    if count == 0:
        return -1
    k = integers(st, count)
    # The k-th legal entry: whole blocks of 16 skipped by their counts (a loop numba
    # vectorises), then counted down entry by entry, with no branch per legal entry (their
    # mispredictions cost more than the scan): 105 ns against 150 for LOCO's 242 actions.
    n, a = mask.shape[0], 0
    while a + _BLOCK <= n:
        legal = 0
        for j in range(_BLOCK):
            legal += mask[a + j] != 0
        if legal > k:
            break
        k -= legal
        a += _BLOCK
    for b in range(a, n):
        k -= mask[b] != 0
        if k < 0:
            return b
    return -1


@njit(cache=True)
def _interval(st: np.ndarray, most: int) -> int:
    """numpy's ``random_interval``: uniform on ``0..most`` by masked rejection."""
    if most == 0:
        return 0
    top = np.uint64(most)
    mask = top
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    if top <= _MASK32:
        value = next_uint32(st) & mask
        while value > top:
            value = next_uint32(st) & mask
    else:
        value = next_uint64(st) & mask
        while value > top:
            value = next_uint64(st) & mask
    return np.int64(value)


@njit(cache=True)
def shuffle(st: np.ndarray, items: np.ndarray, count: int) -> None:
    """``Generator.shuffle`` of ``items[:count]`` in place."""
    for i in range(count - 1, 0, -1):
        j = _interval(st, i)
        items[i], items[j] = items[j], items[i]


@njit(cache=True, inline="always")
def _hashmix(value: np.uint64, hash_const: np.ndarray) -> np.uint64:
    value = (value ^ hash_const[0]) & _MASK32
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> np.uint64(16))


@njit(cache=True, inline="always")
def _mix(x: np.uint64, y: np.uint64) -> np.uint64:
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> np.uint64(16))


@njit(cache=True)
def _seed_from_entropy(entropy: np.ndarray, count: int, st: np.ndarray) -> None:
    """SeedSequence(entropy words).generate_state(4, uint64), then PCG64's seeding."""
    pool = np.zeros(_POOL, np.uint64)
    hash_const = np.empty(1, np.uint64)
    hash_const[0] = _INIT_A
    for i in range(_POOL):
        pool[i] = _hashmix(entropy[i] if i < count else np.uint64(0), hash_const)
    for src in range(_POOL):
        for dst in range(_POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], _hashmix(pool[src], hash_const))
    for src in range(_POOL, count):
        for dst in range(_POOL):
            pool[dst] = _mix(pool[dst], _hashmix(entropy[src], hash_const))
    words = np.zeros(8, np.uint64)
    h = _INIT_B
    for i in range(8):
        value = pool[i % _POOL] ^ h
        h = (h * _MULT_B) & _MASK32
        value = (value * h) & _MASK32
        words[i] = value ^ (value >> np.uint64(16))
    val = np.zeros(4, np.uint64)
    for i in range(4):  # little-endian pairs of 32-bit words
        val[i] = words[2 * i] | (words[2 * i + 1] << np.uint64(32))
    # pcg64_set_seed: initstate = val[0]:val[1], initseq = val[2]:val[3] (high:low)
    st[0], st[1] = np.uint64(0), np.uint64(0)
    st[2] = (val[2] << np.uint64(1)) | (val[3] >> np.uint64(63))
    st[3] = (val[3] << np.uint64(1)) | np.uint64(1)
    _step(st)
    lo = st[1] + val[1]
    carry = np.uint64(1) if lo < st[1] else np.uint64(0)
    st[0] = st[0] + val[0] + carry
    st[1] = lo
    _step(st)
    st[4], st[5] = np.uint64(0), np.uint64(0)


@njit(cache=True)
def _words(value: np.uint64, out: np.ndarray, start: int) -> int:
    """An integer's 32-bit words, low first, as SeedSequence coerces it (0 is one word)."""
    out[start] = value & _MASK32
    high = value >> np.uint64(32)
    if high:
        out[start + 1] = high
        return start + 2
    return start + 1


@njit(cache=True)
def seed_state(seed: np.uint64, st: np.ndarray) -> None:
    """``st`` becomes ``np.random.default_rng(seed)``'s state (``0 <= seed < 2**64``)."""
    entropy = np.zeros(2, np.uint64)
    _seed_from_entropy(entropy, _words(np.uint64(seed), entropy, 0), st)


@njit(cache=True)
def seed_state_pair(seed: np.uint64, k: np.uint64, st: np.ndarray) -> None:
    """``st`` becomes ``np.random.default_rng([seed, k])``'s state."""
    entropy = np.zeros(4, np.uint64)
    count = _words(np.uint64(seed), entropy, 0)
    _seed_from_entropy(entropy, _words(np.uint64(k), entropy, count), st)


def from_generator(rng: np.random.Generator, out: np.ndarray) -> None:
    """Copy a PCG64 ``Generator``'s state into ``out`` (six ``uint64``)."""
    state = rng.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise ValueError(f"the compiled engines use PCG64 generators, got "
                         f"{state['bit_generator']}")
    inner = state["state"]
    mask = (1 << 64) - 1
    out[:] = [inner["state"] >> 64, inner["state"] & mask, inner["inc"] >> 64,
              inner["inc"] & mask, state["has_uint32"], state["uinteger"]]


def to_generator(st: np.ndarray) -> np.random.Generator:
    """A new ``Generator`` in the state ``st`` holds."""
    rng = np.random.Generator(np.random.PCG64())
    set_generator(rng, st)
    return rng


def set_generator(rng: np.random.Generator, st: np.ndarray) -> None:
    """Put ``rng`` (a PCG64 ``Generator``) in the state ``st`` holds."""
    words = [int(w) for w in st]
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (words[0] << 64) | words[1], "inc": (words[2] << 64) | words[3]},
        "has_uint32": words[4], "uinteger": words[5],
    }


@njit(cache=True)
def _seat_states(seeds: np.ndarray, games: np.ndarray, out: np.ndarray) -> None:
    """:func:`seat_states`: SeedSequence([seed, game, seat]) coerces each to its 32-bit
    words (:func:`_words`), then seeds PCG64 as :func:`seed_state_pair` does for a pair."""
    entropy = np.zeros(6, np.uint64)
    for i in range(seeds.shape[0]):
        for s in range(out.shape[1]):
            entropy[:] = 0
            count = _words(seeds[i], entropy, 0)
            count = _words(games[i], entropy, count)
            _seed_from_entropy(entropy, _words(np.uint64(s), entropy, count), out[i, s])


def seat_states(seeds: Sequence[int], games: Sequence[int], num_players: int) -> np.ndarray:
    """``(len(seeds), num_players, 6) uint64``: row ``[i, s]`` is the state words
    (:func:`from_generator`) of ``default_rng([seeds[i], games[i], s])``,
    a tournament's generator of seat ``s`` in game ``games[i]`` dealt from ``seeds[i]``; the
    same words, without a ``Generator`` object a seat. Seeds and game indices: 0 to 2**64-1."""
    seeds, games = [int(x) for x in seeds], [int(x) for x in games]
    if len(seeds) != len(games):
        raise ValueError("seeds and games must be two sequences of the same length")
    if min(seeds + games, default=0) < 0 or max(seeds + games, default=0) >= 2**64:
        raise ValueError("seeds and game indices must be in 0..2**64-1")
    out = np.zeros((len(seeds), num_players, STATE_WORDS), np.uint64)
    _seat_states(np.array(seeds, np.uint64), np.array(games, np.uint64), out)
    return out
