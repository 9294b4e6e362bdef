"""``python -m benchmarks.search_strength``: game counts per budget, the score share, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.benchmarks import search_strength as S


def test_games_per_budget_rounds_up_to_the_seat_rotation():
    assert S.games_per_budget([100, 30, 16], [50, 200, 400], 3) == [102, 30, 18]
    assert S.games_per_budget([20], [50, 200], 2) == [20, 20]


@pytest.mark.parametrize("games", [[10, 10], [0], [10, 10, 10, 10]])
def test_games_that_do_not_match_the_budgets_are_a_value_error_naming_games(games):
    with pytest.raises(ValueError, match="--games"):
        S.games_per_budget(games, [50, 200, 400], 2)


def test_score_share_averages_deals_and_splits_shared_first_places():
    spec = "moco/ismcts"
    records = [  # deal 1: a win and a loss; deal 2: a win and a shared first place
        {"seed": 1, "seats": [spec, "x"], "ranks": [0, 1]},
        {"seed": 1, "seats": ["x", spec], "ranks": [0, 1]},
        {"seed": 2, "seats": [spec, "x"], "ranks": [0, 1]},
        {"seed": 2, "seats": ["x", spec], "ranks": [0, 0]},
    ]
    share, low, high = S.score_share(records, spec, np.random.default_rng(0))
    assert share == pytest.approx((0.5 + 0.75) / 2)
    assert 0.5 <= low <= share <= high <= 0.75


@pytest.mark.parametrize("argv,word", [
    (["--envs", "chess_v0"], "chess_v0"), (["--budgets", "0"], "--budgets"),
    (["--opponents", "greedy"], "greedy"), (["--games", "10", "10", "10"], "--games"),
    (["--speed-decisions", "0"], "--speed-decisions"),
])
def test_bad_arguments_name_the_option(argv, word, capsys):
    with pytest.raises(SystemExit):
        S.main(["--speed-decisions", "1"] + argv)
    assert word in capsys.readouterr().err
