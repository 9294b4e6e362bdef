"""The ``max_decisions`` episode cap: truncation in PettingZoo's sense, reward 0, replayable."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

import loco_envs
from loco_envs.core.records import check_result, replay
from loco_envs.core.registry import wrap
from tests.core.toy_game import RaceEnv

#: A player count per game that keeps the api_test short.
PLAYERS = {"loco_v0": 3, "moco_v0": 3, "momo_v0": 2, "mampfos_v0": 3}


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play_out(env, choose=first_legal) -> list[tuple]:
    """Play to the end; return the ``last()`` of every dead step, in order."""
    ends = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            ends.append((agent, reward, term, trunc, info))
            env.step(None)
        else:
            env.step(choose(obs["action_mask"]))
    return ends


def test_cap_truncates_every_agent_with_reward_zero_and_scores_so_far():
    env = RaceEnv(num_players=3, target=50, max_decisions=4)
    env.reset(seed=0)
    ends = play_out(env, choose=lambda mask: 1)  # add 2 four times: total 8, far from 50
    assert sorted(agent for agent, *_ in ends) == sorted(env.possible_agents)
    for _agent, reward, term, trunc, info in ends:
        assert (reward, term, trunc) == (0.0, False, True)
        assert info == {"truncated": True, "decisions": 4, "score": 0.0}
    assert env.game.total == 8 and not env.game.terminal and env.agents == []


def test_masks_are_empty_and_actions_refused_after_truncation():
    env = RaceEnv(num_players=2, target=50, max_decisions=2)
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    assert all(env.truncations.values()) and env.over
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()
    with pytest.raises(ValueError, match="None"):
        env.step(0)  # a dead agent may only step None
    assert env.game.total == 2


def test_a_game_ending_on_its_last_allowed_decision_terminates_normally():
    env = RaceEnv(num_players=2, target=4, max_decisions=2)
    env.reset(seed=0)
    env.step(1)
    env.step(1)  # total 4: the game ends on the second decision
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert sorted(env.rewards.values()) == [-1.0, 1.0]


def test_no_cap_by_default_and_cap_counts_from_a_given_state():
    assert RaceEnv().options["max_decisions"] is None
    env = RaceEnv(num_players=2, target=50, max_decisions=1)
    env.reset(seed=0, options={"state": {"total": 20, "current_seat": 1}})
    env.step(0)
    assert all(env.truncations.values()) and env.decisions == 1


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_cap_raises_naming_the_option(bad):
    with pytest.raises(ValueError, match="max_decisions"):
        RaceEnv(max_decisions=bad)


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
@pytest.mark.parametrize("bad", [0, -1, 1.5, False])
def test_every_game_validates_the_cap(env_id, bad):
    with pytest.raises(ValueError, match="max_decisions"):
        loco_envs.make(env_id, max_decisions=bad)


def test_api_test_with_the_cap_on_the_toy_env():
    api_test(wrap(RaceEnv(num_players=3, target=50, max_decisions=5)), num_cycles=30)


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
@pytest.mark.parametrize("cap", [1, 5, 40])
def test_api_test_passes_with_the_cap(env_id, cap):
    api_test(loco_envs.make(env_id, num_players=PLAYERS[env_id], max_decisions=cap),
             num_cycles=60)


def test_truncated_record_replays_and_is_checked_as_truncated(tmp_path):
    env = RaceEnv(num_players=2, target=50, max_decisions=3)
    env.reset(seed=4)
    play_out(env)
    lines = env.record_lines()
    assert lines[0]["options"]["max_decisions"] == 3
    assert lines[-1] == {"result": {"truncated": True, "decisions": 3, "scores": [0.0, 0.0]}}
    check_result(env, 5, lines[-1]["result"])
    with pytest.raises(ValueError, match="line 5.*truncated after 3"):
        check_result(env, 5, {"truncated": True, "decisions": 4, "scores": [0.0, 0.0]})
    with pytest.raises(ValueError, match="line 5: the record ends the game"):
        check_result(env, 5, {"ranks": [0, 1], "scores": [0.0, 0.0]})


def test_a_record_without_its_cap_is_not_taken_as_truncated(tmp_path):
    env = RaceEnv(num_players=2, target=50)
    env.reset(seed=4)
    for _ in range(3):
        env.step(0)
    with pytest.raises(ValueError, match="line 5: .*truncated, the replay goes on"):
        check_result(env, 5, {"truncated": True, "decisions": 3, "scores": [0.0, 0.0]})


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
def test_truncated_game_of_every_env_replays(env_id, tmp_path):
    env = loco_envs.make(env_id, wrapped=False, num_players=PLAYERS[env_id], max_decisions=12)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    play_out(env, choose=lambda mask: int(rng.choice(np.flatnonzero(mask))))
    path = env.save_record(tmp_path / "game.jsonl")
    result = json.loads(path.read_text().splitlines()[-1])["result"]
    assert result["truncated"] and result["decisions"] == 12
    replayed = replay(path)
    assert replayed.truncated_game and replayed.decisions == 12
    assert replayed.state_dict() == env.state_dict()


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
def test_replay_refuses_a_move_after_the_cap(env_id, tmp_path):
    env = loco_envs.make(env_id, wrapped=False, num_players=PLAYERS[env_id], max_decisions=6)
    env.reset(seed=5)
    play_out(env)
    lines = env.record_lines()
    uncapped = loco_envs.make(env_id, wrapped=False, num_players=PLAYERS[env_id])
    uncapped.reset(seed=5)
    for _ in range(7):
        uncapped.step(first_legal(uncapped.observe(uncapped.agent_selection)["action_mask"]))
    extra = uncapped.record_lines()[7]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in [*lines[:-1], extra]))
    with pytest.raises(ValueError, match="line 8: a move after the game was truncated"):
        replay(path)


def test_replay_command_says_the_game_was_truncated(tmp_path):
    from loco_envs.watch import main
    from tests.cli.helpers import console

    env = loco_envs.make("loco_v0", wrapped=False, num_players=2, max_decisions=9)
    env.reset(seed=1)
    play_out(env)
    path = env.save_record(tmp_path / "game.jsonl")
    out, buffer = console()
    assert main([str(path), "--brief"], console=out) == 0
    assert ("Replayed 9 moves: the game was truncated at max_decisions=9 before it ended; "
            "the record's result matches") in " ".join(buffer.getvalue().split())


def test_the_tournament_cap_is_the_env_option(tmp_path):
    from loco_envs.benchmarks.tournament import play_game

    record = play_game("loco_v0", ["random", "random"], seed=3,
                       options={"max_decisions": 10}, record_path=tmp_path / "g.jsonl")
    assert record["capped"] and record["steps"] == 10 and record["ranks"] == [0, 0]
    assert "max_decisions" not in record["options"]  # the match record says "capped"
    assert replay(tmp_path / "g.jsonl").truncated_game
    assert play_game("loco_v0", ["random", "random"], seed=3, max_decisions=10) == {
        **record, "steps": 10}
    with pytest.raises(ValueError, match="max_decisions"):
        play_game("loco_v0", ["random", "random"], seed=3, options={"max_decisions": 5},
                  max_decisions=10)
