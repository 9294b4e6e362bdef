"""Evaluation games: the tournament runner's games, with a length cap scored as a tie."""

from __future__ import annotations

from benchmarks import ratings as R
from benchmarks import tournament as T
from train.evaluate import metric_name, play_capped, resolve_opponent


def test_capped_play_is_the_runners_game_when_it_ends() -> None:
    for env_id, seats in [("loco_v0", ["loco/heuristic", "random"]),
                          ("mampfos_v0", ["random", "mampfos/heuristic", "random"])]:
        mine = play_capped(env_id, seats, seed=11, game_index=4)
        theirs = T.play_game(env_id, seats, seed=11, game_index=4)
        assert not mine["capped"]
        assert mine == theirs


def test_a_stalled_game_is_stopped_and_scored_as_a_tie() -> None:
    record = play_capped("loco_v0", ["random", "random"], seed=3, max_decisions=10)
    assert record["capped"] and record["steps"] == 10
    assert record["ranks"] == [0, 0]
    record["agents"] = ["random"]
    R.compute_ratings([record], bootstrap=0)  # a valid match record


def test_names() -> None:
    assert resolve_opponent("heuristic", "moco_v0") == "moco/heuristic"
    assert resolve_opponent("random", "moco_v0") == "random"
    assert metric_name("loco/heuristic-strong") == "eval/winrate_vs_loco_heuristic_strong"


def test_command_line_prints_the_table_and_the_plot(tmp_path, capsys) -> None:  # noqa: ANN001
    from train.evaluate import main

    code = main(["moco_v0", "--players", "2", "--games", "4", "--agents", "moco/heuristic",
                 "random", "--out", str(tmp_path), "--bootstrap", "10", "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "| moco/heuristic |" in out and f"plot: {tmp_path / 'ratings.png'}" in out
    assert main(["moco_v0", "--agents", "nobody"]) == 2
