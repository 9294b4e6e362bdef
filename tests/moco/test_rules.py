"""One test per rule of ``docs/rules/moco.md`` (M-01 … M-30), mostly from state dicts."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.core import IllegalActionError
from loco_envs.moco.cards import CODES
from loco_envs.moco.rules import MocoGame
from tests.moco.helpers import (
    SUITS,
    chip_value_of_code,
    do,
    legal_names,
    load,
    position,
    scores_from_state,
)

LETTER_SUIT = dict(zip("mswlyk", SUITS, strict=True))
PAWN, CROWN, EXCUSE_VALUE, ACE_ONLY = 1, 10, 0, 1  # M-21, as the rules page states them


def new_game(n: int, seed: int = 0, **options) -> MocoGame:
    return MocoGame(np.random.default_rng(seed), num_players=n, **options)


def suits_of(code: str) -> list[str]:
    """The suits a card code names (the Excuse: every suit)."""
    return list(SUITS) if code == "X" else [LETTER_SUIT[c] for c in code[1:]]


# --- setup -------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_M01_two_to_five_players_and_six_ace_piles(n):
    game = new_game(n)
    view = game.view(0)
    assert view.num_players == n and len(view.hand_sizes) == n
    assert view.piles == ((),) * 6
    assert [game.state_dict()["piles"][k] for k in range(6)] == [[]] * 6
    assert view.tops == (0, 1, 2, 3, 4, 5)  # the six Aces: card ids 0-5, one per suit
    assert view.pile_values == (ACE_ONLY,) * 6


@pytest.mark.parametrize("n", [1, 6, 0])
def test_M01_other_player_counts_are_refused(n):
    with pytest.raises(ValueError, match="num_players"):
        loco_envs.make("moco_v0", num_players=n)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_M02_deck_is_numbered_crowns_pawns_and_the_excuse_with_five(n):
    for seed in range(5):
        state = new_game(n, seed).state_dict()
        cards = [c for h in state["hands"] for c in h] + state["removed"]
        assert len(cards) == len(set(cards)) == (35 if n == 5 else 34)
        heads = [c[0] for c in cards]
        assert sum(h.isdigit() for h in heads) == 24
        assert heads.count("C") == 6 and heads.count("P") == 4
        assert heads.count("X") == (1 if n == 5 else 0)
        assert "A" not in heads  # the Aces are the piles' bases


@pytest.mark.parametrize("n, removed, size", [(2, 2, 16), (3, 1, 11), (4, 2, 8), (5, 0, 7)])
def test_M03_random_unseen_removal_and_even_deal(n, removed, size):
    removed_sets = set()
    for seed in range(30):
        game = new_game(n, seed)
        state = game.state_dict()
        assert len(state["removed"]) == removed
        assert [len(h) for h in state["hands"]] == [size] * n
        removed_sets.add(tuple(sorted(state["removed"])))
        for seat in range(n):
            view = game.view(seat)
            assert view.num_removed == removed
            cards_in_view = {CODES[c] for c in view.hand + sum(view.piles, ())}
            assert cards_in_view == set(state["hands"][seat])  # no removed or others' cards
    assert len(removed_sets) > (1 if removed else 0)  # random, not fixed cards


def test_M04_thirty_chips_five_per_suit_in_the_supply():
    for n in (2, 3, 4, 5):
        state = new_game(n, seed=n).state_dict()
        assert state["supply"] == [5] * 6
        assert state["chips"] == [[0] * 6] * n


@pytest.mark.parametrize("n", [2, 3, 5])
def test_M05_seat_after_a_random_dealer_starts_and_play_goes_clockwise(n):
    dealers = set()
    for seed in range(60):
        game = new_game(n, seed)
        assert game.current_seat == (game.dealer + 1) % n
        dealers.add(game.dealer)
    assert dealers == set(range(n))
    game = new_game(n, seed=1)
    for _ in range(2 * n):
        seat = game.current_seat
        game.apply(game.legal_actions()[0])
        assert game.current_seat == seat  # the chip is the same seat's second decision
        game.apply(game.legal_actions()[0])
        assert game.current_seat == (seat + 1) % n


# --- a turn ------------------------------------------------------------------------------------
def test_M10_a_card_goes_on_a_pile_of_one_of_its_suits():
    game = load(position(["5ml Pmyk Cw 9wy", "2mk 3mw", "4ms"]))
    expected = {f"play {code} on {suit}" for code in "5ml Pmyk Cw 9wy".split()
                for suit in suits_of(code)}
    assert legal_names(game) == expected
    do(game, "play 5ml on leaves")
    state = game.state_dict()
    assert state["piles"][SUITS.index("leaves")] == ["5ml"]
    assert "5ml" not in state["hands"][0]
    assert game.view(1).pile_values[SUITS.index("leaves")] == 5  # still the leaves pile
    assert game.view(1).pile_values[SUITS.index("moons")] == ACE_ONLY


def test_M10_the_excuse_goes_on_any_pile_and_the_pile_keeps_its_suit():
    game = load(position(["X 2mk", "3mw", "4yk", "5ml", "6mw"], piles={"suns": "4ms Cs"}))
    assert {f"play X on {s}" for s in SUITS} <= legal_names(game)
    do(game, "play X on suns", "chip suns")
    assert game.state_dict()["piles"][1] == ["4ms", "Cs", "X"]
    assert game.view(0).pile_values[1] == EXCUSE_VALUE
    assert game.state_dict()["chips"][0][1] == 1  # a suns chip, valued by the suns pile


def test_M10_cards_not_in_hand_or_wrong_phase_are_refused_unchanged():
    game = load(position(["5ml", "2mk", "4ms"]))
    before = game.state_dict()
    for name in ("play 2mk on moons", "chip moons", "no chip"):
        with pytest.raises(IllegalActionError, match="M-10"):
            do(game, name)
        assert game.state_dict() == before


def test_M11_after_playing_the_same_seat_takes_one_chip_of_any_suit():
    game = load(position(["5ml 7ml", "2mk 3mw", "4ms 9ms"], chips=[[0] * 6, [1] * 6, [0] * 6]))
    do(game, "play 5ml on moons")
    assert game.current_seat == 0 and game.view(0).phase == "chip"
    assert legal_names(game) == {f"chip {s}" for s in SUITS}
    with pytest.raises(IllegalActionError, match="M-11"):
        do(game, "play 7ml on leaves")
    do(game, "chip waves")
    state = game.state_dict()
    assert state["chips"][0] == [0, 0, 1, 0, 0, 0]
    assert state["supply"] == [4, 4, 3, 4, 4, 4]
    assert game.current_seat == 1 and game.view(0).phase == "play"


def test_M12_two_players_may_not_take_the_suit_just_played_on():
    two = load(position(["5ml 7ml", "2mk 3mw"]))
    do(two, "play 5ml on leaves")
    assert legal_names(two) == {f"chip {s}" for s in SUITS if s != "leaves"}
    before = two.state_dict()
    with pytest.raises(IllegalActionError, match="M-12"):
        do(two, "chip leaves")
    assert two.state_dict() == before
    three = load(position(["5ml 7ml", "2mk 3mw", "4ms"]))
    do(three, "play 5ml on leaves")
    assert "chip leaves" in legal_names(three)


def test_M13_exhausted_suits_cannot_be_taken_and_no_chip_only_when_nothing_is_left():
    chips = [[0, 0, 3, 0, 0, 0], [0, 0, 2, 0, 0, 0], [0] * 6]
    game = load(position(["5ml 7ml", "2mk", "4ms"], chips=chips))
    do(game, "play 5ml on moons")
    assert "chip waves" not in legal_names(game) and "no chip" not in legal_names(game)
    before = game.state_dict()
    for name in ("chip waves", "no chip"):
        with pytest.raises(IllegalActionError, match="M-13"):
            do(game, name)
        assert game.state_dict() == before
    # Two players, only leaves chips left, and the card went on the leaves pile: no chip.
    only_leaves = [[5, 3, 2, 0, 4, 1], [0, 2, 3, 3, 1, 4]]
    game = load(position(["5ml 7ml", "2mk 3mw"], chips=only_leaves))
    do(game, "play 5ml on leaves")
    assert legal_names(game) == {"no chip"}
    do(game, "no chip")
    assert game.state_dict()["chips"] == only_leaves and game.current_seat == 1


# --- end and scoring ---------------------------------------------------------------------------
KNOTS_FIVE = "2mk 3sk 4yk 5yk 6lk"


def test_M20_sixth_card_on_a_pile_ends_the_game_at_once_without_a_chip():
    state = position(["7sk 9ms", "8yk", "Pswk"], piles={"knots": KNOTS_FIVE},
                     chips=[[1, 0, 0, 0, 0, 2], [0] * 6, [0, 3, 0, 0, 0, 0]])
    game = load(state)
    do(game, "play 7sk on suns")  # five on a pile does not end anything
    assert not game.terminal and game.view(0).phase == "chip"
    game = load(state)
    do(game, "play 7sk on knots")
    assert game.terminal and game.current_seat == -1
    assert game.legal_mask().sum() == 0
    assert game.state_dict()["chips"] == state["chips"]
    with pytest.raises(IllegalActionError, match="M-20"):
        do(game, "chip moons")


def test_M20_the_last_card_played_ends_the_game():
    game = load(position(["5ml 2mk", "7ml"]))
    do(game, "play 5ml on moons", "chip suns", "play 7ml on moons")
    assert not game.terminal  # seat 0 still holds a card
    do(game, "chip suns", "play 2mk on knots")
    assert game.terminal and max(game.view(0).heights) < 6


def test_M20_a_seat_with_an_empty_hand_is_passed_over():
    game = load(position(["2mk 3mw", "", "4ms"]))
    do(game, "play 2mk on moons", "chip suns")
    assert game.current_seat == 2
    do(game, "play 4ms on suns", "chip moons")
    assert game.current_seat == 0


def test_M21_chips_are_worth_the_top_of_their_suits_pile():
    piles = {"moons": "2mk 7ml", "suns": "Pmsl", "waves": "Cw", "leaves": "X",
             "knots": "3sk 4yk 5yk 6lk 8yk"}  # wyrms: only its Ace
    chips = [[1, 0, 2, 1, 0, 1], [0, 2, 0, 0, 1, 0], [2, 0, 0, 0, 0, 3], [0, 0, 1, 0, 2, 0],
             [0, 1, 0, 3, 0, 0]]
    game = load(position(["9lk Cm", "Cs", "Cy", "Cl", "Pwly"], piles, chips))
    do(game, "play 9lk on knots")  # the sixth card: the game ends on a 9
    assert game.terminal
    moons, suns, waves, leaves, wyrms, knots = 7, PAWN, CROWN, EXCUSE_VALUE, ACE_ONLY, 9
    assert game.view(0).pile_values == (moons, suns, waves, leaves, wyrms, knots)
    expected = [moons + 2 * waves + leaves + knots, 2 * suns + wyrms, 2 * moons + 3 * knots,
                waves + 2 * wyrms, suns + 3 * leaves]
    assert game.final_scores() == [float(s) for s in expected]
    assert game.final_scores() == [float(s) for s in scores_from_state(game.state_dict())]


def test_M22_highest_score_wins_and_ties_are_shared():
    top = "7sk"
    state = position(["9ms", "Cm", "2sy"], piles={"knots": f"{KNOTS_FIVE} {top}"},
                     chips=[[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2], [1, 0, 0, 0, 0, 1]],
                     phase="over", current_seat=-1, dealer=0)
    game = load(state)
    knots = chip_value_of_code(top)
    assert game.final_scores() == [2.0 * knots, 2.0 * knots, ACE_ONLY + knots]
    assert game.final_ranks() == [0, 0, 2]
    env = loco_envs.make("moco_v0", num_players=3, wrapped=False)
    env.reset(seed=0, options={"state": state})
    assert env.rewards == {"player_0": 0.5, "player_1": 0.5, "player_2": -1.0}


# --- match -------------------------------------------------------------------------------------
def _play_action_effect(state: dict, name: str) -> dict:
    """``state`` with the card of play action ``name`` moved onto its pile (nothing else)."""
    _, code, _, suit = name.split()
    after = {**state, "piles": [list(p) for p in state["piles"]]}
    after["piles"][SUITS.index(suit)].append(code)
    return after


@pytest.mark.parametrize("n", [2, 3, 5])
def test_M30_a_match_is_one_game_per_player_with_the_dealer_moving_on(n):
    game = new_game(n, seed=11 * n, match=True)
    rng = np.random.default_rng(n)
    first_dealer = game.dealer
    game_totals = [0] * n
    games_seen = 0
    while not game.terminal:
        before = game.state_dict()
        action = int(rng.choice(game.legal_actions()))
        game.apply(action)
        if game.terminal or game.game != before["game"]:
            ended = _play_action_effect(before, MocoGame.action_to_str(action))
            assert max(len(p) for p in ended["piles"]) == 6 or not any(ended["hands"])
            for seat, score in enumerate(scores_from_state(ended)):
                game_totals[seat] += score
            games_seen += 1
            if not game.terminal:
                state = game.state_dict()
                assert state["game"] == games_seen
                assert state["dealer"] == (first_dealer + games_seen) % n
                assert state["current_seat"] == (state["dealer"] + 1) % n
                assert state["piles"] == [[]] * 6 and state["supply"] == [5] * 6
                assert state["match_scores"] == game_totals
    assert games_seen == n
    assert game.final_scores() == [float(t) for t in game_totals]
    assert game.final_ranks() == [sum(o > t for o in game_totals) for t in game_totals]


def test_M30_without_the_option_one_game_is_played():
    game = new_game(3, seed=4)
    rng = np.random.default_rng(0)
    plays = 0
    while not game.terminal:
        if game.view(0).phase == "play":
            plays += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert game.game == 0 and game.num_games == 1 and plays <= 31
    assert game.final_scores() == [float(s) for s in scores_from_state(game.state_dict())]
