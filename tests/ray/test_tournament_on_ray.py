"""Tournaments on a local Ray (``ray.init(num_cpus=2)``): the local backend's records exactly,
retried lost tasks, errors raised as themselves, and the command lines with ``--backend ray``.

Run with ``make test-ray`` (or ``make test-slow``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from loco_envs.benchmarks import check as C
from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks import ray_backend as RB
from loco_envs.benchmarks import tournament as T
from loco_envs.train import evaluate as E

pytestmark = pytest.mark.slow


class Counter:
    """A stand-in progress bar: how many games it was told were done."""

    def __init__(self) -> None:
        self.n = 0

    def update(self, n: int = 1) -> None:
        self.n += n


def line_up() -> T.Tournament:
    return T.Tournament("moco_v0", 3, ("moco/heuristic", "random", "random"), 30, seed=11)


def test_ray_backend_writes_the_local_records_and_ratings(ray_local):
    t = line_up()
    local = T.play(t, workers=1, progress=False)
    on_ray = T.play(t, progress=False, backend="ray")
    assert on_ray == local
    assert [r["game"] for r in on_ray] == list(range(t.games))
    assert (R.compute_ratings(on_ray, bootstrap=50, seed=t.seed)
            == R.compute_ratings(local, bootstrap=50, seed=t.seed))


def test_a_task_whose_worker_dies_is_retried_and_no_game_is_lost_or_doubled(ray_local,
                                                                            tmp_path):
    t = line_up()
    tasks = {g: (t.env_id, seats, seed, g, {}, None, None) for g, seed, seats in T.schedule(t)}
    marker = tmp_path / "crashed_once"

    def dies_once_on_game_7(task):  # a closure: shipped to the workers by value
        if task[3] == 7 and not os.path.exists(marker):
            Path(marker).touch()
            os._exit(1)  # the worker process dies mid-chunk, as on a lost node
        return T._play_task(task)

    bar, streamed = Counter(), []
    records = RB.play_games(tasks, dies_once_on_game_7, progress_bar=bar, max_retries=2,
                            on_records=streamed.extend)
    assert marker.exists()  # the crash did happen
    local = T.play(t, workers=1, progress=False)  # which also names the line-up in each
    assert records == [{**record, "agents": None} for record in local]
    assert bar.n == t.games  # each game counted once, the retried chunk too
    assert sorted(r["game"] for r in streamed) == list(range(t.games))  # journaled once each


def test_games_lost_after_every_retry_are_named(ray_local):
    t = line_up()
    tasks = {g: (t.env_id, seats, seed, g, {}, None, None)
             for g, seed, seats in T.schedule(t)[:4]}

    def always_dies_on_game_2(task):
        if task[3] == 2:
            os._exit(1)
        return T._play_task(task)

    with pytest.raises(RuntimeError, match=r"games \[.*2.*\] were lost"):
        RB.play_games(tasks, always_dies_on_game_2, max_retries=0)


def test_a_games_own_error_is_raised_as_itself_not_retried(ray_local, tmp_path):
    attempts = tmp_path / "attempts"
    attempts.mkdir()

    def bad_game(task):
        (attempts / f"{task[3]}_{os.getpid()}_{len(os.listdir(attempts))}").touch()
        raise ValueError(f"agent spec broken in game {task[3]}")

    tasks = {0: ("moco_v0", ("random", "random"), 1, 0, {}, None, None)}
    with pytest.raises(ValueError, match="agent spec broken in game 0"):
        RB.play_games(tasks, bad_game, max_retries=3)
    assert len(os.listdir(attempts)) == 1


def test_command_lines_with_backend_ray_write_the_local_files(ray_local, tmp_path, capsys):
    common = ["moco_v0", "--players", "2", "--games", "24", "--seed", "5", "--no-progress",
              "--bootstrap", "100", "--agents", "moco/heuristic", "random"]
    assert T.main([*common, "--out", str(tmp_path / "local")]) == 0
    assert T.main([*common, "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    for name in ("records.jsonl", "ratings.json", "ratings.md"):
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text()

    assert E.main([*common, "--out", str(tmp_path / "eval_local")]) == 0
    assert E.main([*common, "--out", str(tmp_path / "eval_ray"), "--backend", "ray"]) == 0
    assert ((tmp_path / "eval_ray" / "records.jsonl").read_text()
            == (tmp_path / "eval_local" / "records.jsonl").read_text())

    # benchmarks.check: record a small baseline locally, check it on Ray: exactly the same
    # ratings, so it passes with every agent's Elo as recorded.
    baselines = tmp_path / "baselines"
    baselines.mkdir()
    spec = {"name": "tiny", "about": "test",
            "tournament": {"env_id": "moco_v0", "players": 2, "games": 24, "seed": 5,
                           "agents": ["moco/heuristic", "random"], "options": {}},
            "bootstrap": 100}
    (baselines / "tiny.json").write_text(json.dumps(spec))
    flags = ["--baselines", str(baselines), "--no-progress", "--out", str(tmp_path / "check")]
    assert C.main([*flags, "--update", "--workers", "1"]) == 0
    capsys.readouterr()
    assert C.main([*flags, "--backend", "ray"]) == 0
    report = capsys.readouterr().out
    assert "tiny: ok" in report and "rating check passed" in report
    recorded = json.loads((baselines / "tiny.json").read_text())["ratings"]
    rerun = R.read_records(tmp_path / "check" / "tiny" / "records.jsonl")
    fit = R.bootstrap_fit(rerun, bootstrap=0)
    for i, agent in enumerate(fit.agents):
        assert round(float(fit.elo[i]), 1) == recorded[agent]["elo"]
