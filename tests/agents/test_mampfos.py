"""The Los Mampfos bots: expected shares, their choices, the memory, results against random."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import loco_envs
from loco_envs import agents
from loco_envs.agents.mampfos import expected_share
from loco_envs.mampfos.rules import MampfosGame
from tests.agents.helpers import win_rate
from tests.mampfos.helpers import colours, game_from, state


def decide(g: MampfosGame, spec: str = "mampfos/heuristic") -> str:
    mask = g.legal_mask()
    action = agents.make(spec).act(g.view(g.current_seat), mask, np.random.default_rng(0))
    assert mask[action]
    return MampfosGame.action_to_str(action)


def test_expected_share_by_hand():
    out = [4, 0, 0, 0, 0]
    assert expected_share(out, 0, others=0) == 4
    assert expected_share(out, 1, others=2) == 0
    # One opponent picks orange with chance 5/9 (4 + 1 against 1 for each empty colour): then
    # each gets 4 // 2 = 2; otherwise 4 for me alone.
    assert expected_share(out, 0, others=1) == pytest.approx(4 * 4 / 9 + 2 * 5 / 9)
    # Two biscuits, two opponents: shared three ways nobody gets any (P-12).
    q = 3 / 7
    expected = (1 - q) ** 2 * 2 + 2 * q * (1 - q) * 1 + q**2 * 0
    assert expected_share([2, 0, 0, 0, 0], 0, others=2) == pytest.approx(expected)


def test_millwheel_on_the_best_expected_share():
    bellies = [colours(red=6, blue=1), colours(), colours()]
    g = game_from(state(phase="wheel", card="drop W", donkey="white", feed_left=0,
                        bellies=bellies))
    assert decide(g) == "wheel red"


def test_millwheel_avoids_a_colour_too_small_to_share():
    # Three players: red 1 is lost if anyone else picks it too; blue 3 can be shared 3 ways.
    bellies = [colours(red=1, blue=3), colours(), colours()]
    g = game_from(state(phase="wheel", card="drop W", donkey="white", feed_left=0,
                        bellies=bellies))
    assert decide(g) == "wheel blue"


def test_feeds_the_colour_the_donkey_holds_most_of():
    bellies = [colours(green=2, red=1), colours(yellow=5), colours()]
    g = game_from(state(bellies=bellies))
    assert decide(g) == "feed green"


def test_a_star_droppings_empties_the_most_promising_donkey():
    bellies = [colours(red=1), colours(), colours(blue=5, green=2)]
    g = game_from(state(phase="donkey", card="drop *", donkey=None, feed_left=0,
                        bellies=bellies))
    assert decide(g) == "donkey brown"


def test_recall_memory_follows_the_bellies_exactly():
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3, memory="recall")
    decisions = 0
    for seed in range(3):
        env.reset(seed=seed)
        g = env.game
        bots = [agents.make("mampfos/heuristic") for _ in range(3)]
        rng = np.random.default_rng(seed)
        while not g.terminal:
            seat = g.current_seat
            view = g.view(seat)
            assert view.bellies is None
            action = bots[seat].act(view, g.legal_mask(), rng)
            np.testing.assert_array_equal(bots[seat].memory, np.array(g.bellies))
            g.apply(action)
            decisions += 1
    assert decisions > 100


def test_heuristic_beats_random_three_players():
    lineup = ("mampfos/heuristic", "random", "random")
    assert win_rate("mampfos_v0", 3, lineup, 30, "mampfos/heuristic") >= 0.8  # chance: 1/3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 15), min_size=5, max_size=5))
def test_at_three_players_the_heuristics_millwheel_is_a_largest_heap(out):
    """What ``mampfos/bold`` rests on: at three players the best expected share is never a
    smaller heap (up to 15 of a colour), so a player who sets the largest heap's colour gains
    whatever the heuristic gains."""
    best = max(range(5), key=lambda c: (expected_share(out, c, 2), -c))
    assert out[best] == max(out)


def test_with_more_players_or_huge_heaps_the_heuristic_may_shun_the_largest():
    """Where the claim above stops: sharing five ways, or 17 against 16 at three players."""
    def pick(out, others):
        return max(range(5), key=lambda c: (expected_share(out, c, others), -c))

    assert pick([4, 5, 0, 0, 0], others=3) == 0
    assert pick([16, 17, 0, 0, 0], others=2) == 0


def _bold_wheel(red: int, blue: int, mine: int, best_other: int) -> str:
    """``mampfos/bold``'s millwheel on white's droppings of ``red`` red and ``blue`` blue, seat
    0 holding ``mine`` biscuits and the others up to ``best_other``."""
    bellies = [colours(red=red, blue=blue), colours(), colours()]
    collected = [colours(green=mine), colours(yellow=best_other), colours()]
    g = game_from(state(phase="wheel", card="drop W", donkey="white", feed_left=0,
                        bellies=bellies, collected=collected))
    return decide(g, "mampfos/bold")


def test_P12_P20_bold_keeps_a_lead_with_the_largest_heap():
    assert _bold_wheel(red=4, blue=4, mine=3, best_other=2) == "wheel red"


def test_P12_P20_bold_from_level_gambles_only_on_heaps_of_equal_size():
    assert _bold_wheel(red=4, blue=4, mine=2, best_other=2) == "wheel blue"
    assert _bold_wheel(red=4, blue=3, mine=2, best_other=2) == "wheel red"


def test_P12_P20_bold_from_behind_takes_a_heap_over_half_the_largest():
    assert _bold_wheel(red=4, blue=3, mine=1, best_other=2) == "wheel blue"
    assert _bold_wheel(red=4, blue=2, mine=1, best_other=2) == "wheel red"
    assert _bold_wheel(red=4, blue=0, mine=1, best_other=2) == "wheel red"


def test_bold_plays_as_the_heuristic_outside_the_millwheel():
    bellies = [colours(green=2, red=1), colours(yellow=5), colours()]
    g = game_from(state(bellies=bellies))
    assert decide(g, "mampfos/bold") == decide(g) == "feed green"


def test_bold_beats_random_three_players():
    lineup = ("mampfos/bold", "random", "random")
    assert win_rate("mampfos_v0", 3, lineup, 30, "mampfos/bold") >= 0.8  # chance: 1/3
