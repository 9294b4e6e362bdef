"""Bad options, actions, strings, states and records are refused with a named reason."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.core import IllegalActionError
from loco_envs.mampfos.actions import action_to_str, str_to_action
from loco_envs.mampfos.rules import MampfosGame
from tests.mampfos.helpers import colours, game_from, only_pile, state


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"memory": "total"}, "memory"),
        ({"memory": None}, "memory"),
        ({"reward": "win"}, "reward"),
        ({"colour_blind": True}, "colour_blind"),
    ],
)
def test_bad_options_name_the_option_and_the_allowed_values(options, name):
    with pytest.raises(ValueError, match=name):
        loco_envs.make("mampfos_v0", **options)


def test_the_engine_checks_its_options_too():
    with pytest.raises(ValueError, match="memory"):
        MampfosGame(rng=np.random.default_rng(0), num_players=3, memory="photographic")


WHEEL = state(3, phase="wheel", card="drop W", feed_left=0,
              bellies=[colours(red=1), [0] * 5, [0] * 5])
DONKEY = state(3, phase="donkey", card="feed *3", donkey=None, feed_left=0)
END = state(3, phase="donkey", card="end", donkey=None, feed_left=0, end_left=["white", "brown"],
            pile=only_pile())


@pytest.mark.parametrize(
    ("data", "action", "rule"),
    [
        (state(3), "donkey white", "P-11"),
        (state(3), "wheel red", "P-11"),
        (WHEEL, "feed red", "P-12"),
        (WHEEL, "donkey grey", "P-12"),
        (DONKEY, "feed red", "P-11"),
        (DONKEY, "wheel blue", "P-11"),
        (END, "wheel blue", "P-13"),
        (END, "donkey grey", "P-13"),
    ],
)
def test_an_action_of_the_wrong_kind_names_the_rule_and_changes_nothing(data, action, rule):
    game = game_from(data)
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match=rule):
        game.apply(str_to_action(action))
    assert game.state_dict() == before


@pytest.mark.parametrize("action", [-1, 13, 99, None, "feed red", 2.5, True])
def test_a_non_action_is_refused(action):
    game = game_from(state(3))
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="P-11: action .* not an action index"):
        game.apply(action)
    assert game.state_dict() == before


def test_numpy_integers_are_accepted():
    game = game_from(state(3))
    game.apply(np.int64(str_to_action("feed red")))
    assert game.bellies[0][1] == 1


@pytest.mark.parametrize("text", ["feed purple", "Feed red", "", "wheel", None, 3])
def test_unknown_action_strings_are_refused(text):
    with pytest.raises(ValueError, match="unknown action"):
        str_to_action(text)


@pytest.mark.parametrize("action", [-1, 13, "3", 1.0, None])
def test_action_to_str_refuses_non_indices(action):
    with pytest.raises(ValueError, match="not an action index"):
        action_to_str(action)


def test_the_wrapped_env_ends_the_game_on_an_illegal_move():
    env = loco_envs.make("mampfos_v0", num_players=3)
    env.reset(seed=0)
    mover = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(mover)["action_mask"] == 0)[0])
    before = env.unwrapped.state_dict()
    env.step(illegal)
    assert env.unwrapped.state_dict() == before
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1.0


def mutate(**changes):
    data = state(3)
    data.update(changes)
    return data


def without(field):
    data = state(3)
    del data[field]
    return data


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("not a dict", "dict"),
        (without("positions"), "positions"),
        (without("last_share"), "last_share"),
        (mutate(num_players=4), "num_players"),
        (mutate(positions=[0, 4, 4]), "positions"),
        (mutate(positions=[0, 4, 12]), "positions"),
        (mutate(positions=[0, 4]), "positions"),
        (mutate(supply=[20, 20, 20, 20]), "supply"),
        (mutate(supply=[20, 20, 20, 20, 21]), "supply"),
        (mutate(bellies=[[0] * 5, [0] * 5]), "bellies"),
        (mutate(bellies=[[0] * 5, [-1, 0, 0, 0, 0], [0] * 5]), "bellies"),
        (mutate(collected=[[0] * 5]), "collected"),
        (mutate(pile={"A": []}), "pile"),
        (mutate(pile=dict(only_pile(H=["end"]), B=["feed X9"])), "pile"),
        (mutate(pile=only_pile(A=["end"], H=["end"])), "pile"),
        (mutate(pile=only_pile(A=["feed W1"])), "pile"),
        (mutate(active=3), "active"),
        (mutate(active="0"), "active"),
        (mutate(phase="flip"), "phase"),
        (mutate(card="feed W4"), "card"),
        (mutate(card=None), "card"),
        (mutate(card="drop G"), "card"),
        (mutate(donkey="pink"), "donkey"),
        (mutate(donkey="grey"), "donkey"),
        (mutate(feed_left=5), "feed_left"),
        (mutate(feed_left=2), "feed_left"),
        (mutate(card_fed=[1, 0, 0, 0, 0]), "feed_left"),
        (mutate(end_left=["white", "white"]), "end_left"),
        (mutate(end_left=["white"]), "end_left"),
        (mutate(wheels=[None, None]), "wheels"),
        (mutate(wheels=["red", None, None]), "wheels"),
        (mutate(wheels=[None, "mauve", None]), "wheels"),
        (mutate(fed_since=[]), "fed_since"),
        (mutate(share_new=[0, 0, 0]), "share_new"),
        (mutate(last_share={"donkey": "white"}), "last_share"),
        (mutate(last_share={"donkey": "white", "out": [0] * 5, "back": [0] * 5,
                            "wheels": ["red"] * 3, "gains": [0, -1, 0]}), "last_share.gains"),
        (dict(WHEEL, wheels=[None, "red", None]), "wheels"),
        (dict(WHEEL, wheels=["red", "red", "red"]), "wheels"),
        (dict(WHEEL, card="feed W3"), "card"),
        (dict(DONKEY, card="drop W"), "card"),
        (dict(DONKEY, donkey="white"), "donkey"),
        (dict(END, end_left=["white"]), "end_left"),
        (dict(END, pile=only_pile(H=["end"])), "pile"),
        (state(3, phase="over", card=None, donkey=None, feed_left=0), "phase"),
        (state(3, collected=[colours(orange=20, red=20, blue=20, green=20, yellow=17),
                             [0] * 5, [0] * 5]), "supply"),
    ],
)
def test_malformed_states_name_the_field(data, field):
    env = loco_envs.make("mampfos_v0", num_players=3)
    with pytest.raises(ValueError, match=field):
        env.reset(seed=0, options={"state": data})


def test_malformed_records_name_the_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"env": "mampfos_v0", "options": {"num_players": 2}, "seed": 1}\n'
                    '{"agent": "player_0"}\n')
    with pytest.raises(ValueError, match="record line 2"):
        loco_envs.replay(path)
    path.write_text('{"env": "mampfos_v0", "options": {"num_players": 7}, "seed": 1}\n')
    with pytest.raises(ValueError, match="record line 1.*num_players"):
        loco_envs.replay(path)
