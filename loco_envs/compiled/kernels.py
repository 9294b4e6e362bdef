"""The vector kernels: N games of any compiled engine stepped in one call, on numba threads.

One kernel serves every game. Its calls into a game (``new_game``, ``play``, ``legal_mask``,
``encode``, ``bot_act``, ...) are numba overloads chosen by the type of the state they get: a
state class defined in ``loco_envs.<game>.compiled.state`` calls the functions of that package's
``engine``, ``encode`` and ``bots`` modules (the contract of :mod:`loco_envs.compiled`). So the
kernel is written once and compiled (and cached on disk) once per game.

Each game owns row ``i`` of every array, and its generators are its own (the deal's in the
state, the next episode's seed and its bots' in :class:`VectorIO`), so what a step does to a game
does not depend on how the games are spread over threads.
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from numba.extending import overload

from loco_envs.compiled import no_refcount, no_refcount_inline
from loco_envs.compiled import rng as R

__all__ = ["SEED_HIGH", "VectorIO", "bot_actions", "rank_rewards", "reset_games", "step_games",
           "write_decisions"]

#: The random bot's kind in every game's ``bots`` module (``agents.RandomBot``).
RANDOM = 0
#: Largest episode seed (as :data:`loco_envs.vector.batch.SEED_HIGH`).
SEED_HIGH = 2**31 - 1


class VectorIO(NamedTuple):
    """The arrays a vector env shares with its compiled games (``N`` games, ``P`` seats).

    ``actions``, ``bots`` (index into ``bot_kinds``, -1: none) and ``observed`` are the
    caller's; the rest the kernel writes. ``decisions`` counts the moves of each game's current
    episode, ``lengths`` is the length of a game that ended in the last step. ``log_seats`` /
    ``log_actions`` keep every move of the current episode (its record).
    """

    actions: np.ndarray  # (N,) int64
    bots: np.ndarray  # (N,) int64
    bot_kinds: np.ndarray  # (B,) int64: the compiled bot of each of the env's bots
    bot_rngs: np.ndarray  # (N, 6) uint64: default_rng([first seed, 1])
    vec_rngs: np.ndarray  # (N, 6) uint64: default_rng(first seed), the next episodes' seeds
    observed: np.ndarray  # (N, P) bool
    obs: np.ndarray  # (N, D) float32
    masks: np.ndarray  # (N, A) int8
    seats: np.ndarray  # (N,) int64
    rewards: np.ndarray  # (N, P) float32
    terminations: np.ndarray  # (N,) bool
    truncations: np.ndarray  # (N,) bool
    scores: np.ndarray  # (N, P) float32
    ranks: np.ndarray  # (N, P) int64
    lengths: np.ndarray  # (N,) int64
    episode_seeds: np.ndarray  # (N,) int64
    decisions: np.ndarray  # (N,) int64
    log_seats: np.ndarray  # (N, L) int8
    log_actions: np.ndarray  # (N, L) int16


def _module(state_type, name: str):
    """The ``name`` module of the compiled package that defines ``state_type``'s class."""
    package = state_type.instance_class.__module__.rsplit(".", 1)[0]
    return importlib.import_module(f"{package}.{name}")


# --- the game's functions, chosen by the state's type ------------------------------------------
def new_game(s, cfg, i, seed):
    raise NotImplementedError("compiled only")


def play(s, cfg, i, action):
    raise NotImplementedError("compiled only")


def legal_mask(s, cfg, i, out):
    raise NotImplementedError("compiled only")


def final_ranks(s, cfg, i, out):
    raise NotImplementedError("compiled only")


def final_scores(s, cfg, i, out):
    raise NotImplementedError("compiled only")


def encode(s, cfg, i, seat, out):
    raise NotImplementedError("compiled only")


def bot_act(s, cfg, kind, i, mask, rng_state):
    raise NotImplementedError("compiled only")


@overload(new_game, inline="always")
def _new_game(s, cfg, i, seed):
    fn = _module(s, "engine").new_game
    return lambda s, cfg, i, seed: fn(s, cfg, i, seed)


@overload(play, inline="always")
def _play(s, cfg, i, action):
    fn = _module(s, "engine").play
    return lambda s, cfg, i, action: fn(s, cfg, i, action)


@overload(legal_mask, inline="always")
def _legal_mask(s, cfg, i, out):
    fn = _module(s, "engine").legal_mask
    return lambda s, cfg, i, out: fn(s, cfg, i, out)


@overload(final_ranks, inline="always")
def _final_ranks(s, cfg, i, out):
    fn = _module(s, "engine").final_ranks
    return lambda s, cfg, i, out: fn(s, cfg, i, out)


@overload(final_scores, inline="always")
def _final_scores(s, cfg, i, out):
    fn = _module(s, "engine").final_scores
    return lambda s, cfg, i, out: fn(s, cfg, i, out)


@overload(encode, inline="always")
def _encode(s, cfg, i, seat, out):
    fn = _module(s, "encode").encode
    return lambda s, cfg, i, seat, out: fn(s, cfg, i, seat, out)


@overload(bot_act, inline="always")
def _bot_act(s, cfg, kind, i, mask, rng_state):
    fn = _module(s, "bots").act
    return lambda s, cfg, kind, i, mask, rng_state: fn(s, cfg, kind, i, mask, rng_state)


# --- the kernels ---------------------------------------------------------------------------------
@njit(cache=True)
def rank_rewards(ranks: np.ndarray, out: np.ndarray) -> None:
    """``loco_envs.core.rewards.rank_rewards``: (beaten - beaten by) / (n - 1)."""
    n = ranks.shape[0]
    for seat in range(n):
        beaten = 0
        for other in range(n):
            if ranks[other] > ranks[seat]:
                beaten += 1
            elif ranks[other] < ranks[seat]:
                beaten -= 1
        out[seat] = beaten / (n - 1) if n > 1 else 0.0


@njit(cache=True)
def _score_rewards(scores: np.ndarray, out: np.ndarray) -> None:
    """``loco_envs.core.rewards.score_rewards``: own score less the others' mean."""
    n = scores.shape[0]
    if n == 1:
        out[0] = scores[0]
        return
    total = 0.0
    for seat in range(n):
        total += scores[seat]
    for seat in range(n):
        out[seat] = scores[seat] - (total - scores[seat]) / (n - 1)


@njit(cache=True)
def _finish(s, cfg, io: VectorIO, i: int, score_reward: bool) -> None:
    """Game ``i`` ended or reached the cap: rewards, scores, ranks and length of the step."""
    n = io.rewards.shape[1]
    scores = np.zeros(n, np.float64)
    final_scores(s, cfg, i, scores)
    io.scores[i] = scores
    io.lengths[i] = io.decisions[i]
    if not s.terminal[i]:  # truncated by max_decisions: reward 0, no ranks
        io.truncations[i] = True
        io.ranks[i] = -1
        return
    io.terminations[i] = True
    ranks = np.zeros(n, np.int64)
    final_ranks(s, cfg, i, ranks)
    io.ranks[i] = ranks
    values = np.zeros(n, np.float64)
    if score_reward or n == 1:
        _score_rewards(scores, values)
    else:
        rank_rewards(ranks, values)
    io.rewards[i] = values


@no_refcount_inline
def _write(s, cfg, io: VectorIO, i: int, fresh: bool) -> None:
    """Game ``i``'s seat to act, its observation (if observed, or at a first decision) and
    mask; a finished game (autoreset off) gets seat -1 and an empty mask."""
    actor = np.int64(s.actor[i])
    if s.terminal[i] or actor < 0:
        io.seats[i] = -1
        io.masks[i] = 0
    else:
        io.seats[i] = actor
        if fresh or io.observed[i, actor]:
            encode(s, cfg, i, actor, io.obs[i])
        legal_mask(s, cfg, i, io.masks[i])


@njit(cache=True)
def _start(s, cfg, io: VectorIO, i: int, seed: int) -> None:
    new_game(s, cfg, i, seed)
    io.episode_seeds[i] = seed
    io.decisions[i] = 0
    _write(s, cfg, io, i, True)


@njit(cache=True, parallel=True)
def reset_games(s, cfg, io: VectorIO, seeds: np.ndarray) -> None:
    """Every game's first episode from its seed (its next-seed and bot generators too)."""
    for i in prange(seeds.shape[0]):
        seed = np.uint64(seeds[i])
        R.seed_state(seed, io.vec_rngs[i])
        R.seed_state_pair(seed, np.uint64(1), io.bot_rngs[i])
        io.rewards[i] = 0
        io.terminations[i] = False
        io.truncations[i] = False
        _start(s, cfg, io, i, seeds[i])


@no_refcount_inline
def _decide(s, cfg, io: VectorIO, i: int, action: int, max_decisions: int) -> bool:
    """Game ``i`` takes ``action`` (logged) and writes its next decision, unless the game is
    over or at the cap: then it returns True and :func:`_end` takes over."""
    done = io.decisions[i]
    io.log_seats[i, done] = s.actor[i]
    io.log_actions[i, done] = action
    io.decisions[i] = done + 1
    play(s, cfg, i, action)
    if s.terminal[i] or 0 < max_decisions <= done + 1:
        return True
    seat = np.int64(s.actor[i])
    io.seats[i] = seat
    if io.observed[i, seat]:
        encode(s, cfg, i, seat, io.obs[i])
    legal_mask(s, cfg, i, io.masks[i])
    return False


@njit(cache=True)
def _end(s, cfg, io: VectorIO, i: int, score_reward: bool, autoreset: bool) -> None:
    """Game ``i`` ended or reached the cap: its results, then its next episode (autoreset)
    or seat -1 until the next reset (a truncated game too)."""
    _finish(s, cfg, io, i, score_reward)
    if autoreset:
        _start(s, cfg, io, i, R.integers(io.vec_rngs[i], SEED_HIGH))
    else:
        io.seats[i] = -1
        io.masks[i] = 0


@njit(cache=True, inline="always")
def _move(s, cfg, io: VectorIO, i: int) -> int:
    """Game ``i``'s move: the caller's action or its bot's. The random bot (kind
    :data:`RANDOM` in every game) reads the mask only, so it is drawn without passing the
    state."""
    k = io.bots[i]
    if k < 0:
        return io.actions[i]
    kind = io.bot_kinds[k]
    if kind == RANDOM:
        return R.random_legal(io.masks[i], io.bot_rngs[i])
    return bot_act(s, cfg, kind, i, io.masks[i], io.bot_rngs[i])


@njit(cache=True, inline="always")
def _clear(io: VectorIO, i: int) -> None:
    io.rewards[i] = 0
    io.terminations[i] = False
    io.truncations[i] = False


@njit(cache=True, inline="always")
def _step_one(s, cfg, io: VectorIO, i: int, max_decisions: int, score_reward: bool,
              autoreset: bool) -> None:
    """One decision of game ``i``: the caller's action or its bot's."""
    _clear(io, i)
    action = _move(s, cfg, io, i)
    if action >= 0 and _decide(s, cfg, io, i, action, max_decisions):
        _end(s, cfg, io, i, score_reward, autoreset)


@no_refcount
def _decide_rows(s, cfg, io: VectorIO, lo: int, moves: np.ndarray, max_decisions: int,
                 ended: np.ndarray) -> None:
    """:func:`_step_one` for games ``lo`` to ``lo + len(moves)``, up to the end of a game:
    ``moves`` holds their moves, ``ended`` is set where a game ended. One call for many
    games, so the state is passed once for them all."""
    for k in range(moves.shape[0]):
        i = lo + k
        _clear(io, i)
        ended[k] = moves[k] >= 0 and _decide(s, cfg, io, i, moves[k], max_decisions)


#: Games a thread steps in one call of :func:`_decide_rows`.
CHUNK = 64


@njit(cache=True, parallel=True)
def step_games(s, cfg, io: VectorIO, max_decisions: int, score_reward: bool,
               autoreset: bool) -> None:
    """One decision in every game whose ``actions`` (or ``bots``) entry asks for one.

    Games go in chunks of :data:`CHUNK`: their moves (the scripted bots allocate, so they
    count references), then every decision without reference counting
    (:func:`_decide_rows`), then the ends of the games that ended. A chunk's games are
    independent, so the result is that of :func:`_step_one` game by game, on any threads.
    """
    n = io.actions.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        lo, hi = c * CHUNK, min(n, (c + 1) * CHUNK)
        moves = np.empty(hi - lo, np.int64)
        for i in range(lo, hi):
            moves[i - lo] = _move(s, cfg, io, i)
        ended = np.zeros(hi - lo, np.bool_)
        _decide_rows(s, cfg, io, lo, moves, max_decisions, ended)
        for i in range(lo, hi):
            if ended[i - lo]:
                _end(s, cfg, io, i, score_reward, autoreset)


@no_refcount
def write_decisions(s, cfg, io: VectorIO, rows: np.ndarray) -> None:
    """Rewrite the seat, observation and mask of ``rows`` (games changed from outside)."""
    for k in range(rows.shape[0]):
        _write(s, cfg, io, rows[k], True)


@njit(cache=True, parallel=True)
def bot_actions(s, cfg, kind: int, rows: np.ndarray, masks: np.ndarray,
                rng_states: np.ndarray, out: np.ndarray) -> None:
    """``out[k]``: compiled bot ``kind``'s action in game ``rows[k]`` (its seat to act), drawing
    from ``rng_states[k]`` (a tournament's generator of that game and seat)."""
    for k in prange(rows.shape[0]):
        out[k] = bot_act(s, cfg, kind, rows[k], masks[rows[k]], rng_states[k])
