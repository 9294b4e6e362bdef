"""``mampfos/heuristic`` and ``mampfos/bold``: scripted Los Mampfos bots that read only the
view and the mask. ``mampfos/bold`` plays as the heuristic below except for its millwheel
(:class:`MampfosBold`).

- **Keeping track.** With ``memory="perfect"`` the bellies are in the view. With ``"recall"``
  (P-31) the bot remembers them the way a careful child does: after a share-out a donkey holds
  what went back; every biscuit fed since (``fed_since``) is added. The public totals (20 of a
  colour minus the supply minus what players collected) check that memory; when it does not add
  up (the bot joined mid-game) it restarts from what it saw since its last decision and
  spreads the unexplained rest evenly over the donkeys.
- **Millwheel** (P-12): the colour with the best expected share of the emptying donkey. Each
  opponent is assumed to pick a colour with a chance proportional to its amount (plus one), and
  the share rule is applied to every number of opponents it might share with.
- **Feeding** (P-11): feed the colour the donkey already holds most of (among those left in the
  supply), so that one colour piles up where it is easy to remember and worth a share.
- **Donkey** (★ cards, end order): for droppings, the donkey whose emptying promises the best
  share; for feeding, the one already holding the most.

The recall-mode memory makes the bot stateful within a game: use one bot per seat and game (the
tournament runner does). A bot reused across games notices the new game by the check above.
"""

from __future__ import annotations

from math import comb

import numpy as np

from loco_envs.mampfos.actions import (
    DONKEY_BASE,
    FEED_BASE,
    NUM_COLOURS,
    NUM_DONKEYS,
    WHEEL_BASE,
)
from loco_envs.mampfos.rules import BISCUITS_PER_COLOUR, MampfosView

__all__ = ["MampfosBold", "MampfosHeuristic", "expected_share"]


def expected_share(out: list[int] | tuple[int, ...], colour: int, others: int) -> float:
    """What one player choosing ``colour`` expects from droppings ``out`` (P-12).

    Each of ``others`` players picks ``colour`` with chance proportional to ``out[c] + 1``.
    """
    n = out[colour]
    if n == 0:
        return 0.0
    weights = np.array(out, float) + 1.0
    q = weights[colour] / weights.sum()
    total = 0.0
    for k in range(others + 1):  # k opponents chose the same colour
        if n >= k + 1:
            total += comb(others, k) * q**k * (1 - q) ** (others - k) * (n // (k + 1))
    return total


class MampfosHeuristic:
    """``mampfos/heuristic`` (see the module docstring)."""

    name = "mampfos/heuristic"

    def __init__(self) -> None:
        self.memory: np.ndarray | None = None  # remembered bellies, donkey x colour

    def act(self, view: MampfosView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        bellies = self.bellies(view)
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        others = view.num_players - 1
        if view.phase == "wheel":
            colours = [a - WHEEL_BASE for a in legal]
            return WHEEL_BASE + self.millwheel(bellies[view.donkey], colours, others)
        if view.phase == "feed":
            held = bellies[view.donkey]
            return max(legal, key=lambda a: (held[a - FEED_BASE], view.supply[a - FEED_BASE], -a))
        # choosing a donkey
        if view.card is not None and view.card.startswith("feed"):
            return max(legal, key=lambda a: (bellies[a - DONKEY_BASE].sum(), -a))
        return max(legal, key=lambda a: (self.best_share(bellies[a - DONKEY_BASE], others), -a))

    @staticmethod
    def millwheel(out: np.ndarray, colours: list[int], others: int) -> int:
        """The colour of ``colours`` with the best expected share of droppings ``out`` (the
        lowest of equals)."""
        return max(colours, key=lambda c: (expected_share(out, c, others), -c))

    @staticmethod
    def best_share(out: np.ndarray, others: int) -> float:
        return max(expected_share(out, c, others) for c in range(NUM_COLOURS))

    def bellies(self, view: MampfosView) -> np.ndarray:
        """Donkey x colour contents: observed (perfect memory) or remembered (recall)."""
        if view.bellies is not None:
            return np.array(view.bellies, int)
        fed = np.array(view.fed_since, int)
        memory = self.memory if self.memory is not None else np.zeros((NUM_DONKEYS, NUM_COLOURS),
                                                                       int)
        memory = memory.copy()
        if view.share_new and view.last_share is not None:
            memory[view.last_share.donkey] = view.last_share.back
        memory += fed
        in_bellies = (BISCUITS_PER_COLOUR - np.array(view.supply)
                      - np.array(view.collected).sum(axis=0))
        if not np.array_equal(memory.sum(axis=0), in_bellies):
            memory = fed.copy()
            if view.share_new and view.last_share is not None:
                memory[view.last_share.donkey] += view.last_share.back
            rest = np.maximum(in_bellies - memory.sum(axis=0), 0)
            memory += rest // NUM_DONKEYS
            memory[0] += rest % NUM_DONKEYS
        self.memory = memory
        return memory


class MampfosBold(MampfosHeuristic):
    """``mampfos/bold``: the heuristic's play, but a millwheel that holds a lead and gambles
    for one.

    Why. At three players ``mampfos/heuristic``'s millwheel is a colour of which the donkey
    holds the most (its expected share prefers a smaller heap only from 16 of a colour on; at
    four and five players sometimes sooner). A player who sets the same colour gains exactly
    what the heuristic gains, so the two end level; any other colour gains less than the
    heuristic's, or as much, in expectation (a third player who joins either colour halves it).
    Against the heuristic the only way ahead is variance, taken while it costs nothing:

    - **ahead** of every other player: the greedy colour, the heuristic's own. Whoever sets it
      too gains what I gain, so a lead over a copy of the heuristic is kept to the end.
    - **level**: the runner-up colour when it holds as many as the greedy one (a fair coin:
      whoever shares with the third player loses half), else the greedy colour.
    - **behind**: the runner-up colour when it holds more than half the greedy one's (if the
      third player joins the greedy colour I come out ahead), else the greedy colour. Copying
      the heuristic from behind loses for certain; a long shot does not.

    "Greedy" is always the heuristic's own colour and "runner-up" the largest heap of another
    colour. Built for three players: at two, no third player can collide with the heuristic, so
    a gamble cannot pay against it (the two are level there, ``docs/ratings.md``); at four and
    five the heuristic may shun the largest heap, and the runner-up may then be the larger one.
    Feeding and choosing donkeys are the heuristic's (module docstring), as is the memory in
    ``memory="recall"``.
    """

    name = "mampfos/bold"

    def act(self, view: MampfosView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        if view.phase != "wheel":
            return super().act(view, action_mask, rng)
        out = self.bellies(view)[view.donkey]
        colours = [int(a) - WHEEL_BASE for a in np.flatnonzero(action_mask)]
        greedy = self.millwheel(out, colours, view.num_players - 1)
        rest = [c for c in colours if c != greedy]
        if not rest:
            return WHEEL_BASE + greedy
        runner_up = max(rest, key=lambda c: (out[c], -c))
        lead = self.lead(view)
        if lead > 0 or out[runner_up] == 0:
            return WHEEL_BASE + greedy
        if lead == 0:
            gamble = out[runner_up] == out[greedy]
        else:
            gamble = out[runner_up] > out[greedy] // 2
        return WHEEL_BASE + (runner_up if gamble else greedy)

    @staticmethod
    def lead(view: MampfosView) -> int:
        """My biscuits minus the most any other player holds (P-20: colours do not count)."""
        totals = [sum(row) for row in view.collected]
        return totals[view.seat] - max(t for seat, t in enumerate(totals) if seat != view.seat)
