"""Evaluation and tournaments with ppo: agents: the batched path plays the runner's games."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks import tournament as T
from loco_envs.benchmarks.batched import play_tasks
from loco_envs.policy import NumpyPolicy, save_policy
from loco_envs.train.evaluate import evaluate, metric_name, resolve_opponent


def random_policy_file(tmp_path: Path, env_id: str, players: int) -> str:
    env = loco_envs.make(env_id, wrapped=False, num_players=players)
    size, n = env.observation_size(), env.game_class.NUM_ACTIONS
    rng = np.random.default_rng(0)
    policy = NumpyPolicy([(rng.normal(size=(16, size)).astype(np.float32) * 0.1,
                           np.zeros(16, np.float32))],
                         (rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n, np.float32)),
                         "tanh", "log1p")
    path = save_policy(tmp_path / f"{env_id}_{players}", policy,
                       {"env_id": env_id, "env_options": {"num_players": players}})
    return f"ppo:{path}"


@pytest.mark.parametrize(("env_id", "players", "other"),
                         [("moco_v0", 3, "moco/heuristic"), ("mampfos_v0", 2, "random"),
                          ("loco_v0", 2, "loco/heuristic"),
                          ("moco_v0", 2, "moco/ppo")])  # a shipped bot playing greedily
def test_batched_games_are_the_runners_games(tmp_path: Path, env_id, players, other) -> None:
    me = random_policy_file(tmp_path, env_id, players)
    t = T.Tournament(env_id, players, (me, other, "random"), 6, seed=4,
                     options={"max_decisions": 3000})
    tasks = [(env_id, seats, seed, g, dict(t.options), None, None)
             for g, seed, seats in T.schedule(t)]
    batched = play_tasks(tasks)
    one_by_one = [T.play_game(*task) for task in tasks]
    assert batched == one_by_one


def test_tournament_with_a_ppo_agent_is_the_same_with_one_or_two_workers(tmp_path: Path) -> None:
    me = random_policy_file(tmp_path, "moco_v0", 2)
    t = T.Tournament("moco_v0", 2, (me, "random"), 8, seed=2)
    assert T.play(t, workers=1, progress=False) == T.play(t, workers=2, progress=False)


def test_a_stalled_game_is_stopped_and_scored_as_a_tie(tmp_path: Path) -> None:
    me = random_policy_file(tmp_path, "loco_v0", 2)
    (record,) = play_tasks([("loco_v0", (me, "random"), 3, 0, {"max_decisions": 10}, None,
                             None)])
    assert record["capped"] and record["steps"] == 10
    assert record["ranks"] == [0, 0]
    record["agents"] = [me, "random"]
    R.compute_ratings([record], bootstrap=0)  # a valid match record


def test_evaluate_rates_the_policy_against_each_opponent(tmp_path: Path) -> None:
    me = random_policy_file(tmp_path, "moco_v0", 2).removeprefix("ppo:")
    result = evaluate(me, "moco_v0", 2, ["random", "moco/heuristic"], 4, seed=1,
                      options={"max_decisions": 2000}, bootstrap=10, out=tmp_path / "eval")
    assert set(result.win_rates) == {"random", "moco/heuristic"}
    assert len(result.records) == 8
    assert result.summary()["games"] == 8
    assert (tmp_path / "eval" / "ratings.png").is_file()


def test_names() -> None:
    assert resolve_opponent("heuristic", "moco_v0") == "moco/heuristic"
    assert resolve_opponent("random", "moco_v0") == "random"
    assert metric_name("loco/heuristic-strong") == "eval/winrate_vs_loco_heuristic_strong"


def test_command_line_prints_the_table_and_the_plot(tmp_path, capsys) -> None:  # noqa: ANN001
    from loco_envs.train.evaluate import main

    code = main(["moco_v0", "--players", "2", "--games", "4", "--agents", "moco/heuristic",
                 "random", "--out", str(tmp_path), "--bootstrap", "10", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "| moco/heuristic |" in out and f"plot: {tmp_path / 'ratings.png'}" in out
    assert main(["moco_v0", "--agents", "nobody"]) == 2


def test_batched_games_of_a_shipped_bot_at_a_temperature_are_the_runners(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(agents.PRETRAINED_TEMPERATURE, "moco/ppo", 0.5)
    assert agents.make("moco/ppo").temperature == 0.5
    me = random_policy_file(tmp_path, "moco_v0", 2)
    t = T.Tournament("moco_v0", 2, (me, "moco/ppo"), 6, seed=5)
    tasks = [("moco_v0", seats, seed, g, dict(t.options), None, None)
             for g, seed, seats in T.schedule(t)]
    assert play_tasks(tasks) == [T.play_game(*task) for task in tasks]
