"""Random-play invariants over thousands of seeded games on the raw rules engine.

After every decision: the 105 tokens are all accounted for (bag + forest + boards + taken +
discarded, 7 of each identity, K-01); no area holds more than 4 tokens; a placed token never
changes or moves (K-12), and a decision adds at most one token, to the acting seat's board, in
the leftmost free cell of the chosen row. At the end the scores are the sum of the rules'
points.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from loco_envs.momo.actions import COPIES, NUM_TOKEN_TYPES, decode
from loco_envs.momo.rules import MomoGame, score_breakdown
from tests.momo.helpers import game_from

# (num_players, expansion_a, expansion_b)
CONFIGS = [
    (1, False, False),
    (2, False, False),
    (3, True, False),
    (4, True, True),
    (2, False, True),
    (4, False, False),
]


def accounted(game: MomoGame) -> None:
    on_boards = [0] * NUM_TOKEN_TYPES
    for b in game.boards:
        for t in b:
            if t >= 0:
                on_boards[t] += 1
    for t in range(NUM_TOKEN_TYPES):
        total = (
            game.bag_counts[t]
            + sum(area[t] for area in game.forest)
            + on_boards[t]
            + game.pending[t]
            + game.discarded[t]
        )
        assert total == COPIES, f"token {t}: {total}"
    assert len(game.bag) == sum(game.bag_counts)
    sizes = zip(game.area_size, game.forest, strict=True)
    assert all(0 <= size == sum(area) <= 4 for size, area in sizes)
    assert game.pending_total == sum(game.pending)


def play_and_check(seed: int, round_trip: bool = False) -> int:
    n, ea, eb = CONFIGS[seed % len(CONFIGS)]
    game = MomoGame(rng=np.random.default_rng(seed), num_players=n, expansion_a=ea, expansion_b=eb)
    rng = np.random.default_rng(10**6 + seed)
    before = [list(b) for b in game.boards]
    decisions = 0
    check_at = int(rng.integers(20)) if round_trip else -1
    while not game.terminal:
        accounted(game)
        if decisions == check_at:
            state = game.state_dict()
            assert game_from(state).state_dict() == state
        legal = game.legal_actions()
        assert legal, "a live game always offers a decision"
        action = legal[int(rng.integers(len(legal)))]
        seat, fills = game.current_seat, list(game.row_fill[game.current_seat])
        game.apply(action)
        decisions += 1
        added = []
        for s in range(n):
            now, was = game.boards[s], before[s]
            for i in range(25):
                if was[i] >= 0:
                    assert now[i] == was[i], "a placed token changed"
                elif now[i] >= 0:
                    added.append((s, i, now[i]))
        kind, a, b = decode(action)
        if kind == "pick":
            assert added == []
        else:
            assert added == [(seat, b * 5 + fills[b], a)]
        before = [list(bd) for bd in game.boards]
    accounted(game)
    assert Counter(game.bag) == Counter({t: k for t, k in enumerate(game.bag_counts) if k})
    extra = game.expansion_points()
    scores = game.final_scores()
    for s in range(n):
        assert scores[s] == sum(score_breakdown(game.boards[s])) + extra[s]
    ranks = game.final_ranks()
    assert all((ranks[i] < ranks[j]) == (scores[i] > scores[j]) for i in range(n) for j in range(n))
    assert game.turn == 6 * n and game.current_seat == -1
    return decisions


def test_random_play_invariants_over_2000_seeded_games():
    decisions = sum(play_and_check(seed, round_trip=seed % 10 == 0) for seed in range(2000))
    assert decisions > 2000 * 15


@pytest.mark.slow
def test_random_play_invariants_over_20000_more_games():
    for seed in range(2000, 22000):
        play_and_check(seed, round_trip=seed % 50 == 0)
