"""Vector envs: N games of one env id stepped in one call, with preallocated arrays.

>>> import loco_envs, numpy as np
>>> vec = loco_envs.make_vec("loco_v0", 64, num_players=2, max_decisions=5000)
>>> obs, infos = vec.reset(seed=0)
>>> rng = np.random.default_rng(0)
>>> actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.masks])
>>> obs, rewards, terminations, truncations, infos = vec.step(actions)
>>> vec.close()

``make_vec(env_id, num_envs, **options)`` takes every option of :func:`loco_envs.make` (each
game is that raw env) plus ``engine``, ``num_threads``, ``backend``, ``num_workers``, ``bots``
and ``autoreset_mode``:

======================  ======================================================================
argument                meaning
======================  ======================================================================
``engine``              ``"compiled"``: the game's numba engine (:mod:`loco_envs.compiled`),
                        every game's state in arrays, one call of a compiled kernel a step
                        for all games (the default where the game has one: ``loco_v0``).
                        ``"python"``: each game a raw env of the rules engine (the default
                        for the other games). The same seeds give the same games either way.
``num_threads``         ``engine="compiled"``: the threads that share the games (default:
                        every core this process may use). Each game is stepped by one thread
                        with its own generators, so the results are the same for any count.
``backend``             ``"serial"``: every game in this process (the default).
                        ``"shared_memory"`` (``engine="python"`` only): the games are cut
                        into ``num_workers`` contiguous slices (default: one per core); this
                        process steps the first itself, one worker process each of the
                        others, all writing into the same arrays, which live in
                        ``multiprocessing.shared_memory``.
``bots``                objects with the bot protocol (``act(view, action_mask, rng)``) that may
                        choose a game's action inside the env (``step(actions, bots)``). On
                        the compiled engine the suite's scripted bots and ``random`` choose
                        on their compiled twins, inside the kernel; any other bot acts from a
                        Python view of its game.
``autoreset_mode``      ``"SameStep"`` (default) or ``"Disabled"`` (Gymnasium's
                        ``AutoresetMode``; ``NextStep`` is not offered, see below).
======================  ======================================================================

Arrays, all written in place by every call (the same objects each time; copy what you keep):

- ``obs`` ``(N, D) float32``: game ``i``'s observation **for its seat to act**, encoded from
  that seat's view only (the game's ``encode(seat)``, the vector ``observe`` gives); the
  ``observed`` array ``(N, P) bool`` (all True unless set) can switch it off for seats that a
  bot plays from its view, which saves the encoding (their ``obs`` row is then left as it was,
  except at an episode's first decision, which is always encoded);
- ``masks`` ``(N, A) int8``, a read-only view: that seat's legal actions (``step`` checks the
  actions against it, all games in one numpy call, and the engine then plays them without a
  check of its own: ``Game.play_legal``); ``seats`` ``(N,)``: the seat to act;
- ``rewards`` ``(N, P) float32``: every seat's reward for the step (non-zero only at a real end:
  the env's ``rank`` or ``score`` reward; a truncation pays 0); ``terminations`` and
  ``truncations`` ``(N,) bool`` (truncation: the ``max_decisions`` option of every game);
- infos: ``seat``, and for the games that ended this step ``score`` ``(N, P)`` (the final
  scores, or the scores so far of a truncated game), ``rank`` ``(N, P)`` (terminated games) and
  ``length`` (decisions in the game), each with Gymnasium's ``_<key>`` mask of valid entries.

Games one at a time: ``view(i, seat)`` (a seat's view of game ``i``), ``game_env(i)`` (its raw
env with its record; on the compiled engine, the episode replayed on the Python engine) and
``bot_actions(bot, rows, rng_states)`` (a scripted bot's actions in many games at once on its
compiled twin, drawing from the generators the caller passes: the tournaments' loop).

Seeds. ``reset(seed=s)`` gives game ``i`` the first episode seed
:func:`~loco_envs.vector.batch.first_seeds` ``(s, N)[i]`` (derived from ``[s, i]``, whatever
``N``); ``reset(seed=[s_0, ..., s_{N-1}])`` gives them directly. A game's later episodes are
seeded from ``numpy.random.default_rng(first seed)`` (:func:`~loco_envs.vector.batch.next_seed`),
and its bots draw from ``default_rng([first seed, 1])``. So game ``i`` is exactly the single env
reset with those seeds and given the same actions: ``tests/vector`` compares them move by move.

Autoreset: ``SameStep``. When game ``i`` ends (terminated or truncated) in a step, that step's
``rewards[i]``, ``terminations[i]``/``truncations[i]`` and ``score``/``rank``/``length`` belong
to the game that ended, and ``obs[i]``, ``masks[i]``, ``seats[i]`` already to the first decision
of the next game (no final observation is returned: at the end of a turn-based game no seat is
to act). With ``Disabled``, a finished game keeps ``seats[i] == -1`` and an all-zero mask until
the next ``reset``, and stepping it is an error.

Where it departs from Gymnasium's ``VectorEnv`` (which it subclasses) because the games are
multi-agent and turn-based:

- one action per game, for the seat to act (``seats``), not one per agent; ``actions[i] = -1``
  skips game ``i`` for this step (it keeps its pending decision, reward 0): self-play steps only
  the games where an opponent is to act while the learner waits;
- ``step(actions, bots)``: ``bots[i] = k`` lets ``bots[k]`` choose game ``i``'s action;
- rewards are per seat, ``(N, P)``; there is no final observation (see autoreset);
- an illegal action raises ``ValueError`` naming the game, before any game moves (nothing is
  half applied), instead of PettingZoo's illegal-move termination;
- no rendering, and reset takes no options.
"""

from __future__ import annotations

from typing import Any

from loco_envs.vector.batch import first_seeds, next_seed
from loco_envs.vector.env import BACKENDS, ENGINES, VectorGameEnv

__all__ = ["BACKENDS", "ENGINES", "VectorGameEnv", "first_seeds", "make_vec", "next_seed"]


def make_vec(env_id: str, num_envs: int, **options: Any) -> VectorGameEnv:
    """``num_envs`` games of ``env_id`` (see the module docstring for the arguments)."""
    return VectorGameEnv(env_id, num_envs, **options)
