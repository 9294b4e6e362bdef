"""The Loco Momo bot: the forest moves it predicts, its choices, its scoring of pictures, its
result against random."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import loco_envs
from loco_envs import agents
from loco_envs.momo.actions import CELLS, COLOUR_OF, COLS, NUM_TOKEN_TYPES, ROWS, SPECIES_OF
from loco_envs.momo.picture import (
    HALF_PAIR,
    LINE_POTENTIAL,
    PAIR_MATCH_HOPE,
    points_and_potential,
    taken_tokens,
)
from loco_envs.momo.rules import MomoGame, board_points
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


pictures = st.lists(st.integers(-1, NUM_TOKEN_TYPES - 1), min_size=CELLS, max_size=CELLS)


@settings(max_examples=400, deadline=None)
@given(pictures)
def test_K20_K24_the_bots_points_are_the_engines(cells):
    """The bot scores pictures from cached parts; the total must be the rules' own."""
    assert points_and_potential(tuple(cells))[0] == board_points(cells)


def reference_potential(cells: list[int]) -> float:
    """The potential as the module docstring states it, summed in reading order."""
    value = 0.0
    lines = [cells[r * COLS:(r + 1) * COLS] for r in range(ROWS)]
    for line in lines + [cells[c::COLS] for c in range(COLS)]:
        placed = [t for t in line if t >= 0]
        if 0 < len(placed) < COLS and len({COLOUR_OF[t] for t in placed}) == 1:
            value += LINE_POTENTIAL[len(placed)]
    for c in range(COLS):
        top, mid, low = cells[c], cells[COLS + c], cells[2 * COLS + c]
        if (mid >= 0) != (low >= 0):
            value += HALF_PAIR
            if top >= 0 and SPECIES_OF[top] == SPECIES_OF[max(mid, low)]:
                value += PAIR_MATCH_HOPE
        elif mid < 0 and low < 0 and top >= 0:
            value += PAIR_MATCH_HOPE / 2
    return value


@settings(max_examples=400, deadline=None)
@given(pictures)
def test_the_potential_is_the_documented_sum_to_the_last_bit(cells):
    """Equal floats, not close ones: the bot breaks ties between equal values by action."""
    assert points_and_potential(tuple(cells))[1] == reference_potential(cells)
