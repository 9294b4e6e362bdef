"""``moco/heuristic``: a scripted Moco! bot that reads only the :class:`MocoView` and the mask.

A chip is worth the top card of its suit's pile at the end (M-21), so the bot:

- **plays** the card that moves pile values its way: each play changes one pile's value by
  (card − current top); weighted by its own chips of that suit minus the mean of the opponents'
  chips, that is its gain. It raises suits it holds chips in and sinks the others' suits; among
  equal gains it dumps its lowest card on a pile nobody cares about. A play that would end the
  game (a sixth card on a pile, M-20) is taken only when the bot then leads, and avoided otherwise;
- **takes** the chip of the suit likely to end highest: the pile's value now, raised half-way
  towards the best card of that suit it still holds (a card it can play there later), with
  piles close to six cards trusted as they stand.
"""

from __future__ import annotations

import numpy as np

from loco_envs.moco import actions as codec
from loco_envs.moco.cards import CARDS, NUM_SUITS, VALUES
from loco_envs.moco.rules import PILE_LIMIT, MocoView

__all__ = ["MocoHeuristic"]


class MocoHeuristic:
    """``moco/heuristic`` (see the module docstring)."""

    name = "moco/heuristic"

    def act(self, view: MocoView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if view.phase == "play":
            table = _Table(view)  # the view's derived numbers, once per decision
            return max((int(a) for a in legal), key=lambda a: (table.play_value(a), -a))
        chips = [int(a) for a in legal if a != codec.NO_CHIP]
        if not chips:
            return codec.NO_CHIP
        estimate = self.expected_values(view)
        return max(chips, key=lambda a: (estimate[a - codec.FIRST_CHIP], -a))

    def expected_values(self, view: MocoView) -> list[float]:
        """What a chip of each suit will probably be worth at the end."""
        now = view.pile_values
        best = [0] * NUM_SUITS
        for card in view.hand:
            for suit in CARDS[card].suits:
                best[suit] = max(best[suit], VALUES[card])
        estimate = []
        for suit in range(NUM_SUITS):
            settled = view.heights[suit] / PILE_LIMIT
            hope = max(0, best[suit] - now[suit]) * 0.5 * (1 - settled)
            estimate.append(now[suit] + hope)
        return estimate


class _Table:
    """The numbers of a view that every play's value reads (computed once per decision)."""

    def __init__(self, view: MocoView):
        self.chips = view.chips
        self.values = view.pile_values
        self.heights = view.heights
        self.me = view.seat
        self.others = [s for s in range(view.num_players) if s != view.seat]

    def play_value(self, action: int) -> float:
        """What playing ``action`` is worth to the bot (the module docstring)."""
        card, pile = codec.PLAY_CARD[action], codec.PLAY_PILE[action]
        delta = VALUES[card] - self.values[pile]
        chips, me, others = self.chips, self.me, self.others
        theirs = sum(chips[s][pile] for s in others) / len(others)  # exact: small integers
        value = (chips[me][pile] - theirs) * delta
        if self.heights[pile] + 1 >= PILE_LIMIT:  # this card ends the game (M-20)
            values = list(self.values)
            values[pile] = VALUES[card]
            scores = [sum(c * v for c, v in zip(chips[s], values, strict=True))
                      for s in range(len(chips))]
            leads = scores[me] > max(scores[s] for s in others)
            value += 1000 if leads else -1000
        return value - 0.01 * VALUES[card]  # on a tie, keep the higher card for later
