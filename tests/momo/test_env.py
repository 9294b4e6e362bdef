"""The PettingZoo and Gymnasium layers: API checks, rewards, observations, records, bad input."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import loco_envs
from loco_envs.core import IllegalActionError, rank_rewards
from loco_envs.momo import observation
from loco_envs.momo.actions import ACTION_STRINGS, NUM_ACTIONS, action_to_str, str_to_action
from loco_envs.momo.rules import MomoGame, board_points, photographer_level
from tests.momo.helpers import board, game_from, make_state

FULL_BOARD = board(
    "Dn Dn Dn Dn Dn", "Dg Dg Dg Dg Dg", "Db Db Db Db Db", "Bn Bn Bn Bn Bn", "Bg Bg Bg Bg Bg"
)


def random_play(env, seed: int = 0, steps: int | None = None) -> None:
    """Drive an AEC env with random legal actions (all of it, or ``steps`` decisions)."""
    rng = np.random.default_rng(seed)
    done = 0
    for _ in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if steps is not None and done == steps:
            return
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        done += 1


# --- PettingZoo ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 4])
def test_pettingzoo_api_test(n):
    api_test(loco_envs.make("momo_v0", num_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_pettingzoo_seed_test(n):
    seed_test(lambda: loco_envs.make("momo_v0", num_players=n), num_cycles=300)


def test_api_test_with_both_expansions():
    api_test(
        loco_envs.make("momo_v0", num_players=3, expansion_a=True, expansion_b=True), num_cycles=300
    )


def test_classic_form_and_registries():
    from loco_envs import momo_v0

    assert "momo_v0" in loco_envs.available_envs()
    env = momo_v0.env(num_players=3)
    env.reset(seed=1)
    assert env.unwrapped.possible_agents == ["player_0", "player_1", "player_2"]
    assert isinstance(momo_v0.raw_env(), loco_envs.make("momo_v0", wrapped=False).__class__)
    try:
        from pettingzoo import make as pz_make
    except ImportError:
        pytest.skip("this PettingZoo has no registry")
    pz_env = pz_make("aec", "loco/momo-v0", num_players=2)
    pz_env.reset(seed=0)
    assert pz_env.unwrapped.env_id == "momo_v0"


def test_rank_rewards_follow_the_final_ranks():
    env = loco_envs.make("momo_v0", num_players=4)
    env.reset(seed=8)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(8)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            assert info["score"] == env.unwrapped.game.final_scores()[int(agent[-1])]
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.unwrapped.game
    assert [totals[f"player_{i}"] for i in range(4)] == rank_rewards(game.final_ranks())
    assert sum(totals.values()) == pytest.approx(0)


@pytest.mark.parametrize("reward", ["rank", "score"])
def test_solo_aec_reward_is_the_final_score(reward):
    env = loco_envs.make("momo_v0", num_players=1, reward=reward)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    total = 0.0
    for _ in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        total += r
        if term:
            score = env.unwrapped.game.final_scores()[0]
            assert info["photographer_level"] == photographer_level(score)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert total == env.unwrapped.game.final_scores()[0]
    assert total == board_points(env.unwrapped.game.boards[0]) and total > 0


def test_illegal_move_through_the_wrapped_env_ends_the_game():
    env = loco_envs.make("momo_v0", num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    env.step(illegal)  # PettingZoo logs a warning and ends the game
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0


# --- Gymnasium solo --------------------------------------------------------------------------
def test_gymnasium_check_env_on_the_solo_env():
    env = gymnasium.make("loco_envs/MomoSolo-v0")
    check_env(env.unwrapped)
    assert env.spec.id == "loco_envs/MomoSolo-v0"


def test_solo_gym_episode_reports_score_and_photographer_level():
    env = gymnasium.make("loco_envs/MomoSolo-v0")
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    rewards, steps, terminated = [], 0, False
    while not terminated:
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        steps += 1
        assert not truncated
    game = env.unwrapped.game
    assert rewards[-1] == info["score"] == board_points(game.boards[0])
    assert sum(rewards[:-1]) == 0 and steps <= 36
    assert info["photographer_level"] == photographer_level(info["score"])
    assert not info["action_mask"].any()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.unwrapped.step(0)


def test_solo_gym_illegal_action_terminates_without_playing_it():
    env = gymnasium.make("loco_envs/MomoSolo-v0", illegal_reward=-3.0).unwrapped
    obs, info = env.reset(seed=0)
    before = env.state_dict()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert info["illegal_action"] and env.state_dict() == before


def test_solo_gym_state_injection():
    state = make_state(1, forest=[["Rb"], [], [], []], rest="discarded", turn=5)
    env = gymnasium.make("loco_envs/MomoSolo-v0").unwrapped
    obs, info = env.reset(seed=0, options={"state": state})
    assert [ACTION_STRINGS[a] for a in np.flatnonzero(info["action_mask"])] == ["pick Rb in A"]
    obs, reward, terminated, _, _ = env.step(str_to_action("pick Rb in A"))
    obs, reward, terminated, _, info = env.step(str_to_action("place Rb on row 5"))
    assert terminated and reward == 1.0 and info["photographer_level"] == "career change"


# --- observation and view --------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_observation_size_and_bounds(n):
    env = loco_envs.make("momo_v0", wrapped=False, num_players=n, expansion_a=n > 1)
    assert observation.observation_size(n) == 127 + 204 * n
    env.reset(seed=n)
    rng = np.random.default_rng(n)
    while not env.game.terminal:
        for agent in env.agents:
            obs = env.observe(agent)
            assert env.observation_space(agent).contains(obs)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    table = observation.slices(n)
    assert table["boards"].stop == observation.observation_size(n)
    assert sum(s.stop - s.start for s in table.values()) == observation.observation_size(n)


def test_observation_is_relative_to_the_observer():
    state = make_state(3, boards=[board("Rb"), board(), board("", "Dg Dn")], turn=1)
    env = loco_envs.make("momo_v0", wrapped=False, num_players=3)
    env.reset(seed=0, options={"state": state})
    sl = observation.slices(3)
    for seat in range(3):
        obs = env.observe(f"player_{seat}")["observation"]
        boards = obs[sl["boards"]].reshape(3, 25, 8)
        own = boards[0].sum()
        assert own == 2 * sum(len(row) for row in state["boards"][seat])
        assert obs[sl["to_act"]].tolist() == [float((1 - seat) % 3 == k) for k in range(3)]
        assert obs[sl["first_player"]].tolist() == [float((0 - seat) % 3 == k) for k in range(3)]
    obs2 = env.observe("player_2")["observation"]
    cell = obs2[sl["boards"]].reshape(3, 25, 8)[1, 0]  # player_0, seen from seat 2, row 1 col 1
    assert cell.tolist() == [1, 0, 0, 0, 0, 1, 0, 0]  # rabbit, blue
    assert "Rb" in observation.to_string(obs2, 3)


def test_observation_and_view_never_show_the_bag_order():
    state = make_state(2)
    shuffled = json.loads(json.dumps(state))
    shuffled["bag"] = list(reversed(shuffled["bag"]))
    a, b = game_from(state), game_from(shuffled)
    assert a.state_dict() != b.state_dict()
    for seat in (0, 1):
        assert a.view(seat) == b.view(seat)
        assert np.array_equal(observation.encode(a.view(seat)), observation.encode(b.view(seat)))


def test_turns_left_in_the_view():
    game = game_from(make_state(3, turn=4, first_player=1))  # seat (1+4)%3 = 2 to act
    view = game.view(0)
    # turns 0..17: seat 1 plays 0,3,6,.. seat 2 plays 1,4,.. seat 0 plays 2,5,..; turns 0-3 are
    # done: seat 0 played once, seat 1 twice, seat 2 once (its second turn is under way)
    assert [view.turns_left(s) for s in range(3)] == [5, 4, 5]
    over = game_from(make_state(2, forest=[[], [], [], []], rest="discarded", turn=12))
    assert [over.view(0).turns_left(s) for s in (0, 1)] == [0, 0]


def test_render_ansi_shows_forest_boards_and_result():
    env = loco_envs.make("momo_v0", num_players=2, render_mode="ansi", expansion_b=True)
    env.reset(seed=2)
    text = env.render()
    assert "Forest" in text and "player_1" in text and "5 species" in text
    assert "Expansions" in text
    random_play(env, seed=2)
    text = env.unwrapped.game.render_text(None)
    assert "points" in text and "rank" in text
    assert "Bag, next first" in env.unwrapped.game.render_text(0, reveal_all=True)


# --- state injection and records -------------------------------------------------------------
def test_state_dict_round_trip_and_injection_continue_the_same_game():
    env = loco_envs.make("momo_v0", wrapped=False, num_players=3, expansion_a=True)
    env.reset(seed=21)
    random_play(env, seed=1, steps=40)
    state = env.state_dict()
    assert json.loads(json.dumps(state)) == state
    twin = loco_envs.make("momo_v0", wrapped=False, num_players=3, expansion_a=True)
    twin.reset(seed=999, options={"state": state})
    assert twin.state_dict() == state
    random_play(env, seed=2)
    random_play(twin, seed=2)
    assert twin.state_dict() == env.state_dict()
    assert twin.game.final_scores() == env.game.final_scores()


def test_record_replay_round_trip(tmp_path):
    env = loco_envs.make("momo_v0", num_players=4, expansion_a=True, expansion_b=True)
    env.reset(seed=77)
    random_play(env, seed=77)
    raw = env.unwrapped
    path = raw.save_record(tmp_path / "momo.jsonl")
    replayed = loco_envs.replay(path)
    assert replayed.state_dict() == raw.state_dict()
    lines = path.read_text().splitlines()
    move = json.loads(lines[3])
    legal = replayed.game_class.NUM_ACTIONS - 1 - move["action"]
    move["action"], move["action_str"] = legal, action_to_str(legal)
    lines[3] = json.dumps(move)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="line 4"):
        loco_envs.replay(tmp_path / "bad.jsonl")


def test_record_of_a_game_started_from_a_state_replays(tmp_path):
    state = make_state(2, forest=[["Rb", "Lb"], ["Eg"], [], []], rest="discarded", turn=10)
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=0, options={"state": state})
    random_play(env, seed=0)
    assert env.game.terminal
    replayed = loco_envs.replay(env.save_record(tmp_path / "s.jsonl"))
    assert replayed.state_dict() == env.state_dict()


# --- action codec ----------------------------------------------------------------------------
def test_action_strings_are_unique_and_invert():
    assert len(set(ACTION_STRINGS)) == NUM_ACTIONS == 135
    for a in range(NUM_ACTIONS):
        assert str_to_action(action_to_str(a)) == a
        assert MomoGame.str_to_action(MomoGame.action_to_str(a)) == a
    assert action_to_str(0) == "pick Rb in A" and action_to_str(59) == "pick Dg in D"
    assert action_to_str(60) == "place Rb on row 1" and action_to_str(134) == "place Dg on row 5"
    assert str_to_action("  place  Ln on row 3 ") == 60 + 4 * 5 + 2


# --- bad input -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "",
        "pick",
        "pick Xb in A",
        "pick Rb in E",
        "place Rb on row 6",
        "PICK Rb in A",
        "place Rb row 1",
        5,
    ],
)
def test_bad_action_strings(text):
    with pytest.raises(ValueError):
        str_to_action(text)


@pytest.mark.parametrize("action", [-1, 135, 10**6, True])
def test_bad_action_indices_in_the_codec(action):
    with pytest.raises(ValueError):
        action_to_str(action)


@pytest.mark.parametrize("action", [-1, 135, True, "3", 1.5, None])
def test_bad_actions_in_the_engine_raise_and_change_nothing(action):
    game = MomoGame(rng=np.random.default_rng(0), num_players=2)
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match=r"K-\d\d"):
        game.apply(action)
    assert game.state_dict() == before


def test_illegal_actions_through_the_raw_env_raise_and_change_nothing():
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=4)
    before = env.state_dict()
    mask = env.observe(env.agent_selection)["action_mask"]
    for action in np.flatnonzero(mask == 0)[:20]:
        with pytest.raises(ValueError, match=r"K-1[02]"):
            env.step(int(action))
    assert env.state_dict() == before and env.record_lines()[1:] == []


@pytest.mark.parametrize(
    "options, name",
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"expansion_a": "yes"}, "expansion_a"),
        ({"expansion_b": 1.5}, "expansion_b"),
        ({"num_players": 1, "expansion_a": True}, "expansion_a"),
        ({"num_players": 1, "expansion_b": True}, "expansion_b"),
        ({"expansion_c": True}, "expansion_c"),
        ({"reward": "win"}, "reward"),
    ],
)
def test_bad_options_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        loco_envs.make("momo_v0", **options)


def _set(path, value):
    def mutate(state):
        target = state
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(key):
    def mutate(state):
        del state[key]

    return mutate


@pytest.mark.parametrize(
    "mutate, field",
    [
        (_set(["num_players"], 3), "num_players"),
        (_set(["expansion_a"], "rabbit"), "expansion_a"),
        (_set(["expansion_b"], "wolf"), "expansion_b"),
        (_set(["first_player"], 2), "first_player"),
        (_set(["first_player"], "0"), "first_player"),
        (_set(["turn"], 13), "turn"),
        (_set(["turn"], -1), "turn"),
        (_set(["phase"], "draft"), "phase"),
        (_set(["phase"], "place"), "phase"),
        (_set(["current_seat"], 1), "current_seat"),
        (_set(["bag"], "Rb Rb"), "bag"),
        (_set(["bag", 0], "Xx"), "bag"),
        (_set(["forest"], [[], [], []]), "forest"),
        (_set(["forest", 0], ["Rb"] * 5), r"forest\[0\]"),
        (_set(["boards"], [[[]] * 5]), "boards"),
        (_set(["boards", 1], [[]] * 4), r"boards\[1\]"),
        (_set(["boards", 1, 2], [3]), r"boards\[1\]\[2\]"),
        (_set(["pending"], None), "pending"),
        (_set(["discarded"], ["Rb"]), "discarded"),
        (_set(["extra"], 1), "extra"),
        (_delete("bag"), "bag"),
    ],
)
def test_malformed_state_dicts_name_the_field(mutate, field):
    state = make_state(2)
    mutate(state)
    env = loco_envs.make("momo_v0", num_players=2)
    with pytest.raises(ValueError, match=field):
        env.reset(seed=0, options={"state": state})


@pytest.mark.parametrize(
    "state, field",
    [
        (
            make_state(2, pending=["Rb"], boards=[FULL_BOARD, board()]),
            "pending",
        ),  # K-13 would have discarded it
        (make_state(2, forest=[["Rb"] * 3, ["Lb"] * 4, ["Eb"] * 4, ["Bb"] * 4]), "forest"),
        (make_state(2, forest=[[], [], [], []], rest="discarded"), "forest"),
    ],
)
def test_inconsistent_states_are_refused(state, field):
    with pytest.raises(ValueError, match=field):
        game_from(state)


def test_view_of_a_bad_seat_and_frozen_view():
    game = MomoGame(rng=np.random.default_rng(0), num_players=2)
    with pytest.raises(ValueError):
        game.view(2)
    view = game.view(1)
    with pytest.raises(AttributeError):
        view.round = 3
