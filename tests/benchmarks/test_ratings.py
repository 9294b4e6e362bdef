"""Elo (Bradley–Terry by Hunter's MM), OpenSkill and the match-record format."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from loco_envs.benchmarks import ratings as R


def record(seats, ranks, game=0, seed=None, agents=None):
    return {
        "env": "moco_v0", "version": "0.1.0", "options": {}, "num_players": len(seats),
        "game": game, "seed": game if seed is None else seed,
        "agents": agents or list(dict.fromkeys(seats)), "seats": list(seats),
        "ranks": list(ranks), "scores": [0.0] * len(seats),
    }


def elo(wins, anchor=0, prior=0.0):
    return R.elo_from_strengths(R.bradley_terry(np.array(wins, float), prior), anchor)


# --- Bradley-Terry on cases with known answers --------------------------------------------
def test_equal_players_get_equal_ratings():
    np.testing.assert_allclose(elo([[0, 7], [7, 0]]), [1000, 1000], atol=1e-6)
    np.testing.assert_allclose(elo([[0, 3, 5], [3, 0, 4], [5, 4, 0]]), [1000] * 3, atol=1e-6)


def test_cyclic_wins_give_equal_ratings():
    # A beats B, B beats C, C beats A, each 2:1: no one is better.
    wins = [[0, 2, 1], [1, 0, 2], [2, 1, 0]]
    np.testing.assert_allclose(elo(wins), [1000] * 3, atol=1e-6)


def test_two_players_three_to_one_by_hand():
    # p_A / p_B = 3, so the gap is 400 log10 3 = 190.85 Elo.
    np.testing.assert_allclose(elo([[0, 3], [1, 0]], anchor=1), [1000 + 400 * math.log10(3), 1000])


def test_three_players_by_hand():
    # Strengths 4:2:1 reproduce the win counts exactly (A-B 2:1, B-C 2:1, A-C 4:1): every
    # player's expected wins equal its actual wins (A 6, B 3, C 2), so that is the MLE.
    wins = [[0, 2, 4], [1, 0, 2], [1, 1, 0]]
    strength = R.bradley_terry(np.array(wins, float))
    np.testing.assert_allclose(strength / strength[2], [4, 2, 1], rtol=1e-9)
    step = 400 * math.log10(2)
    np.testing.assert_allclose(elo(wins, anchor=2), [1000 + 2 * step, 1000 + step, 1000])


def test_ratings_predict_the_observed_share():
    gap = elo([[0, 9], [1, 0]], anchor=1)[0] - 1000
    assert 1 / (1 + 10 ** (-gap / 400)) == pytest.approx(0.9)


def test_unbeaten_agent_needs_a_prior():
    with pytest.raises(ValueError, match="prior"):
        R.bradley_terry(np.array([[0, 5], [0, 0]], float))
    ratings = elo([[0, 5], [0, 0]], anchor=1, prior=1.0)
    # One virtual drawn game: 5.5 wins to 0.5, a gap of 400 log10 11.
    np.testing.assert_allclose(ratings[0] - 1000, 400 * math.log10(11))


def test_bad_win_matrix_is_rejected():
    with pytest.raises(ValueError, match="square"):
        R.bradley_terry(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        R.bradley_terry(np.array([[0, -1], [1, 0]], float))


# --- pairwise outcomes from final orders ---------------------------------------------------
def test_pairwise_wins_from_a_four_player_order_with_a_tie():
    recs = [record(["a", "b", "c", "d"], [0, 1, 1, 3])]
    wins = R.pairwise_wins(recs, ["a", "b", "c", "d"])
    expected = np.array([[0, 1, 1, 1], [0, 0, 0.5, 1], [0, 0.5, 0, 1], [0, 0, 0, 0]])
    np.testing.assert_array_equal(wins, expected)


def test_pairs_of_seats_of_the_same_agent_are_skipped():
    recs = [record(["h", "r", "r", "r"], [2, 0, 1, 3])]
    wins = R.pairwise_wins(recs, ["h", "r"])
    np.testing.assert_array_equal(wins, [[0, 1], [2, 0]])


# --- the ratings table ---------------------------------------------------------------------
def duel_records(n_games, a_wins, a="h", b="random"):
    recs = []
    for g in range(n_games):
        seats = [a, b] if g % 2 == 0 else [b, a]
        a_won = (g + 1) * a_wins // n_games > g * a_wins // n_games  # wins spread evenly
        ranks = [0, 1] if (seats[0] == a) == a_won else [1, 0]
        recs.append(record(seats, ranks, game=g, agents=[a, b]))
    return recs


def test_random_is_the_anchor_and_intervals_hold_the_estimate():
    table = R.compute_ratings(duel_records(100, 75), bootstrap=300, seed=1)
    assert [r.agent for r in table] == ["h", "random"]
    h, rnd = table
    assert rnd.elo == rnd.elo_low == rnd.elo_high == 1000
    assert h.elo == pytest.approx(1000 + 400 * math.log10(75.5 / 25.5))  # prior 1: +0.5 each
    assert h.elo_low < h.elo < h.elo_high
    assert 1000 < h.elo_low and h.elo_high < 1400
    assert h.win_rate == pytest.approx(0.75)
    assert h.win_rate_low < 0.75 < h.win_rate_high
    assert h.games == rnd.games == 100
    assert h.ordinal > rnd.ordinal


def test_first_agent_is_the_anchor_without_random():
    table = R.compute_ratings(duel_records(40, 10, a="x", b="y"), bootstrap=0)
    assert {r.agent: round(r.elo) for r in table}["x"] == 1000


def test_bootstrap_is_seeded():
    recs = duel_records(60, 40)
    one = R.compute_ratings(recs, bootstrap=100, seed=5)
    two = R.compute_ratings(recs, bootstrap=100, seed=5)
    three = R.compute_ratings(recs, bootstrap=100, seed=6)
    assert one == two
    assert one != three


def test_games_sharing_a_deal_are_resampled_together():
    # Every deal is one win each way: resampling deals can never move the ratings.
    recs = [record(["a", "b"], [0, 1], game=0, seed=7), record(["b", "a"], [0, 1], game=1, seed=7),
            record(["a", "b"], [1, 0], game=2, seed=8), record(["b", "a"], [1, 0], game=3, seed=8)]
    table = R.compute_ratings(recs, bootstrap=200, seed=0)
    for r in table:
        assert r.elo == pytest.approx(1000) and r.elo_low == pytest.approx(r.elo_high)


def test_win_rate_shares_a_tied_first_place():
    recs = [record(["a", "b", "c"], [0, 0, 2])]
    rates = {r.agent: r.win_rate for r in R.compute_ratings(recs, bootstrap=0)}
    assert rates == {"a": 0.5, "b": 0.5, "c": 0.0}


def test_openskill_orders_a_consistent_winner_first():
    recs = [record(["a", "b", "c"], [0, 1, 2], game=g) for g in range(20)]
    skill = R.openskill_ratings(recs, ["a", "b", "c"])
    assert skill["a"][2] > skill["b"][2] > skill["c"][2]


def test_markdown_table_and_plot(tmp_path):
    table = R.compute_ratings(duel_records(30, 20), bootstrap=50)
    text = R.markdown_table(table)
    lines = text.splitlines()
    assert lines[0].startswith("| agent | games | win rate")
    assert lines[2].startswith("| h | 30 | 0.667 (")
    assert len(lines) == 4
    png = R.plot_ratings(table, tmp_path / "r.png", "test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_head_to_head_scores_each_pair_where_both_sat():
    # a beats b 3 of 4, b and c tie twice, a never meets c; a 3-player game adds its 3 pairs.
    recs = ([record(["a", "b"], [0, 1], game=g, agents=["a", "b", "c"]) for g in range(3)]
            + [record(["b", "a"], [0, 1], game=3, agents=["a", "b", "c"])]
            + [record(["b", "c"], [0, 0], game=4 + g, agents=["a", "b", "c"]) for g in range(2)])
    lines = R.head_to_head_table(recs, ["a", "b", "c"]).splitlines()
    assert lines[0] == "| | vs a | vs b | vs c |"
    assert lines[2:] == ["| a |  | 0.750 |  |", "| b | 0.250 |  | 0.500 |",
                         "| c |  | 0.500 |  |"]
    three = [record(["c", "a", "b"], [2, 0, 1], agents=["a", "b", "c"])]
    assert R.head_to_head_table(three, ["c", "a", "b"]).splitlines()[2:] == [
        "| c |  | 0.000 | 0.000 |", "| a | 1.000 |  | 1.000 |", "| b | 1.000 | 0.000 |  |"]


# --- match records ---------------------------------------------------------------------------
def test_records_round_trip(tmp_path):
    recs = duel_records(6, 4)
    path = R.write_records(tmp_path / "sub" / "records.jsonl", recs)
    assert len(path.read_text().splitlines()) == 6
    assert R.read_records(path) == recs
    assert R.ratings_from_file(path, bootstrap=0) == R.compute_ratings(recs, bootstrap=0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: a match record must be a JSON object"),
        (json.dumps({"env": "x"}), "line 2: match record lacks"),
    ],
)
def test_bad_record_lines_are_named(tmp_path, text, message):
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(duel_records(1, 1)[0]) + "\n" + text + "\n")
    with pytest.raises(ValueError, match=message):
        R.read_records(path)


def test_record_with_unknown_seat_agent_or_wrong_length_is_rejected(tmp_path):
    bad = record(["a", "b"], [0, 1], agents=["a"])
    with pytest.raises(ValueError, match="not in 'agents'"):
        R.write_records(tmp_path / "r.jsonl", [bad])
    short = record(["a", "b"], [0], agents=["a", "b"])
    with pytest.raises(ValueError, match="'ranks' must be a list of num_players=2"):
        R.write_records(tmp_path / "r.jsonl", [short])


@pytest.mark.parametrize("seed", [[1, 2], {"a": 1}, "7", None, 1.5, True])
def test_record_whose_seed_is_not_an_integer_is_rejected(tmp_path, seed):
    # The seed groups a deal's games for the bootstrap; a list or dict there was a TypeError.
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps(duel_records(1, 1)[0] | {"seed": seed}) + "\n")
    with pytest.raises(ValueError, match="line 1: 'seed' must be an integer"):
        R.ratings_from_file(path, bootstrap=0)


def test_empty_records_file_is_an_error(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("\n")
    with pytest.raises(ValueError, match="no match records"):
        R.read_records(path)
