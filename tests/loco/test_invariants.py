"""Random play over 2,000 seeded LOCO matches: the invariants every position must keep.

The seeds cover 2 to 10 players, both ``photo_finish`` and both ``stacking`` values in every
combination (1,000 matches each way).
"""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.core import rank_rewards, score_rewards
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.rules import TURN, LocoGame

GAMES = 2000
CHUNKS = 8
MAX_DECISIONS = 100_000


def check_match(seed: int) -> int:
    """Play one seeded match at random, checking the invariants after every decision."""
    rng = np.random.default_rng(seed)
    n = 2 + seed % 9
    rounds = (1, 1, 3)[seed % 3]
    eager = seed % 4 != 0
    options = {"photo_finish": ("random", "seat")[seed % 2],
               "stacking": ("any", "identical")[seed // 2 % 2],
               "timeout_rate": 0.05 if seed % 10 == 0 else 0.0}
    g = LocoGame(rng=np.random.default_rng(seed), num_players=n, rounds=rounds, **options)
    decisions = 0
    while not g.terminal:
        decisions += 1
        assert decisions <= MAX_DECISIONS, f"seed {seed}: match did not end"
        mask = g.legal_mask()
        actions = np.flatnonzero(mask)
        assert len(actions), f"seed {seed}: no legal action in phase {g.phase}"
        assert g.active[g.current_seat] and g.in_round[g.current_seat]
        if g.phase == TURN and g.pending:  # L-32/L-33 and option stacking: only answers
            answers = {A.PLAY_IDENT_LIST[a] for a in actions if a < A.SLAP0}
            if options["stacking"] == "identical":
                assert answers <= {g.discard[-1]}, seed
            else:
                assert all(C.KIND[i] == g.pending_kind for i in answers), seed
        action = _choose(actions, rng, eager)
        before = list(g.scores)
        points = _points_in_hands(g) if min(g.hand_sizes[s] for s in _playing(g)) <= 4 else None
        g.apply(action)
        assert sum(g.hand_sizes) + len(g.draw_pile) + len(g.discard) == C.DECK_SIZE, seed
        for s in range(n):
            assert int(g.hands[s].sum()) == g.hand_sizes[s] >= 0
        assert int(g.discard_counts.sum()) == len(g.discard)
        gained = [a - b for a, b in zip(g.scores, before, strict=True)]
        if any(gained):  # L-71: the round winner scores the points left in the other hands
            winner = int(np.argmax(gained))
            assert points is not None and sum(gained) == gained[winner]
            assert gained[winner] == sum(points) - points[winner]
    assert sum(rank_rewards(g.final_ranks())) == pytest.approx(0)
    assert sum(score_rewards(g.final_scores())) == pytest.approx(0)
    assert min(g.final_ranks()) == 0 and g.final_ranks().count(0) == 1
    assert g.round >= rounds
    return decisions


def _playing(g: LocoGame) -> list[int]:
    return [s for s in range(g.num_players) if g.active[s] and g.in_round[s]]


def _points_in_hands(g: LocoGame) -> list[int]:
    """Points in each playing hand (0 for seats out of the round)."""
    return [int(g.hands[s] @ C.POINTS) if s in _playing(g) else 0 for s in range(g.num_players)]


def _choose(actions: np.ndarray, rng: np.random.Generator, eager: bool) -> int:
    """Uniform over legal actions; an eager player plays a card whenever it can, 9 times in 10."""
    if eager and actions[0] < A.DRAW and rng.random() < 0.9:
        plays = actions[actions < A.DRAW]
        return int(plays[rng.integers(len(plays))])
    return int(actions[rng.integers(len(actions))])


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_matches_keep_every_invariant(chunk):
    per_chunk = GAMES // CHUNKS
    for seed in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        check_match(seed)
