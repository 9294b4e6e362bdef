"""The PettingZoo layer: API and seed tests, state injection, records, rendering, codec."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import loco_envs
from loco_envs.mampfos.actions import NUM_ACTIONS, donkey_action, feed_action, str_to_action
from loco_envs.mampfos.observation import observation_size, slices, to_string
from loco_envs.mampfos.rules import MampfosGame
from tests.mampfos.helpers import state

MODES = [(n, m) for n in (2, 3, 5) for m in ("perfect", "recall")]


def play_random(env, seed: int, stop_after: int | None = None) -> int:
    """Play uniformly random legal actions; returns the number of decisions made."""
    pick = np.random.default_rng(seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        if stop_after is not None and steps >= stop_after:
            return steps
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[pick.integers(len(legal))]))
        steps += 1
    return steps


@pytest.mark.parametrize(("n", "memory"), MODES)
def test_api_test_passes(n, memory):
    api_test(loco_envs.make("mampfos_v0", num_players=n, memory=memory), num_cycles=300)


@pytest.mark.parametrize(("n", "memory"), MODES)
def test_seed_test_passes(n, memory):
    seed_test(lambda: loco_envs.make("mampfos_v0", num_players=n, memory=memory),
              num_cycles=300)


@pytest.mark.parametrize(("n", "memory"), MODES)
def test_observations_fit_the_space_and_rank_rewards_are_zero_sum(n, memory):
    env = loco_envs.make("mampfos_v0", num_players=n, memory=memory)
    env.reset(seed=n)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (observation_size(n, memory),)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    pick = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        assert space.contains(obs), to_string(obs["observation"], n, memory)
        for other in env.agents:  # masks are all zero for agents not to act
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[pick.integers(len(legal))]))
    assert sum(totals.values()) == pytest.approx(0.0)
    ranks = env.unwrapped.game.final_ranks()
    assert (ranks.count(0) > 1) == (list(totals.values()).count(max(totals.values())) > 1)


def test_score_reward_is_own_biscuits_minus_the_others_mean():
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3, reward="score")
    env.reset(seed=3)
    play_random(env, 3)
    scores = env.game.final_scores()
    env2 = loco_envs.make("mampfos_v0", wrapped=False, num_players=3, reward="score")
    env2.reset(seed=0, options={"state": env.state_dict()})
    expected = [s - (sum(scores) - s) / 2 for s in scores]
    assert [env2.rewards[a] for a in env2.possible_agents] == pytest.approx(expected)


@pytest.mark.parametrize("memory", ["perfect", "recall"])
def test_state_injection_reproduces_every_observation_and_the_rest_of_the_game(memory):
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=4, memory=memory)
    env.reset(seed=11)
    play_random(env, 1, stop_after=37)
    data = json.loads(json.dumps(env.state_dict()))  # JSON-safe
    copy = loco_envs.make("mampfos_v0", wrapped=False, num_players=4, memory=memory)
    copy.reset(seed=99, options={"state": data})
    assert copy.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        assert np.array_equal(copy.observe(agent)["observation"],
                              env.observe(agent)["observation"])
        assert np.array_equal(copy.observe(agent)["action_mask"],
                              env.observe(agent)["action_mask"])
        assert copy.view(agent) == env.view(agent)
    assert copy.state_dict() == data


def test_record_replay_round_trip(tmp_path):
    env = loco_envs.make("mampfos_v0", num_players=3, memory="recall")
    env.reset(seed=2024)
    play_random(env, 5)
    path = env.unwrapped.save_record(tmp_path / "game.jsonl")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0]["env"] == "mampfos_v0" and lines[0]["options"]["memory"] == "recall"
    assert all(line["action_str"] == MampfosGame.action_to_str(line["action"])
               for line in lines[1:-1])
    replayed = loco_envs.replay(path)
    assert replayed.state_dict() == env.unwrapped.state_dict()
    # a record whose move is illegal at that point, or misnamed, is rejected with its line
    feed = next(i for i, line in enumerate(lines) if line.get("action_str", "").startswith("feed"))
    for action, name in [(donkey_action(0), "donkey white"), (lines[feed]["action"], "wheel red")]:
        tampered = [dict(line) for line in lines]
        tampered[feed].update(action=action, action_str=name)
        bad = tmp_path / "bad.jsonl"
        bad.write_text("\n".join(json.dumps(x) for x in tampered) + "\n")
        with pytest.raises(ValueError, match=f"record line {feed + 1}"):
            loco_envs.replay(bad)


def test_record_of_an_injected_state_replays(tmp_path):
    env = loco_envs.make("mampfos_v0", num_players=2)
    env.reset(seed=8, options={"state": state(2)})
    play_random(env, 8)
    replayed = loco_envs.replay(env.unwrapped.save_record(tmp_path / "g.jsonl"))
    assert replayed.state_dict() == env.unwrapped.state_dict()


def test_ansi_and_human_render(capsys):
    env = loco_envs.make("mampfos_v0", num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "supply" in text and "player_2" in text
    human = loco_envs.make("mampfos_v0", num_players=2, render_mode="human")
    human.reset(seed=0)
    human.step(int(np.flatnonzero(human.observe(human.agent_selection)["action_mask"])[0]))
    assert "Los Mampfos" in capsys.readouterr().out


def test_classic_form_and_pettingzoo_registry():
    from loco_envs import mampfos_v0

    assert isinstance(mampfos_v0.raw_env(num_players=2), mampfos_v0.raw_env)
    env = mampfos_v0.env(num_players=5, memory="recall")
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert "mampfos_v0" in loco_envs.available_envs()
    try:
        from pettingzoo import make as pz_make
    except ImportError:
        pytest.skip("this PettingZoo has no registry")
    assert pz_make("aec", "loco/mampfos-v0", num_players=2).unwrapped.env_id == "mampfos_v0"


def test_game_builds_from_rng_and_options_for_the_benchmark():
    game = MampfosGame(rng=np.random.default_rng(0), num_players=5, memory="recall")
    assert game.legal_mask().dtype == np.int8 and game.legal_mask().shape == (NUM_ACTIONS,)
    steps = 0
    while not game.terminal:
        game.apply(int(np.flatnonzero(game.legal_mask())[-1]))
        steps += 1
    assert steps > 30 and game.current_seat == -1


def test_action_codec_is_context_free_unique_and_round_trips():
    names = [MampfosGame.action_to_str(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert [MampfosGame.str_to_action(x) for x in names] == list(range(NUM_ACTIONS))
    assert names[donkey_action(2)] == "donkey brown" and names[feed_action(1)] == "feed red"
    assert str_to_action("wheel yellow") == NUM_ACTIONS - 1


def test_observation_slices_tile_the_vector():
    for n in (2, 3, 4, 5):
        for memory in ("perfect", "recall"):
            table = slices(n, memory)
            stops = [0] + [s.stop for s in table.values()]
            assert [s.start for s in table.values()] == stops[:-1]
            assert stops[-1] == observation_size(n, memory)
