"""The PettingZoo layer of Moco!: API, seeding, observations, views, render, records, codec."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import loco_envs
from loco_envs import moco_v0
from loco_envs.moco import observation
from loco_envs.moco.actions import NUM_ACTIONS, action_table
from loco_envs.moco.cards import CARDS, CODES, card_id
from loco_envs.moco.rules import MocoGame
from tests.moco.helpers import do, load, position


def random_play(env, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for _agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("n", [2, 3, 5])
def test_api_test(n):
    api_test(loco_envs.make("moco_v0", num_players=n), num_cycles=200)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_seed_test(n):
    seed_test(lambda: loco_envs.make("moco_v0", num_players=n), num_cycles=100)


def test_api_test_in_match_mode():
    api_test(loco_envs.make("moco_v0", num_players=3, match=True), num_cycles=300)


def test_classic_form_and_pettingzoo_registry():
    env = moco_v0.env(num_players=2)
    env.reset(seed=1)
    assert env.unwrapped.env_id == "moco_v0"
    assert isinstance(moco_v0.raw_env(num_players=2), moco_v0.raw_env)
    assert "moco_v0" in loco_envs.available_envs()
    try:
        from pettingzoo import make as pz_make
    except ImportError:
        pytest.skip("this PettingZoo has no registry")
    assert pz_make("aec", "loco/moco-v0", num_players=4).unwrapped.num_players == 4


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_observation_size_bounds_and_mask(n):
    env = loco_envs.make("moco_v0", num_players=n)
    env.reset(seed=n)
    size = observation.observation_size(n)
    assert env.observation_space("player_0")["observation"].shape == (size,)
    rng = np.random.default_rng(n)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        vec = obs["observation"]
        assert vec.dtype == np.float32 and vec.shape == (size,)
        assert vec.min() >= 0 and vec.max() <= 255
        assert obs["action_mask"].dtype == np.int8
        for other in env.agents:
            if other != agent:
                assert env.observe(other)["action_mask"].sum() == 0
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_observation_slices_follow_the_view_from_the_observers_seat():
    chips = [[1, 0, 0, 0, 0, 0], [0, 2, 0, 0, 0, 0], [0, 0, 3, 0, 0, 0]]
    state = position(["5ml 9lk", "2mk 3mw Cw", "4ms"], piles={"leaves": "2wl 8wl"}, chips=chips,
                     current_seat=2, dealer=0)
    game = load(state)
    sl = observation.slices(3)
    obs = observation.encode(game.view(1))
    assert obs[sl["chips"]].tolist() == [0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    assert obs[sl["hand_sizes"]].tolist() == [3, 1, 2]
    assert obs[sl["to_act"]].tolist() == [0, 1, 0] and obs[sl["dealer"]].tolist() == [0, 0, 1]
    hand = np.flatnonzero(obs[sl["hand"]]) + 6
    assert sorted(CODES[c] for c in hand) == sorted("2mk 3mw Cw".split())
    leaves = obs[sl["pile_cards"]].reshape(6, 35)[3]
    assert sorted(CODES[c + 6] for c in np.flatnonzero(leaves)) == ["2wl", "8wl"]
    assert CODES[np.flatnonzero(obs[sl["pile_tops"]].reshape(6, 35)[3])[0] + 6] == "8wl"
    assert obs[sl["pile_heights"]].tolist() == [0, 0, 0, 2, 0, 0]
    assert obs[sl["pile_values"]].tolist() == [1, 1, 1, 8, 1, 1]
    assert obs[sl["supply"]].tolist() == [4, 3, 2, 5, 5, 5]
    assert "leaves" in observation.to_string(obs, 3)


@pytest.mark.parametrize(("n", "match"), [(2, False), (3, True), (4, False), (5, True)])
def test_the_fast_encoder_equals_the_encoding_of_the_view(n, match):
    env = loco_envs.make("moco_v0", num_players=n, match=match, wrapped=False)
    rng = np.random.default_rng(n)
    row = np.full(observation.observation_size(n), 7.0, np.float32)  # what a last game left
    for seed in range(3):
        env.reset(seed=seed)
        while True:
            for seat in range(n):
                expected = observation.encode(env.game.view(seat))
                assert np.array_equal(observation.encode_game(env.game, seat), expected)
                env.encode_into(seat, row)
                assert np.array_equal(row, expected)
            if env.over:  # the ended game is encoded too (last() observes it)
                break
            env.step(int(rng.choice(env.game.legal_actions())))


def test_hidden_cards_do_not_change_what_a_seat_observes():
    """Swap a card between seat 1's hand and the removed cards: seat 0 sees no difference."""
    base = position(["5ml 9lk", "2mk 3mw", "4ms 7sk"], removed="Cw Cs")
    swapped = position(["5ml 9lk", "2mk Cw", "4ms 7sk"], removed="3mw Cs")
    for seat in (0, 2):
        a, b = load(base).view(seat), load(swapped).view(seat)
        assert a == b
        assert np.array_equal(observation.encode(a), observation.encode(b))
    assert load(base).view(1) != load(swapped).view(1)
    text = load(swapped).render_text(0)
    assert "Cw" not in text and "2mk" not in text and "5ml" in text
    revealed = load(swapped).render_text(0, reveal_all=True)
    assert "Cw" in revealed and "2mk" in revealed and "3mw" in revealed


def test_render_modes():
    env = loco_envs.make("moco_v0", num_players=3, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "Moco!" in text and "moons" in text and "removed: 1 card," in text
    seat = env.unwrapped.game.current_seat
    lines = text.splitlines()[-3:]
    assert "hand 11 cards" in lines[(seat + 1) % 3]
    assert " ".join(env.unwrapped.state_dict()["hands"][seat]) in lines[seat]


def test_state_dict_round_trip_through_reset():
    env = loco_envs.make("moco_v0", num_players=4, wrapped=False)
    env.reset(seed=9)
    random_steps = np.random.default_rng(9)
    for _ in range(17):
        env.step(int(random_steps.choice(env.game.legal_actions())))
    state = json.loads(json.dumps(env.state_dict()))
    other = loco_envs.make("moco_v0", num_players=4, wrapped=False)
    other.reset(seed=123, options={"state": state})
    assert other.state_dict() == state
    assert other.agent_selection == env.agent_selection
    for agent in env.possible_agents:
        mine, theirs = env.observe(agent), other.observe(agent)
        assert np.array_equal(mine["observation"], theirs["observation"])
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])


@pytest.mark.parametrize("n, match", [(2, False), (5, False), (3, True)])
def test_record_replays_to_the_same_game(tmp_path, n, match):
    env = loco_envs.make("moco_v0", num_players=n, match=match, reward="score")
    env.reset(seed=31)
    random_play(env, seed=5)
    path = env.unwrapped.save_record(tmp_path / "game.jsonl")
    replayed = loco_envs.replay(path)
    assert replayed.state_dict() == env.unwrapped.state_dict()
    lines = path.read_text().splitlines()
    move = json.loads(lines[3])
    move["action_str"] = "chip moons" if move["action_str"] != "chip moons" else "chip suns"
    lines[3] = json.dumps(move)
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match="line 4"):
        loco_envs.replay(tmp_path / "bad.jsonl")


def test_record_from_an_injected_state_replays(tmp_path):
    state = position(["5ml 9lk", "2mk 3mw", "4ms 7sk"], piles={"knots": "3sk 4yk 5yk 6lk 8yk"})
    env = loco_envs.make("moco_v0", num_players=3)
    env.reset(seed=0, options={"state": state})
    random_play(env, seed=1)
    replayed = loco_envs.replay(env.unwrapped.save_record(tmp_path / "r.jsonl"))
    assert replayed.state_dict() == env.unwrapped.state_dict()


def test_action_codec_is_a_bijection_of_short_strings():
    names = [name for _, name in action_table()]
    assert len(names) == NUM_ACTIONS == len(set(names)) == MocoGame.NUM_ACTIONS
    for index, name in enumerate(names):
        assert MocoGame.action_to_str(index) == name
        assert MocoGame.str_to_action(name) == index
        assert MocoGame.str_to_action(f"  {name.upper()} ") == index
        assert len(name) <= 20
    for card in CARDS:
        assert card_id(card.code) == card.id


def test_a_turn_is_two_decisions_of_the_same_agent():
    env = loco_envs.make("moco_v0", num_players=3)
    env.reset(seed=8)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    assert mask[:72].any() and not mask[72:].any()
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.agent_selection == agent
    mask = env.observe(agent)["action_mask"]
    assert not mask[:72].any() and mask[72:].any()
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.agent_selection != agent


def test_view_is_frozen_and_holds_only_the_seats_hand():
    game = load(position(["5ml", "2mk", "4ms"]))
    view = game.view(1)
    assert view.hand == (card_id("2mk"),)
    with pytest.raises(AttributeError):
        view.hand = ()  # type: ignore[misc]
    do(game, "play 5ml on moons")
    assert game.view(2).piles[0] == (card_id("5ml"),)
