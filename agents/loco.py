"""Scripted LOCO bots: ``loco/heuristic`` and ``loco/heuristic-strong``.

Both read only the :class:`~loco_envs.loco.rules.LocoView` and the action mask.

``loco/heuristic`` plays like a careful beginner:

- **Play or draw.** Play a matching coloured card rather than draw, preferring the play that
  sheds the most points (duplicates all at once, high numbers and action cards first) and keeps
  the colour it holds most of. A Wild comes only when no coloured card fits; a Swap only when an
  opponent's hand is smaller than its own; a Rotation only when the hand it would receive is
  smaller.
- **Keep a stack answer.** Its last +2 or +4 is kept to answer a penalty, unless the hand is
  down to a few cards. A pending penalty is always answered when it can be, with every copy.
- **Colour** the one it holds most of; **Swap** with the smallest hand.
- **Calls.** Always announce LOCO; shout Contre-LOCO exactly when the caller stayed silent.
- **Slaps.** Slap with every copy when that sheds cards it does not want to keep (never its last
  stack answer, never a Rotation that would bring a bigger hand); always when it empties the hand.
- **Slaps on its own turn** (L-41: the seat whose turn it is decides in the window too). A slap
  is a play, so it slaps exactly what its regular turn would play (the answer to a penalty, or
  its chosen card): if nobody else slaps that changes nothing, and it keeps the turn from a rival
  slapper.
- **Stacking.** It reads the ``stacking`` option in its view: with ``"identical"`` only a card
  identical to the top answers a penalty.

``loco/heuristic-strong`` adds what a good player tracks:

- **Counting by elimination.** Unseen cards = the deck minus its own hand minus the discard pile;
  from them, the chance that an opponent of a given hand size holds some card.
- **Blocking.** When the next player is close to going out, Skip / Reverse / +2 / +4 them, Swap
  hands with a player down to one or two cards, and rotate hands when that brings a small one.
- **Tempo with two players.** A Skip or Reverse gives the turn back: play them one at a time and
  play again. A +2 that the opponent will likely answer (and send back doubled) is held; with
  ``stacking="identical"`` only the identical copy could answer it.
- **Colour** the one it holds most of, ties going to the colour opponents are least likely to hold;
  **plays** prefer leaving a colour the next player probably cannot follow.
- **Slaps** also attack: a +2 / +4 slap on a near-finished next player.
- **Racing on its own turn only when a race is possible.** A coloured card has at most two
  copies, so when the seat whose turn it is holds the one left, nobody can slap against it: it
  passes and keeps the whole choice of its turn. With a penalty aimed at it, it passes too: a
  rival's slap can only send the penalty past it (a third seat) or back to it grown (the card's
  player), where its copy still answers; slapping would spend that copy in the very cases where
  a rival would have let it off. Otherwise (a Wild or Rotation that rivals may hold) it races
  when its turn would play that card anyway, since a rival's slap would take its turn.
"""

from __future__ import annotations

from dataclasses import replace
from math import comb

import numpy as np

from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.rules import LocoView

__all__ = ["LocoHeuristic", "LocoStrong"]

STACKERS = frozenset(i for i, k in enumerate(C.KIND) if k in ("+2", "+4"))
#: Hand size up to which a bot stops holding its last stack answer back.
ENDGAME = 3


def legal_plays(mask: np.ndarray, base: int = A.PLAY0) -> dict[int, int]:
    """Identity -> the largest number of copies the mask allows to play (or slap, ``A.SLAP0``)."""
    plays: dict[int, int] = {}
    for a in np.flatnonzero(mask[base: base + A.NUM_PLAYS]):
        ident, count = A.PLAY_IDENT_LIST[a], A.PLAY_COUNT_LIST[a]
        plays[ident] = max(plays.get(ident, 0), count)
    return plays


def playing_seats(view: LocoView) -> list[int]:
    return [s for s in range(view.num_players) if view.active[s] and view.in_round[s]]


def seat_after(view: LocoView, seat: int, direction: int | None = None) -> int:
    """The next seat still playing from ``seat`` in the direction of play (or ``direction``)."""
    step = view.direction if direction is None else direction
    playing = set(playing_seats(view))
    nxt = (seat + step) % view.num_players
    while nxt not in playing and nxt != seat:
        nxt = (nxt + step) % view.num_players
    return nxt


def answers(view: LocoView, top: int) -> list[int]:
    """Identities that answer a penalty started by ``top`` (L-32/L-33, option ``stacking``)."""
    if view.stacking == "identical" or C.KIND[top] == "+4":
        return [top]
    return C.PLUS2_IDS


def turn_plays(view: LocoView) -> dict[int, int]:
    """Identity -> copies the seat could play in its regular turn on the table of ``view``."""
    if view.pending:
        idents = answers(view, view.top)
    else:
        idents = [i for i in range(C.NUM_IDENTITIES) if C.matches(i, view.top, view.colour)]
    return {i: view.hand[i] for i in idents if view.hand[i]}


def colour_counts(hand: tuple[int, ...] | np.ndarray) -> np.ndarray:
    """Cards of each colour in a hand (wilds not counted)."""
    counts = np.zeros(len(C.COLOURS), int)
    for ident, n in enumerate(hand):
        if n and C.COLOUR[ident] >= 0:
            counts[C.COLOUR[ident]] += n
    return counts


class LocoHeuristic:
    """``loco/heuristic`` (see the module docstring)."""

    name = "loco/heuristic"

    def act(self, view: LocoView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        phase = view.phase
        if phase == "call":
            return A.LOCO
        if phase == "contre":
            return A.PASS if view.contre_announced else A.CONTRE
        if phase == "colour":
            return A.COLOUR0 + self.colour(view)
        if phase == "target":
            return self.target(view, action_mask)
        if phase == "slap":
            return self.slap(view, action_mask)
        choice = self.turn_choice(view, legal_plays(action_mask))
        if choice is not None:
            return A.play_action(*choice)
        return A.DRAW if action_mask[A.DRAW] else A.PASS

    # --- the regular turn ------------------------------------------------------------------
    def turn_choice(self, view: LocoView, plays: dict[int, int]) -> tuple[int, int] | None:
        """(identity, copies) to play in a turn phase, or ``None`` to draw / pass."""
        if view.pending:  # answer with every copy whenever it can
            ident = max(plays, key=lambda i: (plays[i], i), default=None)
            return None if ident is None else (ident, plays[ident])
        return self.choose_play(view, plays)

    def choose_play(self, view: LocoView, plays: dict[int, int]) -> tuple[int, int] | None:
        """(identity, copies) to play, or ``None`` to draw / pass."""
        hand = np.array(view.hand)
        coloured = {i: k for i, k in plays.items() if not C.is_wild(i) and i not in STACKERS}
        coloured = {i: k for i, k in coloured.items()
                    if C.KIND[i] != "X" or self.swap_helps(view, k)}
        if coloured:
            left = colour_counts(hand)
            return max(((i, k) for i, k in coloured.items()),
                       key=lambda p: (self.shed_value(view, *p) + 5 * left[C.COLOUR[p[0]]], p[0]))
        if C.WILD in plays:
            return C.WILD, 1
        if C.ROTATION in plays and self.rotation_helps(view, 1):
            return C.ROTATION, 1
        for ident in sorted(i for i in plays if i in STACKERS):
            if self.may_spend_stacker(view, ident, 1):
                return ident, 1
        return None

    def shed_value(self, view: LocoView, ident: int, count: int) -> float:
        return float(C.POINTS[ident] * count)

    def may_spend_stacker(self, view: LocoView, ident: int, count: int) -> bool:
        """Keep the last +2/+4 to answer a stack, unless the hand is nearly out."""
        held = sum(view.hand[i] for i in STACKERS)
        size = view.hand_sizes[view.seat]
        return held - count >= 1 or size - count <= ENDGAME

    def swap_helps(self, view: LocoView, count: int) -> bool:
        size = view.hand_sizes[view.seat] - count
        others = [view.hand_sizes[s] for s in playing_seats(view) if s != view.seat]
        return bool(others) and min(others) < size

    def rotation_helps(self, view: LocoView, count: int) -> bool:
        """k Rotations bring the hand of the seat k places back against the direction of play."""
        giver = view.seat
        for _ in range(count):
            giver = seat_after(view, giver, -view.direction)
        return view.hand_sizes[giver] < view.hand_sizes[view.seat] - count

    # --- sub-decisions -----------------------------------------------------------------------
    def colour(self, view: LocoView) -> int:
        counts = colour_counts(view.hand)
        points = np.zeros(len(C.COLOURS))
        for ident, n in enumerate(view.hand):
            if n and C.COLOUR[ident] >= 0:
                points[C.COLOUR[ident]] += n * C.POINTS[ident]
        return int(max(range(len(C.COLOURS)), key=lambda c: (counts[c], points[c], -c)))

    def target(self, view: LocoView, mask: np.ndarray) -> int:
        """The legal Swap target with the smallest hand (nearest clockwise on ties)."""
        options = [a for a in range(A.TARGET0, A.LOCO) if mask[a]]
        return min(options, key=lambda a: (self.target_size(view, a), a))

    @staticmethod
    def target_size(view: LocoView, action: int) -> int:
        return view.hand_sizes[(view.seat + action - A.TARGET0 + 1) % view.num_players]

    def slap(self, view: LocoView, mask: np.ndarray) -> int:
        slaps = legal_plays(mask, A.SLAP0)
        if not slaps:
            return A.PASS
        ident, count = next(iter(slaps.items()))
        if count == view.hand_sizes[view.seat]:
            return A.slap_action(ident, count)  # going out
        if view.seat == view.turn_seat:
            return self.turn_seat_slap(view, ident, count)
        if ident in STACKERS:
            count = min(count, sum(view.hand[i] for i in STACKERS) - 1)
            if count < 1 or not self.may_spend_stacker(view, ident, count):
                return A.PASS
        if ident == C.ROTATION and not self.rotation_helps(view, count):
            return A.PASS
        return A.slap_action(ident, count)

    def turn_seat_slap(self, view: LocoView, ident: int, count: int) -> int:
        """L-41, the seat whose turn it is: slap what its regular turn would play."""
        choice = self.turn_choice(replace(view, phase="turn", actor=view.seat), turn_plays(view))
        if choice is not None and choice[0] == ident:
            return A.slap_action(ident, min(choice[1], count))
        return A.PASS


class LocoStrong(LocoHeuristic):
    """``loco/heuristic-strong`` (see the module docstring)."""

    name = "loco/heuristic-strong"

    # --- what is unseen ----------------------------------------------------------------------
    @staticmethod
    def unseen(view: LocoView) -> np.ndarray:
        """Cards of each identity in the draw pile or the other hands (by elimination)."""
        return np.maximum(C.FULL_DECK_COUNTS - np.array(view.hand) - np.array(view.discard_counts),
                          0)

    @staticmethod
    def p_holds(unseen: np.ndarray, idents: list[int] | np.ndarray, hand_size: int) -> float:
        """Chance that a hand of ``hand_size`` unseen cards holds one of ``idents``."""
        total = int(unseen.sum())
        hits = int(unseen[list(idents)].sum())
        if hand_size <= 0 or hits == 0 or total == 0:
            return 0.0
        hand_size = min(hand_size, total)
        return 1.0 - comb(total - hits, hand_size) / comb(total, hand_size)

    def next_seat(self, view: LocoView) -> int:
        return seat_after(view, view.seat)

    def threatened(self, view: LocoView) -> bool:
        """The next player is close to going out."""
        return view.hand_sizes[self.next_seat(view)] <= 2

    # --- the regular turn ----------------------------------------------------------------------
    def choose_play(self, view: LocoView, plays: dict[int, int]) -> tuple[int, int] | None:
        if not plays:
            return None
        hand = np.array(view.hand)
        size = view.hand_sizes[view.seat]
        unseen = self.unseen(view)
        nxt = self.next_seat(view)
        two = len(playing_seats(view)) == 2
        candidates: list[tuple[float, int, int]] = []
        for ident, most in plays.items():
            kind = C.KIND[ident]
            count = most
            if two and kind in ("S", "R") and most % 2 == 0 and most < size:
                count = most - 1  # an odd number gives the turn straight back
            if count == size:
                return ident, count  # going out
            value = self.play_value(view, hand, unseen, nxt, ident, count)
            if value is not None:
                candidates.append((value, ident, count))
        if not candidates:
            return None
        value, ident, count = max(candidates)
        return ident, count

    def play_value(self, view: LocoView, hand: np.ndarray, unseen: np.ndarray, nxt: int,
                   ident: int, count: int) -> float | None:
        """How good a play is (``None``: rather draw)."""
        kind = C.KIND[ident]
        size = view.hand_sizes[view.seat]
        threat = self.threatened(view)
        next_size = view.hand_sizes[nxt]
        two = len(playing_seats(view)) == 2
        if kind == "X":
            target = min((view.hand_sizes[s] for s in playing_seats(view) if s != view.seat),
                         default=size)
            gain = size - count - target
            return 100 + 20 * gain if gain > 0 else None
        if kind == "O":
            if not self.rotation_helps(view, count):
                return None
            giver = seat_after(view, view.seat, -view.direction)
            return 100 + 20 * (size - count - view.hand_sizes[giver])
        if ident in STACKERS:
            if threat:
                return 150 + 10 * count
            if not self.may_spend_stacker(view, ident, count):
                return None
            if two:
                replies = answers(view, ident)
                held = sum(view.hand[i] for i in replies) - count
                if held == 0 and self.p_holds(unseen, replies, next_size) > 0.5:
                    return None  # it would come back doubled
            return 5.0 + C.POINTS[ident] * count * 0.2
        if kind == "W":
            return 10.0 if not threat else 5.0
        # a coloured card: shed points, stay in our colour, leave a colour they cannot follow
        left = colour_counts(hand)
        colour = C.COLOUR[ident]
        left[colour] -= count
        value = 30 + C.POINTS[ident] * count + 6 * left[colour]
        follow = [i for i in range(C.NUM_IDENTITIES)
                  if C.COLOUR[i] == colour or C.KIND[i] == kind]
        value -= 20 * self.p_holds(unseen, follow, next_size)
        if threat and kind in ("S", "R"):
            value += 120
        if two and kind in ("S", "R"):
            value += 40  # play again at once
        return value

    # --- sub-decisions -------------------------------------------------------------------------
    def colour(self, view: LocoView) -> int:
        counts = colour_counts(view.hand)
        unseen_by_colour = colour_counts(self.unseen(view))
        return int(max(range(len(C.COLOURS)),
                       key=lambda c: (counts[c], -unseen_by_colour[c], -c)))

    def slap(self, view: LocoView, mask: np.ndarray) -> int:
        slaps = legal_plays(mask, A.SLAP0)
        if slaps and view.seat != view.turn_seat:
            ident, count = next(iter(slaps.items()))
            after = seat_after(view, view.seat)
            if ident in STACKERS and view.hand_sizes[after] <= 2:
                return A.slap_action(ident, count)  # pile the penalty on a near winner
        return super().slap(view, mask)

    def turn_seat_slap(self, view: LocoView, ident: int, count: int) -> int:
        """Race only where a rival could slap first and that would cost something."""
        if not self.unseen(view)[ident]:
            return A.PASS  # nobody else holds one: the turn offers this play and every other
        if view.pending:
            return A.PASS  # a rival's slap sends the penalty past it or back where it answers
        return super().turn_seat_slap(view, ident, count)
