"""A tournament's records as a journal that survives the process being killed (``--resume``).

A tournament's output folder holds ``tournament.json`` (what defines the tournament: env, player
count, line-up, games, seed, options, and the weights hash of every ``ppo:`` agent) and
``records.jsonl``, to which each game's match record is appended, one line per game, as soon as
it is played. A process killed at any moment (``SIGKILL``, a crash, a full disk) leaves a file of
whole lines, except perhaps a torn last one. ``--resume`` then:

- checks that the command describes the same tournament (``ValueError`` naming the argument that
  differs, or the ``ppo:`` file whose weights changed);
- drops a torn last line (one that does not end with a newline: every line is written with its
  newline in one ``write``), says so on stderr, and truncates the file there; any other line
  that does not parse, or does not belong to this tournament (wrong game index, seed or seats,
  a game twice), is a ``ValueError`` naming the line: a journal is never trusted further than
  it checks;
- plays only the games not yet in the journal, with the same seeds, appending as before.

When every game is in, ``records.jsonl`` is rewritten in game order (temporary file, then
``os.replace``), so the file of a resumed run is byte for byte that of an uninterrupted one,
whatever the number of workers or the order in which they finished. Lines are flushed to the OS
after each game (enough to survive the process dying) and synced to disk about once a second.

Write failures (a full disk, an unwritable folder) become one ``ValueError`` naming the file and
the reason (:func:`output_errors`), which the command line prints as a one-line error; the
journal stays a valid prefix, so ``--resume`` goes on once there is room.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from loco_envs.benchmarks import ratings as R
from loco_envs.core.files import atomic_write_bytes

__all__ = ["MANIFEST", "RECORDS", "RecordJournal", "atomic_write_text", "manifest",
           "output_errors"]

MANIFEST = "tournament.json"
RECORDS = "records.jsonl"
_SYNC_SECONDS = 1.0


@contextmanager
def output_errors(what: str | Path) -> Iterator[None]:
    """Turn an ``OSError`` while writing ``what`` into one ``ValueError`` that says why."""
    try:
        yield
    except OSError as exc:
        target = exc.filename or what
        reason = exc.strerror or str(exc)
        raise ValueError(f"cannot write {target}: {reason}") from None


def atomic_write_text(path: Path, text: str) -> Path:
    """``path`` holds its old content or all of ``text``, whatever happens meanwhile."""
    with output_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, text.encode())
    return path


def manifest(t: Any) -> dict[str, Any]:
    """What must be equal for a journal to be resumed: the tournament and its agents' weights."""
    weights = {}
    for spec in dict.fromkeys(t.agents):
        if spec.startswith("ppo:"):
            from loco_envs.policy import load_policy

            weights[spec] = load_policy(spec[len("ppo:"):])[1]["weights_sha256"]
    return {"env_id": t.env_id, "players": t.num_players, "agents": list(t.agents),
            "games": t.games, "seed": t.seed, "options": dict(t.options),
            "ppo_weights": weights}


class RecordJournal:
    """The append-only ``records.jsonl`` of one tournament; :meth:`start` opens or resumes it.

    ``done`` maps game index -> match record of every game already in the journal.
    """

    def __init__(self, folder: Path, schedule: Sequence[tuple[int, int, tuple[str, ...]]],
                 agents: list[str], done: dict[int, dict], handle: IO[str]):
        self.folder = folder
        self.path = folder / RECORDS
        self.schedule = {g: (seed, list(seats)) for g, seed, seats in schedule}
        self.agents = agents
        self.done = done
        self._handle = handle
        self._synced = time.monotonic()

    @classmethod
    def start(cls, folder: str | Path, t: Any, schedule: Sequence[tuple], resume: bool,
              ) -> RecordJournal:
        """A fresh journal (any old one replaced), or with ``resume`` the one in ``folder``."""
        folder = Path(folder)
        agents = list(dict.fromkeys(t.agents))
        wanted = manifest(t)
        if resume:
            _check_manifest(folder, wanted)
            done = _read_journal(folder / RECORDS, {g: (s, list(x)) for g, s, x in schedule},
                                 agents)
        else:
            atomic_write_text(folder / MANIFEST, json.dumps(wanted, indent=2) + "\n")
            done = {}
        with output_errors(folder / RECORDS):
            handle = (folder / RECORDS).open("a" if resume else "w", encoding="utf-8")
        return cls(folder, schedule, agents, done, handle)

    def append(self, record: dict) -> None:
        """Journal one finished game (its line is whole on disk or absent)."""
        line = json.dumps(R._check_record(record, f"game {record.get('game')}")) + "\n"
        with output_errors(self.path):
            self._handle.write(line)
            self._handle.flush()
            if time.monotonic() - self._synced > _SYNC_SECONDS:
                os.fsync(self._handle.fileno())
                self._synced = time.monotonic()
        self.done[record["game"]] = record

    def finish(self) -> tuple[list[dict], Path]:
        """All the tournament's records in game order, and the journal rewritten in that order."""
        self.close()
        missing = sorted(set(self.schedule) - set(self.done))
        if missing:
            raise RuntimeError(f"{self.path}: games {missing[:5]} were never recorded")
        records = [self.done[g] for g in sorted(self.done)]
        text = "".join(json.dumps(r) + "\n" for r in records)
        return records, atomic_write_text(self.path, text)

    def close(self) -> None:
        if not self._handle.closed:
            with output_errors(self.path):
                self._handle.close()


def _check_manifest(folder: Path, wanted: dict[str, Any]) -> None:
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(f"--resume: {folder} holds no {MANIFEST} (no tournament was started "
                         "there); run without --resume")
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, OSError) as exc:
        raise ValueError(f"--resume: {path} is unreadable ({exc})") from None
    if not isinstance(found, dict):
        raise ValueError(f"--resume: {path} is not a tournament description")
    for key, value in wanted.items():
        if found.get(key) != value:
            what = ("the weights of its ppo: agents" if key == "ppo_weights"
                    else f"--{key}" if key != "env_id" else "the env id")
            raise ValueError(f"--resume: {what} differ from the tournament in {folder} "
                             f"({_short(found.get(key))} there, {_short(value)} now)")


def _read_journal(path: Path, schedule: dict[int, tuple[int, list[str]]],
                  agents: list[str]) -> dict[int, dict]:
    """The games already played; a torn last line is cut off, anything else wrong is an error."""
    if not path.is_file():
        return {}
    data = path.read_bytes()
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        print(f"note: {path}: dropped a torn last line ({len(data) - whole} bytes, a write cut "
              "off by the process dying); that game is played again", file=sys.stderr)
        with output_errors(path), path.open("r+b") as handle:
            handle.truncate(whole)
    done: dict[int, dict] = {}
    for number, line in enumerate(data[:whole].splitlines(), start=1):
        record = _journal_line(line, f"{path} line {number}", schedule, agents)
        if record["game"] in done:
            raise ValueError(f"{path} line {number}: game {record['game']} is recorded twice")
        done[record["game"]] = record
    return done


def _journal_line(line: bytes, where: str, schedule: dict[int, tuple[int, list[str]]],
                  agents: list[str]) -> dict:
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError(f"{where}: not a JSON match record (the journal is damaged; start the "
                         "tournament again without --resume)") from None
    record = R._check_record(record, where)
    game = record.get("game")
    if (isinstance(game, bool) or not isinstance(game, int) or game not in schedule
            or [record.get("seed"), record.get("seats")] != list(schedule[game])
            or record.get("agents") != agents):
        raise ValueError(f"{where}: not a game of this tournament (game index, seed, seats or "
                         "agents differ from its schedule)")
    return record


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
