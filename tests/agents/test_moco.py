"""The Moco! bot: its strategy on built positions, and its result against random bots."""

from __future__ import annotations

import numpy as np

from loco_envs import agents
from loco_envs.moco.rules import MocoGame
from tests.agents.helpers import win_rate
from tests.moco.helpers import do, load, position


def decide(g: MocoGame) -> str:
    mask = g.legal_mask()
    action = agents.make("moco/heuristic").act(g.view(g.current_seat), mask,
                                               np.random.default_rng(0))
    assert mask[action]
    return MocoGame.action_to_str(action)


def chips(**by_suit: int) -> list[int]:
    suits = ["moons", "suns", "waves", "leaves", "wyrms", "knots"]
    return [by_suit.get(s, 0) for s in suits]


def test_raises_a_suit_it_holds_chips_in_not_the_opponents():
    g = load(position(["9ms 2wl", "3ly 4yk"], chips=[chips(moons=2), chips(suns=2)]))
    assert decide(g) == "play 9ms on moons"


def test_sinks_a_high_suit_the_opponent_holds():
    g = load(position(["2wl 3ly", "4yk 5yk"], piles={"waves": "9wy"},
                      chips=[chips(), chips(waves=3)]))
    assert decide(g) == "play 2wl on waves"


def test_ends_the_game_only_when_ahead():
    piles = {"moons": "2mk 3mw 4ms 5ml 6mw"}  # one more card ends the game (M-20)
    ahead = load(position(["7ml 2sy", "4yk 5yk"], piles=piles,
                          chips=[chips(leaves=2), chips(suns=1)]))
    assert decide(ahead) == "play 7ml on moons"
    behind = load(position(["7ml 2sy", "4yk 5yk"], piles=piles,
                           chips=[chips(leaves=1), chips(moons=2)]))
    assert decide(behind) == "play 7ml on leaves"


def test_takes_the_chip_of_the_suit_likely_to_end_highest():
    g = load(position(["Cw 2sy 3ly", "4yk 5yk"], piles={"suns": "9ms"}))
    do(g, "play 2sy on wyrms")
    # Suns is 9 now; waves is 1 but its Crown in hand may make it 10 later (hope counts half).
    assert decide(g) == "chip suns"


def test_two_players_never_take_the_chip_of_the_pile_just_played():
    g = load(position(["9ms 3ly", "4yk 5yk"], chips=[chips(moons=1), chips()]))
    do(g, "play 9ms on moons")
    assert decide(g) != "chip moons"


def test_heuristic_beats_random_two_players():
    assert win_rate("moco_v0", 2, ("moco/heuristic", "random"), 60, "moco/heuristic") >= 0.9
