"""One test (or a few) per rule id of docs/rules/mampfos.md, built from state dicts.

Boards are drawn in comments as the 12 spaces 0..11 with W/G/B for the donkeys.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from loco_envs.core import IllegalActionError
from loco_envs.mampfos.actions import COLOURS, wheel_action
from loco_envs.mampfos.observation import encode, observation_size, slices
from loco_envs.mampfos.rules import CARD_CODES, DECK, LETTERS, MampfosGame, share_out
from tests.mampfos.helpers import act, colours, donkey, game_from, only_pile, state


def legal_names(game: MampfosGame) -> list[str]:
    return [MampfosGame.action_to_str(a) for a in game.legal_actions()]


# --- P-01 components: players, path, donkeys ------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_P01_three_donkeys_on_a_12_space_path_with_three_spaces_between(n):
    game = MampfosGame(rng=np.random.default_rng(n), num_players=n)
    # the first card is an A card (all feed cards), so no donkey has moved yet:
    #   0  1  2  3  4  5  6  7  8  9 10 11
    #   W  .  .  .  G  .  .  .  B  .  .  .
    assert game.positions == [0, 4, 8]
    p = game.positions
    gaps = sorted((p[(i + 1) % 3] - p[i]) % 12 for i in range(3))
    assert gaps == [4, 4, 4]
    assert game.num_players == n and len(game.view(0).collected) == n


@pytest.mark.parametrize("n", [0, 1, 6, "3", 2.0, True])
def test_P01_two_to_five_players(n):
    with pytest.raises(ValueError, match="2 to 5"):
        MampfosGame(rng=np.random.default_rng(0), num_players=n)


# --- P-02 biscuits -------------------------------------------------------------------------
def test_P02_hundred_biscuits_twenty_per_colour_and_empty_bellies():
    game = MampfosGame(rng=np.random.default_rng(0), num_players=4)
    assert game.supply == [20] * 5 and sum(game.supply) == 100
    assert game.bellies == [[0] * 5] * 3
    assert all(sum(row) == 0 for row in game.collected)


def test_P02_a_state_that_loses_a_biscuit_is_rejected():
    data = state(3)
    data["supply"][2] -= 1
    with pytest.raises(ValueError, match="supply.*blue.*P-02"):
        game_from(data)


# --- P-03 millwheels -----------------------------------------------------------------------
def test_P03_each_player_sets_exactly_one_secret_colour_per_droppings():
    game = game_from(state(3, phase="wheel", card="drop G", donkey="grey", feed_left=0,
                           active=1, bellies=[[0] * 5, colours(red=2), [0] * 5]))
    for seat, colour in [(1, "red"), (2, "blue"), (0, "red")]:
        assert game.current_seat == seat
        # the millwheel shows any of the 5 colours, nothing else
        assert legal_names(game) == [f"wheel {c}" for c in COLOURS]
        act(game, f"wheel {colour}")
        if game.view(seat).phase == "wheel":  # not yet shared out: own wheel set, once
            assert game.view(seat).own_wheel == COLOURS.index(colour)
            assert game.current_seat != seat
    # revealed by seat: seat 0 red, seat 1 red, seat 2 blue
    assert game.last_share.wheels == (COLOURS.index("red"), COLOURS.index("red"),
                                      COLOURS.index("blue"))


# --- P-04 the draw pile ----------------------------------------------------------------------
def test_P04_the_card_table_has_40_cards_5_per_letter_with_the_stated_totals():
    cards = [c for letter in LETTERS for c in DECK[letter]]
    assert list(DECK) == list(LETTERS) and all(len(DECK[x]) == 5 for x in LETTERS)
    assert len(cards) == 40 and set(cards) <= set(CARD_CODES)
    feeds = [c for c in cards if c.startswith("feed")]
    assert len(feeds) == 24 and sum(int(c[-1]) for c in feeds) == 50
    assert sum(c.startswith("drop") for c in cards) == 15 and cards.count("end") == 1
    assert "end" in DECK["H"]


def flipped_letters(seed: int, n: int = 3) -> tuple[list[str], list[str]]:
    """Letters and cards in the order they are turned over in one random game."""
    game = MampfosGame(rng=np.random.default_rng(seed), num_players=n)
    pick = np.random.default_rng(seed)
    letters, cards = [], []
    left = [5] * 8
    while True:
        now = list(game.view(0).cards_left)
        for i in range(8):
            if now[i] != left[i]:
                assert left[i] - now[i] == 1  # one card at a time
                letters.append(LETTERS[i])
                cards.append(game.view(0).card)
        left = now
        if game.terminal:
            return letters, cards
        legal = game.legal_actions()
        game.apply(legal[pick.integers(len(legal))])


def test_P04_pile_is_A_on_top_down_to_H_each_letter_shuffled_on_its_own():
    first_cards = Counter()
    for seed in range(60):
        letters, cards = flipped_letters(seed)
        assert letters == sorted(letters), letters  # A before B before ... H
        assert letters[:5] == ["A"] * 5  # the whole A stack comes first
        assert cards[-1] == "end"  # the game stops at the end card
        assert Counter(cards[:5]) == Counter(DECK["A"])
        first_cards[cards[0]] += 1
    # the A stack is shuffled: every distinct A card shows up first for some seed
    assert set(first_cards) == set(DECK["A"])
    assert flipped_letters(7) == flipped_letters(7)  # the shuffle comes from the seeded rng


def test_P04_the_letter_on_top_is_public():
    game = game_from(state(3, pile=only_pile(C=["drop W"], H=["end"])))
    view = game.view(2)
    assert view.cards_left == (0, 0, 1, 0, 0, 0, 0, 1)
    vec = encode(view)
    assert vec[slices(3)["cards_left"]].tolist() == [0, 0, 1, 0, 0, 0, 0, 1]


# --- P-10 a turn ------------------------------------------------------------------------------
def test_P10_the_next_player_clockwise_turns_over_the_next_card_without_a_decision():
    # seat 2 (of 3) finishes "feed W1"; seat 0 is next and its card is already turned over
    game = game_from(state(3, active=2, card="feed W1", feed_left=1,
                           pile=only_pile(B=["drop G"], H=["end"])))
    act(game, "feed red")
    assert game.active == 0 and game.current_seat == 0
    view = game.view(0)
    assert view.card == "drop G" and view.phase == "wheel" and view.cards_left[1] == 0


def test_P10_the_first_player_is_drawn_at_random():
    firsts = Counter(MampfosGame(rng=np.random.default_rng(s), num_players=4).active
                     for s in range(200))
    assert set(firsts) == {0, 1, 2, 3} and min(firsts.values()) > 20
    assert all(MampfosGame(rng=np.random.default_rng(s), num_players=4).current_seat
               == MampfosGame(rng=np.random.default_rng(s), num_players=4).active
               for s in range(20))


# --- P-11 feed cards --------------------------------------------------------------------------
def test_P11_biscuits_are_fed_one_at_a_time_then_the_donkey_moves():
    #   0  1  2  3  4  5  6  7  8  9 10 11      white eats 3, moves 3:
    #   W  .  .  .  G  .  .  .  B  .  .  .  ->  .  .  .  W  G ...
    game = game_from(state(3, pile=only_pile(B=["drop G"], H=["end"])))
    act(game, "feed red")
    assert game.supply == colours(orange=20, red=19, blue=20, green=20, yellow=20)
    assert game.bellies[0] == colours(red=1)
    assert game.phase == 1 and game.feed_left == 2 and game.current_seat == 0
    assert game.positions == [0, 4, 8]  # moves only after feeding
    act(game, "feed red", "feed blue")
    assert game.bellies[0] == colours(red=2, blue=1)
    assert game.positions == [3, 4, 8]
    assert game.active == 1  # turn over


def test_P11_seed_example_1_a_move_ending_on_a_donkey_hops_to_the_next_free_space():
    # Pablo's grey donkey eats 3 (one green, two yellow) and moves 3 onto brown, so hops over:
    #   0  1  2  3  4  5  6  7  8  9 10 11
    #   W  .  .  .  G  .  .  B  .  .  .  .  ->  W  .  .  .  .  .  .  B  G  .  .  .
    game = game_from(state(3, positions=[0, 4, 7], card="feed G3", donkey="grey",
                           pile=only_pile(B=["drop G"], H=["end"])))
    act(game, "feed green", "feed yellow", "feed yellow")
    assert game.bellies[1] == colours(green=1, yellow=2)
    assert game.positions == [0, 8, 7]


def test_P11_a_move_skips_every_occupied_space_and_wraps_round_the_path():
    #   0  1  2  3  4  5  6  7  8  9 10 11
    #   .  W  G  .  .  .  .  .  .  .  B  .   brown +3 -> 1 (W), 2 (G) -> 3
    game = game_from(state(2, positions=[1, 2, 10], card="feed B3", donkey="brown",
                           pile=only_pile(B=["drop G"], H=["end"])))
    act(game, "feed orange", "feed orange", "feed orange")
    assert game.positions == [1, 2, 3]


def test_P11_a_star_card_lets_the_active_player_choose_the_donkey_first():
    game = game_from(state(3, phase="donkey", card="feed *2", donkey=None, feed_left=0,
                           pile=only_pile(B=["drop G"], H=["end"])))
    assert legal_names(game) == ["donkey white", "donkey grey", "donkey brown"]
    with pytest.raises(IllegalActionError, match="P-11"):
        act(game, "feed red")
    act(game, "donkey brown")
    assert game.phase == 1 and game.donkey == donkey("brown") and game.feed_left == 2
    act(game, "feed blue", "feed blue")
    assert game.bellies[2] == colours(blue=2) and game.positions == [0, 4, 10]


def test_P11_only_colours_left_in_the_supply_can_be_fed():
    held = [colours(red=20), [0] * 5, [0] * 5]  # seat 0 holds every red biscuit
    game = game_from(state(3, collected=held, pile=only_pile(B=["drop G"], H=["end"])))
    assert "feed red" not in legal_names(game)
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="P-11.*red"):
        act(game, "feed red")
    assert game.state_dict() == before


def test_P11_a_supply_of_k_or_fewer_is_fed_whole_without_a_decision():
    # 4 biscuits in the supply; seat 0 feeds 1 to white, leaving 3 = k for seat 1's "feed G3"
    held = [colours(orange=20, red=20, blue=20, green=10), colours(green=9, yellow=17),
            [0] * 5]
    game = game_from(state(3, collected=held, card="feed W1", feed_left=1,
                           pile=only_pile(A=["feed G3"], B=["drop B"], H=["end"])))
    assert sum(game.supply) == 4
    act(game, "feed yellow")
    # seat 1's card was carried out by itself (grey ate the rest and moved); seat 2 now acts
    assert game.supply == [0] * 5
    assert game.bellies[1] == colours(green=1, yellow=2)
    assert game.positions == [1, 7, 8]
    assert game.active == 2 and game.view(2).card == "drop B" and game.phase == 2


# --- P-12 droppings ------------------------------------------------------------------------
def test_P12_everyone_chooses_from_the_active_player_clockwise_even_for_an_empty_belly():
    game = game_from(state(4, phase="wheel", card="drop W", feed_left=0, active=2,
                           pile=only_pile(C=["feed G1"], H=["end"])))
    asked = []
    for colour in ["red", "red", "blue", "green"]:
        asked.append(game.current_seat)
        act(game, f"wheel {colour}")
    assert asked == [2, 3, 0, 1]
    assert game.last_share.out == (0,) * 5 and game.last_share.gains == (0,) * 4
    assert game.active == 3  # next player's turn


def test_P12_the_donkey_is_emptied_and_each_colour_shared_among_its_choosers():
    # out: orange 3 (2 choosers: 1 each, 1 back), red 4 (1 chooser: all 4),
    #      blue 2 (nobody: back), green 0 (1 chooser: nothing)
    belly = colours(orange=3, red=4, blue=2)
    game = game_from(state(4, phase="wheel", card="drop B", donkey="brown", feed_left=0,
                           bellies=[[0] * 5, [0] * 5, belly],
                           pile=only_pile(C=["feed G1"], H=["end"])))
    act(game, "wheel orange", "wheel orange", "wheel red", "wheel green")
    assert game.collected == [colours(orange=1), colours(orange=1), colours(red=4), [0] * 5]
    assert game.bellies[2] == colours(orange=1, blue=2)
    share = game.last_share
    assert share.out == tuple(belly) and share.gains == (1, 1, 4, 0)
    assert share.back == tuple(colours(orange=1, blue=2))


@pytest.mark.parametrize(
    ("out", "wheels", "gains", "back"),
    [
        ([5, 0, 0, 0, 0], [1, 2], [0, 0], [5, 0, 0, 0, 0]),  # p = 0: all back
        ([0, 0, 0, 0, 0], [0, 0], [0, 0], [0, 0, 0, 0, 0]),  # n = 0: nothing
        ([7, 0, 0, 0, 0], [0, 0, 0], [2, 2, 2], [1, 0, 0, 0, 0]),  # n >= p: floor, rest back
        ([3, 0, 0, 0, 0], [0, 0, 0], [1, 1, 1], [0, 0, 0, 0, 0]),  # exact
        ([2, 0, 0, 0, 0], [0, 0, 0], [0, 0, 0], [2, 0, 0, 0, 0]),  # 0 < n < p: nobody
        ([0, 4, 0, 1, 0], [1, 3, 1, 3], [2, 0, 2, 0], [0, 0, 0, 1, 0]),
    ],
)
def test_P12_share_out_cases(out, wheels, gains, back):
    assert share_out(out, wheels) == (gains, back)


def test_P12_seed_example_2_share_out():
    # Carine, Raphael, Pablo, Pedro, Marie (seats 0..4). Out of the donkey: 2 green, 3 yellow,
    # 1 orange, 1 red, 2 blue.
    carine, raphael, pablo, pedro, marie = range(5)
    out = colours(green=2, yellow=3, orange=1, red=1, blue=2)
    game = game_from(state(5, phase="wheel", card="drop G", donkey="grey", feed_left=0,
                           bellies=[[0] * 5, out, [0] * 5],
                           pile=only_pile(C=["feed G1"], H=["end"])))
    choice = {carine: "green", raphael: "yellow", pablo: "yellow", pedro: "orange",
              marie: "orange"}
    for _ in range(5):
        act(game, f"wheel {choice[game.current_seat]}")
    got = [sum(row) for row in game.collected]
    assert got[carine] == 2 and game.collected[carine] == colours(green=2)
    assert got[raphael] == got[pablo] == 1 and game.collected[pablo] == colours(yellow=1)
    assert got[pedro] == got[marie] == 0  # one orange for two: nobody gets it
    # the third yellow, the orange, the red and the two blue go back into the donkey
    assert game.bellies[1] == colours(yellow=1, orange=1, red=1, blue=2)


def test_P12_a_star_droppings_card_lets_the_active_player_choose_the_donkey():
    bellies = [colours(red=1), colours(blue=2), [0] * 5]
    game = game_from(state(2, phase="donkey", card="drop *", donkey=None, feed_left=0,
                           active=1, bellies=bellies, pile=only_pile(C=["feed G1"], H=["end"])))
    assert game.current_seat == 1
    with pytest.raises(IllegalActionError, match="P-12"):
        act(game, "wheel red")
    act(game, "donkey grey")
    assert game.phase == 2 and game.current_seat == 1
    act(game, "wheel blue", "wheel red")
    assert game.collected == [[0] * 5, colours(blue=2)] and game.bellies[1] == [0] * 5


def test_P12_choices_are_revealed_only_together_after_the_share_out():
    game = game_from(state(3, phase="wheel", card="drop W", feed_left=0,
                           bellies=[colours(red=3), [0] * 5, [0] * 5],
                           pile=only_pile(C=["feed G1"], H=["end"])))
    act(game, "wheel red")
    assert game.view(1).own_wheel is None and game.view(0).own_wheel == 1
    assert game.view(1).wheels_set == (True, False, False)
    act(game, "wheel blue")
    assert game.view(2).own_wheel is None
    assert game.last_share is None
    act(game, "wheel red")
    assert all(game.view(s).last_share.wheels == (1, 2, 1) for s in range(3))


# --- P-13 the end card -----------------------------------------------------------------------
def test_P13_end_card_three_final_droppings_in_the_active_players_order():
    bellies = [colours(orange=2), colours(red=2), colours(blue=2)]
    game = game_from(state(3, active=1, card="feed W1", feed_left=1, bellies=bellies,
                           pile=only_pile(H=["end"])))
    act(game, "feed green")  # seat 2 turns over the end card: no decision needed for it
    assert game.active == 2 and game.view(0).card == "end"
    assert legal_names(game) == ["donkey white", "donkey grey", "donkey brown"]
    act(game, "donkey grey")
    act(game, "wheel red", "wheel red", "wheel orange")  # seats 2, 0, 1
    assert game.collected[2][1] == 1 and game.collected[0][1] == 1
    assert not game.terminal and game.current_seat == 2 and game.phase == 0
    assert legal_names(game) == ["donkey white", "donkey brown"]
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="P-13"):
        act(game, "donkey grey")
    assert game.state_dict() == before
    act(game, "donkey brown")
    act(game, "wheel blue", "wheel green", "wheel blue")
    # the last donkey (white) goes by itself: millwheels straight away
    assert game.phase == 2 and game.donkey == donkey("white") and game.current_seat == 2
    assert not game.terminal
    act(game, "wheel orange", "wheel orange", "wheel red")
    assert game.terminal and game.current_seat == -1 and not game.legal_mask().any()
    assert [sum(r) for r in game.collected] == [2, 1, 3]


# --- P-20 the end: most biscuits wins, ties share -------------------------------------------
def over_state(collected: list[list[int]]) -> dict:
    n = len(collected)
    return state(n, phase="over", card=None, donkey=None, feed_left=0, collected=collected,
                 pile=only_pile())


def test_P20_most_biscuits_wins_colours_do_not_matter_ties_share_the_win():
    game = game_from(over_state([colours(red=5), colours(red=9), colours(orange=3, blue=6),
                                 colours(green=1)]))
    assert game.terminal and game.final_scores() == [5.0, 9.0, 9.0, 1.0]
    assert game.final_ranks() == [2, 0, 0, 3]
    with pytest.raises(IllegalActionError, match="P-20"):
        game.apply(wheel_action(0))


def test_P20_a_shared_win_gets_the_same_reward():
    import loco_envs

    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3)
    env.reset(seed=0, options={"state": over_state([colours(red=4), colours(blue=4),
                                                    colours(green=1)])})
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}


# --- P-30 / P-31 memory modes ------------------------------------------------------------
BELLIES_A = [colours(red=2, blue=1), colours(orange=1), [0] * 5]
BELLIES_B = [colours(orange=1, red=1), colours(blue=1, red=1), [0] * 5]  # same totals per colour


def test_P30_perfect_memory_observes_each_belly_by_colour():
    game = game_from(state(3, bellies=BELLIES_A), memory="perfect")
    view = game.view(1)
    assert view.bellies == tuple(tuple(b) for b in BELLIES_A)
    vec = encode(view)
    assert len(vec) == observation_size(3, "perfect")
    assert vec[slices(3)["bellies"]].tolist() == [c for b in BELLIES_A for c in b]
    assert "r2" in game.render_text(1)


def test_P31_recall_shows_the_table_and_the_last_event_but_never_the_bellies():
    views = {}
    for name, bellies in [("a", BELLIES_A), ("b", BELLIES_B)]:
        recall = game_from(state(3, bellies=bellies), memory="recall")
        perfect = game_from(state(3, bellies=bellies), memory="perfect")
        views[name] = (recall.view(1), encode(recall.view(1)), recall.render_text(1),
                       encode(perfect.view(1)))
        assert recall.view(1).bellies is None
        assert "bellies" not in slices(3, "recall")
        assert len(views[name][1]) == observation_size(3, "perfect") - 15
    # bellies that differ only where nobody can see give the same recall view, vector, picture
    assert views["a"][0] == views["b"][0] and views["a"][2] == views["b"][2]
    assert np.array_equal(views["a"][1], views["b"][1])
    assert not np.array_equal(views["a"][3], views["b"][3])  # perfect memory tells them apart

    # what P-31 lists is there: supply, positions, collected, cards per letter, last event
    game = game_from(state(3, bellies=BELLIES_A, pile=only_pile(B=["drop W"], H=["end"])),
                     memory="recall")
    act(game, "feed yellow", "feed yellow", "feed red")  # white eats, moves to 3
    s = slices(3, "recall")
    vec = encode(game.view(1))  # seat 1 now acts on the droppings of white
    assert vec[s["supply"]].tolist() == game.supply
    assert vec[s["positions"]].reshape(3, 12).argmax(axis=1).tolist() == [3, 4, 8]
    assert vec[s["cards_left"]].tolist() == [0, 0, 0, 0, 0, 0, 0, 1]
    fed = vec[s["fed_since"]].reshape(3, 5)
    assert fed[0].tolist() == colours(red=1, yellow=2) and fed[1:].sum() == 0
    act(game, "wheel red", "wheel red", "wheel yellow")  # seats 1, 2, 0
    vec = encode(game.view(1))  # the share-out is the last event now
    assert vec[s["share_new"]].tolist() == [1]
    assert vec[s["share_out"]].tolist() == colours(red=3, blue=1, yellow=2)
    assert vec[s["share_back"]].tolist() == colours(red=1, blue=1)
    assert vec[s["share_gains"]].tolist() == [1, 1, 2]  # relative: seat 1, seat 2, seat 0
    assert vec[s["share_wheels"]].reshape(3, 5).argmax(axis=1).tolist() == [1, 1, 4]
    assert vec[s["collected"]].reshape(3, 5).sum(axis=1).tolist() == [1, 1, 2]
    assert "(remember!)" in game.render_text(1)
    assert "(remember!)" not in game.render_text(1, reveal_all=True)


def test_P31_announcements_since_a_seats_last_decision_are_kept_until_it_decides():
    # seat 0 feeds white 3 then seat 1 feeds grey 2; seat 2, who has not decided since, sees
    # both feedings; seat 1 sees only its own.
    pile = only_pile(A=["feed G2"], B=["drop B"], H=["end"])
    game = game_from(state(3, pile=pile), memory="recall")
    act(game, "feed red", "feed red", "feed blue", "feed green", "feed green")
    assert game.active == 2 and game.view(2).card == "drop B"
    assert game.view(2).fed_since == ((0, 2, 1, 0, 0), (0, 0, 0, 2, 0), (0,) * 5)
    assert game.view(1).fed_since == ((0,) * 5, (0, 0, 0, 1, 0), (0,) * 5)
    act(game, "wheel red")
    assert game.view(2).fed_since == ((0,) * 5,) * 3
