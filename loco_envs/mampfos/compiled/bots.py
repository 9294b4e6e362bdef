"""Los Mampfos's bots over the batch state, compiled: ``random`` (``agents.RandomBot``) and
``mampfos/heuristic`` (``agents.mampfos.MampfosHeuristic``), move for move.

Each reads only what the seat to act may see (the fields of ``MampfosGame.view(seat)``: the
bellies only without ``cfg.recall``, the seat's own ``fed_since`` and ``share_new``, the last
share-out only while it is news in recall) and draws from the generator ``rng_state`` as the
Python bot draws from its ``Generator`` (the heuristic draws nothing).

The heuristic's recall memory (``MampfosHeuristic.memory``) is per seat and game, as the Python
bot's is when one bot object plays one seat of one game (the tournament runner's use): it lives
in ``s.bot_memory[i, seat]``, zeroed by a new game and by ``state.write_game``
(``memory=None``). A Python bot object shared by several seats or games keeps one memory for
all of them, so in ``memory="recall"`` it may choose otherwise than this twin; with
``"perfect"`` the heuristic keeps no memory and any sharing is alike.

``act(s, cfg, kind, i, mask, rng_state)`` dispatches on :data:`KINDS` (the vector kernels'
``bot_act``), ``act_batch`` runs many rows on numba threads.

The float arithmetic of ``expected_share`` follows numpy's: ``q ** k`` on a numpy scalar is
libm's ``pow`` (``math.pow`` here, not numba's integer-power loop, which rounds differently),
evaluated left to right as in Python.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount
from loco_envs.compiled import rng as R
from loco_envs.mampfos.compiled.engine import (
    BISCUITS,
    CARD_KIND,
    DONKEY_BASE,
    FEED,
    FEED_BASE,
    NC,
    ND,
    NUM_ACTIONS,
    PH_FEED,
    PH_WHEEL,
    WHEEL_BASE,
)

__all__ = ["HEURISTIC", "KINDS", "RANDOM", "act", "act_batch", "exact_twin", "expected_share",
           "heuristic", "random"]

#: ``act`` / ``act_batch`` bot kinds, and the spec each stands for (as LOCO's ``bots.KINDS``).
RANDOM, HEURISTIC = 0, 1
KINDS = {"random": RANDOM, "mampfos/heuristic": HEURISTIC}
#: ``math.comb(others, k)`` for ``others`` 0..4 (five players at most, P-01).
_COMB = np.array([[math.comb(o, k) for k in range(5)] for o in range(5)], np.float64)


@no_refcount
def random(s, cfg, i, mask, rng_state):
    """``agents.RandomBot``: :func:`loco_envs.compiled.rng.random_legal`, the draw every
    game's random bot makes."""
    return R.random_legal(mask, rng_state)


@njit(cache=True)
def expected_share(out, colour, others):
    """``agents.mampfos.expected_share(out, colour, others)`` (P-12), bit for bit."""
    n = np.int64(out[colour])
    if n == 0:
        return 0.0
    wsum = 0.0
    for c in range(NC):
        wsum += np.float64(out[c]) + 1.0
    q = (np.float64(out[colour]) + 1.0) / wsum
    total = 0.0
    for k in range(others + 1):  # k opponents chose the same colour
        if n >= k + 1:
            total += (_COMB[others, k] * math.pow(q, np.float64(k))
                      * math.pow(1.0 - q, np.float64(others - k)) * np.float64(n // (k + 1)))
    return total


@njit(cache=True)
def _best_share(out, others):
    """``MampfosHeuristic.best_share``: the best colour's expected share."""
    best = expected_share(out, 0, others)
    for c in range(1, NC):
        share = expected_share(out, c, others)
        if share > best:
            best = share
    return best


@njit(cache=True)
def _bellies(s, cfg, i, seat, out):
    """``MampfosHeuristic.bellies``: observed (P-30) or remembered (P-31) donkey x colour."""
    if not cfg.recall:
        for d in range(ND):
            for c in range(NC):
                out[d, c] = s.bellies[i, d, c]
        return
    memory = s.bot_memory[i, seat]
    news = s.share_new[i, seat] and s.has_share[i]
    for d in range(ND):
        for c in range(NC):
            out[d, c] = memory[d, c]
    if news:
        for c in range(NC):
            out[s.share_donkey[i], c] = s.share_back[i, c]
    for d in range(ND):
        for c in range(NC):
            out[d, c] += s.fed_since[i, seat, d * NC + c]
    consistent = True
    in_bellies = np.zeros(NC, np.int64)
    for c in range(NC):
        in_bellies[c] = BISCUITS - s.supply[i, c]
        for other in range(cfg.num_players):
            in_bellies[c] -= s.collected[i, other, c]
        if out[0, c] + out[1, c] + out[2, c] != in_bellies[c]:
            consistent = False
    if not consistent:  # restart from what was seen since the last decision
        for d in range(ND):
            for c in range(NC):
                out[d, c] = s.fed_since[i, seat, d * NC + c]
        if news:
            for c in range(NC):
                out[s.share_donkey[i], c] += s.share_back[i, c]
        for c in range(NC):
            rest = max(in_bellies[c] - (out[0, c] + out[1, c] + out[2, c]), 0)
            for d in range(ND):
                out[d, c] += rest // ND
            out[0, c] += rest % ND
    for d in range(ND):
        for c in range(NC):
            memory[d, c] = out[d, c]


@njit(cache=True)
def heuristic(s, cfg, i, mask, rng_state):
    """``MampfosHeuristic.act`` for the seat to act (``rng_state`` is not drawn from); -1,
    touching nothing, when no seat is to act (the Python bot raises on an empty mask)."""
    seat = s.actor[i]
    if seat < 0 or s.terminal[i]:
        return -1
    bellies = np.zeros((ND, NC), np.int64)
    _bellies(s, cfg, i, seat, bellies)
    others = cfg.num_players - 1
    phase = s.phase[i]
    best, best_key = -1, 0.0
    if phase == PH_WHEEL:  # P-12: the colour with the best expected share
        out = bellies[s.donkey[i]]
        for a in range(NUM_ACTIONS):
            if mask[a]:
                key = expected_share(out, a - WHEEL_BASE, others)
                if best < 0 or key > best_key:
                    best, best_key = a, key
        return best
    if phase == PH_FEED:  # P-11: the colour the donkey holds most of, then the supply's most
        held = bellies[s.donkey[i]]
        best_held, best_supply = 0, 0
        for a in range(NUM_ACTIONS):
            if mask[a]:
                c = a - FEED_BASE
                h, sup = held[c], np.int64(s.supply[i, c])
                if best < 0 or h > best_held or (h == best_held and sup > best_supply):
                    best, best_held, best_supply = a, h, sup
        return best
    feeding = s.card[i] >= 0 and CARD_KIND[s.card[i]] == FEED
    for a in range(NUM_ACTIONS):  # choosing a donkey (★ card, P-13's order)
        if mask[a]:
            d = a - DONKEY_BASE
            if feeding:  # the one already holding most
                key = np.float64(bellies[d].sum())
            else:  # the emptying that promises the best share
                key = _best_share(bellies[d], others)
            if best < 0 or key > best_key:
                best, best_key = a, key
    return best


def exact_twin(cfg, kind: int) -> bool:
    """Whether bot ``kind`` plays move for move like its Python bot shared by many games: the
    heuristic with ``memory="recall"`` remembers bellies between its calls (one memory per
    object in Python, one per game and seat here), so the vector env and tournaments play it
    from Python views then."""
    return kind != HEURISTIC or not cfg.recall


@njit(cache=True)
def act(s, cfg, kind, i, mask, rng_state):
    """The bot of ``kind`` (:data:`RANDOM`, :data:`HEURISTIC`) for the seat to act in row
    ``i``."""
    if kind == HEURISTIC:
        return heuristic(s, cfg, i, mask, rng_state)
    return random(s, cfg, i, mask, rng_state)


@njit(parallel=True, cache=True)
def act_batch(s, cfg, bot_kind, rows, masks, rng_states, out):
    """Many decisions at once, in parallel: ``out[k]`` is the move of bot ``bot_kind[k]``
    (:data:`KINDS`) for the seat to act in row ``rows[k]``, whose mask is ``masks[k]`` and
    generator ``rng_states[k]`` (advanced in place). Every array is indexed by ``k`` (as
    LOCO's ``act_batch``); a row appears once at most (the heuristic's recall memory is the
    row's)."""
    for k in prange(rows.shape[0]):
        out[k] = act(s, cfg, bot_kind[k], rows[k], masks[k], rng_states[k])
