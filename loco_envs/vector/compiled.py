"""``CompiledBatch``: a vector env's games on a compiled engine, stepped on numba threads.

The games live in the engine's state arrays (``loco_envs/<game>/compiled/state.py``), and one
kernel call (:mod:`loco_envs.compiled.kernels`) plays a decision in every game, writes the
rewards and results of the games that end, starts their next episodes, and writes the
observations and masks: no Python object a game. Bots with a compiled twin (the bots module's
``KINDS``: ``random`` and the game's scripted bots) choose inside the kernel; any other bot acts
from a Python view, as with the Python engine. A game's moves are logged in arrays, so that
:meth:`CompiledBatch.env` can replay its episode on the Python engine (the same game, by the
differential contract) and hand out a raw env with its record and PettingZoo bookkeeping.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from loco_envs.compiled import rng as R
from loco_envs.compiled.kernels import (
    VectorIO,
    _step_one,
    bot_act,
    bot_actions,
    reset_games,
    step_games,
    write_decisions,
)
from loco_envs.core.registry import raw_env_class
from loco_envs.core.threads import available_cores
from loco_envs.vector.batch import Buffers

__all__ = ["CompiledBatch", "compiled_package", "default_threads", "kind_of"]

#: Moves logged per game before the logs grow (they double when full).
_LOG_START = 256


def compiled_package(env_id: str) -> str | None:
    """The compiled engine package of ``env_id`` (``loco_envs.loco.compiled``), or ``None``
    when the game has none (:data:`loco_envs.compiled.ENGINES` lists those that do)."""
    from loco_envs.compiled import ENGINES

    return ENGINES.get(env_id)


def kind_of(bot: Any, kinds: dict[str, int]) -> int:
    """The compiled twin of ``bot`` in ``kinds`` (a compiled bots module's ``KINDS``: spec ->
    kind): the bot ``agents.make`` builds for that spec, same class and name; -1 for any other
    bot (it plays from a Python view)."""
    from loco_envs import agents

    name = getattr(bot, "name", None)
    if name not in kinds or not _same_class(type(bot), type(agents.make(name))):
        return -1
    return kinds[name]


def _same_class(found: type, twin: type) -> bool:
    """Whether ``found`` is ``twin``, possibly loaded a second time under the clone's short name.

    In a clone, ``import agents`` (README, "Install") loads ``agents/`` as the module ``agents``
    beside the installed ``loco_envs.agents``: the same source, two class objects. An identity
    test would play such a ``RandomBot`` from Python, tens of times slower."""
    def short(module: str) -> str:
        return module.removeprefix("loco_envs.")

    return found is twin or (found.__qualname__ == twin.__qualname__
                             and short(found.__module__) == short(twin.__module__))


def default_threads() -> int:
    """The cores this process may use (its CPU affinity), at most numba's thread pool."""
    return max(1, min(available_cores(), numba.config.NUMBA_NUM_THREADS))


class CompiledBatch:
    """All games of a vector env on ``env_id``'s compiled engine (see the module docstring)."""

    def __init__(self, env_id: str, options: dict[str, Any], num_envs: int, buffers: Buffers,
                 bots: Sequence[Any] = (), autoreset: bool = True, num_threads: int = 1):
        package = compiled_package(env_id)
        if package is None:
            raise ValueError(f"engine='compiled': {env_id} has no compiled engine; use "
                             f"engine='python'")
        self.state_module = importlib.import_module(f"{package}.state")
        self.bots_module = importlib.import_module(f"{package}.bots")
        self.env_id, self.options = env_id, dict(options)
        self.env_class = raw_env_class(env_id)
        probe = self.env_class(**options)
        self.game_options = probe.game_options()
        self.max_decisions = int(probe.options["max_decisions"] or 0)
        self.score_reward = probe.options["reward"] == "score"
        self.cfg = self.state_module.config(self.game_options)
        self.state = self.state_module.allocate(num_envs, self.cfg)
        self.autoreset = autoreset
        self.num_threads = num_threads
        self.bot_objects = list(bots)
        kinds = [self.twin_kind(bot) for bot in self.bot_objects]
        self.python_bots = [k < 0 for k in kinds]
        b = self.buf = buffers
        n = num_envs
        self.io = VectorIO(
            b.actions, b.bots, np.array(kinds, np.int64),
            np.zeros((n, R.STATE_WORDS), np.uint64), np.zeros((n, R.STATE_WORDS), np.uint64),
            b.observed, b.obs, b.masks, b.seats, b.rewards, b.terminations, b.truncations,
            b.scores, b.ranks, b.lengths, b.episode_seeds, np.zeros(n, np.int64),
            np.zeros((n, _LOG_START), np.int8), np.zeros((n, _LOG_START), np.int16))
        self.lent: dict[int, Any] = {}  # games handed out by env() since the last step

    @property
    def num_envs(self) -> int:
        return self.io.actions.shape[0]

    # --- the batch interface of VectorGameEnv ---------------------------------------------------
    def reset(self, seeds: Sequence[int]) -> None:
        self.lent.clear()
        numba.set_num_threads(self.num_threads)
        reset_games(self.state, self.cfg, self.io, np.asarray(seeds, np.int64))

    def step(self) -> None:
        if self.io.decisions.max(initial=0) + 1 >= self.io.log_actions.shape[1]:
            self._grow_logs()
        if any(self.python_bots):
            self._python_bot_actions()
        numba.set_num_threads(self.num_threads)
        step_games(self.state, self.cfg, self.io, self.max_decisions, self.score_reward,
                   self.autoreset)

    def refresh_lent(self) -> None:
        """Games handed out by :meth:`env` go back into their rows, as their callers left
        them, and their seats, observations and masks are written afresh."""
        lent, self.lent = self.lent, {}
        io = self.io
        for j, env in sorted(lent.items()):
            self.state_module.write_game(self.state, j, env.game)
            moves = len(env._move_actions)  # noqa: SLF001 - the env's own record of its moves
            while moves + 1 >= io.log_actions.shape[1]:
                self._grow_logs()
                io = self.io
            io.log_seats[j, :moves] = env._move_seats  # noqa: SLF001
            io.log_actions[j, :moves] = env._move_actions  # noqa: SLF001
            io.decisions[j] = moves
            io.episode_seeds[j] = env.record_lines()[0]["seed"]
            if env.over:
                io.seats[j] = -1
                io.masks[j] = 0
            else:
                write_decisions(self.state, self.cfg, io, np.array([j], np.int64))

    def view(self, index: int, seat: int) -> Any:
        """``view(seat)`` of game ``index`` (a Python game is built from its row)."""
        return self.state_module.read_game(self.state, index, self.game_options).view(seat)

    def env(self, index: int) -> Any:
        """Game ``index``'s episode replayed on the Python engine: a raw env with its record.

        The replay is exact by the differential contract. The caller may step or reset it;
        :meth:`refresh_lent` then puts it back into the row before the next step.
        """
        if index in self.lent:  # handed out already this step: the caller may have moved it
            env = self.lent[index]
            env.sync()
            return env
        io = self.io
        env = self.env_class(**self.options)
        env.reset(seed=int(io.episode_seeds[index]))
        moves = int(io.decisions[index])
        for seat, action in zip(io.log_seats[index, :moves].tolist(),
                                io.log_actions[index, :moves].tolist(), strict=True):
            if env.game.current_seat != seat:
                raise RuntimeError(f"game {index}: the replay left the compiled game (seat "
                                   f"{env.game.current_seat} to act, the log says {seat})")
            env.step_unsynced(action)
        env.sync()
        self.lent[index] = env
        return env

    def bot_actions(self, bot: Any, rows: np.ndarray, rng_states: np.ndarray
                    ) -> np.ndarray | None:
        """``bot``'s actions in games ``rows`` (for their seats to act) from its compiled
        twin, drawing from ``rng_states`` (advanced in place); ``None`` if it has none."""
        kind = self.twin_kind(bot)
        if kind < 0:
            return None
        rows = np.ascontiguousarray(rows, np.int64)
        if rng_states.shape != (rows.size, R.STATE_WORDS) or rng_states.dtype != np.uint64:
            raise ValueError(f"rng_states must be a ({rows.size}, {R.STATE_WORDS}) uint64 array")
        if rows.size and (self.io.seats[rows] < 0).any():
            raise ValueError("bot_actions: a game in rows is over")
        out = np.zeros(rows.size, np.int64)
        numba.set_num_threads(self.num_threads)
        bot_actions(self.state, self.cfg, kind, rows, self.io.masks, rng_states, out)
        return out

    def twin_kind(self, bot: Any) -> int:
        """``bot``'s compiled twin, if it plays exactly like it with these options (a bots
        module's ``exact_twin(cfg, kind)`` may say no: a bot that remembers between calls,
        shared by many games in Python, has a twin with one memory a game); -1 if none."""
        kind = kind_of(bot, self.bots_module.KINDS)
        exact = getattr(self.bots_module, "exact_twin", None)
        return kind if kind < 0 or exact is None or exact(self.cfg, kind) else -1

    def play_out(self, kinds: np.ndarray, slots: np.ndarray, words: np.ndarray) -> None:
        """Play every live game to its end on compiled twins, each game on one thread from
        start to end (no round of Python between two decisions): seat ``s`` of game ``i`` is
        twin ``kinds[i, s]`` (:meth:`twin_kind`) drawing from ``words[slots[i, s]]`` (state
        words of :mod:`loco_envs.compiled.rng`, advanced in place). A game's moves are those
        of :meth:`bot_actions` and :meth:`step` round by round, game for game, so its
        generators may be shared by its own seats but by no other game. Needs autoreset off;
        observations are written where ``observed`` asks (the buffers' flags)."""
        if self.autoreset:
            raise ValueError("play_out needs autoreset off (the games would never end)")
        n, p = self.num_envs, self.buf.rewards.shape[1]
        kinds = np.ascontiguousarray(kinds, np.int64)
        slots = np.ascontiguousarray(slots, np.int64)
        if kinds.shape != (n, p) or slots.shape != (n, p):
            raise ValueError(f"kinds and slots must be ({n}, {p}) arrays")
        live = self.io.seats >= 0
        if (kinds[live] < 0).any():
            raise ValueError("play_out: a seat of a live game has no compiled twin")
        if words.dtype != np.uint64 or words.ndim != 2 or words.shape[1] != R.STATE_WORDS:
            raise ValueError(f"words must be a (K, {R.STATE_WORDS}) uint64 array")
        if slots.size and (slots.min() < 0 or slots.max() >= words.shape[0]):
            raise ValueError(f"slots must index words (0..{words.shape[0] - 1})")
        held = slots[live].ravel()  # each generator in one game at most
        game = np.repeat(np.flatnonzero(live), p)
        order = np.lexsort((game, held))
        held, game = held[order], game[order]
        shared = (held[1:] == held[:-1]) & (game[1:] != game[:-1])
        if shared.any():
            raise ValueError(f"play_out: games {int(game[1:][shared][0])} and "
                             f"{int(game[:-1][shared][0])} share a generator")
        self.refresh_lent()
        self.io.bots[:] = -1
        numba.set_num_threads(self.num_threads)
        while True:
            io = self.io
            live = np.flatnonzero(io.seats >= 0)
            if live.size == 0:
                return
            if io.decisions[live].max() + 1 >= io.log_actions.shape[1]:
                self._grow_logs()
                io = self.io
            before = int(io.decisions[live].sum())
            _play_out(self.state, self.cfg, io, kinds, slots, words, self.max_decisions,
                      self.score_reward)
            if int(io.decisions[live].sum()) == before:
                raise RuntimeError("play_out: a compiled twin chose no action (a bot bug)")

    # --- internals --------------------------------------------------------------------------------
    def _grow_logs(self) -> None:
        io = self.io
        size = 2 * io.log_actions.shape[1]
        seats = np.zeros((self.num_envs, size), np.int8)
        actions = np.zeros((self.num_envs, size), np.int16)
        seats[:, :io.log_seats.shape[1]] = io.log_seats
        actions[:, :io.log_actions.shape[1]] = io.log_actions
        self.io = io._replace(log_seats=seats, log_actions=actions)

    def _python_bot_actions(self) -> None:
        """Bots without a compiled twin act from a Python view, with the game's bot
        generator (its state goes back into the array); the kernel then plays their actions.
        An action the mask does not allow raises the engine's ``IllegalActionError`` naming
        the rule it breaks, before any game moves."""
        io = self.io
        chosen = {}
        for i in np.flatnonzero(io.bots >= 0).tolist():
            k = int(io.bots[i])
            if not self.python_bots[k]:
                continue
            bot, seat = self.bot_objects[k], int(io.seats[i])
            rng = R.to_generator(io.bot_rngs[i])
            view = self.view(i, seat) if getattr(bot, "reads_view", True) else None
            action = int(bot.act(view, io.masks[i], rng))
            if not (0 <= action < io.masks.shape[1] and io.masks[i, action]):
                # the Python engine names the rule the action breaks (a bot bug); the copy
                # raises it, the row stays as it was
                self.state_module.read_game(self.state, i, self.game_options).apply(action)
            chosen[i] = (action, rng)
        for i, (action, rng) in chosen.items():
            R.from_generator(rng, io.bot_rngs[i])
            io.actions[i] = action
            io.bots[i] = -1


@njit(cache=True)
def _play_game(s, cfg, io: VectorIO, i: int, kinds: np.ndarray, slots: np.ndarray,
               words: np.ndarray, max_decisions: int, score_reward: bool) -> None:
    """Game ``i`` played on by its seats' twins until it ends or its move log is full; each
    decision is the kernels' ``bot_actions`` then ``step_games`` for this game."""
    width = io.log_actions.shape[1]
    while io.seats[i] >= 0 and io.decisions[i] + 1 < width:
        seat = io.seats[i]
        action = bot_act(s, cfg, kinds[i, seat], i, io.masks[i], words[slots[i, seat]])
        if action < 0:  # a twin with no move: play_out says so
            return
        io.actions[i] = action
        _step_one(s, cfg, io, i, max_decisions, score_reward, False)


@njit(cache=True, parallel=True)
def _play_out(s, cfg, io: VectorIO, kinds: np.ndarray, slots: np.ndarray, words: np.ndarray,
              max_decisions: int, score_reward: bool) -> None:
    """Every live game played on (:meth:`CompiledBatch.play_out`), one game a thread."""
    for i in prange(io.seats.shape[0]):
        _play_game(s, cfg, io, i, kinds, slots, words, max_decisions, score_reward)


