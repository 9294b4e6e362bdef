"""The greedy yardsticks ``moco/greedy`` and ``momo/greedy``: their one-ply choices on built
positions (named after the rule they rest on), legality, seeding, and their result against
random."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs import agents
from loco_envs.agents.greedy import _taken
from loco_envs.momo.actions import NUM_TOKEN_TYPES
from tests.agents.helpers import random_decisions, win_rate
from tests.moco.helpers import do, load, position
from tests.momo.helpers import board, game_from, make_state


def decide(game, spec: str, seed: int = 0) -> str:
    mask = game.legal_mask()
    action = agents.make(spec).act(game.view(game.current_seat), mask,
                                   np.random.default_rng(seed))
    assert mask[action]
    return game.action_to_str(action)


def chips(**by_suit: int) -> list[int]:
    suits = ["moons", "suns", "waves", "leaves", "wyrms", "knots"]
    return [by_suit.get(s, 0) for s in suits]


def test_M21_raises_the_suit_it_holds_and_takes_a_chip_of_it_later():
    g = load(position(["9ms 2wl", "3ly 4yk"], chips=[chips(moons=2), chips(suns=2)]))
    # 9 on moons: 2 chips x 8 more; on suns it would raise the opponent's chips instead.
    assert decide(g, "moco/greedy") == "play 9ms on moons"


def test_M12_two_players_never_take_the_chip_of_the_pile_just_played():
    g = load(position(["9ms 3ly", "4yk 5yk"], chips=[chips(moons=1), chips()]))
    do(g, "play 9ms on moons")
    # moons (now 9) is banned; the other suits are all worth 1: a tie, broken at random
    taken = {decide(g, "moco/greedy", seed) for seed in range(12)}
    assert "chip moons" not in taken and len(taken) > 1


def test_M20_ends_the_game_only_when_it_wins():
    piles = {"moons": "2mk 3mw 4ms 5ml 6mw"}  # one more card ends the game (M-20)
    ahead = load(position(["7ml 2sy", "4yk 5yk"], piles=piles,
                          chips=[chips(leaves=2), chips(suns=1)]))
    assert decide(ahead, "moco/greedy") == "play 7ml on moons"
    behind = load(position(["7ml 2sy", "4yk 5yk"], piles=piles,
                           chips=[chips(leaves=1), chips(moons=2)]))
    assert decide(behind, "moco/greedy") != "play 7ml on moons"


def test_K11_predicted_take_matches_the_engine():
    checked = 0
    for env, obs in random_decisions("momo_v0", 2, games=3, seed=4):
        g = env.game
        if g.phase != "pick":
            continue
        view = g.view(g.current_seat)
        for action in np.flatnonzero(obs["action_mask"]).tolist():
            trial = g.clone()
            trial.apply(action)
            if trial.phase != "place":  # the take was placed or discarded without a decision
                continue
            pending = trial.view(view.seat).pending
            expected = sorted(t for t in range(NUM_TOKEN_TYPES) for _ in range(pending[t]))
            assert sorted(_taken(view.forest, *divmod(action, NUM_TOKEN_TYPES))) == expected
            checked += 1
    assert checked > 20


def test_K21_places_the_token_that_completes_a_stacked_pair():
    state = make_state(boards=[board("", "Rb", "", "", ""), board()], pending=["Rg", "Lb"])
    assert decide(game_from(state), "momo/greedy") == "place Rg on row 3"  # +3 now


@pytest.mark.parametrize(("env_id", "spec"), [("moco_v0", "moco/greedy"),
                                              ("momo_v0", "momo/greedy")])
def test_plays_legal_moves_from_its_view_and_is_seeded(env_id, spec):
    bot = agents.make(spec)
    for env, obs in random_decisions(env_id, 2, games=2, seed=1):
        view, mask = env.view(env.agent_selection), obs["action_mask"]
        first = bot.act(view, mask, np.random.default_rng(9))
        assert mask[first]
        assert bot.act(view, mask, np.random.default_rng(9)) == first


@pytest.mark.parametrize(("env_id", "spec"), [("moco_v0", "moco/greedy"),
                                              ("momo_v0", "momo/greedy")])
def test_greedy_beats_random_two_players(env_id, spec):
    assert win_rate(env_id, 2, (spec, "random"), 60, spec) >= 0.9
