"""Many scheduled games at once: the batched path of tournaments (and so of evaluation).

:func:`play_tasks` plays the runner's game tasks (those of :func:`benchmarks.tournament.play`:
env id, spec per seat, deal seed, game index, options, record path, cap) in chunks of up to
:data:`BATCH` games, each chunk in one in-process vector env (autoreset off, every game from
its own deal seed) played by the suite's one batched loop (:func:`loco_envs.vector.play.play`),
the chunks spread over ``workers`` processes. When every player of a chunk has a compiled twin
(scripted bots on a game with a compiled engine), each game is played from its deal to its end
on one numba thread (``CompiledBatch.play_out``): no round of Python between two decisions, so
the chunk costs its decisions, not its longest game's rounds. Otherwise, each decision round,
every ``ppo:`` agent decides for all the games where it is to act in **one forward pass**;
scripted bots with a compiled twin choose for all their games in one call on a game's compiled
engine, the others game by game on the seat's view. Randomness is the tournament runner's:
the agent in seat ``s`` of game ``g`` draws from ``default_rng([deal seed, g, s])`` exactly what
its ``act`` would, so a record is the one :func:`benchmarks.tournament.play_game` gives,
whatever the batch (up to the last bits of a batched matrix product).

The match records are the runner's (``benchmarks.ratings``), with the ``max_decisions`` cap of
the env: a game it truncates is a tie of all seats with ``"capped": true``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import loco_envs
from loco_envs import agents
from loco_envs.compiled.rng import seat_states
from loco_envs.core.threads import check_threads, set_threads
from loco_envs.vector.batch import Buffers, buffer_layout
from loco_envs.vector.compiled import CompiledBatch, compiled_package, default_threads
from loco_envs.vector.play import SeatGenerators, play

__all__ = ["BATCH", "play_tasks"]

#: Games played side by side in one vector env (memory grows with it; speed levels off).
BATCH = 256


def play_tasks(tasks: Sequence[tuple], workers: int = 1, on_record: Any = None,
               progress: Any = None, threads: int | None = None) -> list[dict]:
    """The match record of every task, in task order.

    ``on_record`` gets each record as soon as its game is over (one process, round by round),
    or chunk by chunk (several processes, or games played out on compiled twins): a
    tournament's journal keeps what was played if the run is killed. ``progress``
    (a tqdm bar) is advanced likewise. ``threads``: the BLAS and compiled-engine threads of
    each worker process (:func:`loco_envs.core.threads.set_threads`; ``None``: its share of
    the cores), so that several workers do not spin against each other.
    """
    check_threads(threads)  # here: a worker's initializer that raises is started again forever
    tasks = list(tasks)
    size = max(1, min(BATCH, -(-len(tasks) // (1 if workers == 1 else 4 * workers))))
    chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
    records: list[dict] = []
    if workers == 1 or len(chunks) == 1:
        for chunk in chunks:
            records.extend(_play_chunk(chunk, progress, on_record))
    else:
        import multiprocessing

        processes = min(workers, len(chunks))
        with multiprocessing.get_context("spawn").Pool(
                processes, initializer=set_threads, initargs=(threads, processes, True)) as pool:
            for chunk, chunk_records in zip(chunks, pool.imap(_play_chunk, chunks), strict=True):
                for record in chunk_records:
                    records.append(record)
                    if on_record is not None:
                        on_record(record)
                if progress is not None:
                    progress.update(len(chunk))
    return sorted(records, key=lambda r: r["game"])


def _play_chunk(tasks: list[tuple], progress: Any = None, on_record: Any = None) -> list[dict]:
    env_id, _, _, _, options, _, cap = tasks[0]
    games = [(g, seed, seats) for _, seats, seed, g, _, _, _ in tasks]
    paths = [path for *_, path, _ in tasks]
    options = dict(options)
    if cap is not None:
        if options.get("max_decisions") not in (None, cap):
            raise ValueError(f"option 'max_decisions' is {options['max_decisions']!r} and the "
                             f"max_decisions argument is {cap!r}: give one")
        options["max_decisions"] = cap
    return _play_batch(env_id, games, options, paths, progress, on_record)


def _play_batch(env_id: str, games: list[tuple[int, int, Sequence[str]]],
                options: dict[str, Any], paths: list[str | None], progress: Any,
                on_record: Any) -> list[dict]:
    num_players = len(games[0][2])
    specs = sorted({spec for _, _, seats in games for spec in seats})
    players = [agents.make(spec) for spec in specs]
    lineup = np.array([[specs.index(spec) for spec in seats] for _, _, seats in games], np.int64)
    probe = loco_envs.make(env_id, wrapped=False, **{**options, "num_players": num_players})
    probe.reset(seed=0)
    header = probe.record_lines()[0]  # the record header of these games: version, options
    if compiled_package(env_id):
        records = _play_twins(env_id, games, options, lineup, players, probe, header, paths,
                              progress, on_record)
        if records is not None:
            return records
    import numba

    vec = loco_envs.make_vec(env_id, len(games), autoreset_mode="Disabled",
                             **{**options, "num_players": num_players},
                             **_threads_option(env_id, numba.get_num_threads()))
    generators = SeatGenerators.per_seat([[np.random.default_rng([seed, g, s])
                                           for s in range(num_players)] for g, seed, _ in games])
    steps = np.zeros(len(games), np.int64)
    records: list[dict | None] = [None] * len(games)

    def ended(stepped: np.ndarray) -> None:
        steps[stepped] += 1
        for i in stepped[vec.terminations[stepped] | vec.truncations[stepped]].tolist():
            records[i] = _record(env_id, vec.buf, i, games[i], int(steps[i]), header)
            if paths[i] is not None:
                vec.game_env(i).save_record(paths[i])
            if on_record is not None:
                on_record(records[i])
            if progress is not None:
                progress.update()

    vec.reset(seed=[seed for _, seed, _ in games])
    try:
        play(vec, lineup, players, generators, on_step=ended)
    finally:
        vec.close()
    return [r for r in records if r is not None]


def _play_twins(env_id: str, games: list[tuple[int, int, Sequence[str]]],
                options: dict[str, Any], lineup: np.ndarray, players: list[Any],
                probe: Any, header: dict, paths: list[str | None],
                progress: Any, on_record: Any) -> list[dict] | None:
    """The records of games whose every player has an exact compiled twin, each game played
    from deal to end on one numba thread (``CompiledBatch.play_out``: the moves of the
    round-by-round loop, without a round of Python between two decisions); ``None`` when a
    player has no twin. The games of a chunk end together, so records come chunk by chunk."""
    import numba

    num_players = lineup.shape[1]
    opts = {**options, "num_players": num_players}
    agent = probe.possible_agents[0]
    layout = buffer_layout(len(games), probe.observation_space(agent)["observation"].shape[0],
                           int(probe.action_space(agent).n), num_players)
    buf = Buffers(**{name: np.zeros(shape, dtype) for name, (shape, dtype) in layout.items()})
    batch = CompiledBatch(env_id, opts, len(games), buf, autoreset=False,
                          num_threads=min(numba.get_num_threads(), default_threads()))
    twins = np.array([batch.twin_kind(player) for player in players], np.int64)
    if (twins < 0).any():
        return None
    words = seat_states([seed for _, seed, _ in games], [g for g, _, _ in games], num_players)
    # buf.observed is all False: the twins read the state, no observation is written
    batch.reset([seed for _, seed, _ in games])
    batch.play_out(twins[lineup], np.arange(lineup.size).reshape(lineup.shape),
                   words.reshape(lineup.size, -1))
    records = []
    for i, game in enumerate(games):
        records.append(_record(env_id, buf, i, game, int(batch.io.decisions[i]), header))
        if paths[i] is not None:
            batch.env(i).save_record(paths[i])
        if on_record is not None:
            on_record(records[-1])
    if progress is not None:
        progress.update(len(games))
    return records


def _threads_option(env_id: str, threads: int) -> dict[str, int]:
    """``num_threads`` for ``make_vec`` where the game has a compiled engine."""
    return {"num_threads": min(threads, default_threads())} if compiled_package(env_id) else {}


def _record(env_id: str, buf: Any, i: int, game: tuple[int, int, Sequence[str]], steps: int,
            header: dict) -> dict:
    """Game ``i``'s match record, from the results (``buf``: a vector env's buffers) of the
    step it ended in."""
    g, seed, seats = game
    capped = bool(buf.truncations[i])
    n = len(seats)
    ranks, scores = buf.ranks[i].tolist(), buf.scores[i].tolist()
    return {
        "env": env_id,
        "version": header["version"],
        "options": {k: v for k, v in header["options"].items() if k != "max_decisions"},
        "num_players": n,
        "game": g,
        "seed": seed,
        "agents": None,  # filled in by the tournament
        "seats": list(seats),
        "ranks": [0] * n if capped else [int(r) for r in ranks],
        "scores": [0.0] * n if capped else [float(x) for x in scores],
        "steps": steps,
        "capped": capped,
    }
