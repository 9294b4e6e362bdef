"""One test (at least) per rule of ``docs/rules/momo.md``, named after its id.

Positions are built from state dicts (``tests/momo/helpers.py``). Areas are drawn as
``A B / D C`` (K-02); boards row 1 (top) to row 5.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from loco_envs.core import IllegalActionError
from loco_envs.momo.actions import TOKEN_CODES, place_action, str_to_action
from loco_envs.momo.rules import (
    HEXAGONS,
    MomoGame,
    board_points,
    photographer_level,
    score_breakdown,
)
from tests.momo.helpers import board, cells, final_game, game_from, make_state

# The rulebook's scoring example (K-26), one possible board: columns 1 (blue) and 2 (green) are
# one colour; rows 2-3 stack leopards, bears and eagles in columns 1-3; row 1 puts a leopard and
# a bear on the first two pairs; row 4 has 3 rabbits + 2 leopards; row 5 four species.
EXAMPLE_BOARD = board(
    "Lb Bg Rn Dg Dn",
    "Lb Bg Eb Rn Dg",
    "Lb Bg Eg Lb Rb",
    "Rb Rg Rn Ln Lg",
    "Rb Lg Eb Bg Rn",
)


def act(game: MomoGame, text: str) -> None:
    game.apply(str_to_action(text))


def counts(codes: list[str]) -> Counter:
    return Counter(codes)


# --- components ------------------------------------------------------------------------------
def test_K01_105_tokens_seven_of_each_species_colour_pair():
    game = MomoGame(rng=np.random.default_rng(3), num_players=3)
    state = game.state_dict()
    everywhere = state["bag"] + [c for area in state["forest"] for c in area]
    assert len(everywhere) == 105
    assert counts(everywhere) == Counter({code: 7 for code in TOKEN_CODES})
    assert len({code[0] for code in TOKEN_CODES}) == 5 and len({c[1] for c in TOKEN_CODES}) == 3
    # the bag's contents are public by elimination, its order is not
    view = game.view(0)
    assert view.bag == tuple(state["bag"].count(code) for code in TOKEN_CODES)
    reordered = dict(state, bag=state["bag"][::-1])
    assert game_from(reordered, seed=3).view(0) == view
    bad = make_state(bag_front=["Rb"])
    bad["bag"].append("Rb")  # an eighth blue rabbit
    with pytest.raises(ValueError, match="K-01"):
        game_from(bad)


def test_K02_areas_clockwise_A_B_C_D_with_diagonals_A_C_and_B_D():
    game = game_from(make_state())
    rabbit, leopard, eagle = (TOKEN_CODES.index(c) for c in ("Rb", "Lb", "Eb"))
    assert [game.destination(a, rabbit) for a in range(4)] == [1, 2, 3, 0]  # A>B>C>D>A
    assert [game.destination(a, leopard) for a in range(4)] == [3, 0, 1, 2]
    assert [game.destination(a, eagle) for a in range(4)] == [2, 3, 0, 1]  # A-C, B-D
    text = game.render_text(None)
    assert text.index("A:") < text.index("B:") < text.index("D:") < text.index("C:")


def test_K03_picture_is_5_by_5_and_empty_at_start():
    game = MomoGame(rng=np.random.default_rng(0), num_players=4)
    assert all(b == [-1] * 25 for b in game.boards)
    assert game.state_dict()["boards"] == [[[]] * 5] * 4
    too_long = make_state(boards=[board("Rn Rn Rn Rn Rn Rn"), board()])
    with pytest.raises(ValueError, match=r"boards\[0\]\[0\]"):
        game_from(too_long)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_K04_six_rounds_one_turn_each_clockwise_from_the_first_player(n):
    game = MomoGame(rng=np.random.default_rng(11), num_players=n)
    rng = np.random.default_rng(0)
    turn_seats, rounds = [], []
    while not game.terminal:
        if game.phase == "pick":
            turn_seats.append(game.current_seat)
            rounds.append(game.round)
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    first = game.first_player
    assert turn_seats == [(first + k) % n for k in range(6 * n)]
    assert rounds == [r for r in range(1, 7) for _ in range(n)]
    assert game.current_seat == -1 and game.legal_actions() == []
    with pytest.raises(IllegalActionError, match="K-04"):
        game.apply(0)


def test_K04_first_player_is_drawn_at_random_and_1_to_4_players():
    firsts = {MomoGame(rng=np.random.default_rng(s), num_players=4).first_player for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    for n in (0, 5):
        with pytest.raises(ValueError, match="num_players"):
            MomoGame(rng=np.random.default_rng(0), num_players=n)


def test_K05_setup_fills_each_area_with_4_tokens_from_the_bag():
    for seed in range(5):
        game = MomoGame(rng=np.random.default_rng(seed), num_players=2)
        assert game.area_size == [4, 4, 4, 4]
        assert [sum(area) for area in game.forest] == [4, 4, 4, 4]
        assert len(game.bag) == 89 and sum(game.bag_counts) == 89
    a = MomoGame(rng=np.random.default_rng(1), num_players=2).state_dict()
    b = MomoGame(rng=np.random.default_rng(2), num_players=2).state_dict()
    assert a["bag"] != b["bag"]  # shuffled


# --- a turn ----------------------------------------------------------------------------------
FILLERS = ["Bg", "Ln", "Lg", "Bn"]


def marked_forest(source: int, moved: str, ducks: tuple[int, ...] = ()) -> list[list[str]]:
    """Area k holds k blue eagles (markers), a green duck if k in ``ducks``, then fillers that
    are neither blue nor ducks; ``moved`` is added to the source area."""
    forest = []
    for k in range(4):
        area = ([moved] if k == source else []) + ["Eb"] * k + (["Dg"] if k in ducks else [])
        area += FILLERS[: 4 - len(area)]
        assert len(area) == 4
        forest.append(area)
    return forest


@pytest.mark.parametrize("source", range(4))
@pytest.mark.parametrize(
    "moved, step",
    [("Rb", 1), ("Lb", 3), ("Eb", 2), ("Bb", 0)],
    ids=["rabbit-clockwise", "leopard-anticlockwise", "eagle-diagonal", "bear-stays"],
)
def test_K10_each_animal_moves_its_own_way(source, moved, step):
    game = game_from(make_state(forest=marked_forest(source, moved)))
    dest = (source + step) % 4
    act(game, f"pick {moved} in {'ABCD'[source]}")
    # the moved token and the destination's blue markers (dest of them) are taken (K-11)
    assert game.pending_total == 1 + dest
    assert game.destination(source, TOKEN_CODES.index(moved)) == dest


@pytest.mark.parametrize(
    "source, ducks, dest",
    [
        (0, (2,), 2),  # skips B, which has no duck
        (0, (1, 2), 1),  # the first duck clockwise wins
        (0, (), 0),  # no other duck: stays
        (0, (0,), 0),  # the only other duck shares its area: none of the 3 others has one
        (3, (0,), 0),  # D -> A wraps around
        (1, (0,), 0),  # B: C and D have none, A has one
        (2, (3, 1), 3),
    ],
)
def test_K10_duck_searches_clockwise_for_an_area_with_a_duck(source, ducks, dest):
    game = game_from(make_state(forest=marked_forest(source, "Db", ducks)))
    act(game, f"pick Db in {'ABCD'[source]}")
    assert game.pending_total == 1 + dest


def test_K10_only_a_token_on_the_forest_can_be_picked():
    game = game_from(make_state(forest=marked_forest(0, "Rb")))
    before = game.state_dict()
    legal = {game.action_to_str(a) for a in game.legal_actions()}
    assert legal == {
        "pick Rb in A",
        "pick Bg in A",
        "pick Ln in A",
        "pick Lg in A",
        "pick Eb in B",
        "pick Bg in B",
        "pick Ln in B",
        "pick Lg in B",
        "pick Eb in C",
        "pick Bg in C",
        "pick Ln in C",
        "pick Eb in D",
        "pick Bg in D",
    }
    for bad in ("pick Rb in B", "pick Dg in C", "place Rb on row 1"):
        with pytest.raises(IllegalActionError, match="K-10"):
            act(game, bad)
    assert game.state_dict() == before


def test_K11_take_every_token_of_the_moved_colour_in_the_destination():
    forest = [["Rb", "Lg", "Lg", "Bn"], ["Eb", "Db", "Lg", "Bn"], ["Rg"] * 4, ["Rn"] * 4]
    game = game_from(make_state(forest=forest))
    act(game, "pick Rb in A")  # rabbit: A -> B, takes the blue tokens there, itself included
    state = game.state_dict()
    assert counts(state["pending"]) == counts(["Rb", "Eb", "Db"])
    assert counts(state["forest"][0]) == counts(["Lg", "Lg", "Bn"])
    assert counts(state["forest"][1]) == counts(["Lg", "Bn"])
    assert state["phase"] == "place" and state["current_seat"] == 0
    # a bear stays and takes its own colour in its own area
    game = game_from(
        make_state(forest=[["Bg", "Lg", "Eg", "Rb"], ["Rn"] * 4, ["Ln"] * 4, ["En"] * 4])
    )
    act(game, "pick Bg in A")
    assert counts(game.state_dict()["pending"]) == counts(["Bg", "Lg", "Eg"])


def test_K12_place_in_the_leftmost_free_cell_of_a_chosen_row_in_any_order():
    state = make_state(
        pending=["Rb", "Rb", "Lg"],
        boards=[board("", "Dn Dn"), board()],
        forest=[["Bb"] * 3, ["Bn"] * 4, ["Bg"] * 4, ["Eb"] * 3],
    )
    game = game_from(state)
    legal = {game.action_to_str(a) for a in game.legal_actions()}
    assert legal == {f"place {t} on row {r}" for t in ("Rb", "Lg") for r in range(1, 6)}
    act(game, "place Lg on row 2")
    act(game, "place Rb on row 2")
    act(game, "place Rb on row 1")
    assert game.state_dict()["boards"][0] == [["Rb"], ["Dn", "Dn", "Lg", "Rb"], [], [], []]
    assert game.current_seat == 1 and game.phase == "pick"  # all placed: next turn


def test_K12_full_rows_and_untaken_tokens_are_refused():
    state = make_state(
        pending=["Rb"],
        boards=[board("Dn Dn Dn Dn Dn"), board()],
        forest=[["Bb"] * 3, ["Bn"] * 4, ["Bg"] * 4, ["Eb"] * 4],
    )
    game = game_from(state)
    before = game.state_dict()
    assert game.legal_mask()[place_action(TOKEN_CODES.index("Rb"), 0)] == 0
    for bad in ("place Rb on row 1", "place Lg on row 2", "pick Bb in A"):
        with pytest.raises(IllegalActionError, match="K-12"):
            act(game, bad)
    assert game.state_dict() == before


def test_K13_tokens_that_fit_nowhere_are_discarded_without_a_decision():
    nearly_full = board(
        "Dn Dn Dn Dn Dn", "Dg Dg Dg Dg Dg", "Db Db Db Db Db", "Bn Bn Bn Bn Bn", "Bg Bg Bg Bg"
    )
    forest = [["Bb", "Rb", "Lb", "Lg"], ["En"] * 4, ["Eg"] * 4, ["Rn"] * 4]
    game = game_from(make_state(forest=forest, boards=[nearly_full, board()]))
    act(game, "pick Bb in A")  # the bear stays and takes Bb, Rb, Lb; only one cell is free
    assert game.pending_total == 3 and game.current_seat == 0
    assert {game.action_to_str(a) for a in game.legal_actions()} == {
        "place Bb on row 5",
        "place Rb on row 5",
        "place Lb on row 5",
    }
    act(game, "place Lb on row 5")
    state = game.state_dict()
    assert state["pending"] == [] and state["current_seat"] == 1
    assert counts(state["discarded"]) == counts(["Bb", "Rb"])
    assert state["boards"][0][4] == ["Bg", "Bg", "Bg", "Bg", "Lb"]
    # with a full board, everything taken is discarded at once: no place decision at all
    full = nearly_full[:4] + [["Bg"] * 5]
    game = game_from(make_state(forest=forest, boards=[full, board()]))
    act(game, "pick Bb in A")
    assert game.current_seat == 1 and game.phase == "pick"
    assert counts(game.state_dict()["discarded"]) == counts(["Bb", "Rb", "Lb"])


def test_K14_refill_each_area_to_4_in_order_A_B_C_D():
    forest = [["Rb", "Rg", "Rg", "Rg"], ["Lb", "Lg", "Lg", "Lg"], ["Eg"] * 4, ["En"] * 4]
    game = game_from(make_state(forest=forest, bag_front=["Dn", "Db", "Bn"]))
    act(game, "pick Rb in A")  # A -> B, takes Rb and Lb: A and B are one short each
    act(game, "place Rb on row 1")
    act(game, "place Lb on row 1")
    state = game.state_dict()
    assert counts(state["forest"][0]) == counts(["Rg", "Rg", "Rg", "Dn"])
    assert counts(state["forest"][1]) == counts(["Lg", "Lg", "Lg", "Db"])
    assert state["bag"][0] == "Bn"


def test_K14_an_empty_bag_leaves_areas_short():
    forest = [["Rb", "Rg", "Rg", "Rg"], ["Lb", "Lg", "Lg", "Lg"], ["Eg"] * 4, ["En"] * 4]
    state = make_state(forest=forest, bag_front=["Dn"], rest="discarded")
    game = game_from(state)
    act(game, "pick Rb in A")
    act(game, "place Rb on row 1")
    act(game, "place Lb on row 1")
    state = game.state_dict()
    assert [len(area) for area in state["forest"]] == [4, 3, 4, 4] and state["bag"] == []
    assert state["phase"] == "pick" and state["current_seat"] == 1


def test_K14_turns_with_an_empty_forest_are_skipped():
    state = make_state(3, forest=[["Rb"], [], [], []], rest="discarded", turn=4, first_player=2)
    game = game_from(state)
    assert game.current_seat == 0 and game.round == 2
    act(game, "pick Rb in A")
    act(game, "place Rb on row 3")
    # nothing left anywhere: the remaining turns of rounds 2-6 are skipped, the game ends
    assert game.terminal and game.turn == 18 and game.current_seat == -1
    assert game.state_dict()["boards"][0][2] == ["Rb"]


# --- scoring ---------------------------------------------------------------------------------
def test_K20_row_1_pair_match_scores_4_per_token_over_a_same_species_pair():
    # column 1: L over an L pair (+4); column 2: B over a B pair of other colours (+4);
    # column 3: R over an E pair (no); column 4: E over E and R (no pair: no)
    c = cells("Ln Bn Rb Eb", "Lb Bg Eb Eg", "Lg Bb Eb Rg")
    assert score_breakdown(c)[0] == 8
    assert score_breakdown(cells("Ln", "Lb"))[0] == 0  # row 3 missing
    assert score_breakdown(cells("", "Lb", "Lg"))[0] == 0  # row 1 empty
    assert score_breakdown(cells("Db Db Db Db Db", "Dn Dn Dn Dn Dn", "Dg Dg Dg Dg Dg"))[0] == 20


def test_K21_stacked_pairs_score_3_per_same_species_column_in_rows_2_and_3():
    c = cells("", "Lb Bg Eb Rn Dn", "Lg Bb Eb Rn Rb")
    assert score_breakdown(c)[1] == 12
    assert score_breakdown(cells("", "Lb Lb", "Eb"))[1] == 0  # a lone token is no pair
    assert score_breakdown(cells("Lb", "Lb", "", "Lb"))[1] == 0  # rows 1 and 4 do not count


def test_K22_row_4_groups_score_f_of_each_species_count():
    assert [
        score_breakdown(cells("", "", "", row))[2]
        for row in (
            "",
            "Rb",
            "Rb Rn",
            "Rb Rn Rg",
            "Rb Rn Rg Rb",
            "Rb Rn Rg Rb Rb",
        )
    ] == [0, 1, 2, 5, 9, 14]
    assert score_breakdown(cells("", "", "", "Rb Rn Rg Lg Lb"))[2] == 7  # 5 + 2
    assert score_breakdown(cells("", "", "", "Rb Ln Eg Bg Db"))[2] == 5  # 5 x f(1)
    assert score_breakdown(cells("Rb Rb Rb", "", "", "", "Rb Rb"))[2] == 0  # other rows


def test_K23_row_5_scores_f_of_the_number_of_species():
    assert [
        score_breakdown(cells("", "", "", "", row))[3]
        for row in (
            "",
            "Rb",
            "Rb Rn Rg",
            "Rb Ln",
            "Rb Ln Eg Eb Eb",
            "Rb Ln Eg Bg",
            "Rb Ln Eg Bg Db",
        )
    ] == [0, 1, 1, 2, 5, 9, 14]
    assert score_breakdown(cells("Rb Ln Eg Bg Db"))[3] == 0


def test_K24_full_one_colour_rows_and_columns_score_5_each():
    one_row = cells("Rb Lb Eb Bb Db")
    assert score_breakdown(one_row)[4] == 5
    assert score_breakdown(cells("Rb Lb Eb Bb"))[4] == 0  # not full
    assert score_breakdown(cells("Rb Lb Eb Bb Dn"))[4] == 0  # two colours
    column = cells("Rg", "Lg", "Eg", "Bg", "Dg")
    assert score_breakdown(column)[4] == 5
    all_green = cells(*["Rg Lg Eg Bg Dg"] * 5)
    assert score_breakdown(all_green)[4] == 50  # 5 rows + 5 columns


def test_K25_highest_total_wins_and_ties_share():
    three_species = board("", "", "", "", "Rb Ln Eg")  # K-23: 5
    three_ducks = board("", "", "", "Dn Dn Dn")  # K-22: 5
    two = board("Rb", "", "", "Rn Rg")  # K-22: 2
    game = final_game(three_species, EXAMPLE_BOARD, three_ducks)
    assert game.final_scores() == [5.0, 43.0, 5.0]
    assert game.final_ranks() == [1, 0, 1]
    game = final_game(two, three_species, three_ducks)
    assert game.final_ranks() == [2, 0, 0]


def test_K26_rulebook_example_board_scores_43():
    c = cells(*[" ".join(row) for row in EXAMPLE_BOARD])
    assert score_breakdown(c) == (8, 9, 7, 9, 10)  # pair match, stacked, groups, species, colour
    assert board_points(c) == 43
    assert final_game(EXAMPLE_BOARD).final_scores() == [43.0]


# --- expansions ------------------------------------------------------------------------------
def test_K30_expansion_a_fewest_tokens_of_the_hexagon_score_7():
    b0 = board("Rb Rb Lg")  # 2 rabbits, 1 green
    b1 = board("Rn Eg Eg Bg")  # 1 rabbit, 3 green
    b2 = board("Ln Ln")  # 0 rabbits, 0 green
    game = final_game(b0, b1, b2, expansion_a="rabbit")
    assert game.expansion_points() == [0, 0, 7]
    game = final_game(b0, b1, expansion_a="green")
    assert game.expansion_points() == [7, 0]
    game = final_game(b0, b0, expansion_a="duck")  # everyone ties at 0: everyone scores
    assert game.expansion_points() == [7, 7]
    assert game.final_scores() == [board_points(cells("Rb Rb Lg")) + 7.0] * 2
    # discarded tokens do not count: a position where seat 1 discarded many rabbits
    state = make_state(
        2,
        forest=[[], [], [], []],
        boards=[b0, board("Rg")],
        rest="discarded",
        turn=12,
        expansion_a="rabbit",
    )
    assert state["discarded"].count("Rb") > 0
    assert game_from(state).expansion_points() == [0, 7]
    drawn = {
        MomoGame(rng=np.random.default_rng(s), num_players=2, expansion_a=True).state_dict()[
            "expansion_a"
        ]
        for s in range(80)
    }
    assert drawn == set(HEXAGONS) and len(HEXAGONS) == 8
    assert MomoGame(rng=np.random.default_rng(0), num_players=2).expansion_a == -1


def test_K31_expansion_b_flower_species_in_row_1_fifth_cell_scores_5():
    hit = board("Rb Rb Rb Rb Eg")
    wrong_cell = board("Eg Eg Eg Eg")
    wrong_species = board("Rn Rn Rn Rn Ln")
    game = final_game(hit, wrong_cell, wrong_species, expansion_b="eagle")
    assert game.expansion_points() == [5, 0, 0]
    assert game.final_scores()[0] == board_points(cells("Rb Rb Rb Rb Eg")) + 5 == 5
    # both expansions add up: neither has a leopard (+7 each), only seat 0 has the flower
    game = final_game(hit, wrong_cell, expansion_a="leopard", expansion_b="eagle")
    assert game.expansion_points() == [12, 7]
    drawn = {
        MomoGame(rng=np.random.default_rng(s), num_players=3, expansion_b=True).state_dict()[
            "expansion_b"
        ]
        for s in range(60)
    }
    assert drawn == {"rabbit", "leopard", "eagle", "bear", "duck"}


# --- solo ------------------------------------------------------------------------------------
def test_K40_solo_levels_and_no_expansions():
    assert [photographer_level(s) for s in (0, 45, 46, 55, 56, 61, 62, 90)] == [
        "career change",
        "career change",
        "assistant photographer",
        "assistant photographer",
        "nearly there",
        "nearly there",
        "chief photographer",
        "chief photographer",
    ]
    for name in ("expansion_a", "expansion_b"):
        with pytest.raises(ValueError, match=f"{name}.*K-40"):
            MomoGame(rng=np.random.default_rng(0), num_players=1, **{name: True})
    game = MomoGame(rng=np.random.default_rng(4), num_players=1)
    rng = np.random.default_rng(4)
    turns = 0
    while not game.terminal:
        turns += game.phase == "pick"
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    assert turns == 6 and game.final_ranks() == [0]
    assert game.final_scores() == [float(board_points(game.boards[0]))]
    assert photographer_level(game.final_scores()[0]) in game.render_text(0)
