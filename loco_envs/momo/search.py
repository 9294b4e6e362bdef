"""Search support for Loco Momo: ``resample`` and a game from a view.

The only hidden information of Loco Momo is the order of the bag (K-01: its contents are known
by elimination, and the view shows them); forest, boards, taken and discarded tokens and the
expansion tokens are public. ``resample`` shuffles the bag: exactly uniform over the consistent
states. The new game's generator is seeded from ``rng``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.momo.actions import COLS, NUM_TOKEN_TYPES, ROWS, SPECIES, TOKEN_CODES


def resample(game: Any, seat: int, rng: np.random.Generator) -> Any:
    new = game.copy_with_rng(np.random.default_rng(int(rng.integers(2**63))))
    new.bag = [new.bag[i] for i in rng.permutation(len(new.bag))]
    return new


def from_view(view: Any, rng: np.random.Generator, **options: Any) -> Any:
    """A whole game consistent with ``view``: the same table, the bag in a random order."""
    from loco_envs.momo.rules import HEXAGONS, MomoGame

    v = view

    def codes(counts: Any) -> list[str]:
        return [TOKEN_CODES[t] for t in range(NUM_TOKEN_TYPES) for _ in range(counts[t])]

    bag = codes(v.bag)
    bag = [bag[i] for i in rng.permutation(len(bag))]
    state = {
        "num_players": v.num_players,
        "expansion_a": HEXAGONS[v.expansion_a] if v.expansion_a >= 0 else None,
        "expansion_b": SPECIES[v.expansion_b] if v.expansion_b >= 0 else None,
        "first_player": v.first_player, "turn": v.turn, "phase": v.phase,
        "current_seat": v.current_seat, "bag": bag,
        "forest": [codes(area) for area in v.forest],
        "boards": [[[TOKEN_CODES[t] for t in board[r * COLS:(r + 1) * COLS] if t >= 0]
                    for r in range(ROWS)] for board in v.boards],
        "pending": codes(v.pending), "discarded": codes(v.discarded),
    }
    opts = {"num_players": v.num_players, "expansion_a": v.expansion_a >= 0,
            "expansion_b": v.expansion_b >= 0}
    return MomoGame.from_state_dict(state, np.random.default_rng(int(rng.integers(2**63))),
                                    opts)


def engine_options(game: Any) -> dict:
    """The rules options of ``game`` (``MomoGame.OPTIONS``; the expansions are on where the
    game drew their tiles), as its compiled engine takes them: what ISMCTS's playout batch is
    made with."""
    return {"num_players": game.num_players, "expansion_a": game.expansion_a >= 0,
            "expansion_b": game.expansion_b >= 0}


def evaluate(game: Any) -> list[float]:
    """Rank rewards as if the game stopped now (the pictures' points so far)."""
    ranks = game.final_ranks()
    n = len(ranks)
    if n == 1:  # solo (K-40): the score itself, scaled to about [-1, 1]
        return [(game.final_scores()[0] - 50.0) / 25.0]
    return [(sum(r < o for o in ranks) - sum(o < r for o in ranks)) / (n - 1) for r in ranks]
