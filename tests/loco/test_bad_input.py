"""Bad input gets a clear ValueError naming the rule, option or field, and changes nothing."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import loco_envs
from loco_envs.loco import actions as A
from loco_envs.loco.state import position

BASE = position([["r5", "g5", "W"], ["b1", "b2"]], ["r3"])


def raw(state=BASE, **options):
    env = loco_envs.make("loco_v0", num_players=len(state["hands"]), wrapped=False, **options)
    env.reset(seed=0, options={"state": copy.deepcopy(state)})
    return env


@pytest.mark.parametrize(
    ("action", "rule"),
    [("play g5", "L-10"), ("play r5 x2", "L-20"), ("loco", "L-10"), ("colour r", "L-10"),
     ("slap r5", "L-10"), (A.NUM_ACTIONS, "out of range|not in"), (-1, "not in")],
)
def test_an_illegal_action_names_the_rule_and_changes_nothing(action, rule):
    env = raw()
    before = env.state_dict()
    index = env.str_to_action(action) if isinstance(action, str) else action
    with pytest.raises(ValueError, match=rule):
        env.step(index)
    assert env.state_dict() == before and env.agent_selection == "player_0"


def test_an_illegal_action_in_each_phase_names_that_phases_rule():
    env = raw()
    env.step(env.str_to_action("play W"))
    with pytest.raises(ValueError, match="L-12"):
        env.step(env.str_to_action("draw"))
    env.step(env.str_to_action("colour g"))
    with pytest.raises(ValueError, match="L-32|L-10"):
        env.step(env.str_to_action("pass"))


def test_the_wrapped_env_ends_the_game_on_an_illegal_move():
    env = loco_envs.make("loco_v0", num_players=3)
    env.reset(seed=1)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(illegal)
    assert all(env.terminations.values())
    assert env.rewards[offender] == -1.0
    assert all(r == 0 for agent, r in env.rewards.items() if agent != offender)


@pytest.mark.parametrize(
    ("options", "name"),
    [({"players": 3}, "players"), ({"rounds": 4}, "rounds"), ({"photo_finish": "fast"},
     "photo_finish"), ({"timeout_rate": -0.1}, "timeout_rate"), ({"reward": "win"}, "reward"),
     ({"render_mode": "rgb"}, "render_mode"), ({"num_players": "4"}, "num_players"),
     ({"num_players": 3, "timeout_rate": [0.1, 0.2]}, "timeout_rate")],
)
def test_bad_options_name_the_option(options, name):
    with pytest.raises(ValueError, match=name):
        loco_envs.make("loco_v0", **options)


def test_unknown_env_id_lists_the_available_ones():
    with pytest.raises(ValueError, match="loco_v0"):
        loco_envs.make("uno_v0")


def _broken(**changes):
    state = copy.deepcopy(BASE)
    state.update(changes)
    return state


@pytest.mark.parametrize(
    ("state", "field"),
    [(_broken(hands=[["r5"]]), "hands"), (_broken(hands=[["r5", "zz"], ["b1"]]), "hands"),
     (_broken(draw_pile=[]), "hands"), (_broken(colour="purple"), "colour"),
     (_broken(direction=2), "direction"), (_broken(phase="dance"), "phase"),
     (_broken(actor=7), "actor"), (_broken(pending=2), "pending_kind"),
     (_broken(calls=["none"]), "calls"), (_broken(scores="high"), "scores"),
     (_broken(discard=[]), "discard"), (_broken(num_players=3), "num_players"),
     ({k: v for k, v in BASE.items() if k != "turn_seat"}, "turn_seat"),
     (_broken(rounds=2), "rounds"), (_broken(phase="after_draw", drawn="r9"), "phase|drawn")],
)
def test_malformed_state_dicts_name_the_field(state, field):
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    with pytest.raises(ValueError, match=field):
        env.reset(seed=0, options={"state": state})


def test_L32_a_pending_penalty_needs_its_card_on_top():
    """A pending +2 under an r3 would let stacking="identical" accept an r3 as an answer."""
    state = _broken(pending=2, pending_kind="+2")
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False, stacking="identical")
    with pytest.raises(ValueError, match="pending.*L-32"):
        env.reset(seed=0, options={"state": state})


def test_L41_a_slap_window_asks_only_holders_of_the_top_card():
    # seat 1 holds no r3, yet the window would ask it
    state = _broken(phase="slap", actor=1, turn_seat=1, lander=0,
                    window={"kind": "slap", "to_decide": [1], "choices": {}})
    env = loco_envs.make("loco_v0", num_players=2, wrapped=False)
    with pytest.raises(ValueError, match="window.*L-41"):
        env.reset(seed=0, options={"state": state})
    state["hands"][1].append("r3")
    state["draw_pile"].remove("r3")
    env.reset(seed=0, options={"state": state})
    assert env.game.legal_mask().any()


@pytest.mark.parametrize("seat", [-1, 2, 10])
def test_a_view_of_a_seat_out_of_range_is_a_value_error_naming_it(seat):
    game = raw().game
    with pytest.raises(ValueError, match=f"seat {seat} out of range"):
        game.view(seat)
