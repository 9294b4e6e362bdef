"""``VectorGameEnv``: N games of one env id stepped in one call, in one process or in slices
over processes sharing memory.

See :mod:`loco_envs.vector` for the API and where it departs from Gymnasium's ``VectorEnv``.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
from collections.abc import Sequence
from multiprocessing import shared_memory
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from loco_envs.core.registry import raw_env_class
from loco_envs.core.threads import set_threads
from loco_envs.vector.batch import Buffers, GameBatch, buffer_layout, first_seeds
from loco_envs.vector.compiled import CompiledBatch, compiled_package, default_threads

__all__ = ["BACKENDS", "ENGINES", "VectorGameEnv"]

BACKENDS = ("serial", "shared_memory")
ENGINES = ("compiled", "python")
_AUTORESET_MODES = (AutoresetMode.SAME_STEP, AutoresetMode.DISABLED)


class VectorGameEnv(VectorEnv):
    """N games of ``env_id`` (see :mod:`loco_envs.vector`); build it with ``make_vec``."""

    def __init__(self, env_id: str, num_envs: int, *, engine: str | None = None,
                 num_threads: int | None = None, backend: str = "serial",
                 num_workers: int | None = None, bots: Sequence[Any] = (),
                 autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 **options: Any):
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
        self.engine = _engine(env_id, engine, backend)
        self.num_threads = _threads(num_threads, self.engine)
        mode = AutoresetMode(autoreset_mode) if isinstance(autoreset_mode, str) else autoreset_mode
        if mode not in _AUTORESET_MODES:
            raise ValueError(f"autoreset_mode must be one of {[m.value for m in _AUTORESET_MODES]}"
                             f", got {autoreset_mode!r}")
        probe = raw_env_class(env_id)(**options)  # ValueError naming a bad option
        if probe.render_mode is not None:
            raise ValueError("option 'render_mode': vector envs do not render; use make()")
        self.env_id = env_id
        self.options = dict(options)
        self.num_envs = num_envs
        self.num_players = probe.num_players
        self.possible_agents = list(probe.possible_agents)
        self.backend = backend
        self.metadata = {"autoreset_mode": mode}
        obs_space = probe.observation_space(probe.possible_agents[0])
        self.single_observation_space = obs_space["observation"]
        self.single_action_space = probe.action_space(probe.possible_agents[0])
        self.observation_space = spaces.Box(
            np.broadcast_to(self.single_observation_space.low, (num_envs, obs_space["observation"]
                                                                .shape[0])),
            np.broadcast_to(self.single_observation_space.high,
                            (num_envs, obs_space["observation"].shape[0])),
            dtype=np.float32)
        self.action_space = spaces.MultiDiscrete(
            np.full(num_envs, self.single_action_space.n))
        self.bots = list(bots)
        self._layout = buffer_layout(num_envs, self.single_observation_space.shape[0],
                                     int(self.single_action_space.n), self.num_players)
        self._shm: shared_memory.SharedMemory | None = None
        self._workers: list[_Worker] = []  # shared memory: the other processes' slices
        self._local: GameBatch | None = None  # shared memory: the first slice, stepped here
        self._closed = False
        autoreset = mode == AutoresetMode.SAME_STEP
        if backend == "serial":
            self.buf = Buffers(**{name: np.zeros(shape, dtype)
                                  for name, (shape, dtype) in self._layout.items()})
            self._batch: GameBatch | CompiledBatch | None
            if self.engine == "compiled":
                self._batch = CompiledBatch(env_id, self.options, num_envs, self.buf, self.bots,
                                            autoreset, self.num_threads)
            else:
                self._batch = GameBatch(env_id, self.options, 0, num_envs, self.buf, self.bots,
                                        autoreset)
        else:
            self._batch = None
            self.buf = self._start_workers(num_workers, autoreset)
        self.buf.actions[:] = -1
        self.buf.bots[:] = -1
        self.buf.observed[:] = True
        self._reset_done = False

    # --- the arrays (written in place by every call) ---------------------------------------
    @property
    def obs(self) -> np.ndarray:
        """``(N, D) float32``: each game's observation for its seat to act."""
        return self.buf.obs

    @property
    def masks(self) -> np.ndarray:
        """``(N, A) int8``, read-only: the legal actions of each game's seat to act.

        ``step`` checks the actions against these and the engines then play them without a
        check of their own, so the view cannot be written (copy it to edit a mask).
        """
        view = self.buf.masks.view()
        view.flags.writeable = False
        return view

    @property
    def observed(self) -> np.ndarray:
        """``(N, P) bool``, all True by default: set ``observed[i, s] = False`` and game ``i``'s
        ``obs`` row is not written when seat ``s`` is to act (a bot that reads views plays it).
        """
        return self.buf.observed

    @property
    def seats(self) -> np.ndarray:
        """``(N,)``: the seat to act in each game (-1: a finished game, autoreset disabled)."""
        return self.buf.seats

    @property
    def rewards(self) -> np.ndarray:
        """``(N, P) float32``: every seat's reward in the last step."""
        return self.buf.rewards

    @property
    def terminations(self) -> np.ndarray:
        return self.buf.terminations

    @property
    def truncations(self) -> np.ndarray:
        return self.buf.truncations

    # --- Gymnasium API -----------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game: ``seed`` is one seed (each game's derived from it) or one per game."""
        if options:
            raise ValueError(f"reset options are not supported by vector envs, got {options!r}")
        if self._closed:
            raise RuntimeError("the vector env is closed")
        seeds = self._seeds(seed)
        if self._batch is not None:
            self._batch.reset(seeds)
        else:
            self.buf.episode_seeds[:] = seeds
            self._command("reset")
        self._reset_done = True
        return self.buf.obs, self._infos()

    def step(self, actions: Any, bots: Any = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision per game: ``actions[i]`` (``-1``: skip game ``i``) or bot ``bots[i]``."""
        if self._closed:
            raise RuntimeError("the vector env is closed")
        if not self._reset_done:
            raise RuntimeError("call reset() before step()")
        b = self.buf
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {acts.shape} "
                             f"of {acts.dtype}")
        chosen = np.full(self.num_envs, -1, np.int64) if bots is None else np.asarray(bots)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"bots must be {self.num_envs} integers, got shape {chosen.shape}")
        if ((chosen < -1) | (chosen >= len(self.bots))).any():
            raise ValueError(f"bots entries must be -1 or a bot index below {len(self.bots)}")
        if self._batch is not None:
            self._batch.refresh_lent()  # games changed through game_env(): masks from them
        self._check_actions(acts, chosen)
        b.actions[:] = acts
        b.bots[:] = chosen
        if self._batch is not None:
            self._batch.step()
        else:
            self._command("step")
        return b.obs, b.rewards, b.terminations, b.truncations, self._infos()

    def close(self, **kwargs: Any) -> None:
        if self._closed:
            return
        self._closed = True
        self._free_workers(keep_arrays=True)

    def _free_workers(self, keep_arrays: bool = False) -> None:
        """Stop the workers and give the shared memory back: its name at once, its pages once
        no array views them (a caller may still hold the ``obs`` a step returned). With
        ``keep_arrays`` the env's arrays are copied out first, so they stay readable."""
        try:
            while self._workers:
                self._workers.pop().stop()
        finally:  # even if interrupted: the memory is not left behind
            self._local = None
            if self._shm is not None:
                if keep_arrays:
                    self.buf = Buffers(**{name: np.array(getattr(self.buf, name))
                                          for name in self._layout})
                _release(self._shm)
                self._shm.unlink()
                self._shm = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # --- the suite's extras --------------------------------------------------------------------
    @property
    def worker_pids(self) -> list[int]:
        """The process ids of the shared-memory workers (none for ``serial``, and none for
        the first slice, which the calling process steps itself), e.g. to count their CPU."""
        return [worker.proc.pid for worker in self._workers]

    def view(self, index: int, seat: int) -> Any:
        """``view(seat)`` of game ``index`` (in-process backend only: the games live here)."""
        if self._batch is None:
            raise ValueError("view() needs backend='serial': shared-memory games live in "
                             "slices, mostly in other processes")
        return self._batch.view(index, seat)  # the rules state: always up to date

    def bot_actions(self, bot: Any, rows: Any, rng_states: np.ndarray) -> np.ndarray | None:
        """``bot``'s actions in games ``rows`` (each for its seat to act) played by its
        compiled twin, or ``None`` when there is none (the Python engine, or a bot that is not
        one of the engine's ``KINDS``): the caller then asks ``bot.act`` game by game.

        ``rng_states`` ``(len(rows), 6) uint64``: each game's generator for the bot
        (:func:`loco_envs.compiled.rng.from_generator`), advanced in place exactly as
        ``bot.act`` would advance it. The loops of tournaments and imitation use this to run
        scripted bots at engine speed.
        """
        if not isinstance(self._batch, CompiledBatch):
            return None
        return self._batch.bot_actions(bot, np.asarray(rows), rng_states)

    def game_env(self, index: int) -> Any:
        """The raw env of game ``index`` (in-process backend only), e.g. for its record.

        The batch steps its games' rules engines directly; this brings the env's PettingZoo
        bookkeeping (``agent_selection``, rewards, ``last()``) up to date before handing it out.
        With the compiled engine the env is the game's episode replayed on the Python engine
        (the same game: the engines are held equal by the differential tests), record included.
        A caller that steps or resets it changes the game: the next ``step`` rewrites that
        game's observation, mask and seat from it first, and checks the action against them.
        """
        if self._batch is None:
            raise ValueError("game_env() needs backend='serial'")
        return self._batch.env(index)

    # --- internals -----------------------------------------------------------------------------
    def _seeds(self, seed: int | Sequence[int] | None) -> list[int]:
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            if seed < 0:
                raise ValueError(f"seed must be >= 0, got {seed}")
            return first_seeds(int(seed), self.num_envs)
        seeds = list(seed)
        if len(seeds) != self.num_envs or any(
                isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0
                for s in seeds):
            raise ValueError(f"seed must be an integer >= 0 or {self.num_envs} of them, "
                             f"got {seed!r}")
        return [int(s) for s in seeds]

    def _check_actions(self, acts: np.ndarray, chosen: np.ndarray) -> None:
        """``ValueError`` naming the first game asked for an action it may not take."""
        b = self.buf
        mine = np.flatnonzero((acts >= 0) & (chosen < 0))
        moving = np.flatnonzero((acts >= 0) | (chosen >= 0))
        if (acts < -1).any() or (acts >= b.masks.shape[1]).any():
            bad = int(np.flatnonzero((acts < -1) | (acts >= b.masks.shape[1]))[0])
            raise ValueError(f"game {bad}: action {int(acts[bad])} is out of range "
                             f"0..{b.masks.shape[1] - 1} (or -1 to skip)")
        idle = moving[b.seats[moving] < 0]
        if idle.size:
            raise ValueError(f"game {int(idle[0])} is over (autoreset disabled): reset() first")
        illegal = mine[b.masks[mine, acts[mine]] == 0]
        if illegal.size:
            i = int(illegal[0])
            raise ValueError(f"game {i}: action {int(acts[i])} is not legal for seat "
                             f"{int(b.seats[i])} now (see masks[{i}])")

    def _infos(self) -> dict[str, Any]:
        """Gymnasium-style infos: arrays, with ``_<key>`` saying where each entry holds."""
        b = self.buf
        ended = b.terminations | b.truncations
        return {"seat": b.seats, "score": b.scores, "_score": ended, "rank": b.ranks,
                "_rank": b.terminations, "length": b.lengths, "_length": ended}

    def _start_workers(self, num_workers: int | None, autoreset: bool) -> Buffers:
        workers = num_workers or os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"num_workers must be a positive integer, got {num_workers!r}")
        workers = min(workers, self.num_envs)
        sizes = {name: int(np.prod(shape)) * np.dtype(dtype).itemsize
                 for name, (shape, dtype) in self._layout.items()}
        self._shm = shared_memory.SharedMemory(create=True, size=sum(sizes.values()))
        buf = _views(self._shm, self._layout)
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        bounds = np.linspace(0, self.num_envs, workers + 1).astype(int).tolist()
        try:
            self._local = GameBatch(self.env_id, self.options, 0, bounds[1],
                                    buf.rows(0, bounds[1]), self.bots, autoreset)
            for start, stop in zip(bounds[1:-1], bounds[2:], strict=True):
                self._workers.append(_Worker(ctx, (self._shm.name, self._layout, self.env_id,
                                                   self.options, start, stop, self.bots,
                                                   autoreset, workers)))
            self._command("ready")
        except BaseException:
            self._closed = True
            buf = None
            self._free_workers()
            raise
        return buf

    def _command(self, name: str) -> None:
        """Every slice runs command ``name``: the workers' while this process runs its own;
        ``RuntimeError`` with the messages of those that failed, raised once all have
        finished, so that every slice waits for the next command (a step that failed midway
        leaves its games half stepped: reset them)."""
        for worker in self._workers:
            worker.send(name)
        errors = []
        local = self._local
        try:
            if name == "reset":
                local.reset(self.buf.episode_seeds[:len(local.envs)].tolist())
            elif name == "step":
                local.step()
        except Exception as exc:  # noqa: BLE001 - raised below, as a worker's would be
            errors.append(f"games 0..{len(local.envs) - 1}: {exc!r}\n{traceback.format_exc()}")
        finally:  # an interrupt too waits for every worker (a second one leaves at once)
            errors += [message for worker in self._workers
                       if (message := worker.wait()) is not None]
        if errors:
            raise RuntimeError("vector env worker failed:\n" + "\n".join(errors))


def _engine(env_id: str, engine: str | None, backend: str) -> str:
    """The engine asked for, or the default: compiled where the game has one (in-process)."""
    if engine is None:
        return "compiled" if backend == "serial" and compiled_package(env_id) else "python"
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
    if engine == "compiled":
        if compiled_package(env_id) is None:
            raise ValueError(f"engine='compiled': {env_id} has no compiled engine yet; use "
                             f"engine='python'")
        if backend != "serial":
            raise ValueError(f"backend={backend!r} runs Python engines in worker processes; "
                             f"the compiled engine uses threads (num_threads) with "
                             f"backend='serial'")
    return engine


def _threads(num_threads: int | None, engine: str) -> int:
    if num_threads is None:
        return default_threads() if engine == "compiled" else 1
    if isinstance(num_threads, bool) or not isinstance(num_threads, int) or not (
            1 <= num_threads <= default_threads()):
        raise ValueError(f"num_threads must be an integer from 1 to {default_threads()} (the "
                         f"cores this process may use), got {num_threads!r}")
    if engine != "compiled":
        raise ValueError("num_threads is for engine='compiled' (the Python engine runs in "
                         "processes: backend='shared_memory', num_workers)")
    return num_threads


#: What a worker can be told to do; its index travels in shared memory.
_COMMANDS = ("ready", "reset", "step", "close")
#: Seconds a parent waits on a worker before checking that it is still alive.
_LIVENESS_SECONDS = 1.0


class _Worker:
    """One worker process and its channel: two semaphores and the command's index.

    Why semaphores. A command and its reply through a pipe (pickled, and a sleeping process
    woken by the write) cost about 100 µs here, a command through a semaphore and a shared
    integer 10-25 µs; self-play makes some 85 vector steps a rollout, and the games of a
    step are a millisecond of work per worker. The pipe stays for a failed command's message.
    The semaphores also order the memory: what the parent wrote before ``go`` (the actions,
    the command) the worker reads after it, and what the worker wrote before ``done`` (the
    games' arrays) the parent reads after it.
    """

    def __init__(self, ctx: Any, args: tuple) -> None:
        self.pending = False  # a command sent, its answer not yet all read
        self.answered = False  # its ``done`` taken (a message may still be owed)
        self.command = ctx.RawValue("i", 0)
        self.failed = ctx.RawValue("i", 0)
        self.go, self.done = ctx.Semaphore(0), ctx.Semaphore(0)
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_worker, daemon=True,
                                args=(child, self.go, self.done, self.command, self.failed,
                                      *args))
        self.proc.start()
        child.close()

    def send(self, name: str) -> None:
        if self.pending:  # the last command's wait was interrupted: finish it first
            self.wait()
        self.command.value = _COMMANDS.index(name)
        self.pending, self.answered = True, False
        self.go.release()

    def wait(self) -> str | None:
        """The command's error message, or ``None`` once it is done."""
        died = f"worker {self.proc.pid} died (exit code {{}})"
        if not self.answered:
            while not self.done.acquire(timeout=_LIVENESS_SECONDS):
                if not self.proc.is_alive():
                    self.pending = False
                    return died.format(self.proc.exitcode)
            self.answered = True
        message = None
        if self.failed.value:
            try:  # sent after ``done``: a message longer than the pipe's buffer cannot block
                message = self.conn.recv()
            except (EOFError, OSError):  # OSError: it died partway through the message
                message = died.format(self.proc.exitcode)
        self.pending = False
        return message

    def stop(self) -> None:
        """Ask the worker to close once its current command (if any) is done, then end it
        after 5 s: a worker stuck in a bot does not hold ``close`` up."""
        if self.proc.is_alive():
            self.command.value = _COMMANDS.index("close")  # read only after ``go``
            self.go.release()
            self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(timeout=1)
        self.conn.close()


def _views(shm: shared_memory.SharedMemory, layout: dict) -> Buffers:
    """The arrays of ``layout`` over ``shm``; each holds the buffer (``frombuffer``), so the
    pages stay mapped while any of them lives (see :func:`_release`)."""
    arrays, offset = {}, 0
    for name, (shape, dtype) in layout.items():
        count = int(np.prod(shape))
        arrays[name] = np.frombuffer(shm.buf, dtype, count, offset).reshape(shape)
        offset += count * np.dtype(dtype).itemsize
    return Buffers(**arrays)


def _release(shm: shared_memory.SharedMemory) -> None:
    """Unmap ``shm`` now if no array views it, else when the last one goes.

    ``close`` refuses (``BufferError``) while an array holds the buffer; the mapping then lives
    on in that buffer. The object's own ``close`` at garbage collection would raise the same
    error: it is told the memory is gone already.
    """
    try:
        shm.close()
    except BufferError:
        shm._buf = shm._mmap = None  # noqa: SLF001 - the views' buffer keeps the mapping
        shm.close()  # the file descriptor


def _die_with_parent() -> None:
    """Linux: a worker gets SIGTERM when the process that made it dies, even by SIGKILL."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGTERM))  # PDEATHSIG
    except (OSError, AttributeError):
        pass


def _worker(conn: Any, go: Any, done: Any, command: Any, failed: Any, shm_name: str,
            layout: dict, env_id: str, options: dict, start: int, stop: int,
            bots: Sequence[Any], autoreset: bool, processes: int) -> None:
    """A worker's loop: wait for ``go``, run the command, report it ``done``.

    An interrupt (Ctrl-C reaches the whole process group) is the parent's to handle: the
    worker finishes its command, and dies with the parent if the parent dies. Its BLAS (a
    ``ppo:`` opponent's forward passes) takes its share of the cores among the ``processes``
    stepping games, so the workers' thread pools do not spin against each other.
    """
    _die_with_parent()
    set_threads(None, processes)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    shm = shared_memory.SharedMemory(name=shm_name)
    rows = batch = None
    try:
        while True:
            go.acquire()
            name = _COMMANDS[command.value]
            if name == "close":
                break
            try:
                if name == "ready":
                    rows = _views(shm, layout).rows(start, stop)
                    batch = GameBatch(env_id, options, start, stop, rows, bots, autoreset)
                elif name == "reset":
                    batch.reset(rows.episode_seeds.tolist())
                else:
                    batch.step()
                failed.value = 0
                done.release()
            except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises
                failed.value = 1
                done.release()
                conn.send(f"games {start}..{stop - 1}: {exc!r}\n{traceback.format_exc()}")
    finally:
        rows = batch = None
        _release(shm)
