"""Tournament games on a Ray cluster (the ``ray`` extra): ``--backend ray [--address ADDR]``.

:func:`benchmarks.tournament.play` builds the same task list for every backend; with
``backend="ray"`` it hands the tasks to :func:`play_games` here, which plays them as Ray tasks
and gives back exactly the records the local backend writes, in game order. Nothing about a game
depends on where it runs: its deal seed and bot seeds are in its task, so the records, and the
ratings computed from them, are those of the local backend for the same seed.

Where the games run:

- Ray already initialised in this process (a test's ``ray.init(num_cpus=2)``, or an earlier
  tournament of the same run): that session, whatever ``address`` says;
- else ``address="auto"`` or ``"HOST:PORT"`` (a cluster started with ``ray start --head``): the
  games run on all of its nodes; every node needs the project installed (the same checkout and
  environment), and a ``ppo:<path>`` agent's files at the same path on every node;
- else (no address) a local cluster on this machine's cores, stopped when the process exits.

Games go out in chunks of a few (one Ray task per chunk: a LOCO game takes milliseconds to a
second, and one task per game would pay Ray's scheduling cost per game). Losing work:

- a task whose worker process or node dies is resubmitted by Ray (``max_retries``); a chunk is
  only ever returned whole, from one attempt, so a retried chunk cannot count its games twice;
- the driver checks every record it gets back against the chunk it sent: each game index of the
  tournament must come back exactly once, or :func:`play_games` raises ``RuntimeError`` naming
  the games lost or duplicated (a chunk that still fails after its retries is reported so,
  rather than leaving a tournament short of games);
- an error raised by the game itself (a bad ``ppo:`` file, a bot stuck in a loop) is not
  retried: the same seeds would fail again. It is raised again in the driver as itself.

The progress bar (tqdm, handed in by the tournament) advances as chunks finish anywhere in the
cluster, so it counts the games done across all nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["DEFAULT_MAX_RETRIES", "chunked", "connect", "play_games", "require_ray"]

#: How many times Ray resubmits a chunk whose worker or node died before the driver gives up.
DEFAULT_MAX_RETRIES = 3


def require_ray() -> Any:
    """The ``ray`` module, or a ``ValueError`` that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ValueError(
            f"--backend ray needs Ray: pip install -e '.[ray]' ({exc})") from None
    return ray


def connect(address: str | None = None) -> Any:
    """The ``ray`` module, connected: to the session already open in this process, else to
    ``address``, else to a new local cluster on this machine's cores.

    The connection is kept for the rest of the process (Ray disconnects, and stops a local
    cluster it started, when the process exits), so a check of five baselines or an evaluation
    against three opponents starts one cluster, not one per tournament.
    """
    ray = require_ray()
    if ray.is_initialized():
        return ray
    if address is None:
        ray.init(include_dashboard=False, log_to_driver=False)
    else:
        try:
            ray.init(address=address, log_to_driver=False)
        except ConnectionError as exc:
            raise ValueError(f"--address {address!r}: no Ray cluster there ({exc})") from None
    return ray


def chunked(games: list[int], cpus: int) -> list[list[int]]:
    """Game indices in chunks: about four chunks per CPU so the load stays even, at most 8."""
    size = max(1, min(8, len(games) // (4 * max(1, cpus))))
    return [games[i:i + size] for i in range(0, len(games), size)]


def _play_chunk(play_one: Callable[[Any], dict], chunk: list[tuple[int, Any]]) -> list[dict]:
    """What one Ray task does: play its games in order and return their records."""
    return [play_one(task) for _, task in chunk]


def play_games(tasks: Mapping[int, Any], play_one: Callable[[Any], dict],
               address: str | None = None, progress_bar: Any = None,
               max_retries: int = DEFAULT_MAX_RETRIES,
               on_records: Callable[[list[dict]], None] | None = None) -> list[dict]:
    """Play every task on Ray; the records in game-index order, each index exactly once.

    ``tasks`` maps each game index to the argument of ``play_one``, a module-level function
    (it is shipped to the workers by reference) that returns the game's record with that index
    under ``"game"``. ``progress_bar`` (anything with ``update(n)``) advances per finished chunk,
    and ``on_records`` gets each finished chunk's records as soon as they are checked (the
    tournament's journal writes them then, so ``--resume`` after a kill loses only the games
    still out on the cluster).
    """
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ValueError(f"max_retries must be a non-negative integer, got {max_retries!r}")
    ray = connect(address)
    remote_chunk = ray.remote(_play_chunk).options(
        max_retries=max_retries, retry_exceptions=False, num_cpus=1)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    play_ref = ray.put(play_one)
    pending = {remote_chunk.remote(play_ref, [(g, tasks[g]) for g in chunk]): chunk
               for chunk in chunked(sorted(tasks), cpus)}
    records: dict[int, dict] = {}
    lost: list[int] = []
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        chunk = pending.pop(done[0])
        try:
            returned = ray.get(done[0])
        except ray.exceptions.RayTaskError as exc:  # the game's own error: not retried
            _cancel(ray, pending)
            raise (exc.cause if isinstance(exc.cause, Exception) else exc) from None
        except ray.exceptions.RayError:  # its worker or node died, and every retry too
            lost.extend(chunk)
            continue
        _take(records, chunk, returned)
        if on_records is not None:
            on_records(returned)
        if progress_bar is not None:
            progress_bar.update(len(chunk))
    if lost:
        raise RuntimeError(f"games {sorted(lost)} were lost: their Ray tasks failed "
                           f"{max_retries + 1} times (workers or nodes died)")
    missing = sorted(set(tasks) - set(records))
    if missing:
        raise RuntimeError(f"games {missing} never came back from the cluster")
    return [records[g] for g in sorted(records)]


def _take(records: dict[int, dict], chunk: list[int], returned: list[dict]) -> None:
    """Add a chunk's records, checking that they are exactly the games sent, none seen before."""
    got = [record.get("game") for record in returned]
    if sorted(got) != sorted(chunk) or len(set(got)) != len(got):
        raise RuntimeError(f"a chunk sent with games {chunk} came back with games {got}")
    again = [g for g in got if g in records]
    if again:
        raise RuntimeError(f"games {again} came back twice")
    for record in returned:
        records[record["game"]] = record


def _cancel(ray: Any, pending: Mapping[Any, list[int]]) -> None:
    for ref in pending:
        ray.cancel(ref)
