"""LOCO bots: each rule of their strategy on a built position, and results against others."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs import agents
from loco_envs.loco import actions as A
from loco_envs.loco.rules import LocoGame
from loco_envs.loco.state import position
from tests.agents.helpers import win_rate

BOTS = ["loco/heuristic", "loco/heuristic-strong"]


def game(state: dict, seed: int = 0, **options) -> LocoGame:
    return LocoGame.from_state_dict(state, np.random.default_rng(seed),
                                    {"num_players": len(state["hands"]), **options})


def decide(spec: str, g: LocoGame) -> str:
    """The bot's decision for the seat to act, as an action string (checked legal)."""
    bot = agents.make(spec)
    mask = g.legal_mask()
    action = bot.act(g.view(g.current_seat), mask, np.random.default_rng(0))
    assert mask[action], A.action_to_str(action)
    return A.action_to_str(action)


def act(g: LocoGame, *texts: str) -> None:
    for text in texts:
        g.apply(A.str_to_action(text))


@pytest.mark.parametrize("spec", BOTS)
def test_answers_a_pending_plus2_with_every_copy(spec):
    g = game(position([["r+2", "g1", "g2"], ["g+2", "g+2", "b4", "r7", "y3"], ["y1", "y3"]],
                      ["r3"]))
    act(g, "play r+2")
    assert decide(spec, g) == "play g+2 x2"


@pytest.mark.parametrize("spec", BOTS)
def test_keeps_its_last_plus2_rather_than_spend_it(spec):
    g = game(position([["r+2", "g3", "g4", "b5", "b6"], ["y1", "y2", "y4", "y5"]], ["r7"]))
    assert decide(spec, g) == "draw"


@pytest.mark.parametrize("spec", BOTS)
def test_spends_the_plus2_when_the_hand_is_nearly_out(spec):
    g = game(position([["r+2", "g3", "b6"], ["y1", "y2", "y4", "y5"]], ["r7"]))
    assert decide(spec, g) == "play r+2"


def test_sheds_the_highest_card_of_the_colour_it_keeps():
    g = game(position([["r9", "r2", "r4", "g5", "b1"], ["y1", "y2", "y3"]], ["r5"]))
    assert decide("loco/heuristic", g) == "play r9"


@pytest.mark.parametrize("spec", BOTS)
def test_plays_duplicates_together(spec):
    g = game(position([["g7", "g7", "r1", "b1"], ["y1", "y2", "y3"], ["b2", "b3", "b4"]],
                      ["g2"]))
    assert decide(spec, g) == "play g7 x2"


@pytest.mark.parametrize("spec", BOTS)
def test_a_wild_only_when_no_coloured_card_fits(spec):
    g = game(position([["W", "r5", "g1", "g2"], ["y1", "y2", "y3"]], ["r3"]))
    assert decide(spec, g) == "play r5"
    g = game(position([["W", "b5", "g1", "g2"], ["y1", "y2", "y3"]], ["r3"]))
    assert decide(spec, g) == "play W"


@pytest.mark.parametrize("spec", BOTS)
def test_names_the_colour_it_holds_most_of(spec):
    g = game(position([["W", "b5", "g1", "g2", "g9", "b1"], ["y1", "y2", "y3"]], ["r3"]))
    act(g, "play W")
    assert decide(spec, g) == "colour g"


@pytest.mark.parametrize("spec", BOTS)
def test_swaps_with_the_smallest_hand(spec):
    hands = [["rX", "r1", "g2", "g3", "b4", "b5"], ["y1", "y2", "y3", "y4"], ["y5", "y6"],
             ["b1", "b2", "b3"]]
    g = game(position(hands, ["r7"]))
    assert decide(spec, g) == "play rX"
    act(g, "play rX")
    assert decide(spec, g) == "target +2"


@pytest.mark.parametrize("spec", BOTS)
def test_no_swap_when_every_other_hand_is_bigger(spec):
    g = game(position([["rX", "g2"], ["y1", "y2", "y3", "y4"]], ["r7"]))
    assert decide(spec, g) == "draw"


@pytest.mark.parametrize("spec", BOTS)
def test_always_announces_loco(spec):
    g = game(position([["r1", "g2"], ["y1", "y2", "y3", "y4"]], ["r7"]))
    act(g, "play r1")
    assert g.phase == 5  # call
    assert decide(spec, g) == "loco"


@pytest.mark.parametrize("spec", BOTS)
def test_shouts_contre_loco_only_on_a_silent_player(spec):
    for call, expected in (("silent", "contre"), ("loco", "pass")):
        g = game(position([["r1", "g2"], ["y1", "y2", "y3", "y4"]], ["r7"]))
        act(g, "play r1", call)
        assert decide(spec, g) == expected


@pytest.mark.parametrize("spec", BOTS)
def test_slaps_an_identical_card_with_every_copy(spec):
    hands = [["g5", "r1", "r2"], ["y1", "y2", "y3"], ["g5", "b9", "b8", "b7"]]
    g = game(position(hands, ["g3"]))
    act(g, "play g5")  # seat 1 has the turn; seat 2 may slap
    assert g.current_seat == 2
    assert decide(spec, g) == "slap g5"


@pytest.mark.parametrize("spec", BOTS)
def test_does_not_slap_away_its_last_plus2(spec):
    hands = [["g+2", "r1", "r2", "r4", "r5"], ["r+2", "y2", "y3", "y4"],
             ["g+2", "b9", "b8", "b7", "b6"]]
    g = game(position(hands, ["g3"]))
    act(g, "play g+2")  # seat 1 must answer or draw; seat 2 may slap
    assert g.current_seat == 2
    assert decide(spec, g) == "pass"


@pytest.mark.parametrize("spec", BOTS)
def test_slaps_its_last_card_to_go_out(spec):
    hands = [["r4", "r1", "r2"], ["y1", "y2", "y3"], ["r4"]]
    g = game(position(hands, ["r3"]))
    act(g, "play r4")
    assert g.current_seat == 2
    assert decide(spec, g) == "slap r4"


def test_strong_blocks_a_player_about_to_go_out():
    g = game(position([["gR", "g8", "g8", "b1"], ["y1"], ["b4", "b5", "b6"]], ["g3"]))
    assert decide("loco/heuristic", g) == "play g8 x2"
    assert decide("loco/heuristic-strong", g) == "play gR"  # the turn goes the other way


def test_strong_plays_skips_one_at_a_time_with_two_players():
    g = game(position([["rS", "rS", "g1", "b2", "y7"], ["y1", "y2", "y3", "y4"]], ["r3"]))
    assert decide("loco/heuristic", g) == "play rS x2"
    assert decide("loco/heuristic-strong", g) == "play rS"


def test_strong_counts_unseen_cards_by_elimination():
    state = position([["r1"], ["y1", "y2"]], ["g+2", "b+2", "r+2", "r3"])
    view = game(state).view(0)
    unseen = agents.make("loco/heuristic-strong").unseen(view)
    assert unseen.sum() == 112 - 1 - 4
    assert unseen[A.PLAY_IDENT_LIST[A.str_to_action("play y+2")]] == 2
    assert unseen[A.PLAY_IDENT_LIST[A.str_to_action("play r+2")]] == 1


@pytest.mark.parametrize("spec", BOTS)
def test_bots_ignore_the_rng_they_are_handed_and_repeat_themselves(spec):
    g = game(position([["r9", "r2", "W", "g5"], ["y1", "y2", "y3"]], ["r5"]))
    bot, view, mask = agents.make(spec), g.view(0), g.legal_mask()
    picks = {bot.act(view, mask, np.random.default_rng(s)) for s in range(5)}
    assert len(picks) == 1


# --- results ---------------------------------------------------------------------------------
def test_heuristic_beats_random_two_players():
    assert win_rate("loco_v0", 2, ("loco/heuristic", "random"), 40, "loco/heuristic") >= 0.8


def test_heuristic_beats_random_four_players():
    lineup = ("loco/heuristic", "random", "random", "random")
    assert win_rate("loco_v0", 4, lineup, 40, "loco/heuristic") >= 0.55  # chance is 0.25


@pytest.mark.slow
def test_strong_beats_heuristic():
    lineup = ("loco/heuristic-strong", "loco/heuristic")
    assert win_rate("loco_v0", 2, lineup, 1000, "loco/heuristic-strong", seed=1) > 0.54


def test_strong_slaps_a_plus2_onto_a_near_winner():
    hands = [["g+2", "r1", "r2"], ["r+2", "y2", "y3", "y4"], ["g+2", "b9", "b8", "b7", "b6"]]
    g = game(position(hands, ["g3"]))
    act(g, "play g+2")  # seat 0 is left with two cards and sits after seat 2
    assert decide("loco/heuristic", g) == "pass"
    assert decide("loco/heuristic-strong", g) == "slap g+2"


# --- L-41: the seat whose turn it is decides in the slap window too ------------------------
WILD_RACE = [["W", "b1", "b9"], ["W", "b2", "y5"], ["W", "r1", "r2"], ["y1", "y2", "y3"]]


@pytest.mark.parametrize("spec", BOTS)
def test_L41_the_turn_seat_races_for_a_wild_its_turn_would_play(spec):
    g = game(position(WILD_RACE, ["g3"]))
    act(g, "play W", "colour r")  # seat 1 holds no red card: its turn would be the Wild
    assert g.current_seat == 1 == g.turn_seat
    assert decide(spec, g) == "slap W"  # a rival's slap would take its turn


@pytest.mark.parametrize("spec", BOTS)
def test_L41_the_turn_seat_does_not_slap_a_card_its_turn_would_not_play(spec):
    hands = [WILD_RACE[0], ["W", "r5", "r6"], *WILD_RACE[2:]]
    g = game(position(hands, ["g3"]))
    act(g, "play W", "colour r")
    assert decide(spec, g) == "pass"  # it means to play a red card


def test_L41_strong_passes_on_its_turn_when_nobody_else_can_slap():
    g = game(position([["g7", "b1", "b9"], ["g7", "b2", "y3"], ["r1", "r2"]], ["g3"]))
    act(g, "play g7")  # seat 1 holds the last g7: no race is possible
    assert decide("loco/heuristic", g) == "slap g7"  # what its turn would play anyway
    assert decide("loco/heuristic-strong", g) == "pass"
    act(g, "pass")
    assert decide("loco/heuristic-strong", g) == "play g7"  # the turn still offers it


def test_L41_strong_lets_a_rival_take_a_plus4_aimed_at_it():
    hands = [["+4", "g1", "g2"], ["+4", "g5", "g6", "b1"], ["y1", "y3", "y4"], ["b5", "b6"]]
    g = game(position(hands, ["r3"]))
    act(g, "play +4", "colour g")  # 4 to draw for seat 1; two +4 unseen, maybe with seat 2/3
    assert decide("loco/heuristic", g) == "slap +4"  # it would answer on its turn anyway
    assert decide("loco/heuristic-strong", g) == "pass"  # a rival's slap would let it off
    act(g, "pass")
    assert decide("loco/heuristic-strong", g) == "play +4"


@pytest.mark.parametrize("spec", BOTS)
def test_L41_the_turn_seat_slaps_to_go_out(spec):
    g = game(position([["W", "b1", "b9"], ["W"], ["W", "r1"]], ["g3"]))
    act(g, "play W", "colour r")
    assert g.current_seat == 1 and decide(spec, g) == "slap W"


# --- option stacking -------------------------------------------------------------------------
@pytest.mark.parametrize("spec", BOTS)
def test_L32_bots_answer_only_identically_with_stacking_identical(spec):
    hands = [["r+2", "g1", "g2"], ["g+2", "b+2", "b4", "r7", "y3"], ["y1", "y3"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play r+2")
    assert decide(spec, g) == "draw"
    hands = [["r+2", "g1", "g2"], ["r+2", "g+2", "b4", "r7", "y3"], ["y1", "y3"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play r+2")  # seat 1's window: the identical copy answers, as its turn would
    assert decide(spec, g) == ("slap r+2" if spec == "loco/heuristic" else "pass")


def test_L32_strong_knows_only_an_identical_copy_can_send_a_plus2_back():
    big = ["y1", "y2", "y4", "y5", "y3", "y7", "y8", "y9", "g5", "g6", "g7", "g8", "g9", "b6",
           "b7"]
    state = position([["r+2", "g4", "b5", "y6"], big], ["r3"])
    assert decide("loco/heuristic-strong", game(state)) == "draw"  # any +2 would come back
    assert decide("loco/heuristic-strong", game(state, stacking="identical")) == "play r+2"
