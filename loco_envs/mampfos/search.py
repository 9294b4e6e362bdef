"""Search support for Los Mampfos: ``resample`` and a game from a view.

What is hidden in Los Mampfos: the millwheels other seats have already set in a droppings under
way (P-12: secret until all are set), and which card of the top letter turns up next (chance).
Everything else a seat has watched happen: every biscuit fed and every share-out is announced to
the table, so the bellies follow from the events (P-31) and the cards left in each letter from
the cards turned over. ``resample`` keeps all of that, including in ``memory="recall"``, where
the seat is taken to remember what it was shown (its ``fed_since`` and share-outs: its recalled
history, which adds up to the bellies), and redraws each other seat's millwheel already set,
uniformly over the five colours (the seat's own is kept). Uniform is an approximation of the
posterior over the others' choices, which depends on their strategies. The new game's generator
(the next card of each letter) is seeded from ``rng``.

:func:`from_view` builds a game from a view alone (what ``agents.ismcts`` searches from). In
``"recall"`` mode a view does not show the bellies: each colour's biscuits not in the supply nor
collected are split among the donkeys at random on top of what the view shows was fed since the
seat's last decision; and the cards left of each letter are a random choice of that letter's
cards (a view shows how many, not which).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.mampfos.actions import COLOURS, DONKEYS, NUM_COLOURS
from loco_envs.mampfos.components import BISCUITS_PER_COLOUR, DECK, LETTERS


def resample(game: Any, seat: int, rng: np.random.Generator) -> Any:
    new = game.copy_with_rng(np.random.default_rng(int(rng.integers(2**63))))
    new.wheels = [w if (w < 0 or s == seat) else int(rng.integers(NUM_COLOURS))
                  for s, w in enumerate(game.wheels)]
    return new


def from_view(view: Any, rng: np.random.Generator, **options: Any) -> Any:
    """A whole game consistent with ``view`` (see the module docstring)."""
    from loco_envs.mampfos.rules import MampfosGame

    v = view
    n = v.num_players
    if v.bellies is not None:
        bellies = [list(b) for b in v.bellies]
    else:
        bellies = [list(b) for b in v.fed_since]
        for c in range(NUM_COLOURS):
            left = (BISCUITS_PER_COLOUR - v.supply[c] - sum(row[c] for row in v.collected)
                    - sum(b[c] for b in bellies))
            for d in rng.integers(3, size=max(left, 0)):
                bellies[d][c] += 1
    pile = {}
    # the card under way came from the last letter begun (letters are drawn in order)
    begun = [i for i, left in enumerate(v.cards_left) if left < len(DECK[LETTERS[i]])]
    for i, (letter, left) in enumerate(zip(LETTERS, v.cards_left, strict=True)):
        cards = list(DECK[letter])
        if v.card is not None and begun and i == begun[-1] and v.card in cards:
            cards.remove(v.card)
        keep = []
        if "end" in cards and left:  # the end card is always the last one turned over
            cards.remove("end")
            keep, left = ["end"], left - 1
        pile[letter] = keep + [cards[i] for i in sorted(rng.permutation(len(cards))[:left])]
    wheels = [None] * n
    for s, set_ in enumerate(v.wheels_set):
        if set_:
            wheels[s] = COLOURS[v.own_wheel if s == v.seat else int(rng.integers(NUM_COLOURS))]
    share = v.last_share
    state = {
        "num_players": n, "positions": list(v.positions), "supply": list(v.supply),
        "bellies": bellies, "collected": [list(r) for r in v.collected], "pile": pile,
        "active": v.active, "phase": v.phase, "card": v.card,
        "donkey": None if v.donkey is None else DONKEYS[v.donkey],
        "feed_left": v.feed_left, "card_fed": list(v.card_fed),
        "end_left": [DONKEYS[d] for d in v.end_left], "wheels": wheels,
        "fed_since": [[list(r) for r in v.fed_since] if s == v.seat
                      else [[0] * NUM_COLOURS for _ in range(3)] for s in range(n)],
        "share_new": [v.share_new if s == v.seat else False for s in range(n)],
        "last_share": None if share is None else {
            "donkey": DONKEYS[share.donkey], "out": list(share.out),
            "wheels": [COLOURS[w] for w in share.wheels], "gains": list(share.gains),
            "back": list(share.back)},
    }
    return MampfosGame.from_state_dict(state, np.random.default_rng(int(rng.integers(2**63))),
                                       {"num_players": n, "memory": v.memory})


def engine_options(game: Any) -> dict:
    """The rules options of ``game`` (``MampfosGame.OPTIONS``), as its compiled engine takes
    them: what ISMCTS's playout batch is made with."""
    return {"num_players": game.num_players, "memory": game.memory}


def evaluate(game: Any) -> list[float]:
    """Rank rewards as if the game stopped now (biscuits collected, P-20)."""
    ranks = game.final_ranks()
    n = len(ranks)
    return [(sum(r < o for o in ranks) - sum(o < r for o in ranks)) / (n - 1) for r in ranks]
