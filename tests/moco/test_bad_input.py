"""Bad input: illegal actions name the rule and change nothing; bad options and states name
the option or field."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import loco_envs
from loco_envs.core import IllegalActionError
from loco_envs.moco.rules import MocoGame
from tests.moco.helpers import load, position


def test_illegal_actions_name_the_rule_and_change_nothing():
    game = MocoGame(np.random.default_rng(3), num_players=3)
    rng = np.random.default_rng(3)
    checked = 0
    while not game.terminal:
        mask = game.legal_mask()
        before = game.state_dict()
        for action in np.flatnonzero(mask == 0)[::7]:
            with pytest.raises(IllegalActionError, match=r"^M-1[0-3]: "):
                game.apply(int(action))
            assert game.state_dict() == before
            assert np.array_equal(game.legal_mask(), mask)
            checked += 1
        game.apply(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 100
    with pytest.raises(IllegalActionError, match="M-20"):
        game.apply(0)


@pytest.mark.parametrize("action", [-1, 79, 1000, "chip moons", None, 2.5])
def test_out_of_range_actions_are_refused(action):
    game = load(position(["5ml", "2mk", "4ms"]))
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="M-10"):
        game.apply(action)
    assert game.state_dict() == before


def test_wrapped_env_ends_the_game_on_an_illegal_move():
    env = loco_envs.make("moco_v0", num_players=2)
    env.reset(seed=0)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards[mover] == -1.0


def test_raw_env_raises_and_records_nothing():
    env = loco_envs.make("moco_v0", num_players=2, wrapped=False)
    env.reset(seed=0)
    before = env.state_dict()
    with pytest.raises(ValueError, match="M-1"):
        env.step(78)
    assert env.state_dict() == before and env.record_lines()[1:] == []


@pytest.mark.parametrize(
    "options, name",
    [({"num_players": 1}, "num_players"), ({"num_players": 6}, "num_players"),
     ({"num_players": "3"}, "num_players"), ({"num_players": True}, "num_players"),
     ({"match": "yes"}, "match"), ({"match": 1}, "match"), ({"players": 3}, "players"),
     ({"reward": "win"}, "reward")],
)
def test_bad_options_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        loco_envs.make("moco_v0", **options)


def test_unknown_action_strings_are_refused():
    for text in ("play 5ml on suns", "chip", "take moons", "play Am on moons", ""):
        with pytest.raises(ValueError, match="unknown action"):
            MocoGame.str_to_action(text)
    with pytest.raises(ValueError):
        MocoGame.action_to_str(79)


GOOD = position(["5ml 9lk", "2mk 3mw", "4ms 7sk"], piles={"waves": "Cw"},
                chips=[[1, 0, 0, 0, 0, 0], [0] * 6, [0] * 6])


def _set(path, value):
    def change(state):
        *where, last = path
        target = state
        for key in where:
            target = target[key]
        target[last] = value
    return change


def _drop(field):
    return lambda state: state.pop(field)


BAD_STATES = [
    (_drop("hands"), "hands"),
    (_set(["colour"], "red"), "colour"),
    (_set(["num_players"], 4), "num_players"),
    (_set(["match"], True), "match"),
    (_set(["match"], "no"), "match"),
    (_set(["hands"], [["5ml"], ["2mk"]]), "hands"),
    (_set(["hands", 0, 0], "Zz"), "hands"),
    (_set(["hands", 0, 0], 5), "hands"),
    (_set(["hands", 0, 0], "Am"), "hands"),
    (_set(["hands", 1, 0], "9lk"), "hands"),
    (_set(["removed"], ["2mk"]), "removed"),
    (_set(["removed"], "2mk"), "removed"),
    (_set(["removed"], ["X"]), "removed"),
    (_set(["piles"], [[]] * 5), "piles"),
    (_set(["piles", 0], ["Cw"]), "piles"),
    (_set(["piles", 3], ["2wl", "3ly", "4wl", "5ml", "6lk", "7ml", "8wl"]), "piles"),
    (_set(["chips", 0, 0], 2), "supply"),
    (_set(["chips", 0, 0], -1), "chips"),
    (_set(["chips"], [[0] * 6]), "chips"),
    (_set(["supply"], [5, 5, 5]), "supply"),
    (_set(["supply", 2], 6), "supply"),
    (_set(["phase"], "deal"), "phase"),
    (_set(["phase"], "over"), "phase"),
    (_set(["phase"], "chip"), "played_pile"),
    (_set(["played_pile"], "waves"), "played_pile"),
    (_set(["current_seat"], 3), "current_seat"),
    (_set(["current_seat"], "0"), "current_seat"),
    (_set(["dealer"], -1), "dealer"),
    (_set(["game"], 1), "game"),
    (_set(["match_scores"], [0, 0]), "match_scores"),
    (_set(["match_scores"], [3, 0, 0]), "match_scores"),
]


@pytest.mark.parametrize("change, field", BAD_STATES)
def test_malformed_state_names_the_field(change, field):
    load(GOOD)  # the unchanged position is fine
    state = copy.deepcopy(GOOD)
    change(state)
    env = loco_envs.make("moco_v0", num_players=3)
    with pytest.raises(ValueError, match=f"'{field}'"):
        env.reset(seed=0, options={"state": state})


def test_over_phase_needs_an_ended_game_and_seat_minus_one():
    ended = position(["9lk", "2mk", "4ms"], piles={"knots": "3sk 4yk 5yk 6lk 8yk 7sk"},
                     phase="over", current_seat=-1)
    load(ended)
    for phase in ("play", "chip"):
        with pytest.raises(ValueError, match="'phase'"):
            load({**ended, "phase": phase, "current_seat": 0})
    with pytest.raises(ValueError, match="'current_seat'"):
        load({**ended, "current_seat": 0})


def test_state_must_be_a_dict():
    with pytest.raises(ValueError, match="dict"):
        MocoGame.from_state_dict(["hands"], np.random.default_rng(0), {"num_players": 3})
