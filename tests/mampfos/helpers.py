"""Building Los Mampfos positions from state dicts, and driving the engine in tests."""

from __future__ import annotations

import copy

import numpy as np

from loco_envs.mampfos.actions import COLOURS, DONKEYS, str_to_action
from loco_envs.mampfos.rules import DECK, LETTERS, MampfosGame


def state(n: int = 3, **fields) -> dict:
    """A valid state dict: the full deck, white fed with "feed W3" by seat 0, unless overridden.

    ``supply`` defaults to whatever keeps 20 biscuits of each colour in play (P-02).
    """
    data = {
        "num_players": n,
        "positions": [0, 4, 8],
        "bellies": [[0] * 5 for _ in range(3)],
        "collected": [[0] * 5 for _ in range(n)],
        "pile": {letter: list(DECK[letter]) for letter in LETTERS},
        "active": 0,
        "phase": "feed",
        "card": "feed W3",
        "donkey": "white",
        "feed_left": 3,
        "card_fed": [0] * 5,
        "end_left": [],
        "wheels": [None] * n,
        "fed_since": [[[0] * 5 for _ in range(3)] for _ in range(n)],
        "share_new": [False] * n,
        "last_share": None,
    }
    data.update(copy.deepcopy(fields))
    if "supply" not in fields:
        data["supply"] = [
            20 - sum(b[c] for b in data["bellies"]) - sum(r[c] for r in data["collected"])
            for c in range(5)
        ]
    return data


def only_pile(**letters: list[str]) -> dict:
    """A pile holding just the given cards (other letters empty)."""
    return {letter: list(letters.get(letter, [])) for letter in LETTERS}


def game_from(data: dict, seed: int = 0, memory: str = "perfect") -> MampfosGame:
    return MampfosGame.from_state_dict(
        data, np.random.default_rng(seed), {"num_players": data["num_players"], "memory": memory}
    )


def act(game: MampfosGame, *names: str) -> None:
    """Apply actions by name, e.g. ``act(g, "feed red", "wheel blue")``."""
    for name in names:
        game.apply(str_to_action(name))


def colours(**counts: int) -> list[int]:
    """A colour vector from keyword counts: ``colours(red=2, blue=1)``."""
    unknown = set(counts) - set(COLOURS)
    assert not unknown, unknown
    return [counts.get(c, 0) for c in COLOURS]


def donkey(name: str) -> int:
    return DONKEYS.index(name)


def random_game(seed: int, n: int, memory: str = "perfect") -> MampfosGame:
    """A finished game with uniformly random legal decisions."""
    game = MampfosGame(rng=np.random.default_rng(seed), num_players=n, memory=memory)
    pick = np.random.default_rng(seed + 10_000)
    while not game.terminal:
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[pick.integers(len(legal))]))
    return game
