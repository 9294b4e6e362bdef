"""Tournaments killed with SIGKILL and resumed; write failures; same games whatever the run.

The tournaments here run as real processes (``python -m benchmarks.tournament``) so that the
kill, the hash seed and the worker processes are the real ones. A killed run kills itself: the
compiled games are too fast for a kill from outside to land at a chosen point (2,400 games
reach the journal within 0.3 s on two cores), so the process SIGKILLs its own process group,
workers included, right after its journal has a given number of lines.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from loco_envs.benchmarks import tournament as T
from loco_envs.benchmarks.journal import RECORDS, RecordJournal
from tests.safety.helpers import saved_policy

ROOT = Path(__file__).resolve().parents[2]
GAMES = 120

# Runs the tournament's command line; once the journal holds KILL_AT lines (a whole line each,
# written and flushed), SIGKILLs the process group: no handler, no cleanup, workers mid-game.
KILL_AFTER_LINES = """
import os, runpy, signal, sys
from loco_envs.benchmarks.journal import RecordJournal

kill_at = int(os.environ["KILL_AT"])
append = RecordJournal.append

def append_then_die(self, record):
    append(self, record)
    if len(self.done) >= kill_at:
        os.killpg(0, signal.SIGKILL)

RecordJournal.append = append_then_die
sys.argv[0] = "benchmarks.tournament"
runpy.run_module("benchmarks.tournament", run_name="__main__", alter_sys=True)
"""


def command(out: Path, policy: Path, workers: int = 1, *extra: str) -> list[str]:
    return [sys.executable, "-m", "benchmarks.tournament", *arguments(out, policy, workers, *extra)]


def arguments(out: Path, policy: Path, workers: int = 1, *extra: str) -> list[str]:
    return ["moco_v0", "--players", "2", "--games", str(GAMES), "--agents", f"ppo:{policy}",
            "moco/heuristic", "random", "--seed", "3", "--workers", str(workers), "--out",
            str(out), "--no-progress", "--bootstrap", "50", *extra]


def environment(hash_seed: int) -> dict[str, str]:
    return {**os.environ, "PYTHONHASHSEED": str(hash_seed), "OMP_NUM_THREADS": "1"}


def run_to_end(out: Path, policy: Path, workers: int = 1, hash_seed: int = 0,
               *extra: str) -> subprocess.CompletedProcess:
    done = subprocess.run(command(out, policy, workers, *extra), cwd=ROOT, text=True,
                          capture_output=True, env=environment(hash_seed), timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def kill_after(out: Path, policy: Path, lines: int, workers: int, hash_seed: int,
               *extra: str) -> int:
    """Run the tournament until its journal has ``lines`` lines, then SIGKILL it (itself and its
    worker processes); the lines left."""
    done = subprocess.run([sys.executable, "-c", KILL_AFTER_LINES,
                           *arguments(out, policy, workers, *extra)], cwd=ROOT,
                          env={**environment(hash_seed), "KILL_AT": str(lines)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          start_new_session=True, timeout=600)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    count = (out / RECORDS).read_bytes().count(b"\n")
    assert count == lines < GAMES
    return count


@pytest.fixture(scope="module")
def policy(tmp_path_factory) -> Path:
    return saved_policy(tmp_path_factory.mktemp("agent"), "moco_v0")


@pytest.fixture(scope="module")
def reference(tmp_path_factory, policy: Path) -> Path:
    """An uninterrupted run: one worker, hash seed 0."""
    out = tmp_path_factory.mktemp("reference")
    run_to_end(out, policy)
    return out


def same_games(out: Path, reference: Path) -> None:
    assert (out / RECORDS).read_bytes() == (reference / RECORDS).read_bytes()
    assert (json.loads((out / "ratings.json").read_text())
            == json.loads((reference / "ratings.json").read_text()))


def test_records_do_not_depend_on_hash_seed_or_workers(tmp_path: Path, policy: Path,
                                                       reference: Path) -> None:
    run_to_end(tmp_path, policy, 2, 12345)
    same_games(tmp_path, reference)
    lines = (reference / RECORDS).read_text().splitlines()
    assert [json.loads(x)["game"] for x in lines] == list(range(GAMES))


def test_killed_twice_and_resumed_gives_the_uninterrupted_games(tmp_path: Path, policy: Path,
                                                                 reference: Path) -> None:
    first = kill_after(tmp_path, policy, 10, 2, 7)
    second = kill_after(tmp_path, policy, first + 10, 1, 8, "--resume")
    # A kill in the middle of a write leaves a torn last line: make one (half the next game).
    nxt = (reference / RECORDS).read_text().splitlines()[second]
    with (tmp_path / RECORDS).open("a") as handle:
        handle.write(nxt[: len(nxt) // 2])
    done = run_to_end(tmp_path, policy, 2, 9, "--resume")
    assert "dropped a torn last line" in done.stderr
    same_games(tmp_path, reference)


def test_resume_refuses_another_tournament(tmp_path: Path, policy: Path,
                                           reference: Path) -> None:
    for name in (RECORDS, "tournament.json"):
        (tmp_path / name).write_bytes((reference / name).read_bytes())
    out = subprocess.run(command(tmp_path, policy, 1, "--seed", "4", "--resume"), cwd=ROOT,
                         text=True, capture_output=True, timeout=300)
    assert out.returncode == 2
    assert "--resume: --seed differ" in out.stderr and "Traceback" not in out.stderr


def _journal(tmp_path: Path, policy: Path, lines: list[str]) -> T.Tournament:
    t = T.Tournament("moco_v0", 2, (f"ppo:{policy}", "moco/heuristic", "random"), GAMES, 3)
    RecordJournal.start(tmp_path, t, T.schedule(t), resume=False).close()
    (tmp_path / RECORDS).write_text("".join(lines))
    return t


def test_a_damaged_or_foreign_line_is_an_error_not_trusted(tmp_path: Path, policy: Path,
                                                           reference: Path) -> None:
    good = (reference / RECORDS).read_text().splitlines(keepends=True)
    cases = {
        "not a JSON match record": [good[0], "{garbage\n", good[2]],
        "recorded twice": [good[0], good[0]],
        "not a game of this tournament": [good[0].replace('"seed": ', '"seed": 1')],
        "lacks": ['{"game": 0}\n'],
    }
    for message, lines in cases.items():
        t = _journal(tmp_path, policy, lines)
        with pytest.raises(ValueError, match=message):
            RecordJournal.start(tmp_path, t, T.schedule(t), resume=True)


def test_a_changed_ppo_agent_cannot_be_resumed(tmp_path: Path) -> None:
    from loco_envs.policy import save_policy
    from tests.safety.helpers import random_policy

    mine = saved_policy(tmp_path, "moco_v0", name="mine")
    t = _journal(tmp_path, mine, [])
    save_policy(mine, random_policy("moco_v0", seed=3, num_players=2),
                {"env_id": "moco_v0", "env_options": {"num_players": 2}})
    with pytest.raises(ValueError, match="the weights of its ppo: agents differ"):
        RecordJournal.start(tmp_path, t, T.schedule(t), resume=True)


# ---------------------------------------------------------------------------------------------
# Write failures: one clear line, then resumable
def _limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _one_line_error(done: subprocess.CompletedProcess, reason: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "cannot write" in errors[0] and reason in errors[0], done.stderr


def test_file_size_limit_mid_run_is_one_error_then_resumes(tmp_path: Path, policy: Path,
                                                           reference: Path) -> None:
    size = len((reference / RECORDS).read_bytes())
    done = subprocess.run(command(tmp_path, policy, 2), cwd=ROOT, text=True,
                          capture_output=True, env=environment(0), timeout=600,
                          preexec_fn=_limit_file_size(size // 3))
    _one_line_error(done, "File too large")
    assert 0 < len((tmp_path / RECORDS).read_bytes()) <= size // 3
    run_to_end(tmp_path, policy, 1, 0, "--resume")
    same_games(tmp_path, reference)


def test_full_disk_is_one_error_then_resumes(tmp_path: Path, policy: Path,
                                             reference: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    size = len((reference / RECORDS).read_bytes())
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size // 2}", "tmpfs",
                              str(disk)], capture_output=True)
    if mounted.returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        done = subprocess.run(command(disk, policy, 1), cwd=ROOT, text=True,
                              capture_output=True, env=environment(0), timeout=600)
        _one_line_error(done, "No space left on device")
        kept = tmp_path / "kept"
        kept.mkdir()
        for name in (RECORDS, "tournament.json"):
            (kept / name).write_bytes((disk / name).read_bytes())
    finally:
        subprocess.run(["umount", str(disk)], check=True)
    run_to_end(kept, policy, 2, 0, "--resume")  # moved to a disk with room
    same_games(kept, reference)


def test_unwritable_output_folder_is_one_error(tmp_path: Path, policy: Path) -> None:
    (tmp_path / "file").write_text("in the way")
    done = subprocess.run(command(tmp_path / "file" / "out", policy), cwd=ROOT, text=True,
                          capture_output=True, timeout=300)
    _one_line_error(done, "Not a directory")
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        done = subprocess.run(command(locked, policy), cwd=ROOT, text=True,
                              capture_output=True, timeout=300)
        _one_line_error(done, "Permission denied")
