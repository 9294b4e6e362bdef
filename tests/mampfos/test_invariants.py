"""Random-play invariants over thousands of seeded games of the raw rules engine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from loco_envs.core import IllegalActionError
from loco_envs.mampfos.rules import END_CARD, MampfosGame


def check_game(seed: int, n: int, memory: str) -> int:
    """Play one random game, checking the invariants after every decision; returns its length."""
    game = MampfosGame(rng=np.random.default_rng(seed), num_players=n, memory=memory)
    pick = np.random.default_rng(seed + 1_000_003)
    end_shares: list[int] = []
    decisions = 0
    while not game.terminal:
        mask = game.legal_mask()
        legal = np.flatnonzero(mask)
        assert len(legal) > 0 and game.current_seat in range(n)
        ending = game.card == END_CARD
        cards_before = sum(len(stack) for stack in game.pile)
        share_before = game.last_share
        game.apply(int(legal[pick.integers(len(legal))]))
        decisions += 1
        # 100 biscuits, 20 per colour: supply + bellies + players
        for c in range(5):
            total = (game.supply[c] + game.bellies[0][c] + game.bellies[1][c]
                     + game.bellies[2][c] + sum(row[c] for row in game.collected))
            assert total == 20, (seed, c, total)
        assert min(game.supply) >= 0 and min(min(b) for b in game.bellies) >= 0
        # the donkeys never share a space
        p = game.positions
        assert p[0] != p[1] and p[1] != p[2] and p[0] != p[2] and 0 <= min(p) <= max(p) < 12
        if ending:
            # after the end card: no more flips; exactly three droppings, each donkey once
            assert sum(len(stack) for stack in game.pile) == cards_before
            if game.last_share is not share_before:
                end_shares.append(game.last_share.donkey)
            assert game.terminal == (len(end_shares) == 3), (seed, end_shares)
        else:
            assert not game.terminal
    assert sorted(end_shares) == [0, 1, 2], (seed, end_shares)
    assert game.current_seat == -1 and not game.legal_mask().any()
    scores = game.final_scores()
    assert sum(scores) + sum(game.supply) + sum(map(sum, game.bellies)) == 100
    ranks = game.final_ranks()
    assert all((ranks[i] < ranks[j]) == (scores[i] > scores[j])
               for i in range(n) for j in range(n))
    assert 0 in ranks
    return decisions


def test_random_play_invariants_over_2000_seeded_games():
    lengths = []
    for seed in range(2000):
        n = 2 + seed % 4
        lengths.append(check_game(seed, n, "recall" if seed % 8 >= 4 else "perfect"))
    assert min(lengths) > 20


@pytest.mark.slow
def test_random_play_invariants_over_20000_seeded_games():
    for seed in range(2000, 22000):
        check_game(seed, 2 + seed % 4, "perfect")


def test_state_dict_round_trips_at_every_step_and_illegal_actions_change_nothing():
    for seed in range(40):
        n = 2 + seed % 4
        game = MampfosGame(rng=np.random.default_rng(seed), num_players=n,
                           memory="recall" if seed % 2 else "perfect")
        options = {"num_players": n, "memory": game.memory}
        pick = np.random.default_rng(seed)
        while True:
            data = game.state_dict()
            assert json.loads(json.dumps(data)) == data
            twin = MampfosGame.from_state_dict(data, np.random.default_rng(0), options)
            assert twin.state_dict() == data
            assert all(twin.view(s) == game.view(s) for s in range(n))
            if game.terminal:
                break
            mask = game.legal_mask()
            illegal = np.flatnonzero(mask == 0)
            if len(illegal):
                with pytest.raises(IllegalActionError, match=r"^P-\d\d: "):
                    game.apply(int(illegal[pick.integers(len(illegal))]))
                assert game.state_dict() == data
            legal = np.flatnonzero(mask)
            game.apply(int(legal[pick.integers(len(legal))]))
