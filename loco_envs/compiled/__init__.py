"""What the suite's compiled (numba) engines share, and the contract each game's engine keeps.

A game's compiled engine is the package ``loco_envs/<game>/compiled/`` (LOCO's sets the
pattern). It keeps the state of N games in preallocated arrays, one row per game, and is exact
to the game's Python rules engine: same seed, same deal; same actions, same states, masks,
observations, features, rewards and bot moves. The differential harness
(:mod:`loco_envs.compiled.differential`) holds the two equal in the tests.

``state.py`` (plain Python)
    ``State``: a ``NamedTuple`` of arrays (numba takes it as it is), fields documented in a
    table in the module docstring; ``Config``: a ``NamedTuple`` of the batch's options (the same
    for all its games). ``config(options) -> Config`` from the checked game options (defaults
    filled in), ``allocate(num_games, cfg) -> State``, ``write_game(state, i, game)`` (a Python
    game into row ``i``, its ``rng`` state included), ``state_dict(state, i, cfg) -> dict``
    (the Python engine's schema) and ``read_game(state, i, options) -> Game`` (a Python game
    that goes on exactly as the row would).
``engine.py`` (``@njit(cache=True)``, one function per rule or phase, rule ids in comments)
    ``new_game(s, cfg, i, seed)``: row ``i`` becomes ``Game(rng=np.random.default_rng(seed),
    **options)``; ``legal_mask(s, cfg, i, out)``: the ``int8`` mask of the seat to act
    (``s.actor[i]``, ``-1`` once ``s.terminal[i]``), zeros when over; ``play(s, cfg, i,
    action)``: ``Game.play_legal`` (the action is known legal); ``final_ranks(s, cfg, i, out)``
    and ``final_scores(s, cfg, i, out)``: ``Game.final_ranks()`` / ``final_scores()``.
``encode.py`` (``@njit``)
    ``encode(s, cfg, i, seat, out)``: exactly ``observation.encode(game.view(seat))`` (same
    secrecy); ``features(obs, num_players, out)``: exactly the game's per-action features of
    ``loco_envs.<game>.features`` for rows of observations.
``bots.py`` (``@njit``)
    one function per scripted bot, ``<bot>(s, cfg, i, mask, rng_state) -> action``: exactly the
    Python bot's ``act(view, mask, rng)`` when ``rng_state`` holds ``rng``'s state, reading only
    what the seat to act may see. Kind 0 is the random bot in every game
    (:func:`loco_envs.compiled.rng.random_legal`), which the vector kernel draws without the
    state.

A function that takes the state and allocates nothing is decorated :data:`no_refcount`, or
:data:`no_refcount_inline` when it runs at every decision (``play``, ``legal_mask``, ``encode``
and what they call).

:mod:`loco_envs.compiled.rng` is numpy's ``default_rng`` (SeedSequence + PCG64) draw for draw,
over a ``uint64`` array per game: the one generator both engines use.
"""

import hashlib
import os
from pathlib import Path

import numba

#: The games with a compiled engine, and its package: ``make_vec``'s default engine for them,
#: and what tournaments, evaluation and training play on.
ENGINES = {"loco_v0": "loco_envs.loco.compiled", "moco_v0": "loco_envs.moco.compiled",
           "momo_v0": "loco_envs.momo.compiled", "mampfos_v0": "loco_envs.mampfos.compiled"}


def _cache_dir() -> str:
    """Where numba keeps the compiled engines: a folder per version of their sources.

    numba checks a cached function against its own file only, not the files of the functions
    it calls (a kernel calls an engine in another file), so a changed engine could run stale
    machine code. Keyed by a digest of every compiled source, the folder is new whenever any
    of them changes. It lives in the user's cache (``NUMBA_CACHE_DIR`` if set, else
    ``$XDG_CACHE_HOME`` or ``~/.cache``), never beside an installed package.
    """
    root = Path(__file__).resolve().parent.parent
    sources = sorted([*root.glob("compiled/*.py"), *root.glob("*/compiled/*.py")])
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "loco_envs", "numba")
    return os.path.join(base, digest.hexdigest()[:16])


#: Spins of an OpenMP thread waiting for work before it sleeps (``GOMP_SPINCOUNT``): enough to
#: bridge the gap between two of the trainer's torch operations, too few to keep a core from
#: another process for long.
SPIN_COUNT = 1000


def _configure_numba() -> None:
    """The compiled engines' cache folder, and threads that spin briefly, then sleep.

    OpenMP threads (numba's, and torch's, which read the same settings) by default spin for
    a long while between parallel calls. On a machine whose cores are busy with other work that
    collapses: a vector step on 2 threads ran 6x slower than on one (37k decisions/s against
    237k), and LOCO's training to 3.1k learner decisions/s against 9.9k. Threads that sleep
    at once (``OMP_WAIT_POLICY=passive``) do not collapse, but then each of the trainer's torch
    operations waits for a thread to wake: on an idle 2-core machine ``loco_quick`` trained at
    14.8k learner decisions/s that way and at 17.7k with :data:`SPIN_COUNT` spins, which cost
    it a tenth beside a busy process (9.0k; ``docs/performance.md``). So ``GOMP_SPINCOUNT``
    is set unless the user set it or a wait policy (``OMP_WAIT_POLICY``); it is set whichever
    threading layer numba uses, for torch's threads. The OpenMP library reads it once, when
    it loads: import ``loco_envs`` before ``torch``.
    """
    numba.config.CACHE_DIR = _cache_dir()
    if not {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"} & os.environ.keys():
        os.environ["GOMP_SPINCOUNT"] = str(SPIN_COUNT)

_configure_numba()



#: The decorator of a compiled function that takes a batch state and allocates nothing.
#: numba counts references to every array a function holds, and a function that takes a batch
#: state (a ``NamedTuple`` of some 20 to 40 arrays) increments and decrements each of them at
#: every call unless it can prove the pairs away, which it mostly cannot across branches. These
#: functions allocate nothing (the state belongs to the caller), so they are compiled without
#: reference counting: LOCO's random bot took 1,272 ns a decision with it and 278 without, its
#: encoder 1,171 and 368 (``loco_envs/compiled/kernels.py`` calls them for every decision).
#: numba types a callee with its caller's flags, so nothing such a function calls may allocate
#: (``np.empty``, ``np.zeros``): those keep plain ``njit``.
no_refcount = numba.njit(cache=True, _nrt=False)

#: :data:`no_refcount`, and LLVM inlines the function into its callers: for the functions of
#: every decision (a game's ``play``, ``legal_mask`` and ``encode``, what they call, the
#: kernels' steps). A call passes the batch state as a few scalars per array (some 300 for
#: LOCO's 38 arrays), about 75 ns a call on the 2-core machine, more than some of the rules it
#: calls: inlining them took a LOCO decision from 1,044 ns to 423 (random play, observations
#: written; the random bot's scan of :func:`~loco_envs.compiled.rng.random_legal` too).
no_refcount_inline = numba.njit(cache=True, _nrt=False, forceinline=True)
