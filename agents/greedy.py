"""``moco/greedy`` and ``momo/greedy``: one-ply greedy yardsticks written from the rules pages.

Why they exist: an agent trained against ``<game>/heuristic`` may learn to beat that one bot
rather than the game. These bots are built from ``docs/rules/moco.md`` and
``docs/rules/momo.md`` alone, share no code or weights with the heuristics or the features,
and are kept out of training (no config's ``opponent_mix`` names them), so a win rate against
them measures what an agent learned about the game.

Each looks one turn ahead and takes the move whose immediate result is best, with no estimate of
the future; moves of equal value are broken at random with the generator it is handed, so a
game is reproducible from its seeds and the bot does not always fall into the same line. Both
read only their seat's view and the action mask.

- ``moco/greedy``: a position is worth the bot's score minus the best other score, every chip
  valued at its pile's top card now (M-21, M-22). A play is valued together with the best chip it
  then allows (M-11 .. M-13, the two-player ban of M-12 included); a play that ends the game
  (M-20: a sixth card on a pile, or the last card held by anyone) is worth a win or a loss by
  the final scores, before any margin.
- ``momo/greedy``: a pick (K-10, K-11) is worth the points (K-20 .. K-24) its tokens add to the
  bot's picture when placed one at a time, each where it adds most now (K-12, K-13), then the
  number of tokens it keeps; a placement is worth the points of the picture after it. The
  expansions (K-30, K-31) are ignored.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from loco_envs.moco import actions as moco_codec
from loco_envs.moco.cards import NUM_SUITS, VALUES
from loco_envs.moco.rules import PILE_LIMIT, MocoView
from loco_envs.momo import actions as momo_codec
from loco_envs.momo.rules import MomoView
from loco_envs.momo.scoring import board_points

__all__ = ["MocoGreedy", "MomoGreedy"]

#: Added to (or taken from) a Moco! margin when the move ends the game won (lost): a decided
#: game outweighs any margin of chips (30 chips x value 10 at most).
_DECIDED = 1000


def _best(legal: list[int], values: list, rng: np.random.Generator) -> int:
    """One of the best-valued legal actions, drawn uniformly with ``rng``."""
    top = max(values)
    best = [a for a, v in zip(legal, values, strict=True) if v == top]
    return best[0] if len(best) == 1 else best[int(rng.integers(len(best)))]


class MocoGreedy:
    """``moco/greedy`` (see the module docstring)."""

    name = "moco/greedy"

    def act(self, view: MocoView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("moco/greedy: the action mask has no legal action")
        values = list(view.pile_values)
        chips = [list(c) for c in view.chips]
        if view.phase == "play":
            scored = [self._play_value(view, chips, values, a) for a in legal]
        else:
            scored = [self._chip_value(view, chips, values, a) for a in legal]
        return _best(legal, scored, rng)

    @staticmethod
    def _margin(chips: list[list[int]], values: list[int], me: int) -> int:
        """M-21/M-22: the bot's score minus the best other seat's, at these pile values."""
        scores = [sum(c * v for c, v in zip(row, values, strict=True)) for row in chips]
        return scores[me] - max(s for seat, s in enumerate(scores) if seat != me)

    def _chip_value(self, view: MocoView, chips: list[list[int]], values: list[int],
                    action: int) -> int:
        if action == moco_codec.NO_CHIP:
            return self._margin(chips, values, view.seat)
        suit = action - moco_codec.FIRST_CHIP
        chips[view.seat][suit] += 1
        try:
            return self._margin(chips, values, view.seat)
        finally:
            chips[view.seat][suit] -= 1

    def _play_value(self, view: MocoView, chips: list[list[int]], values: list[int],
                    action: int) -> int:
        card, pile = moco_codec.PLAY_CARD[action], moco_codec.PLAY_PILE[action]
        after = list(values)
        after[pile] = VALUES[card]  # M-21: the card is the pile's new top
        ends = (view.heights[pile] + 1 >= PILE_LIMIT  # M-20: a sixth card on the pile
                or sum(view.hand_sizes) == 1)  # M-20: the last card held by anyone
        if ends:  # no chip for the ending card (M-20)
            margin = self._margin(chips, after, view.seat)
            return margin + (_DECIDED if margin > 0 else -_DECIDED if margin < 0 else 0)
        best = self._margin(chips, after, view.seat)  # M-13: when no chip may be taken
        for suit in range(NUM_SUITS):
            if view.supply[suit] == 0 or (view.num_players == 2 and suit == pile):  # M-12/13
                continue
            chips[view.seat][suit] += 1
            best = max(best, self._margin(chips, after, view.seat))
            chips[view.seat][suit] -= 1
        return best


@lru_cache(maxsize=1 << 16)
def _points(cells: tuple[int, ...]) -> int:
    """K-20 .. K-24 of a picture (cached: a pick's simulations meet the same pictures)."""
    return board_points(cells)


def _place(cells: tuple[int, ...], token: int, row: int) -> tuple[int, ...] | None:
    """K-12: ``token`` in the leftmost empty cell of ``row``; ``None`` when the row is full."""
    start = row * momo_codec.COLS
    for cell in range(start, start + momo_codec.COLS):
        if cells[cell] < 0:
            return cells[:cell] + (token,) + cells[cell + 1:]
    return None


def _destination(forest: tuple[tuple[int, ...], ...], area: int, token: int) -> int:
    """K-10: the area a picked token moves to, by its animal (areas clockwise A, B, C, D)."""
    species, areas = momo_codec.SPECIES_OF[token], momo_codec.NUM_AREAS
    name = momo_codec.SPECIES[species]
    if name == "rabbit":
        return (area + 1) % areas
    if name == "leopard":
        return (area - 1) % areas
    if name == "eagle":
        return (area + 2) % areas
    if name == "bear":
        return area
    ducks = [t for t in range(momo_codec.NUM_TOKEN_TYPES) if momo_codec.SPECIES_OF[t] == species]
    for step in (1, 2, 3):  # duck: the first other area clockwise that holds a duck
        other = (area + step) % areas
        if any(forest[other][t] for t in ducks):
            return other
    return area


def _taken(forest: tuple[tuple[int, ...], ...], area: int, token: int) -> list[int]:
    """K-11: the moved token and every token of its colour in the destination area."""
    dest = _destination(forest, area, token)
    colour = momo_codec.COLOUR_OF[token]
    taken = [t for t in range(momo_codec.NUM_TOKEN_TYPES) if momo_codec.COLOUR_OF[t] == colour
             for _ in range(forest[dest][t])]
    if dest != area:
        taken.append(token)  # it left its own area and joins the take
    return taken


@lru_cache(maxsize=1 << 14)
def _placed_greedily(cells: tuple[int, ...], taken: tuple[int, ...]) -> tuple[int, int]:
    """K-12/K-13: ``taken`` placed one at a time where each adds most points now.

    Returns the points of the final picture and how many tokens found room.
    """
    todo, board, kept = sorted(taken), cells, 0
    while todo:
        options = [(after, t) for t in sorted(set(todo)) for row in range(momo_codec.ROWS)
                   if (after := _place(board, t, row)) is not None]
        if not options:  # the picture is full: the rest is discarded (K-13)
            break
        board, token = max(options, key=lambda o: _points(o[0]))
        todo.remove(token)
        kept += 1
    return _points(board), kept


class MomoGreedy:
    """``momo/greedy`` (see the module docstring)."""

    name = "momo/greedy"

    def act(self, view: MomoView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("momo/greedy: the action mask has no legal action")
        cells = tuple(view.boards[view.seat])
        if view.phase == "place":
            scored = []
            for a in legal:
                token, row = divmod(a - momo_codec.PLACE_BASE, momo_codec.ROWS)
                after = _place(cells, token, row)
                scored.append(-1 if after is None else _points(after))
            return _best(legal, scored, rng)
        scored = []
        for a in legal:
            area, token = divmod(a - momo_codec.PICK_BASE, momo_codec.NUM_TOKEN_TYPES)
            taken = tuple(sorted(_taken(view.forest, area, token)))
            scored.append(_placed_greedily(cells, taken))
        return _best(legal, scored, rng)
