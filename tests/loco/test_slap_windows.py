"""LOCO's slap windows and what follows a slap, against ``docs/rules/loco.md``.

Each test builds a position, works out by hand (in its docstring or comments) what the rules
page and the seed say must happen, and checks the engine: the turn seat in slap windows
(L-41/L-42), slaps as landings (L-43/L-44, L-70, L-50…L-54 and the order of decisions), the
clock in and after windows (L-61), option ``stacking``, and that a seat not asked in a slap
window cannot tell that one is open.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import loco_envs
from loco_envs.core import IllegalActionError
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.rules import (
    ANNOUNCED,
    CALL,
    COLOUR,
    CONTRE,
    OWED,
    SLAP,
    TURN,
    LocoGame,
)
from tests.loco.helpers import act, game, hand, legal, position, total_cards


def decision(g: LocoGame) -> tuple[int, int, int]:
    """(phase, seat to decide, turn seat)."""
    return g.phase, g.current_seat, g.turn_seat


# ---------------------------------------------------------------- L-41: the turn seat decides
def test_L41_the_turn_seat_as_the_only_holder_is_asked_and_a_slap_moves_the_turn_past_it():
    """Seat 0 plays g7; seat 1 (whose turn it now is) holds the other g7 and nobody else does.

    Seat 1 alone is asked. Its slap is a landing by seat 1 (L-43): play continues from seat 1,
    so seat 2 is next; the slap is not a regular turn, so seat 1's clock count stays (L-61).
    """
    state = position([["g7", "b1", "b9"], ["g7", "b2", "b3"], ["r1", "r2"]], ["g3"],
                     timeouts=[0, 2, 0])
    g = game(state)
    act(g, "play g7")
    assert decision(g) == (SLAP, 1, 1) and g.window_to_decide == [1]
    assert legal(g) == {"slap g7", "pass"}
    act(g, "slap g7")
    assert decision(g) == (TURN, 2, 2) and g.lander == 1 and hand(g, 1) == ["b2", "b3"]
    assert g.timeouts == [0, 2, 0] and C.COLOURS[g.colour] == "g"


def test_L41_nobody_slaps_so_the_penalty_stays_aimed_at_the_turn_seat_for_its_regular_turn():
    """Seat 0 plays r+2 at seat 1, who holds the other r+2 and a b+2. Seat 1 passes the window:
    its regular turn follows with the penalty pending: answer (either +2, stacking 'any') or
    draw; with stacking 'identical' only the r+2 answers."""
    hands = [["r+2", "b1", "b9"], ["r+2", "b+2", "y5"], ["g4", "g5"]]
    for stacking, answers in (("any", {"play r+2", "play b+2"}), ("identical", {"play r+2"})):
        g = game(position(hands, ["r3"]), stacking=stacking)
        act(g, "play r+2")
        assert decision(g) == (SLAP, 1, 1) and g.pending == 2
        act(g, "pass")
        assert decision(g) == (TURN, 1, 1) and g.pending == 2
        assert legal(g) == answers | {"draw"}


def test_L41_the_player_who_just_played_may_slap_their_own_card():
    """4 players, seat 0 holds two red Skips and plays one: seat 1 loses its turn, seat 2 is
    next. Seat 0 is the only holder of the other and slaps it: as if seat 0 had played a Skip on
    its own turn (L-43), the seat after it (seat 1) loses its turn, so seat 2 is still next;
    seat 0 is now at one card and calls first (order of decisions, step 2)."""
    g = game(position([["rS", "rS", "b9"], ["y4", "b2"], ["y6", "b3"], ["y5", "b5"]], ["r3"]))
    act(g, "play rS")
    assert decision(g) == (SLAP, 0, 2) and g.window_to_decide == [0]
    act(g, "slap rS")
    assert decision(g) == (CALL, 0, 2) and g.lander == 0 and hand(g, 0) == ["b9"]
    g = game(position([["r+2", "r+2", "b9"], ["y4", "b2"], ["y6", "b3"]], ["r3"]))
    act(g, "play r+2", "slap r+2")
    assert (g.pending, g.turn_seat) == (4, 1)  # the grown penalty, still at the seat after 0


def test_L41_the_turn_seat_and_two_others_all_decide_and_their_choices_stay_apart():
    """Seat 0 plays a Wild holding another; seats 1 (turn) and 2 hold one each. All three are
    asked, each seeing phase 'slap' only while it decides."""
    g = game(position([["W", "W", "b9"], ["W", "b2"], ["W", "y5"], ["y4", "b5"]], ["r3"]))
    act(g, "play W", "colour g")
    assert sorted(g.window_to_decide) == [0, 1, 2] and g.turn_seat == 1
    asked = []
    while g.phase == SLAP:
        seat = g.current_seat
        assert g.view(seat).phase == "slap"
        assert all(g.view(s).phase == "turn" and g.view(s).actor == 1
                   for s in range(4) if s != seat)
        asked.append(seat)
        act(g, "pass")
    assert sorted(asked) == [0, 1, 2] and decision(g) == (TURN, 1, 1)


# ---------------------------------------------------------------- L-42: photo finish
PLUS4_RACE = [["+4", "b1", "b9"], ["+4", "b2"], ["y4", "y5"], ["+4", "y7", "y8"]]


def test_L42_the_turn_seat_races_a_plus4_aimed_at_it_under_random_photo_finish():
    """Seat 0 plays +4 (colour g) at seat 1; seats 1 and 3 both slap. Random photo finish:
    either may win, reproducibly under the seed. If seat 1 wins, the 8 move on to seat 2 and
    seat 1 calls (one card). If seat 3 wins, the 8 move on to seat 0, and seat 1 still holds its
    +4: the slap opened a new window for it (L-44)."""
    outcomes = {}
    for seed in range(40):
        results = []
        for _ in range(2):
            g = game(position(PLUS4_RACE, ["r3"]), seed=seed)
            act(g, "play +4", "colour g")
            assert sorted(g.window_to_decide) == [1, 3]
            act(g, "slap +4", "slap +4")
            assert g.phase == COLOUR  # the winner names the colour again (L-43)
            act(g, "colour b")
            results.append((g.lander, g.turn_seat, g.pending, g.phase, g.current_seat))
        assert results[0] == results[1]
        outcomes[results[0][0]] = results[0]
    assert outcomes == {1: (1, 2, 8, CALL, 1), 3: (3, 0, 8, SLAP, 1)}


def test_L42_seat_photo_finish_gives_a_wild_race_to_the_turn_seat_and_the_card_player_last():
    """With photo_finish='seat' the nearest slapper after the card's player wins. For a wild the
    turn seat is that nearest seat, so it beats everyone, the card's player included; without
    the turn seat the next nearest wins; the card's player itself comes last."""
    hands = [["W", "W", "b9"], ["W", "b2"], ["W", "y5"], ["y4", "b5"]]

    def winner(choices: dict[int, str], direction: int = 1) -> int:
        g = game(position(hands, ["r3"], direction=direction), photo_finish="seat")
        act(g, "play W", "colour g")
        while g.phase == SLAP:
            act(g, choices.get(g.current_seat, "pass"))
        return g.lander

    everyone = {0: "slap W", 1: "slap W", 2: "slap W"}
    assert winner(everyone) == 1
    assert winner({0: "slap W", 2: "slap W"}) == 2
    assert winner({0: "slap W"}) == 0
    # counter-clockwise, the turn seat is seat 3 (no copy): seat 2 comes before seat 1
    assert winner({1: "slap W", 2: "slap W"}, direction=-1) == 2


def test_L42_random_photo_finish_is_uniform_among_three_slappers_including_the_turn_seat():
    hands = [["W", "W", "b9"], ["W", "b2"], ["W", "y5"], ["y4", "b5"]]
    wins = {0: 0, 1: 0, 2: 0}
    for seed in range(300):
        g = game(position(hands, ["r3"]), seed=seed)
        act(g, "play W", "colour g")
        while g.phase == SLAP:
            act(g, "slap W")
        wins[g.lander] += 1
    assert all(70 <= w <= 130 for w in wins.values()), wins  # 100 expected each


# ---------------------------------------------------------------- L-43/L-44: a slap is a landing
def test_L43_a_wild_slap_has_its_colour_named_again_by_the_slapper():
    g = game(position([["W", "b1", "b9"], ["b4", "b2"], ["W", "r1"], ["y4", "y5"]], ["g3"]))
    act(g, "play W", "colour r", "slap W")
    assert decision(g) == (COLOUR, 2, 3)
    act(g, "colour y")
    assert C.COLOURS[g.colour] == "y" and decision(g) == (CALL, 2, 3)


def test_L43_a_plus2_slap_takes_the_penalty_off_the_turn_seat_and_grows_it_past_the_slapper():
    """Seat 0 plays r+2 at seat 1; seat 2 slaps the other r+2: seat 1 draws nothing and loses
    its turn (play continues from seat 2), seat 3 faces 4."""
    hands = [["r+2", "b1", "b9"], ["r5", "b2"], ["r+2", "b+2", "y5"], ["b+2", "y7", "y8"]]
    g = game(position(hands, ["r3"]))
    act(g, "play r+2", "slap r+2")
    assert decision(g) == (TURN, 3, 3) and (g.pending, g.pending_kind) == (4, "+2")
    assert hand(g, 1) == ["b2", "r5"]
    act(g, "play b+2")  # stacking 'any': a +2 of another colour answers
    assert g.pending == 6
    assert g.phase == SLAP and g.current_seat == 2  # seat 2 holds the other b+2 (L-44)
    act(g, "slap b+2")
    assert decision(g) == (CALL, 2, 3) and g.pending == 8  # seat 3 gets it back, grown


def test_L43_reverse_and_skip_slaps_with_two_players_give_the_slapper_another_turn():
    """Duel: a Reverse acts as a Skip (L-31). Seat 0 plays rR: the turn comes back to seat 0.
    Seat 1 slaps the other rR: as if seat 1 had played it, the turn comes back to seat 1, and
    the direction has flipped twice. The same for Skips."""
    for card in ("rR", "rS"):
        g = game(position([[card, "b1", "b9"], [card, "b2", "b3"]], ["r3"]))
        act(g, f"play {card}")
        assert decision(g) == (SLAP, 1, 0)
        act(g, f"slap {card}")
        assert decision(g) == (TURN, 1, 1) and g.direction == 1 and g.lander == 1


def test_L43_reverse_and_skip_slaps_with_four_players():
    # seat 0 plays rR: direction -1, seat 3 next; seat 1 slaps: direction +1, seat 2 next
    g = game(position([["rR", "b1", "b9"], ["rR", "b2", "b3"], ["y1", "y2"], ["y3", "y4"]],
                      ["r3"]))
    act(g, "play rR", "slap rR")
    assert (g.direction, g.turn_seat, g.current_seat) == (1, 2, 2)
    # seat 0 plays rS: seat 2 next; seat 2 (the turn seat) slaps: seat 3 skipped, seat 0 next
    g = game(position([["rS", "b1", "b9"], ["y1", "y2"], ["rS", "b2", "b3"], ["y3", "y4"]],
                      ["r3"]))
    act(g, "play rS")
    assert decision(g) == (SLAP, 2, 2)
    act(g, "slap rS")
    assert decision(g) == (TURN, 0, 0)


def test_L43_a_rotation_slap_rotates_again_and_every_seat_at_one_card_calls_from_the_slapper():
    """Seat 0 plays O: hands move one seat clockwise; seat 2 now holds r5 alone (calls), seat 3
    holds [O, b5]. After the call and the Contre-LOCO window, seat 3 may slap the O (step 4):
    it names the colour, hands move again, and seats 3 ([r5]) and 0 ([b5]) owe calls, asked
    clockwise from seat 3, the slapper (step 2)."""
    g = game(position([["O", "b1", "b9"], ["r5"], ["O", "b5"], ["y4", "y5", "y6"]], ["g3"]))
    act(g, "play O", "colour g")
    assert decision(g) == (CALL, 2, 1)
    act(g, "loco", "pass", "pass", "pass")
    assert decision(g) == (SLAP, 3, 1)
    act(g, "slap O")
    assert decision(g) == (COLOUR, 3, 0)
    act(g, "colour b")
    assert [hand(g, s) for s in range(4)] == [["b5"], ["y4", "y5", "y6"], ["b1", "b9"], ["r5"]]
    assert g.phase == CALL and g.call_queue == [3, 0] and C.COLOURS[g.colour] == "b"


def test_L43_no_slap_window_follows_a_swap_nobody_can_hold_an_identical_one():
    """One Swap per colour: the identical card of a landed Swap is on the pile, so no window
    opens after a Swap, whoever holds Swaps of other colours."""
    g = game(position([["rX", "b1", "b9"], ["gX", "b2"], ["bX", "y5"]], ["r3"]))
    act(g, "play rX")
    assert g.phase == 4 and legal(g) == {"target +1", "target +2"}
    act(g, "target +2")
    assert decision(g) == (TURN, 1, 1) and hand(g, 0) == ["bX", "y5"]


def test_L44_the_loser_of_a_race_gets_a_new_window_on_the_winners_card():
    g = game(position(PLUS4_RACE, ["r3"]), photo_finish="seat", stacking="identical")
    act(g, "play +4", "colour g", "pass", "slap +4", "colour r")
    assert decision(g) == (SLAP, 1, 0) and g.pending == 8
    act(g, "slap +4", "colour y")
    assert (g.lander, g.turn_seat, g.pending) == (1, 2, 12)


# ---------------------------------------------------------------- L-70: a slap can end the round
def test_L70_a_slap_that_empties_the_slappers_hand_ends_the_round_before_its_effect():
    """Seat 2 holds only r+2 and slaps seat 0's r+2: the round stops, nobody draws the 4, and
    seat 2 scores the other hands: 1+9 + 5+2 + 4+5 = 26."""
    g = game(position([["r+2", "b1", "b9"], ["r5", "b2"], ["r+2"], ["y4", "y5"]], ["r3"]))
    act(g, "play r+2", "slap r+2")
    assert g.terminal and g.scores == [0, 0, 26, 0] and g.hand_sizes == [2, 2, 0, 2]
    g = game(position([["W", "b1", "b9"], ["r5", "b2"], ["W"]], ["r3"]))
    act(g, "play W", "colour g", "slap W")
    assert g.terminal and g.scores == [0, 0, 17]  # a last wild: no colour to name


# ---------------------------------------------------------------- L-50…L-54 after a slap
SLAP_TO_ONE = [["g7", "b1", "b9"], ["r5", "b2"], ["g7", "b5"], ["y4", "y5"]]


def test_L52_after_a_slap_to_one_card_shouters_pay_clockwise_from_the_slapper():
    """Seat 2 slaps seat 0's g7 and is left with b5: it calls first. Seats 0 and 3 shout after
    the announcement: each pays one card, clockwise from the one who played (the slapper, seat
    2): seat 3 draws first (r2, the top of the draw pile), then seat 0 (r1)."""
    g = game(position(SLAP_TO_ONE, ["g3"], draw_top=["r1", "r2"]))
    act(g, "play g7", "slap g7")
    assert decision(g) == (CALL, 2, 3) and g.calls[2] == OWED
    act(g, "loco")
    assert g.phase == CONTRE and g.view(3).contre_caller == 2 and g.view(3).contre_announced
    assert sorted(g.window_to_decide) == [0, 1, 3]
    choices = {0: "contre", 1: "pass", 3: "contre"}
    while g.phase == CONTRE:
        act(g, choices[g.current_seat])
    assert hand(g, 3) == ["r2", "y4", "y5"] and hand(g, 0) == ["b1", "b9", "r1"]
    assert decision(g) == (TURN, 3, 3) and g.hand_sizes[2] == 1


def test_L52_shouters_at_a_caller_who_did_not_slap_pay_clockwise_from_the_slapper():
    """The Rotation slap of the test above leaves seats 3 (the slapper) and 0 at one card; both
    announce. In seat 0's Contre-LOCO window seats 1 and 3 shout: they pay clockwise from the
    one who played (seat 3), not from the caller (seat 0): seat 3 draws r2 first, seat 1 r1."""
    g = game(position([["O", "b1", "b9"], ["r5"], ["O", "b5"], ["y4", "y5", "y6"]], ["g3"],
                      draw_top=["r1", "r2"]))
    act(g, "play O", "colour g", "loco", "pass", "pass", "pass", "slap O", "colour b")
    assert g.call_queue == [3, 0]
    act(g, "loco", "loco", "pass", "pass", "pass")
    assert g.phase == CONTRE and g.contre_queue[0] == (0, True)
    choices = {1: "contre", 2: "pass", 3: "contre"}
    while g.phase == CONTRE:
        act(g, choices[g.current_seat])
    assert hand(g, 3) == ["r2", "r5"] and hand(g, 1) == ["r1", "y4", "y5", "y6"]
    assert decision(g) == (TURN, 0, 0)


def test_L52_a_silent_slapper_draws_two_once_and_is_not_asked_again():
    g = game(position(SLAP_TO_ONE, ["g3"], draw_top=["r1", "r2"]))
    act(g, "play g7", "slap g7", "silent")
    while g.phase == CONTRE:
        act(g, "contre")
    assert hand(g, 2) == ["b5", "r1", "r2"] and g.hand_sizes == [2, 2, 3, 2]
    assert decision(g) == (TURN, 3, 3)


def test_L54_a_slapper_already_announced_is_not_asked_again_by_a_later_landing():
    """Seat 2 slaps to one card and announces; seat 3 then plays: no new call for seat 2."""
    g = game(position([["g7", "b1", "b9"], ["r5", "b2"], ["g7", "b5"], ["g4", "y5", "y6"]],
                      ["g3"]))
    act(g, "play g7", "slap g7", "loco", "pass", "pass", "pass", "play g4")
    assert g.phase == TURN and g.calls[2] == ANNOUNCED and g.current_seat == 0


# ---------------------------------------------------------------- option stacking
def test_stacking_identical_after_a_slap_of_an_identical_plus2_only_that_card_answers():
    """Seat 0 plays r+2, seat 2 slaps the other r+2: seat 3 faces 4. With 'identical' its b+2
    does not answer (both r+2 are on the pile): it must draw all 4; with 'any' it may answer."""
    hands = [["r+2", "b1", "b9"], ["r5", "b2"], ["r+2", "y5", "y6"], ["b+2", "y7"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play r+2", "slap r+2")
    assert decision(g) == (TURN, 3, 3) and legal(g) == {"draw"}
    with pytest.raises(IllegalActionError, match="L-32"):
        act(g, "play b+2")
    assert g.hand_sizes[3] == 2 and g.pending == 4  # nothing half applied
    act(g, "draw")
    assert g.hand_sizes[3] == 6 and g.phase == 2 and g.pending == 0
    g = game(position(hands, ["r3"]), stacking="any")
    act(g, "play r+2", "slap r+2")
    assert legal(g) == {"draw", "play b+2"}


def test_stacking_identical_answers_a_plus4_by_a_plus4_and_is_checked():
    hands = [["+4", "b1", "b9"], ["+4", "r+2", "y2"], ["y4", "y5"]]
    g = game(position(hands, ["r3"]), stacking="identical")
    act(g, "play +4", "colour r", "pass")
    assert decision(g) == (TURN, 1, 1) and legal(g) == {"play +4", "draw"}
    with pytest.raises(ValueError, match="stacking"):
        loco_envs.make("loco_v0", stacking="same")


# ---------------------------------------------------------------- L-61 in and around windows
def test_L61_the_clock_in_a_window_takes_no_slap_and_counts_for_nobody():
    """Seats 1 (turn), 2 and 0 (the card's player) are asked; the clock runs out for each: no
    slap, no count. Then seat 1's regular turn times out: that one counts (2 → 3)."""
    g = game(position([["W", "W", "b9"], ["W", "b2"], ["W", "y5"], ["y4", "y5"]], ["r3"],
                      timeouts=[2, 2, 2, 2]))
    act(g, "play W", "colour g")  # seat 0 played: its count resets
    assert g.phase == SLAP and g.timeouts == [0, 2, 2, 2]
    while g.phase == SLAP:
        g.timeout()
    assert decision(g) == (TURN, 1, 1) and g.timeouts == [0, 2, 2, 2]
    assert g.hand_sizes == [2, 2, 2, 2] and g.lander == 0
    g.timeout()
    assert g.timeouts == [0, 3, 2, 2] and g.hand_sizes[1] == 3 and g.current_seat == 2


def test_L61_a_turn_seat_slap_does_not_save_a_seat_at_three_timeouts():
    """Seat 1 (three timed-out turns) slaps in its window: not a regular turn, the count stays
    at 3; its next regular turn times out and frees the seat."""
    g = game(position([["g7", "b1", "b9"], ["g7", "b2", "b3"], ["g5", "r2", "r4"]], ["g3"],
                      timeouts=[0, 3, 0], draw_top=["y9"]))
    act(g, "play g7", "slap g7")
    assert g.timeouts[1] == 3 and decision(g) == (TURN, 2, 2)
    act(g, "play g5", "draw", "pass")  # seat 2 plays, seat 0 draws y9 and passes
    assert decision(g) == (TURN, 1, 1)
    g.timeout()
    assert not g.active[1] and total_cards(g) == 112 and g.current_seat == 2


def test_L61_the_fourth_timed_out_turn_draws_through_an_L13_reshuffle_then_leaves():
    """Seat 1 at three timeouts, draw pile empty: the clock's draw reshuffles the discard pile
    under its top (L-13), hands seat 1 one card, then its three cards go into the draw pile."""
    state = position([["b7", "b8"], ["y1", "y2"], ["g5", "g6"]], ["r3"], actor=1,
                     timeouts=[0, 3, 0])
    state["discard"] = state["draw_pile"] + state["discard"]
    state["draw_pile"] = []
    g = game(state)
    g.timeout()
    assert g.discard == [C.card_id("r3")] and len(g.draw_pile) == 112 - 1 - 4
    assert not g.active[1] and g.hand_sizes == [2, 0, 2] and total_cards(g) == 112
    assert decision(g) == (TURN, 2, 2)


# ---------------------------------------------------------------- L-41: window secrecy
def env_at(state: dict, moves: tuple[str, ...] = (), **options):
    env = loco_envs.make("loco_v0", num_players=len(state["hands"]), wrapped=False,
                         render_mode="ansi", **options)
    env.reset(seed=7, options={"state": copy.deepcopy(state)})
    for text in moves:
        env.step(env.str_to_action(text))
    return env


def everything_seen(env, seat: int | None) -> tuple:
    """View (every field), observation, mask-free render of ``seat``; the public render."""
    if seat is None:
        return (env.game.render_text(None),)
    env.render_seat = seat
    picture = env.render()
    env.render_seat = None
    agent = env.possible_agents[seat]
    return env.view(agent), env.observe(agent)["observation"].tolist(), picture


def hidden_removed(env) -> dict:
    """The state less what the twins differ in: the hands and the draw pile."""
    state = env.state_dict()
    del state["hands"], state["draw_pile"]
    return state


# (hands with copies of the card, the same hands with those copies swapped out, discard,
#  draw_top, extra state fields, moves up to the window with the copies / in the twin, seats
#  asked in the window)
TWINS = {
    "a penalty played after the penalty draw": (
        [["b1", "b9"], ["g7", "g8"], ["W", "y5"], ["W", "y6"]],
        [["b1", "b9"], ["g7", "g8"], ["r6", "y5"], ["r5", "y6"]],
        ["r3", "+4"], ["W", "b5", "b6", "b2"], {"pending": 4, "pending_kind": "+4", "actor": 1},
        ("draw", "play W", "colour b"), ("draw", "play W", "colour b"), [2, 3]),
    "the drawn card played at once, its last copy with the turn seat": (
        [["b1", "b9"], ["g7", "g8"], ["y7", "y5"], ["y6"]],
        [["b1", "b9"], ["g7", "g8"], ["r7", "y5"], ["y6"]],
        ["y3"], ["y7"], {"actor": 1}, ("draw", "play y7"), ("draw", "play y7"), [2]),
    "a +2 aimed at the only holder, in a duel": (
        [["r+2", "b1", "b9"], ["r+2", "g2"]], [["r+2", "b1", "b9"], ["y9", "g2"]],
        ["r3"], [], {}, ("play r+2",), ("play r+2",), [1]),
    "a Skip in a duel: the card's player has the next turn": (
        [["rS", "b1", "b9"], ["rS", "g2"]], [["rS", "b1", "b9"], ["y9", "g2"]],
        ["r3"], [], {}, ("play rS",), ("play rS",), [1]),
    "the second window, opened by a slapper's landing": (
        [["+4", "b1", "b9"], ["+4", "g2", "g3"], ["+4", "y5"], ["r1", "r2"], ["+4", "y4"]],
        [["+4", "b1", "b9"], ["+4", "g2", "g3"], ["r6", "y5"], ["r1", "r2"], ["r7", "y4"]],
        ["r3"], [], {},
        ("play +4", "colour g", "slap +4", "pass", "pass", "colour y"),
        ("play +4", "colour g", "slap +4", "colour y"), [2, 4]),
}


def twin_envs(case: str, **options):
    with_copies, without, discard, draw_top, fields, moves, twin_moves, asked = TWINS[case]
    window = env_at(position(with_copies, discard, draw_top=draw_top, **fields), moves,
                    **options)
    plain = env_at(position(without, discard, draw_top=draw_top, **fields), twin_moves,
                   **options)
    assert window.game.phase == SLAP and sorted(window.game.window_to_decide) == asked
    assert plain.game.phase != SLAP
    return window, plain, [s for s in range(len(with_copies)) if s not in asked] + [None]


def pass_the_window(env) -> None:
    while env.game.phase == SLAP:
        env.step(A.PASS)


@pytest.mark.parametrize("stacking", ["any", "identical"])
@pytest.mark.parametrize("case", list(TWINS))
def test_L41_a_seat_not_asked_sees_every_field_as_with_no_window_during_and_after_it(case,
                                                                                       stacking):
    """Every seat not asked (and the public) sees, field by field, what it sees at the twin
    table where nobody else holds a copy, while the window is open and once all have passed;
    once it is closed nothing but the hidden hands differs, the RNG included."""
    window, plain, not_asked = twin_envs(case, stacking=stacking, photo_finish="random")
    for seat in not_asked:
        assert everything_seen(window, seat) == everything_seen(plain, seat), seat
    pass_the_window(window)
    assert hidden_removed(window) == hidden_removed(plain)
    assert window.game.rng.bit_generator.state == plain.game.rng.bit_generator.state
    for seat in not_asked:
        assert everything_seen(window, seat) == everything_seen(plain, seat), seat


@pytest.mark.parametrize("case", list(TWINS))
def test_L41_after_a_passed_window_a_slow_players_clock_draws_as_with_no_window(case):
    """With ``timeout_rate`` the turn seat's clock is drawn when its turn begins: after the
    window, at the same point of the RNG stream as at the twin table with no window."""
    window, plain, not_asked = twin_envs(case, timeout_rate=0.7)
    pass_the_window(window)
    assert hidden_removed(window) == hidden_removed(plain)
    for seat in not_asked:
        assert everything_seen(window, seat) == everything_seen(plain, seat), seat


# ---------------------------------------------------------------- random play, both stackings
def check_decision_invariants(g: LocoGame) -> None:
    """The phase and its queues agree; nobody owes a call at a regular turn; a pending penalty
    lies on top; a slap window asks exactly the playing holders of the top card."""
    assert total_cards(g) == 112
    assert [int(h.sum()) for h in g.hands] == g.hand_sizes
    playing = [s for s in range(g.num_players) if g.active[s] and g.in_round[s]]
    if g.pending:
        assert C.KIND[g.discard[-1]] == g.pending_kind
    if g.phase == TURN:
        assert g.current_seat == g.turn_seat and g.window_kind is None
        assert not g.call_queue and not g.contre_queue and not g.slap_window_due
        assert all(g.calls[s] != OWED for s in playing)
    elif g.phase == SLAP:
        top = g.discard[-1]
        assert g.window_kind == "slap" and g.window_to_decide[0] == g.current_seat
        holders = {s for s in playing if g.hands[s][top]}
        assert set(g.window_to_decide) | set(g.window_choices) == holders
        assert not set(g.window_to_decide) & set(g.window_choices)
        for s in range(g.num_players):
            if s != g.current_seat:
                view = g.view(s)
                assert (view.phase, view.actor, view.drawn) == ("turn", g.turn_seat, None)
    elif g.phase == CALL:
        assert g.call_queue[0] == g.current_seat and g.hand_sizes[g.current_seat] == 1
    elif g.phase == CONTRE:
        assert g.window_kind == "contre" and g.current_seat != g.contre_queue[0][0]
    if not g.terminal:
        assert g.current_seat in playing and g.turn_seat in playing


@pytest.mark.parametrize("stacking", ["any", "identical"])
def test_random_matches_keep_the_window_and_call_invariants(stacking):
    """Eager random play (with clock timeouts now and then) over 2 to 6 players, three rounds;
    each state also survives a state-dict round trip unchanged."""
    windows = 0
    for seed in range(10):
        n = 2 + seed % 5
        g = LocoGame(rng=np.random.default_rng(seed), num_players=n, rounds=3,
                     photo_finish=("random", "seat")[seed % 2], stacking=stacking)
        rng = np.random.default_rng(100 + seed)
        for _ in range(20_000):
            check_decision_invariants(g)
            if g.terminal:
                break
            state = g.state_dict()
            again = LocoGame.from_state_dict(state, np.random.default_rng(0),
                                             {"stacking": stacking, "num_players": n})
            assert again.state_dict() == state
            windows += g.phase == SLAP
            if rng.random() < 0.03:
                g.timeout()
                continue
            actions = g.legal_actions()
            plays = [a for a in actions if a < A.DRAW]
            pool = plays if plays and rng.random() < 0.85 else actions
            g.apply(int(pool[rng.integers(len(pool))]))
        assert g.terminal, seed
    assert windows > 50


@pytest.mark.parametrize("stacking", ["any", "identical"])
def test_records_with_timeouts_in_windows_replay(tmp_path, stacking):
    env = loco_envs.make("loco_v0", num_players=4, wrapped=False, stacking=stacking,
                         max_decisions=3000)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    timed_out_windows = 0
    while not env.over:
        if env.game.phase in (SLAP, CONTRE) and rng.random() < 0.5:
            env.timeout()
            timed_out_windows += 1
            continue
        mask = env.observe(env.agent_selection)["action_mask"]
        actions = np.flatnonzero(mask)
        plays = actions[actions < A.DRAW]
        pool = plays if len(plays) and rng.random() < 0.85 else actions
        env.step(int(pool[rng.integers(len(pool))]))
    assert timed_out_windows > 0
    replayed = loco_envs.replay(env.save_record(tmp_path / "match.jsonl"))
    assert replayed.state_dict() == env.state_dict()


def expected_landing(g: LocoGame, seat: int, ident: int, count: int) -> dict:
    """By hand from the page: what a landing of ``count`` x ``ident`` by ``seat`` leaves
    (L-12, L-30…L-33, L-43: the same for a play and a slap)."""
    kind, n = C.KIND[ident], g.num_players
    playing = [g.active[s] and g.in_round[s] for s in range(n)]
    direction = -g.direction if kind == "R" and count % 2 else g.direction
    steps = count + 1 if kind == "S" or (kind == "R" and sum(playing) == 2) else 1
    turn = seat
    for _ in range(steps):
        turn = (turn + direction) % n
        while not playing[turn]:
            turn = (turn + direction) % n
    grow = {"+2": 2, "+4": 4}.get(kind, 0) * count
    colour = C.COLOUR[ident] if C.COLOUR[ident] >= 0 else g.colour
    return {"lander": seat, "direction": direction, "turn_seat": turn,
            "pending": g.pending + grow, "colour": colour,
            "size": g.hand_sizes[seat] - count}


@pytest.mark.parametrize("photo_finish", ["random", "seat"])
def test_L43_every_landing_of_random_play_acts_as_a_play_by_its_player(photo_finish):
    """Over eager random matches, every play and every won slap is checked against
    :func:`expected_landing`; a race goes to a slapper, with 'seat' the nearest after the
    card's player in the direction of play (L-42)."""
    slaps = 0
    for seed in range(8):
        n = 2 + seed % 5
        g = LocoGame(rng=np.random.default_rng(seed), num_players=n, rounds=3,
                     photo_finish=photo_finish, stacking=("any", "identical")[seed % 2])
        rng = np.random.default_rng(seed + 50)
        while not g.terminal:
            actions = g.legal_actions()
            plays = [a for a in actions if a < A.DRAW]
            pool = plays if plays and rng.random() < 0.85 else actions
            action = int(pool[rng.integers(len(pool))])
            before_round = (g.round, list(g.rounds_won))
            if action < A.SLAP0 and g.phase in (TURN, 1, 2):
                expected = expected_landing(g, g.current_seat, A.PLAY_IDENT_LIST[action],
                                            A.PLAY_COUNT_LIST[action])
                slappers = None
            elif g.phase == SLAP and len(g.window_to_decide) == 1:
                choices = dict(g.window_choices)
                choices[g.current_seat] = (A.PLAY_COUNT_LIST[action - A.SLAP0]
                                           if A.SLAP0 <= action < A.DRAW else 0)
                slappers = sorted(s for s, k in choices.items() if k)
                top, card_player, direction = g.discard[-1], g.lander, g.direction
                landings = {s: expected_landing(g, s, top, choices[s]) for s in slappers}
                expected = None
            else:
                g.apply(action)
                continue
            g.apply(action)
            if (g.round, list(g.rounds_won)) != before_round:
                continue  # the landing emptied a hand (L-70), checked above
            if slappers is not None:
                if not slappers:
                    continue
                assert g.lander in slappers
                if photo_finish == "seat":
                    order = [(card_player + direction * i) % n for i in range(1, n + 1)]
                    assert g.lander == next(s for s in order if s in slappers)
                expected = landings[g.lander]
                slaps += 1
            got = {"lander": g.lander, "direction": g.direction, "turn_seat": g.turn_seat,
                   "pending": g.pending, "colour": g.colour,
                   "size": g.hand_sizes[g.lander]}
            assert got == expected, seed
    assert slaps > 100
