"""The LOCO AEC env: PettingZoo's checks, observations, records, bad input."""

from __future__ import annotations

import json

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import loco_envs
from loco_envs.loco import actions as A
from loco_envs.loco import observation
from loco_envs.loco.state import position


def play_randomly(env, seed: int = 0, limit: int = 100_000) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        if env.game.terminal:
            return
        actions = env.game.legal_actions()
        env.step(actions[rng.integers(len(actions))])
    raise AssertionError("game did not end")


@pytest.mark.parametrize("stacking", ["any", "identical"])
@pytest.mark.parametrize("n", [2, 4, 10])
def test_pettingzoo_api_test(n, stacking):
    api_test(loco_envs.make("loco_v0", num_players=n, stacking=stacking), num_cycles=300)


@pytest.mark.parametrize("stacking", ["any", "identical"])
@pytest.mark.parametrize("n", [2, 4, 10])
def test_pettingzoo_seed_test(n, stacking):
    seed_test(lambda: loco_envs.make("loco_v0", num_players=n, stacking=stacking),
              num_cycles=300)


def test_the_four_ways_to_build_the_env_agree():
    from loco_envs import loco_v0

    envs = [loco_envs.make("loco_v0", num_players=3), loco_v0.env(num_players=3),
            pettingzoo.make("aec", "loco/loco-v0", num_players=3)]
    for env in envs:
        env.reset(seed=11)
    first = [env.observe(env.agent_selection)["observation"] for env in envs]
    assert all(np.array_equal(first[0], other) for other in first[1:])
    assert isinstance(loco_v0.raw_env(num_players=3), loco_envs.make("loco_v0", wrapped=False,
                                                                       num_players=3).__class__)


def test_observation_has_the_documented_size_and_stays_in_bounds():
    env = loco_envs.make("loco_v0", num_players=5, wrapped=False)
    env.reset(seed=2)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (242 + 14 * 5,)
    rng = np.random.default_rng(2)
    for _ in range(500):
        if env.game.terminal:
            break
        for agent in env.possible_agents:
            assert space.contains(env.observe(agent))
        actions = env.game.legal_actions()
        env.step(actions[rng.integers(len(actions))])


def test_the_fast_encoder_equals_the_encoding_of_the_view():
    for seed, n in ((0, 2), (1, 4), (2, 10)):
        env = loco_envs.make("loco_v0", num_players=n, rounds=3, wrapped=False)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(3000):
            if env.game.terminal:
                break
            for seat in range(n):
                expected = observation.encode(env.game.view(seat))
                assert np.array_equal(observation.encode_game(env.game, seat), expected)
            actions = env.game.legal_actions()
            env.step(actions[rng.integers(len(actions))])


def test_the_fast_encoder_writes_in_place_over_a_stale_row():
    env = loco_envs.make("loco_v0", num_players=3, wrapped=False)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    row = np.full(observation.observation_size(3), 7.0, np.float32)  # what a last game left
    for _ in range(400):
        if env.game.terminal:
            break
        for seat in range(3):
            assert observation.encode_game(env.game, seat, out=row) is row
            assert np.array_equal(row, observation.encode(env.game.view(seat)))
            env.encode_into(seat, row)
            assert np.array_equal(row, env.encode(seat))
        actions = env.game.legal_actions()
        env.step(actions[rng.integers(len(actions))])


def test_observation_is_relative_to_the_observer_and_hides_other_hands():
    hands = [["r1", "r2", "r3"], ["g1", "g2"], ["b1", "b2", "b3", "b4"]]
    env = loco_envs.make("loco_v0", num_players=3, wrapped=False)
    env.reset(seed=0, options={"state": position(hands, ["r9"])})
    sl = observation.slices(3)
    obs = env.observe("player_1")["observation"]
    seats = obs[sl["seats"]].reshape(3, observation.PER_SEAT)
    assert list(seats[:, 0]) == [2, 4, 3]  # self, next clockwise, the one after
    other = position([["r1", "r2", "r3"], ["g1", "g2"], ["y1", "y2", "y3", "y4"]], ["r9"])
    env.reset(seed=0, options={"state": other})
    assert np.array_equal(env.observe("player_1")["observation"], obs)
    assert "hand[g1:1 g2:1]" in observation.to_string(obs, 3)


def test_masks_are_int8_and_only_the_agent_to_act_has_actions():
    env = loco_envs.make("loco_v0", num_players=3, wrapped=False)
    env.reset(seed=5)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (A.NUM_ACTIONS,)
        assert mask.any() == (agent == env.agent_selection)


def test_action_strings_round_trip():
    for action in range(A.NUM_ACTIONS):
        assert A.str_to_action(A.action_to_str(action)) == action
    assert A.str_to_action("play  r5 x1") == A.str_to_action("play r5")
    with pytest.raises(ValueError, match="unknown LOCO action"):
        A.str_to_action("play z9")


def test_rank_and_score_rewards_at_the_end():
    for reward in ("rank", "score"):
        env = loco_envs.make("loco_v0", num_players=3, wrapped=False, reward=reward)
        env.reset(seed=0, options={"state": position([["r5"], ["g5", "+4"], ["b1"]], ["r3"])})
        env.step(env.str_to_action("play r5"))
        expected = {"rank": [1.0, -1.0, 0.0], "score": [56.0, -28.0, -28.0]}[reward]
        assert [env.rewards[a] for a in env.possible_agents] == expected
        assert env.infos["player_0"] == {"score": 56.0, "rank": 0}


def test_render_shows_only_the_viewers_hand():
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False, render_mode="ansi")
    env.reset(seed=0, options={"state": position([["r1", "r2"], ["g7", "g8"]], ["r9"])})
    text = env.render()
    assert "hand: r1 r2" in text and "g7" not in text and "p0 to decide" in text
    assert "g7 g8" in env.game.render_text(None, reveal_all=True)


@pytest.mark.parametrize("stacking", ["any", "identical"])
def test_record_replays_to_the_same_match(tmp_path, stacking):
    env = loco_envs.make("loco_v0", num_players=4, rounds=3, wrapped=False,
                         timeout_rate=0.05, photo_finish="seat", stacking=stacking)
    env.reset(seed=9)
    play_randomly(env, seed=9)
    path = env.save_record(tmp_path / "match.jsonl")
    assert env.record_lines()[0]["options"]["stacking"] == stacking
    replayed = loco_envs.replay(path)
    assert replayed.game.stacking == stacking
    assert replayed.state_dict() == env.state_dict()
    assert replayed.game.final_ranks() == env.game.final_ranks()


def test_a_record_replayed_under_the_other_stacking_fails_on_the_refused_answer(tmp_path):
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    env.reset(seed=0, options={"state": position([["r+2", "g1", "g2"], ["g+2", "b4"]],
                                                 ["r3"])})
    for text in ("play r+2", "play g+2"):  # any +2 answers by default
        env.step(env.str_to_action(text))
    path = env.save_record(tmp_path / "s.jsonl")
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["options"]["stacking"] = "identical"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(ValueError, match="line 3"):
        loco_envs.replay(path)


def test_record_from_an_injected_state_replays(tmp_path):
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    env.reset(seed=1, options={"state": position([["r5", "W", "g1"], ["r5", "g7"]], ["r3"])})
    for text in ("play r5", "slap r5", "loco", "pass"):
        env.step(env.str_to_action(text))
    replayed = loco_envs.replay(env.save_record(tmp_path / "r.jsonl"))
    assert replayed.state_dict() == env.state_dict()


def _tamper(path, line_number, **changes):
    lines = path.read_text().splitlines()
    record = json.loads(lines[line_number - 1])
    record.update(changes)
    lines[line_number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_a_record_that_does_not_replay_names_its_line(tmp_path):
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    env.reset(seed=3)
    play_randomly(env, seed=3)
    path = env.save_record(tmp_path / "m.jsonl")
    _tamper(path, 4, action=A.CONTRE, action_str="contre")
    with pytest.raises(ValueError, match="line 4"):
        loco_envs.replay(path)
    path = env.save_record(tmp_path / "m.jsonl")
    _tamper(path, 1, seed=4)
    with pytest.raises(ValueError, match="line"):
        loco_envs.replay(path)
    path.write_text(path.read_text().replace('"agent"', '"agnt"', 1))
    with pytest.raises(ValueError, match="line 2"):
        loco_envs.replay(path)
    path.write_text("{not json\n")
    with pytest.raises(ValueError, match="line 1"):
        loco_envs.replay(path)


def test_the_env_timeout_hook_runs_the_clock_and_is_recorded(tmp_path):
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    env.reset(seed=0, options={"state": position([["r1", "r2"], ["g7", "g8"]], ["r9"])})
    env.timeout()
    assert env.agent_selection == "player_1" and env.game.hand_sizes[0] == 3
    play_randomly(env, seed=0)
    lines = env.record_lines()
    assert lines[1] == {"i": 0, "agent": "player_0", "action": None, "action_str": "timeout"}
    replayed = loco_envs.replay(env.save_record(tmp_path / "t.jsonl"))
    assert replayed.state_dict() == env.state_dict()


def test_L32_play_takes_the_stacking_option_and_explains_the_identical_answer(tmp_path):
    from loco_envs import play
    from tests.cli.helpers import Script, ScriptedBot, console

    record = tmp_path / "p.jsonl"
    con, buffer = console()
    status = play.main(["loco_v0", "--option", "stacking=identical", "--seed", "2", "--record",
                        str(record)], input_fn=Script(["quit"]), console=con)
    assert status == 0
    assert json.loads(record.read_text().splitlines()[0])["options"]["stacking"] == "identical"
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False, stacking="identical")
    env.reset(seed=0, options={"state": position([["g+2", "r+2", "b4"], ["r+2", "g1", "g2"]],
                                                 ["r3"], actor=1)})
    con, buffer = console()
    play.play_game(env, 0, {1: ScriptedBot(env, "play r+2")}, console=con,
                   input_fn=Script(["pass", "play g+2", "quit"]))
    out = buffer.getvalue()
    assert "it is your turn next - you hold r+2: slap it now" in out  # L-41
    assert "answer it with an identical r+2 (stacking=identical)" in out
    assert "L-32" in out and "stacking='identical'" in out  # the refused g+2, explained


def test_every_field_of_a_game_stays_in_its_slots_through_whole_matches():
    """``LocoGame.__slots__`` keeps each game's state in one object (vector env speed); a field
    added outside it would land in a per-game dict again, so no game may grow one."""
    env = loco_envs.make("loco_v0", wrapped=False, num_players=4, rounds=3, timeout_rate=0.1)
    rng = np.random.default_rng(0)
    for seed in range(5):
        env.reset(seed=seed)
        while not env.over:
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            env.step(int(rng.choice(legal)))
            assert vars(env.game) == {}
    loaded = loco_envs.make("loco_v0", wrapped=False, num_players=4, rounds=3)
    loaded.reset(seed=0, options={"state": env.game.state_dict()})
    assert vars(loaded.game) == {}
