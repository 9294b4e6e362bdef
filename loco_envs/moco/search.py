"""Search support for Moco!: ``resample`` and a game from a view.

The hidden cards of a Moco! game are the other hands and the cards removed unseen (M-03); piles,
chips and the supply are public (rules page, "Hidden information"), and nothing a seat sees
tells it more about who holds which unseen card (every card can always go on one of its suits'
piles, so a play shows nothing of what was not played). ``resample`` therefore deals the unseen
cards at random to the other hands (their sizes kept) and to the removed ones: exactly uniform
over the consistent states. The unseen cards are the others' hands and the removed cards of the
state itself, which a dealt game makes the deck less the seat's hand and the piles; a position
built with cards out of the game keeps them out. The new game's generator is seeded from ``rng``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.moco.cards import CODES, NUM_SUITS, deck


def resample(game: Any, seat: int, rng: np.random.Generator) -> Any:
    new = game.copy_with_rng(np.random.default_rng(int(rng.integers(2**63))))
    new._rows = None  # a copy is in no vector env's batch
    others = [t for t in range(game.num_players) if t != seat]
    unseen = [c for t in others for c in sorted(game._hands[t])] + list(game._removed)
    cards = [unseen[i] for i in rng.permutation(len(unseen))]
    at = 0
    for t in others:
        k = len(game._hands[t])
        new._hands[t] = set(cards[at: at + k])
        at += k
    new._removed = cards[at:]
    return new


def from_view(view: Any, rng: np.random.Generator, **options: Any) -> Any:
    """A whole game consistent with ``view``: the unseen cards (the deck less the seat's hand
    and the piles) dealt at random to the other hands and the removed cards; any left over
    (a position that started short of the deck) are out of the game."""
    from loco_envs.moco.rules import MocoGame

    v = view
    n = v.num_players
    on_table = set(v.hand) | {c for pile in v.piles for c in pile}
    unseen = [c for c in deck(n) if c >= NUM_SUITS and c not in on_table]
    unseen = [unseen[i] for i in rng.permutation(len(unseen))]
    hands, at = [], 0
    for t in range(n):
        if t == v.seat:
            hands.append(list(v.hand))
        else:
            hands.append(unseen[at: at + v.hand_sizes[t]])
            at += v.hand_sizes[t]
    state = {
        "num_players": n, "match": v.num_games > 1, "game": v.game, "dealer": v.dealer,
        "match_scores": list(v.match_scores), "phase": v.phase,
        "current_seat": v.current_seat,
        "played_pile": None if v.played_pile < 0 else _suit_name(v.played_pile),
        "hands": [[CODES[c] for c in h] for h in hands],
        "removed": [CODES[c] for c in unseen[at: at + v.num_removed]],
        "piles": [[CODES[c] for c in p] for p in v.piles],
        "chips": [list(c) for c in v.chips], "supply": list(v.supply),
    }
    return MocoGame.from_state_dict(state, np.random.default_rng(int(rng.integers(2**63))),
                                    {"num_players": n, "match": v.num_games > 1})


def _suit_name(suit: int) -> str:
    from loco_envs.moco.cards import SUITS

    return SUITS[suit]


def engine_options(game: Any) -> dict:
    """The rules options of ``game`` (``MocoGame.OPTIONS``), as its compiled engine takes them:
    what ISMCTS's playout batch is made with."""
    return {"num_players": game.num_players, "match": game.match}


def evaluate(game: Any) -> list[float]:
    """Rank rewards as if the game stopped now (chips valued by the piles, M-21)."""
    return _rank_rewards(game.final_ranks())


def _rank_rewards(ranks: list[int]) -> list[float]:
    n = len(ranks)
    if n == 1:
        return [0.0]
    return [(sum(r < o for o in ranks) - sum(o < r for o in ranks)) / (n - 1) for r in ranks]
