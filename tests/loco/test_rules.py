"""One test per LOCO rule (``docs/rules/loco.md``), each from a built position."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.rules import LocoGame
from tests.loco.helpers import act, game, hand, legal, position, total_cards


def random_playout(g: LocoGame, seed: int = 0, limit: int = 200_000) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(limit):
        if g.terminal:
            return
        actions = g.legal_actions()
        g.apply(actions[rng.integers(len(actions))])
    raise AssertionError("game did not end")


# ---------------------------------------------------------------- the table
@pytest.mark.parametrize("n", [2, 5, 10])
def test_L01_eight_cards_each_from_the_full_deck(n):
    g = LocoGame(rng=np.random.default_rng(n), num_players=n)
    assert g.hand_sizes == [8] * n
    assert total_cards(g) == 112


@pytest.mark.parametrize("n", [1, 11])
def test_L01_player_count_out_of_range_is_rejected(n):
    with pytest.raises(ValueError, match="num_players"):
        loco_envs.make("loco_v0", num_players=n)


def test_L01_every_round_is_dealt_afresh_from_all_112_cards():
    g = game(position([["r5"], ["g7", "b3", "+4"]], ["r3"], rounds=3))
    act(g, "play r5")
    assert g.round == 2 and g.hand_sizes == [8, 8] and total_cards(g) == 112


def test_L02_the_discard_pile_opens_on_a_number_card():
    for seed in range(300):
        g = LocoGame(rng=np.random.default_rng(seed), num_players=10)
        assert len(g.discard) == 1 and C.IS_NUMBER[g.discard[-1]]
        assert len(g.draw_pile) == 112 - 80 - 1
        assert g.colour == C.COLOUR[g.discard[-1]]


def test_L03_round_one_opens_at_a_seeded_random_seat():
    openers = {LocoGame(rng=np.random.default_rng(s), num_players=4).turn_seat for s in range(60)}
    assert openers == {0, 1, 2, 3}
    again = [LocoGame(rng=np.random.default_rng(s), num_players=4).turn_seat for s in range(20)]
    assert again == [LocoGame(rng=np.random.default_rng(s), num_players=4).turn_seat
                     for s in range(20)]


def test_L03_later_rounds_open_with_the_lowest_total_lowest_seat_first():
    state = position([["r5"], ["g7", "b3"], ["y2"]], ["r3"], rounds=3, scores=[50, 10, 10])
    g = game(state)
    act(g, "play r5")
    assert g.round == 2 and g.current_seat == 1 and g.phase == 0


def test_L03_a_seat_that_left_never_opens():
    state = position([["r5"], [], ["y2", "b7"]], ["r3"], rounds=3, scores=[50, 0, 10],
                     active=[True, False, True])
    g = game(state)
    act(g, "play r5")
    assert g.round == 2 and g.current_seat == 2 and g.hand_sizes[1] == 0


def test_L04_play_starts_clockwise_every_round():
    g = game(position([["r5", "g1", "g2"], ["b1"], ["b2"], ["b4"]], ["r3"]))
    act(g, "play r5")
    assert g.turn_seat == 1 and g.current_seat == 1
    g = game(position([["r5"], ["b1", "b2"], ["y2"]], ["r3"], rounds=3, direction=-1))
    act(g, "play r5")
    assert g.round == 2 and g.direction == 1


# ---------------------------------------------------------------- a turn
def test_L10_play_a_matching_card_or_any_wild_or_draw():
    g = game(position([["r5", "g5", "b7", "y9", "W"], ["b1", "b2"]], ["r3"]))
    assert legal(g) == {"play r5", "play W", "draw"}
    with pytest.raises(ValueError, match="L-10"):
        act(g, "play b7")
    g = game(position([["g5", "b7", "gS"], ["b1", "b2"]], ["r3", "r5"]))
    assert legal(g) == {"play g5", "draw"}  # same number; drawing is allowed too
    g = game(position([["gS", "b7"], ["b1", "b2"]], ["r3", "rS"]))
    assert legal(g) == {"play gS", "draw"}  # same action kind


def test_L11_after_a_draw_only_the_drawn_card_may_follow():
    g = game(position([["r9", "b7"], ["b1", "b2"]], ["r3"], draw_top=["r9"]))
    act(g, "draw")
    assert legal(g) == {"play r9", "play r9 x2", "pass"}  # with identical copies (L-20)
    act(g, "play r9 x2")
    assert hand(g, 0) == ["b7"] and g.discard[-2:] == [C.card_id("r9")] * 2


def test_L11_a_drawn_card_that_does_not_match_leaves_only_the_pass():
    g = game(position([["r1", "b7"], ["b1", "b2"]], ["r3"], draw_top=["g9"]))
    act(g, "draw")
    assert legal(g) == {"pass"}
    with pytest.raises(ValueError, match="L-11"):
        act(g, "draw")  # never a second draw
    act(g, "pass")
    assert g.current_seat == 1 and hand(g, 0) == ["b7", "g9", "r1"]


def test_L12_a_coloured_card_sets_its_colour_a_wild_lets_its_player_name_it():
    g = game(position([["g3", "b1", "b9"], ["b4", "b2"]], ["r3"]))
    act(g, "play g3")
    assert C.COLOURS[g.colour] == "g"
    g = game(position([["W", "b1", "b9"], ["b4", "b2"]], ["r3"]))
    act(g, "play W")
    assert g.current_seat == 0 and legal(g) == {"colour r", "colour y", "colour g", "colour b"}
    act(g, "colour b")
    assert C.COLOURS[g.colour] == "b" and g.current_seat == 1


def _empty_draw_pile(state: dict, into_seat: int | None = None) -> dict:
    rest = state["draw_pile"]
    state["draw_pile"] = []
    if into_seat is None:
        state["discard"] = rest + state["discard"]
    else:
        state["hands"][into_seat] += rest
    return state


def test_L13_an_empty_draw_pile_is_refilled_from_the_discard_pile_under_its_top():
    g = game(_empty_draw_pile(position([["b7", "b8"], ["y1", "y2"]], ["r3"])))
    top = g.discard[-1]
    act(g, "draw")
    assert g.discard == [top] and g.hand_sizes[0] == 3 and total_cards(g) == 112


def test_L13_a_draw_from_two_empty_piles_hands_over_nothing_and_leaves_the_pass():
    g = game(_empty_draw_pile(position([["b7", "b8"], ["y1", "y2"]], ["r3"]), into_seat=1))
    act(g, "draw")
    assert hand(g, 0) == ["b7", "b8"] and legal(g) == {"pass"}


def test_L13_a_penalty_draw_is_settled_by_what_the_piles_give():
    state = position([["b7", "r8"], ["y1", "y2"]], ["r+2"], pending=2, pending_kind="+2")
    g = game(_empty_draw_pile(state, into_seat=1))
    act(g, "draw")
    assert g.pending == 0 and hand(g, 0) == ["b7", "r8"]
    assert legal(g) == {"play r8", "pass"}


# ---------------------------------------------------------------- duplicates
def test_L20_identical_cards_leave_together_and_effects_add_up():
    g = game(position([["r5", "r5", "g1"], ["b1", "b2"]], ["b5"]))
    assert {"play r5", "play r5 x2"} <= legal(g)
    act(g, "play r5 x2")
    assert hand(g, 0) == ["g1"] and g.discard[-2:] == [C.card_id("r5")] * 2
    g = game(position([["W", "W", "g1", "g2"], ["b1", "b2"]], ["b5"]))
    act(g, "play W x2")
    assert g.phase == 3 and g.current_seat == 0  # k Wilds set one colour
    act(g, "colour y")
    assert g.current_seat == 1 and C.COLOURS[g.colour] == "y"
    with pytest.raises(ValueError, match="L-20"):
        game(position([["r5", "g1"], ["b1"]], ["b5"])).apply(A.play_action(C.card_id("r5"), 2))


# ---------------------------------------------------------------- action cards
def test_L30_skip_moves_the_turn_on_k_plus_one_seats():
    four = [["rS", "rS", "g1", "g2"], ["b1"], ["b2"], ["b4"]]
    g = game(position(four, ["r3"]))
    act(g, "play rS")
    assert g.turn_seat == 2 and g.phase == 7  # seat 0 still holds an rS: its slap window
    g = game(position(four, ["r3"]))
    act(g, "play rS x2")
    assert g.current_seat == 3
    g = game(position([["rS", "rS", "g1", "g2"], ["b1", "b2"]], ["r3"]))
    act(g, "play rS x2")
    assert g.current_seat == 1  # 2 Skips in a duel give the turn back to the other


def test_L31_reverse_flips_the_direction_and_is_a_skip_in_a_duel():
    three = [["rR", "rR", "g1", "g2"], ["b1", "b3"], ["b2", "b5"]]
    g = game(position(three, ["r3"]))
    act(g, "play rR")
    assert g.direction == -1 and g.turn_seat == 2
    g = game(position(three, ["r3"]))
    act(g, "play rR x2")
    assert g.direction == 1 and g.current_seat == 1
    g = game(position([["rR", "g1", "g2"], ["b1", "b2"]], ["r3"]))
    act(g, "play rR")
    assert g.current_seat == 0 and g.phase == 0


def test_L32_plus2_stacks_with_any_colour_and_the_draw_keeps_the_turn():
    g = game(position([["r+2", "g1", "g2"], ["g+2", "b4", "r7"], ["y1", "y3", "r9"]], ["r3"]))
    act(g, "play r+2")
    assert (g.pending, g.pending_kind, g.current_seat) == (2, "+2", 1)
    assert legal(g) == {"play g+2", "draw"}  # answer or draw, nothing else
    act(g, "play g+2")
    assert (g.pending, g.current_seat) == (4, 2)
    act(g, "draw")
    assert g.hand_sizes[2] == 7 and g.pending == 0 and g.current_seat == 2
    assert "draw" not in legal(g) and {"pass"} <= legal(g)  # the penalty was the turn's draw
    act(g, "pass")
    assert g.current_seat == 0


def test_L33_plus4_is_answered_only_by_plus4():
    g = game(position([["+4", "g1", "g2"], ["+4", "g+2", "g5"], ["y1", "y3"]], ["r3"]))
    act(g, "play +4", "colour g")
    assert (g.pending, g.pending_kind, g.current_seat) == (4, "+4", 1)
    assert legal(g) == {"slap +4", "pass"}  # L-41: the victim holds a +4, its window first
    act(g, "pass")
    assert legal(g) == {"play +4", "draw"}
    act(g, "play +4", "colour b")
    assert (g.pending, g.current_seat) == (8, 2)
    act(g, "draw")
    assert g.hand_sizes[2] == 10
    g = game(position([["r+2", "g1", "g2"], ["+4", "y5"]], ["r3"]))
    act(g, "play r+2")
    assert legal(g) == {"draw"}  # no cross stacking


def test_L32_stacking_identical_only_a_card_identical_to_the_top_answers():
    hands = [["r+2", "g1", "g2"], ["g+2", "b4", "r7"], ["y1", "y3", "r9"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play r+2")
    assert (g.pending, g.current_seat) == (2, 1) and legal(g) == {"draw"}
    with pytest.raises(ValueError, match="L-32.*stacking='identical'.*r\\+2"):
        act(g, "play g+2")
    assert g.pending == 2 and hand(g, 1) == ["b4", "g+2", "r7"]  # nothing half applied
    hands = [["r+2", "g1", "g2"], ["r+2", "g+2", "b4"], ["y1", "y3", "r9"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play r+2", "pass")  # seat 1 lets its slap window go (L-41), then answers in turn
    assert legal(g) == {"play r+2", "draw"}
    act(g, "play r+2")
    assert (g.pending, g.current_seat) == (4, 2)


def test_L33_stacking_identical_still_answers_plus4_with_plus4():
    g = game(position([["+4", "g1", "g2"], ["+4", "g+2", "g5"], ["y1", "y3"]], ["r3"]),
             stacking="identical")
    act(g, "play +4", "colour g", "pass")
    assert legal(g) == {"play +4", "draw"}


def test_L32_stacking_is_any_by_default_and_checked():
    g = game(position([["r+2", "g1", "g2"], ["g+2", "b4", "r7"]], ["r3"]))
    assert g.stacking == "any" and g.view(0).stacking == "any"
    with pytest.raises(ValueError, match="stacking"):
        loco_envs.make("loco_v0", stacking="same")


def test_L34_a_wild_is_playable_on_anything():
    g = game(position([["W", "r1"], ["b4", "b2"]], ["b7", "g+2"], colour="b"))
    assert "play W" in legal(g)
    act(g, "play W", "colour r")
    assert C.COLOURS[g.colour] == "r"


def test_L35_swap_exchanges_whole_hands_with_the_named_seat():
    g = game(position([["rX", "g1", "g2"], ["b4", "b2"], ["y1", "y2", "y3", "y4"]], ["r3"]))
    act(g, "play rX")
    assert legal(g) == {"target +1", "target +2"}
    act(g, "target +2")
    assert hand(g, 0) == ["y1", "y2", "y3", "y4"] and hand(g, 2) == ["g1", "g2"]
    assert g.current_seat == 1 and C.COLOURS[g.colour] == "r"


def test_L36_rotation_names_a_colour_then_every_hand_moves_one_seat():
    hands = [["O", "g1", "g2"], ["b2", "b3"], ["y4", "y5", "y6"]]
    g = game(position(hands, ["r3"]))
    act(g, "play O", "colour y")
    assert hand(g, 1) == ["g1", "g2"] and hand(g, 2) == ["b2", "b3"]
    assert hand(g, 0) == ["y4", "y5", "y6"] and C.COLOURS[g.colour] == "y"
    g = game(position(hands, ["r3"], direction=-1))
    act(g, "play O", "colour y")
    assert hand(g, 2) == ["g1", "g2"] and hand(g, 0) == ["b2", "b3"]
    g = game(position([["O", "g1", "g2"], ["b2", "b3"]], ["r3"]))
    act(g, "play O", "colour g")
    assert hand(g, 0) == ["b2", "b3"] and hand(g, 1) == ["g1", "g2"]  # a duel: a swap


# ---------------------------------------------------------------- interception
def test_L40_holders_of_an_identical_card_may_slap_wilds_too():
    g = game(position([["g7", "b1", "b9"], ["b4", "b2"], ["g7", "r1"]], ["g3"]))
    act(g, "play g7")
    assert g.phase == 7 and g.current_seat == 2 and legal(g) == {"slap g7", "pass"}
    g = game(position([["W", "b1", "b9"], ["b4", "b2"], ["W", "W", "r1"]], ["g3"]))
    act(g, "play W", "colour r")
    assert g.current_seat == 2 and legal(g) == {"slap W", "slap W x2", "pass"}
    g = game(position([["g7", "b1", "b9"], ["b4", "b2"], ["r7", "y7"]], ["g3"]))
    act(g, "play g7")
    assert g.phase == 0 and g.current_seat == 1  # same number, other colour: not identical


def test_L41_the_window_includes_the_card_player():
    g = game(position([["g7", "g7", "b1"], ["b4", "b2"], ["r1", "r2"]], ["g3"]))
    act(g, "play g7")
    assert g.phase == 7 and g.window_to_decide == [0] and legal(g) == {"slap g7", "pass"}


def test_L41_the_turn_seat_decides_in_the_window_too_and_gets_its_turn_if_nobody_slaps():
    g = game(position([["g7", "b1", "b9"], ["g7", "b2"], ["r1", "r2"]], ["g3"]))
    act(g, "play g7")
    assert (g.phase, g.current_seat, g.turn_seat) == (7, 1, 1)
    assert legal(g) == {"slap g7", "pass"}
    act(g, "pass")
    assert (g.phase, g.current_seat) == (0, 1) and "play g7" in legal(g)


def test_L41_the_turn_seat_races_the_other_slappers_through_the_photo_finish():
    hands = [["W", "b1", "b9"], ["W", "b2"], ["W", "r1"], ["y1", "y5"]]
    winners = set()
    for seed in range(30):
        g = game(position(hands, ["g3"]), seed=seed)
        act(g, "play W", "colour r")
        assert g.window_to_decide == [1, 2] and g.turn_seat == 1
        act(g, "slap W", "slap W")
        winners.add(g.current_seat)
        assert g.phase == 3  # the winner names the colour (L-43)
        act(g, "colour b")
        assert g.turn_seat == (2 if g.lander == 1 else 3)  # seat 1 lost its turn to seat 2
    assert winners == {1, 2}
    g = game(position(hands, ["g3"]), photo_finish="seat")
    act(g, "play W", "colour r", "slap W", "slap W")
    assert g.current_seat == 1  # the turn seat is the nearest after the card's player


def test_L41_the_turn_seat_slapping_a_plus4_sends_the_grown_penalty_on():
    g = game(position([["+4", "g1", "g2"], ["+4", "g5", "g6"], ["y1", "y3"]], ["r3"]))
    act(g, "play +4", "colour g", "slap +4", "colour y")
    assert (g.pending, g.turn_seat, g.current_seat) == (8, 2, 2) and g.phase == 0
    assert g.timeouts == [0, 0, 0]


def test_L41_a_slap_does_not_reset_the_turn_seats_timeouts():
    g = game(position([["g7", "b1", "b9"], ["g7", "b2", "b3"], ["r1", "r2"]], ["g3"],
                      timeouts=[0, 2, 0]))
    act(g, "play g7", "slap g7")
    assert g.timeouts[1] == 2 and g.lander == 1


def test_L41_slap_choices_stay_hidden_until_the_window_closes():
    hands = [["W", "b1", "b9"], ["b4", "b2"], ["W", "r1"], ["W", "y5"]]
    observations = []
    for choice in ("slap W", "pass"):
        env = loco_envs.make("loco_v0", num_players=4, wrapped=False)
        env.reset(seed=0, options={"state": position(hands, ["g3"])})
        for text in ("play W", "colour r", choice):
            env.step(env.str_to_action(text))
        assert env.agent_selection == "player_3"
        observations.append((env.observe("player_3")["observation"], env.view("player_3"),
                             env.observe("player_1")["observation"]))
    (obs_a, view_a, other_a), (obs_b, view_b, other_b) = observations
    assert np.array_equal(obs_a, obs_b) and view_a == view_b and np.array_equal(other_a, other_b)


def test_L41_who_holds_the_slapped_card_stays_hidden_from_the_others():
    observed = []
    for holder_hands in ((["W", "r1"], ["y4", "y5"]), (["r1", "y4"], ["W", "y5"])):
        hands = [["W", "b1", "b9"], ["b4", "b2"], *holder_hands]
        env = loco_envs.make("loco_v0", num_players=4, wrapped=False)
        env.reset(seed=0, options={"state": position(hands, ["g3"])})
        for text in ("play W", "colour r"):
            env.step(env.str_to_action(text))
        assert env.game.phase == 7
        observed.append([env.observe(f"player_{s}")["observation"] for s in (0, 1)])
        assert env.view("player_1").actor == 1 and env.view("player_1").phase == "turn"
    for before, after in zip(*observed, strict=True):
        assert np.array_equal(before, after)


def test_L42_photo_finish_is_a_seeded_draw_among_the_slappers():
    hands = [["W", "b1", "b9"], ["b4", "b2"], ["W", "r1"], ["W", "y5"]]
    winners = set()
    for seed in range(30):
        g = game(position(hands, ["g3"]), seed=seed)
        act(g, "play W", "colour r", "slap W", "slap W")
        winners.add(g.current_seat)
        again = game(position(hands, ["g3"]), seed=seed)
        act(again, "play W", "colour r", "slap W", "slap W")
        assert again.current_seat == g.current_seat
    assert winners == {2, 3}


def test_L42_photo_finish_by_seat_takes_the_nearest_after_the_card_player():
    hands = [["W", "b1", "b9"], ["b4", "b2"], ["W", "r1"], ["W", "y5"]]
    g = game(position(hands, ["g3"]), photo_finish="seat")
    act(g, "play W", "colour r", "slap W", "slap W")
    assert g.current_seat == 2 and g.phase == 3
    hands = [["W", "b1", "b9"], ["W", "y5"], ["W", "r1"], ["b4", "b2"]]
    g = game(position(hands, ["g3"], direction=-1), photo_finish="seat")
    act(g, "play W", "colour r", "slap W", "slap W")
    assert g.current_seat == 2  # counter-clockwise from seat 0: seat 3 holds none, then 2


def test_L43_a_slap_is_a_play_by_the_slapper():
    hands = [["+4", "b1", "b9"], ["b4", "b2"], ["+4", "+4", "r1"], ["y1", "y5"]]
    g = game(position(hands, ["g3"]))
    act(g, "play +4", "colour r")
    assert (g.pending, g.turn_seat, g.current_seat) == (4, 1, 2)
    act(g, "slap +4 x2")
    assert g.current_seat == 2 and g.phase == 3  # the slapper names the colour again
    act(g, "colour b")
    assert (g.pending, g.turn_seat, hand(g, 2)) == (12, 3, ["r1"])
    assert g.phase == 5 and g.current_seat == 2  # down to one card: the slapper calls
    assert C.COLOURS[g.colour] == "b"


def test_L44_a_slap_opens_a_new_window():
    hands = [["W", "b1", "b9"], ["W", "b2", "b3"], ["W", "r1", "r2"], ["y1", "y5"]]
    g = game(position(hands, ["g3"]))
    act(g, "play W", "colour r")
    assert g.window_to_decide == [1, 2]  # seat 1, whose turn it is, too (L-41)
    act(g, "pass", "slap W", "colour g")
    assert g.turn_seat == 3 and g.phase == 7 and g.window_to_decide == [1]
    act(g, "slap W", "colour y")
    assert g.turn_seat == 2 and g.phase == 0 and g.current_seat == 2


# ---------------------------------------------------------------- LOCO!
def test_L50_a_player_left_with_one_card_must_call():
    g = game(position([["r5", "g1"], ["b1", "b2"]], ["r3"]))
    act(g, "play r5")
    assert g.phase == 5 and g.current_seat == 0 and legal(g) == {"loco", "silent"}


def test_L50_receiving_a_one_card_hand_by_swap_also_calls():
    g = game(position([["rX", "g1", "g2"], ["b1"], ["y1", "y2"]], ["r3"]))
    act(g, "play rX", "target +1")
    assert hand(g, 0) == ["b1"] and g.phase == 5 and g.current_seat == 0


def test_L51_the_call_is_the_affected_players_decision():
    g = game(position([["r5", "g1"], ["b1", "b2"], ["y1", "y2"]], ["r3"]))
    act(g, "play r5", "loco")
    assert g.calls[0] == 2 and g.phase == 6 and g.current_seat == 1


@pytest.mark.parametrize(
    ("call", "shouts", "sizes"),
    [("silent", ["contre", "contre"], [3, 2, 2]), ("silent", ["pass", "pass"], [1, 2, 2]),
     ("loco", ["contre", "contre"], [1, 3, 3]), ("loco", ["contre", "pass"], [1, 3, 2])],
)
def test_L52_contre_loco_punishes_silence_once_and_a_wrong_shout_per_shouter(call, shouts, sizes):
    g = game(position([["r5", "g1"], ["b1", "b2"], ["y1", "y2"]], ["r3"]))
    act(g, "play r5", call, *shouts)
    assert g.hand_sizes == sizes and g.current_seat == 1 and g.phase == 0


def test_L52_paying_shouters_draw_clockwise_from_the_card_player():
    """Order of decisions, step 3: seat 0 played, so seat 0 draws before seat 3."""
    hands = [["rX", "g1"], ["b1", "b2", "b3"], ["y1", "y2", "y3"], ["b4", "b5", "b6"]]
    g = game(position(hands, ["r9"], draw_top=["g7", "g8"]))
    act(g, "play rX", "target +2", "loco")
    assert g.window_to_decide == [3, 0, 1]
    act(g, "contre", "contre", "pass")
    assert "g8" in hand(g, 0) and "g7" in hand(g, 3)
    assert g.hand_sizes == [4, 3, 1, 4]


def test_L53_opponents_see_the_announcement_before_deciding():
    for call, announced in (("loco", True), ("silent", False)):
        g = game(position([["r5", "g1"], ["b1", "b2"], ["y1", "y2"]], ["r3"]))
        act(g, "play r5", call)
        view = g.view(1)
        assert view.contre_caller == 0 and view.contre_announced is announced
        assert view.calls[0] == ("announced" if announced else "silent")


def test_L54_one_card_one_call_until_a_swap_or_rotation():
    g = game(position([["r5", "g1"], ["r7", "b2", "b9"], ["rX", "y2", "y5"]], ["r3"]))
    act(g, "play r5", "loco", "pass", "pass")
    act(g, "play r7")  # another landing: seat 0 is not asked again
    assert g.phase == 0 and g.current_seat == 2
    act(g, "play rX", "target +2")  # seat 2 swaps with seat 1; seat 0 still at one card
    assert g.phase == 5 and g.call_queue == [0]


# ---------------------------------------------------------------- the clock
def test_L60_a_timed_out_turn_draws_and_passes():
    g = game(position([["b7", "b8"], ["y1", "y2"]], ["r3"]))
    g.timeout()
    assert g.hand_sizes[0] == 3 and g.current_seat == 1 and g.timeouts[0] == 1
    g = game(position([["b7", "b8"], ["y1", "y2"]], ["r3", "+4"], pending=8, pending_kind="+4"))
    g.timeout()
    assert g.hand_sizes[0] == 10 and g.pending == 0 and g.current_seat == 1


def test_L61_four_timeouts_in_a_row_free_the_seat():
    state = position([["rX", "b8"], ["y1", "y2"], ["O", "g5", "g6"]], ["r3"],
                     timeouts=[0, 3, 0], actor=1)
    g = game(state)
    g.timeout()
    assert g.active[1] is False and g.hand_sizes[1] == 0 and total_cards(g) == 112
    assert g.current_seat == 2
    act(g, "play O", "colour g")  # Rotation skips the seat that left
    assert hand(g, 0) == ["g5", "g6"] and hand(g, 1) == [] and hand(g, 2) == ["b8", "rX"]
    g = game(position([["rX", "b8"], ["y1", "y2"], ["g5", "g6"]], ["r3"], timeouts=[0, 3, 0],
                      actor=1))
    g.timeout()
    g.timeouts[2] = 0
    act(g, "draw", "pass")
    act(g, "play rX")
    assert legal(g) == {"target +2"}  # nobody can Swap with a seat that left


def test_L61_the_fourth_timed_out_turn_draws_first_then_the_hand_goes_into_the_draw_pile():
    state = position([["b7", "b8"], ["y1", "y2"], ["g5", "g6"]], ["r3", "+4"], pending=4,
                     pending_kind="+4", actor=1, timeouts=[0, 3, 0], draw_top=["r1"])
    state["discard"] = state["draw_pile"][:-1] + state["discard"]
    state["draw_pile"] = state["draw_pile"][-1:]  # one card (r1) left: the penalty reshuffles
    g = game(state)
    g.timeout()
    assert g.discard == [C.PLUS4]  # the draw of 4 needed an L-13 reshuffle first
    assert not g.active[1] and g.hand_sizes[1] == 0 and total_cards(g) == 112
    assert len(g.draw_pile) == 112 - 1 - 4  # what it drew went back with its hand
    assert (g.pending, g.pending_kind, g.current_seat, g.phase) == (0, None, 2, 0)
    assert hand(g, 2) == ["g5", "g6"]  # no penalty passes on
    plain = position([["b7", "b8"], ["y1", "y2"], ["g5", "g6"]], ["r3"], actor=1,
                     timeouts=[0, 3, 0], draw_top=["r1"])
    g = game(plain)
    g.timeout()
    unshuffled = game(plain).draw_pile[:-1] + [C.card_id(c) for c in ("r1", "y1", "y2")]
    assert sorted(g.draw_pile) == sorted(unshuffled) and g.draw_pile != unshuffled


def test_L61_a_turn_the_player_drew_in_is_not_a_timed_out_turn():
    g = game(position([["b7", "b8"], ["y1", "y2"]], ["r3"], timeouts=[3, 0], draw_top=["g9"]))
    act(g, "draw")
    assert g.timeouts[0] == 0
    g.timeout()  # the clock ends the turn after the player's own draw: only the pass
    assert g.timeouts[0] == 0 and g.active[0] and g.current_seat == 1 and g.hand_sizes[0] == 3


def test_L61_the_clock_in_the_turn_seats_slap_window_neither_counts_nor_resets():
    g = game(position([["g7", "b1", "b9"], ["g7", "b2", "b3"], ["r1", "r2"]], ["g3"],
                      timeouts=[0, 3, 0]))
    act(g, "play g7")
    assert (g.phase, g.current_seat) == (7, 1)
    g.timeout()  # its neutral choice: no slap
    assert (g.phase, g.current_seat, g.timeouts[1], g.active[1]) == (0, 1, 3, True)
    g.timeout()  # the regular turn's clock: the fourth timed-out turn
    assert not g.active[1] and g.current_seat == 2


def test_L61_a_timeout_resets_when_the_player_acts_and_the_last_seat_wins():
    g = game(position([["b7", "b8"], ["y1", "y2"]], ["r3"], timeouts=[2, 0]))
    act(g, "draw", "pass")
    assert g.timeouts[0] == 0
    g = game(position([["b7", "b8"], ["y1", "y2"]], ["r3"], timeouts=[0, 3], actor=1))
    g.timeout()
    assert g.terminal and g.final_ranks() == [0, 1]


def test_L62_the_env_simulates_slow_players_with_a_seeded_rate():
    env = loco_envs.make("loco_v0", num_players=3, timeout_rate=[0.0, 1.0, 0.0], wrapped=False)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    while not env.game.terminal:
        if env.game.phase == 0:
            assert env.agent_selection != "player_1"
        actions = env.game.legal_actions()
        env.step(actions[rng.integers(len(actions))])
    assert env.game.active[1] is False
    with pytest.raises(ValueError, match="timeout_rate"):
        loco_envs.make("loco_v0", timeout_rate=1.5)


# ---------------------------------------------------------------- scoring and match
def test_L70_the_round_stops_before_the_last_cards_effect():
    g = game(position([["r+2"], ["b4", "b2"]], ["r3"]))
    act(g, "play r+2")
    assert g.terminal and g.hand_sizes[1] == 2 and g.pending == 0
    g = game(position([["rX"], ["b4", "b2"]], ["r3"]))
    act(g, "play rX")
    assert g.terminal and hand(g, 1) == ["b2", "b4"]


def test_L71_the_winner_scores_the_points_left_in_other_hands():
    g = game(position([["r5"], ["+4", "y5", "gS"], ["bR"]], ["r3"]))
    act(g, "play r5")
    assert g.scores == [85, 0, 0] and g.leftover == [0, 75, 10] and g.rounds_won == [1, 0, 0]
    assert g.final_scores() == [85.0, 0.0, 0.0] and g.final_ranks() == [0, 2, 1]  # L-73


@pytest.mark.parametrize("rounds", [3, 5])
def test_L72_every_round_of_the_match_is_played_and_the_highest_total_wins(rounds):
    g = LocoGame(rng=np.random.default_rng(rounds), num_players=3, rounds=rounds)
    random_playout(g, seed=rounds)
    assert g.round >= rounds and sum(g.rounds_won) == g.round
    best = max(g.scores)
    assert all((g.final_ranks()[s] == 0) == (g.scores[s] == best) for s in range(3)) or g.decider


def test_L72_match_length_is_one_three_five_or_seven():
    with pytest.raises(ValueError, match="rounds"):
        loco_envs.make("loco_v0", rounds=2)


def _last_round(scores, rounds_won, leftover):
    return position([["r5"], ["g5", "g6"], ["b1"]], ["r3"], rounds=3, round=3, scores=scores,
                    rounds_won=rounds_won, leftover=leftover)


def test_L73_ties_go_to_most_rounds_won():
    g = game(_last_round([88, 100, 50], [1, 1, 0], [0, 0, 0]))
    act(g, "play r5")  # seat 0 scores 12: 100 each, seat 0 has won 2 rounds
    assert g.terminal and g.final_ranks() == [0, 1, 2]


def test_L73_then_to_the_fewest_left_over_points():
    g = game(_last_round([88, 100, 50], [0, 1, 0], [30, 5, 0]))
    act(g, "play r5")  # 100 each, one round each; left-over 30 vs 5 + 11
    assert g.terminal and g.final_ranks() == [1, 0, 2]


def test_L73_then_one_more_round_among_the_tied_players_only():
    g = game(_last_round([88, 100, 50], [0, 1, 0], [16, 5, 0]))
    act(g, "play r5")  # 100 each, one round each, 16 left-over each
    assert not g.terminal and g.decider and g.in_round == [True, True, False]
    assert g.hand_sizes == [8, 8, 0] and g.current_seat == 0
    random_playout(g, seed=1)
    assert sorted(g.final_ranks()[:2]) == [0, 1] and g.final_ranks()[2] == 2


def test_L73_lower_ties_stay_shared():
    g = game(position([["r5"], ["g5"], ["b5"]], ["r3"], scores=[50, 0, 0]))
    act(g, "play r5")
    assert g.final_ranks() == [0, 1, 1]


# ---------------------------------------------------------------- order of decisions
def test_order_colour_then_call_then_contre_then_slap_then_turn():
    g = game(position([["W", "g1"], ["b4", "b2"], ["W", "r1"]], ["g3"]))
    phases = []
    for text in ("play W", "colour r", "silent", "pass", "pass", "pass"):
        phases.append((g.phase, g.current_seat))
        act(g, text)
    phases.append((g.phase, g.current_seat))
    assert phases == [(0, 0), (3, 0), (5, 0), (6, 1), (6, 2), (7, 2), (0, 1)]
