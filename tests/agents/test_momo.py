"""The Loco Momo bot: the forest moves it predicts, its choices, its result against random."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.agents.momo import taken_tokens
from loco_envs.momo.actions import NUM_TOKEN_TYPES
from loco_envs.momo.rules import MomoGame
from tests.agents.helpers import win_rate
from tests.momo.helpers import board, game_from, make_state


def decide(g: MomoGame) -> str:
    mask = g.legal_mask()
    action = agents.make("momo/heuristic").act(g.view(g.current_seat), mask,
                                               np.random.default_rng(0))
    assert mask[action]
    return MomoGame.action_to_str(action)


@pytest.mark.parametrize("seed", range(3))
def test_predicted_take_matches_the_engine(seed):
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=seed)
    g = env.game
    rng = np.random.default_rng(seed)
    checked = 0
    while not g.terminal:
        legal = g.legal_actions()
        action = legal[rng.integers(len(legal))]
        view = g.view(g.current_seat)
        g.apply(action)
        if view.phase == "pick" and g.phase == "place":  # the take waits to be placed
            expected = sorted(taken_tokens(view.forest, *divmod(action, NUM_TOKEN_TYPES)))
            pending = g.view(view.seat).pending
            assert sorted(t for t in range(NUM_TOKEN_TYPES) for _ in range(pending[t])) == expected
            checked += 1
    assert checked > 5


def test_places_to_complete_a_stacked_pair():
    state = make_state(boards=[board("", "Rb", ""), board()], pending=["Rg"],
                       forest=[["Lb"] * 4, ["Lg"] * 4, ["Eb"] * 4, ["Eg"] * 3])
    assert decide(game_from(state)) == "place Rg on row 3"


def test_places_to_grow_a_group_in_row_4():
    state = make_state(boards=[board("", "", "", "Bb Bn"), board()], pending=["Bg"],
                       forest=[["Lb"] * 4, ["Lg"] * 4, ["Eb"] * 4, ["Eg"] * 3])
    assert decide(game_from(state)) == "place Bg on row 4"


def test_picks_the_take_that_adds_most():
    # A duck with no other duck on the forest stays (K-10) and takes the four brown ducks of its
    # area: a group of four in row 4, f(4) = 9. Every other pick takes one or two tokens.
    forest = [["Bg", "Rb", "Rb", "Rb"], ["Dn"] * 4, ["Eg"] * 4, ["Eb"] * 4]
    state = make_state(forest=forest)
    assert decide(game_from(state)) == "pick Dn in B"


def test_heuristic_beats_random_two_players():
    assert win_rate("momo_v0", 2, ("momo/heuristic", "random"), 40, "momo/heuristic") >= 0.9
