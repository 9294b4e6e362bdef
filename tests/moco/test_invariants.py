"""Random play on the raw rules engine: invariants checked after every decision of 2,000 games."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from loco_envs.moco.rules import MocoGame
from tests.moco.helpers import scores_from_state

GAMES_PER_COUNT = 500  # x 4 player counts = 2,000 games
DECK_SIZE = {2: 34, 3: 34, 4: 34, 5: 35}


def check_state(state: dict, n: int) -> None:
    cards = [c for h in state["hands"] for c in h] + state["removed"]
    cards += [c for p in state["piles"] for c in p]
    assert len(cards) == len(set(cards)) == DECK_SIZE[n]  # every card once, none lost
    for suit in range(6):
        held = [chips[suit] for chips in state["chips"]]
        assert all(0 <= h <= 5 for h in held)
        assert sum(held) + state["supply"][suit] == 5


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_random_play_invariants(n):
    end_heights = Counter()
    no_chip_turns = 0
    for seed in range(GAMES_PER_COUNT):
        game = MocoGame(np.random.default_rng(seed), num_players=n)
        rng = np.random.default_rng(10_000 + seed)
        plays = chips_taken = 0
        while True:
            state = game.state_dict()
            check_state(state, n)
            heights = [len(p) for p in state["piles"]]
            cards_in_hands = sum(len(h) for h in state["hands"])
            ended = max(heights) == 6 or cards_in_hands == 0
            assert game.terminal == ended  # M-20: over exactly when a pile holds six / no card
            mask = game.legal_mask()
            if game.terminal:
                assert game.current_seat == -1 and not mask.any()
                break
            legal = np.flatnonzero(mask)
            assert len(legal) > 0
            seat, phase = game.current_seat, state["phase"]
            action = int(legal[rng.integers(len(legal))])
            game.apply(action)
            if phase == "play":
                plays += 1
                assert game.terminal or game.current_seat == seat  # then the same seat's chip
            else:
                chips_taken += action != 78
                no_chip_turns += action == 78
                assert game.current_seat == (seat + 1) % n
        state = game.state_dict()
        heights = [len(p) for p in state["piles"]]
        end_heights[max(heights)] += 1
        assert plays == sum(heights) and chips_taken <= plays - 1  # no chip for the last card
        assert chips_taken == sum(map(sum, state["chips"]))
        assert game.final_scores() == [float(s) for s in scores_from_state(state)]
        scores = game.final_scores()
        assert game.final_ranks() == [sum(o > s for o in scores) for s in scores]
    # With 31+ cards to play and 30 places below six, every dealt game ends on a sixth card.
    assert end_heights == Counter({6: GAMES_PER_COUNT})
    if n > 2:  # 30 chips, at most 30 turns that earn one: only M-12 can leave a seat without
        assert no_chip_turns == 0
