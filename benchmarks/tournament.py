"""Seeded tournaments among bots, written as match records, then rated.

Run ``python -m benchmarks.tournament ENV_ID --players N --games G --agents SPEC ...``::

    python -m benchmarks.tournament loco_v0 --players 4 --games 400 \\
        --agents loco/heuristic-strong loco/heuristic random --seed 0 --workers 2

writes into ``--out`` (default ``runs/tournaments/<env>_<n>p_seed<seed>``):

- ``records.jsonl``: one match record per game (see :mod:`benchmarks.ratings`), in game order;
- ``tournament.json``: the arguments that define the tournament (checked by ``--resume``);
- ``ratings.md`` / ``ratings.json``: the ratings table (also printed); ``ratings.md`` also
  has each agent's score against each other (:func:`benchmarks.ratings.head_to_head_table`);
- ``ratings.png``: Elo and OpenSkill ratings with their intervals;
- ``games/`` with ``--game-records``: every game's full decision record, which
  ``loco_envs.replay`` checks.

``--from-records FILE`` rates an existing records file instead of playing.

Killed runs. Each game's record is appended to ``records.jsonl`` when its game is over;
``--resume`` (same arguments) goes on with a tournament killed in ``--out``: the games already
recorded are kept, a torn last line is dropped and its game played again, and the run ends with
exactly the records and ratings of an uninterrupted one (:mod:`benchmarks.journal`). A full
disk or an unwritable folder is a one-line error, and the run can be resumed.

Seats. The agent list is a *line-up*: a spec may appear more than once (``--agents
loco/heuristic random random random`` is one heuristic against three random bots); ratings are
per distinct spec. Games follow a fixed cycle of seatings (:func:`seating_cycle`): with no more
line-up entries than seats, the line-up repeated around the table and rotated one seat per game;
with more, every choice of ``n`` entries, each rotated through all seats. Over a whole cycle every
entry sits in every seat equally often, so use a multiple of the cycle length for exact balance
(the runner says when the count is not). All games of one cycle are played on the same deal
(the same env seed): a duplicate format that takes the luck of the deal out of the comparison.

Randomness. Deal seeds come from ``numpy.random.default_rng(seed)``; the bot in seat ``s`` of
game ``g`` draws from ``numpy.random.default_rng([deal seed, g, s])``. A tournament is a
function of its arguments, whatever ``--workers``.

Speed. A game with a compiled engine (``loco_v0``) is played in batches on it, its scripted bots
choosing on their compiled twins (:mod:`benchmarks.batched`), with the records of
:func:`play_game`: the same deals, moves and results, game for game.

Scale-out. ``--backend ray [--address HOST:PORT]`` plays the games on a Ray cluster (a local one
when no address is given) with the same records and ratings (:mod:`benchmarks.ray_backend`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import loco_envs
from loco_envs import agents
from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks.journal import RecordJournal, output_errors
from loco_envs.core.threads import check_threads, set_threads
from loco_envs.vector.compiled import compiled_package

#: A game that takes more decisions than this is stopped with an error (a bot loop, not a game).
MAX_STEPS = 1_000_000

#: Where games run: local processes, or a Ray cluster (:mod:`benchmarks.ray_backend`).
BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class Tournament:
    """Everything that defines a tournament; :func:`run` plays it."""

    env_id: str
    num_players: int
    agents: tuple[str, ...]
    games: int
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate(self)

    @property
    def env_options(self) -> dict[str, Any]:
        return {**self.options, "num_players": self.num_players}


def validate(t: Tournament) -> None:
    """``ValueError`` naming the bad argument: env id, player count, agent spec, games, option."""
    if t.env_id not in loco_envs.available_envs():
        raise ValueError(f"env id {t.env_id!r} is unknown; available: {loco_envs.available_envs()}")
    if "num_players" in t.options:
        raise ValueError("option 'num_players': give the player count with --players")
    if isinstance(t.num_players, bool) or not isinstance(t.num_players, int):
        raise ValueError(f"--players must be an integer, got {t.num_players!r}")
    try:
        loco_envs.make(t.env_id, wrapped=False, **t.env_options)
    except ValueError as exc:
        raise ValueError(f"--players/--option for {t.env_id}: {exc}") from None
    if not t.agents:
        raise ValueError("--agents: give at least one agent spec")
    game = t.env_id.removesuffix("_v0")
    for spec in t.agents:
        if "/" in spec and not spec.startswith("ppo:") and spec.split("/")[0] != game:
            raise ValueError(f"--agents: {spec!r} plays {spec.split('/')[0]}, not {t.env_id}")
        agents.make(spec)  # ValueError for an unknown spec
    if isinstance(t.games, bool) or not isinstance(t.games, int) or t.games < 1:
        raise ValueError(f"--games must be a positive integer, got {t.games!r}")
    if isinstance(t.seed, bool) or not isinstance(t.seed, int) or t.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {t.seed!r}")


# ---------------------------------------------------------------------------------------------
# Seating and seeds
def seating_cycle(lineup_size: int, num_players: int) -> list[tuple[int, ...]]:
    """One cycle of seatings: for each game, the line-up index seated at each seat.

    ``lineup_size <= num_players``: seat s of game g holds entry (s + g) mod size, for g < size.
    ``lineup_size > num_players``: every n-subset of the entries (in order), rotated n times.
    Either way each entry sits in each seat equally often over the cycle.
    """
    if lineup_size < 1 or num_players < 1:
        raise ValueError("seating_cycle needs at least one entry and one seat")
    if lineup_size <= num_players:
        return [tuple((s + g) % lineup_size for s in range(num_players))
                for g in range(lineup_size)]
    cycle = []
    for chosen in itertools.combinations(range(lineup_size), num_players):
        for r in range(num_players):
            cycle.append(tuple(chosen[(s + r) % num_players] for s in range(num_players)))
    return cycle


def schedule(t: Tournament) -> list[tuple[int, int, tuple[str, ...]]]:
    """``(game index, deal seed, spec per seat)`` of every game of the tournament."""
    cycle = seating_cycle(len(t.agents), t.num_players)
    deals = -(-t.games // len(cycle))
    seeds = np.random.default_rng(t.seed).integers(0, 2**31 - 1, size=deals)
    return [
        (g, int(seeds[g // len(cycle)]), tuple(t.agents[i] for i in cycle[g % len(cycle)]))
        for g in range(t.games)
    ]


# ---------------------------------------------------------------------------------------------
# Playing
def play_game(env_id: str, seats: Sequence[str], seed: int, game_index: int = 0,
              options: dict[str, Any] | None = None,
              record_path: str | Path | None = None,
              max_decisions: int | None = None) -> dict:
    """Play one game with the bots of ``seats`` (one spec per seat); return its match record.

    The cap on a game's length is the env option ``max_decisions`` (in ``options``, or the
    ``max_decisions`` argument, which sets that option): a game the env truncates there is
    recorded as a tie of all seats with ``"capped": true`` (bots can stall a LOCO game for good);
    without a cap such a game raises ``RuntimeError`` after ``MAX_STEPS``.
    """
    options = {**(options or {}), "num_players": len(seats)}
    if max_decisions is not None:
        if options.get("max_decisions") not in (None, max_decisions):
            raise ValueError(f"option 'max_decisions' is {options['max_decisions']!r} and the "
                             f"max_decisions argument is {max_decisions!r}: give one")
        options["max_decisions"] = max_decisions
    env = loco_envs.make(env_id, wrapped=False, **options)
    env.reset(seed=seed)
    bots = [agents.make(spec) for spec in seats]
    rngs = [np.random.default_rng([seed, game_index, s]) for s in range(len(seats))]
    game = env.game
    steps = 0
    while not env.over:
        agent = env.agent_selection
        seat = env.seat(agent)
        action = bots[seat].act(env.view(agent), game.legal_mask(), rngs[seat])
        env.step(action)
        steps += 1
        if steps > MAX_STEPS:
            raise RuntimeError(
                f"game {game_index} (seed {seed}, seats {list(seats)}) passed {MAX_STEPS} steps"
            )
    if record_path is not None:
        with output_errors(record_path):
            env.save_record(record_path)
    header = env.record_lines()[0]
    capped = env.truncated_game
    return {
        "env": env_id,
        "version": header["version"],
        # the rules' options: the cap shows as "capped" (a game that ends before it is the same
        # game as without it, so its match record is the same too)
        "options": {k: v for k, v in header["options"].items() if k != "max_decisions"},
        "num_players": len(seats),
        "game": game_index,
        "seed": seed,
        "agents": None,  # filled in by the tournament
        "seats": list(seats),
        "ranks": [0] * len(seats) if capped else [int(r) for r in game.final_ranks()],
        "scores": [0.0] * len(seats) if capped else [float(x) for x in game.final_scores()],
        "steps": steps,
        "capped": capped,
    }


def _play_task(task: tuple) -> dict:
    return play_game(*task)


def play(t: Tournament, workers: int = 1, progress: bool = True,
         games_dir: str | Path | None = None, max_decisions: int | None = None,
         backend: str = "local", address: str | None = None,
         journal: RecordJournal | None = None, threads: int | None = None) -> list[dict]:
    """Play every game of ``t`` (over ``workers`` processes) and return the match records.

    With a ``journal`` (:mod:`benchmarks.journal`) the games already in it are not played
    again, each new record is appended to it as soon as its game is over, and the records
    returned are all of the tournament's, in game order.

    ``backend="ray"`` plays the same tasks on a Ray cluster instead (``address``, or a local one;
    ``workers`` is then the cluster's business): :mod:`benchmarks.ray_backend`. The records are
    the same either way.

    ``max_decisions`` sets the env option of that name for each game (:func:`play_game`).
    ``threads`` is each worker process's BLAS (and compiled-engine) threads, ``None`` its share
    of the cores (:mod:`loco_envs.core.threads`): workers whose thread pools spin against each
    other play ``ppo:`` agents many times slower.
    """
    check_threads(threads, "--threads")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"--workers must be a positive integer, got {workers!r}")
    if backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {list(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("--address is the Ray cluster's: give it with --backend ray")
    tasks = [
        (t.env_id, seats, seed, g, dict(t.options),
         None if games_dir is None else str(Path(games_dir) / f"game_{g:05d}.jsonl"),
         max_decisions)
        for g, seed, seats in schedule(t)
        if journal is None or g not in journal.done
    ]
    from tqdm import tqdm

    bar = tqdm(total=t.games, initial=t.games - len(tasks), desc=f"{t.env_id} {t.num_players}p",
               unit="game", disable=not progress, file=sys.stderr)
    records = _RecordSink(t, journal)
    if backend == "ray":
        from loco_envs.benchmarks import ray_backend

        ray_backend.play_games({task[3]: task for task in tasks}, _play_task, address, bar,
                               on_records=records.extend)
    elif any(spec.startswith("ppo:") for spec in t.agents) or compiled_package(t.env_id):
        from loco_envs.benchmarks.batched import (
            play_tasks,  # batched: the compiled engine and bots, one forward pass per ppo: agent
        )

        play_tasks(tasks, workers, records.append, bar, threads)
        records.sort(key=lambda record: record["game"])
    elif workers == 1:
        for task in tasks:
            records.append(_play_task(task))
            bar.update()
    else:
        chunk = max(1, min(8, len(tasks) // (4 * workers)))
        with multiprocessing.get_context("spawn").Pool(
                workers, initializer=set_threads, initargs=(threads, workers)) as pool:
            for record in pool.imap(_play_task, tasks, chunksize=chunk):
                records.append(record)
                bar.update()
    bar.close()
    return records.all()


class _RecordSink(list):
    """The records as they come: each gets the line-up's agents, then goes to the journal."""

    def __init__(self, t: Tournament, journal: RecordJournal | None):
        super().__init__()
        self.agents = list(dict.fromkeys(t.agents))
        self.journal = journal

    def append(self, record: dict) -> None:
        record["agents"] = list(self.agents)
        if self.journal is not None:
            self.journal.append(record)
        super().append(record)

    def extend(self, records) -> None:
        for record in records:
            self.append(record)

    def all(self) -> list[dict]:
        if self.journal is None:  # in game order (the Ray backend hands them over as they end)
            return sorted(self, key=lambda record: record["game"])
        return [self.journal.done[g] for g in sorted(self.journal.done)]


@dataclass
class Result:
    """What :func:`run` produced: the records, the ratings table and the files written."""

    records: list[dict]
    ratings: list[R.AgentRating]
    files: dict[str, Path]
    seconds: float


def run(t: Tournament, out: str | Path | None = None, workers: int = 1, progress: bool = True,
        bootstrap: int = 1000, game_records: bool = False, plot: bool = True,
        backend: str = "local", address: str | None = None, resume: bool = False,
        threads: int | None = None) -> Result:
    """Play ``t``, write its records into ``out``, rate them, write the table and the plot.

    Records go to ``out/records.jsonl`` game by game as they finish (:mod:`benchmarks.journal`);
    with ``resume``, a tournament killed earlier in ``out`` goes on where it stopped, ending
    with the records and ratings of an uninterrupted run. Write failures are one ``ValueError``.
    """
    start = time.perf_counter()
    out = Path(out) if out is not None else default_out(t)
    games_dir = out / "games" if game_records else None
    journal = RecordJournal.start(out, t, schedule(t), resume)
    try:
        play(t, workers, progress, games_dir, backend=backend, address=address,
             journal=journal, threads=threads)
    finally:
        journal.close()
    records, records_path = journal.finish()
    seconds = time.perf_counter() - start
    files = {"records": records_path}
    table = R.compute_ratings(records, bootstrap=bootstrap, seed=t.seed)
    with output_errors(out):
        files.update(write_ratings(table, out, title(t), records, plot))
    return Result(records, table, files, seconds)


def default_out(t: Tournament) -> Path:
    return Path("runs") / "tournaments" / f"{t.env_id}_{t.num_players}p_seed{t.seed}"


def title(t: Tournament) -> str:
    return f"{t.env_id}, {t.num_players} players, {t.games} games, seed {t.seed}"


def write_ratings(table: Sequence[R.AgentRating], out: Path, heading: str,
                  records: Sequence[dict], plot: bool = True) -> dict[str, Path]:
    """``ratings.md`` (the table, then the head-to-head scores of ``records``),
    ``ratings.json`` and (with ``plot``) ``ratings.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    md = out / "ratings.md"
    duels = R.head_to_head_table(records, [r.agent for r in table])
    md.write_text(f"# {heading}\n\n{R.markdown_table(table)}\n\n## Head to head\n\n"
                  f"Row agent's score against the column agent (share of finishing-order "
                  f"comparisons won, ties ½).\n\n{duels}\n")
    js = out / "ratings.json"
    js.write_text(json.dumps([r.to_dict() for r in table], indent=2) + "\n")
    files = {"table": md, "json": js}
    if plot:
        files["plot"] = R.plot_ratings(table, out / "ratings.png", heading)
    return files


# ---------------------------------------------------------------------------------------------
# Command line
def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as JSON when it parses (``rounds=3``, ``match=true``)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"--option {text!r}: expected key=value")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.tournament",
        description="Seeded tournament among bots; writes match records and ratings.",
    )
    p.add_argument("env_id", nargs="?", help=f"one of {loco_envs.available_envs()}")
    p.add_argument("--players", type=int, default=2, help="players per game (default 2)")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--agents", nargs="+", default=None,
                   help="line-up of agent specs (repeat a spec to seat it more than once)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--threads", type=int, default=None,
                   help="BLAS/torch threads of each process (default: its share of the cores)")
    p.add_argument("--backend", choices=BACKENDS, default="local",
                   help="local processes (default) or a Ray cluster (needs the ray extra)")
    p.add_argument("--address", default=None,
                   help="Ray cluster address (HOST:PORT or auto) for --backend ray; "
                        "default: a local Ray on this machine")
    p.add_argument("--out", type=Path, default=None,
                   help="output folder (default runs/tournaments/<env>_<n>p_seed<seed>)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="env option, e.g. --option rounds=3 (repeatable)")
    p.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    p.add_argument("--game-records", action="store_true",
                   help="also write every game's full decision record under OUT/games/")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--resume", action="store_true",
                   help="go on with the tournament killed earlier in --out (same arguments): "
                        "games already in its records.jsonl are not played again")
    p.add_argument("--from-records", type=Path, default=None, metavar="FILE",
                   help="rate an existing records file instead of playing")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.from_records is not None:
            records = R.read_records(args.from_records)
            table = R.compute_ratings(records, bootstrap=args.bootstrap, seed=args.seed)
            out = args.out or args.from_records.parent
            with output_errors(out):
                files = write_ratings(table, out, f"ratings of {args.from_records}", records)
            print(R.markdown_table(table))
            print(f"\nwrote {', '.join(str(p) for p in files.values())}")
            return 0
        if args.env_id is None:
            parser.error("give an env id (or --from-records FILE)")
        if not args.agents:
            raise ValueError("--agents: give at least one agent spec")
        check_threads(args.threads, "--threads")
        set_threads(args.threads)  # this process plays the games when --workers is 1
        t = Tournament(args.env_id, args.players, tuple(args.agents), args.games, args.seed,
                       dict(parse_option(o) for o in args.option))
        cycle = len(seating_cycle(len(t.agents), t.num_players))
        if t.games % cycle:
            print(f"note: {t.games} games is not a multiple of the seating cycle ({cycle}); "
                  "seats are balanced only approximately", file=sys.stderr)
        result = run(t, args.out, args.workers, not args.no_progress, args.bootstrap,
                     args.game_records, backend=args.backend, address=args.address,
                     resume=args.resume, threads=args.threads)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"# {title(t)}  ({result.seconds:.1f} s of play)\n")
    print(R.markdown_table(result.ratings))
    print(f"\nwrote {', '.join(str(p) for p in result.files.values())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
