"""The generic environment on a toy game: rewards, dead steps, options, records."""

from __future__ import annotations

import json

import pytest
from pettingzoo.test import api_test

from loco_envs.core import rank_rewards, score_rewards
from loco_envs.core.records import check_result
from loco_envs.core.registry import wrap
from tests.core.toy_game import RaceEnv


def play_out(env, choose=lambda mask: int(mask.nonzero()[0][-1])):
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else choose(obs["action_mask"]))


def test_rank_rewards_are_zero_sum_and_tie_neutral():
    assert rank_rewards([0, 1]) == [1.0, -1.0]
    assert rank_rewards([0, 1, 1]) == [1.0, -0.5, -0.5]
    assert rank_rewards([0, 0, 2, 3]) == pytest.approx([2 / 3, 2 / 3, -1 / 3, -1.0])
    assert sum(rank_rewards([2, 0, 1, 1, 4])) == pytest.approx(0)


def test_score_rewards_subtract_the_others_mean():
    assert score_rewards([10, 4, 1]) == [7.5, -1.5, -6.0]
    assert score_rewards([5]) == [5.0]


def test_api_test_passes_on_the_wrapped_toy_env():
    api_test(wrap(RaceEnv(num_players=3)), num_cycles=20)


def test_every_agent_receives_its_final_reward_once():
    env = RaceEnv(num_players=3)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        env.step(None if term or trunc else 1)
    assert sorted(totals.values()) == [-0.5, -0.5, 1.0]
    assert env.agents == []


@pytest.mark.parametrize("bad", [{"num_players": 9}, {"colour": "red"}, {"reward": "win"}])
def test_bad_options_name_the_option(bad):
    name = next(iter(bad))
    with pytest.raises(ValueError, match=name):
        RaceEnv(**bad)


def test_malformed_state_names_the_field():
    env = RaceEnv()
    with pytest.raises(ValueError, match="total"):
        env.reset(seed=0, options={"state": {"total": "nine", "current_seat": 0}})


def test_illegal_action_raises_and_changes_nothing():
    env = RaceEnv()
    env.reset(seed=1)
    before = env.state_dict()
    with pytest.raises(ValueError, match="R-1"):
        env.step(5)
    assert env.state_dict() == before and env.decisions == 0


def test_state_injection_starts_from_the_dict():
    env = RaceEnv()
    env.reset(seed=0, options={"state": {"total": 9, "current_seat": 1}})
    assert env.agent_selection == "player_1"
    env.step(0)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_record_has_header_moves_and_result(tmp_path):
    env = RaceEnv(num_players=2, reward="score")
    env.reset(seed=5)
    play_out(env)
    lines = [json.loads(x) for x in env.save_record(tmp_path / "g.jsonl").read_text().splitlines()]
    assert lines[0]["env"] == "race_v0" and lines[0]["seed"] == 5
    assert lines[0]["options"]["reward"] == "score"
    assert all(line["action_str"] == "add 2" for line in lines[1:-1])
    assert lines[-1]["result"]["scores"] == env.game.final_scores()
    check_result(env, 9, lines[-1]["result"])
    with pytest.raises(ValueError, match="line 9"):
        check_result(env, 9, {"ranks": [0, 0], "scores": [0.0, 0.0]})
