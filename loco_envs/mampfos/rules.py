"""Los Mampfos rules engine (rule ids P-xx of ``docs/rules/mampfos.md``).

Three donkeys trot round a 12-space path; players feed them biscuits from a common supply and,
when a donkey does its business, everybody secretly sets a millwheel to a colour and shares what
comes out of that colour with whoever guessed alike. The most biscuits wins; ties share the win.

Seats, turn order and decisions
-------------------------------
Seats are ``0 .. n-1``; "clockwise" is increasing seat number. The active seat turns over the
top card (chance: a uniform draw from the remaining cards of the top letter, from ``self.rng``);
turning over needs no decision. The decisions are:

* ``donkey``: the active seat picks a donkey for a ★ card (P-11, P-12) or the next donkey of the
  end card's final droppings (P-13; the last one goes by itself).
* ``feed``: the active seat feeds the card's number of biscuits one at a time (P-11).
* ``wheel``: every seat in turn, from the active seat clockwise, sets its millwheel (P-12). The
  choices stay secret until all are set and the share-out is done.

``state_dict`` schema
---------------------
Colour vectors are lists of 5 ints in the order orange, red, blue, green, yellow; donkey vectors
list white, grey, brown. Card codes: ``"feed W3"`` (donkey letter W/G/B or ``*`` for any, number
1-3), ``"drop W"`` / ``"drop *"``, ``"end"``.

=================  ================================================================================
field              meaning
=================  ================================================================================
``num_players``    int, must equal the env's ``num_players``
``positions``      [3] distinct ints 0..11: the space of each donkey
``supply``         colour vector: biscuits in the middle
``bellies``        [3] colour vectors: what each donkey has eaten and not yet dropped
``collected``      [n] colour vectors: each seat's biscuits. Per colour, supply + bellies +
                   collected must be 20 (P-02)
``pile``           {"A".."H": [card codes]}: the cards not yet turned over, per back letter
                   (order inside a letter does not matter: a flip draws one at random)
``active``         int: the seat whose card is being carried out
``phase``          ``"donkey"``, ``"feed"``, ``"wheel"`` or ``"over"``
``card``           card code being carried out, or null when over
``donkey``         donkey name being fed / emptied, or null (``donkey`` phase, over)
``feed_left``      int: biscuits still to feed under the current feed card
``card_fed``       colour vector: biscuits fed so far under the current feed card
``end_left``       donkey names that have still to be chosen for their final droppings (P-13)
``wheels``         [n] colour name or null: millwheels set so far in this droppings (hidden)
``fed_since``      [n][3] colour vectors: biscuits fed to each donkey since that seat's last
                   decision (after the last share-out of that donkey)
``share_new``      [n] bools: the last share-out happened after that seat's last decision
``last_share``     null or {"donkey", "out", "wheels", "gains", "back"}: the last share-out
                   (out/back colour vectors, wheels [n] colour names, gains [n] ints)
=================  ================================================================================

The seat to act is derived: the active seat in ``donkey``/``feed``, the next seat without a
millwheel (from the active seat clockwise) in ``wheel``, ``-1`` when over.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from loco_envs.core.game import Game, IllegalActionError
from loco_envs.core.options import Option, int_range
from loco_envs.mampfos import actions as codec
from loco_envs.mampfos.actions import COLOURS, DONKEYS, NUM_COLOURS
from loco_envs.mampfos.components import (  # noqa: F401 (re-exported: importable from here too)
    ANY,
    BISCUITS_PER_COLOUR,
    CARD_CODES,
    CARD_DONKEY,
    CARD_ID,
    CARD_KIND,
    CARD_NUMBER,
    DECK,
    DROP,
    END,
    END_CARD,
    FEED,
    LETTERS,
    PATH_LENGTH,
    PH_DONKEY,
    PH_FEED,
    PH_OVER,
    PH_WHEEL,
    PHASES,
    START_POSITIONS,
)
from loco_envs.mampfos.render import picture as _picture
from loco_envs.mampfos.render import render as _render_text

_RULE_OF_CARD = {FEED: "P-11", DROP: "P-12", END: "P-13"}


_NEWS = 3 * NUM_COLOURS
_NO_COLOURS = (0,) * NUM_COLOURS


def _table(flat: list[int]) -> tuple[tuple[int, ...], ...]:
    """Flat [donkey * 5 + colour] counts -> one colour tuple per donkey."""
    return tuple(tuple(flat[d * NUM_COLOURS:(d + 1) * NUM_COLOURS]) for d in range(3))


def _mask(indices: list[int]) -> np.ndarray:
    mask = np.zeros(codec.NUM_ACTIONS, np.int8)
    mask[indices] = 1
    return mask


# Preallocated masks: donkey subsets and supply patterns are bitsets.
_DONKEY_MASKS = [_mask([codec.donkey_action(d) for d in range(3) if bits >> d & 1])
                 for bits in range(8)]
_FEED_MASKS = [_mask([codec.feed_action(c) for c in range(NUM_COLOURS) if bits >> c & 1])
               for bits in range(1 << NUM_COLOURS)]
_WHEEL_MASK = _mask([codec.wheel_action(c) for c in range(NUM_COLOURS)])
_NO_MASK = _mask([])


def share_out(out: list[int] | tuple[int, ...], wheels: list[int] | tuple[int, ...]
              ) -> tuple[list[int], list[int]]:
    """P-12's share-out: (biscuits each seat gets, biscuits per colour that go back).

    ``out`` is the droppings per colour; ``wheels`` the colour each seat chose.
    """
    gains = [0] * len(wheels)
    back = list(out)
    for colour in range(NUM_COLOURS):
        n = out[colour]
        takers = [seat for seat, w in enumerate(wheels) if w == colour]
        p = len(takers)
        if p == 0 or n == 0 or n < p:  # nobody chose it, nothing there, or too few to go round
            continue
        each = n // p
        for seat in takers:
            gains[seat] = each
        back[colour] = n - each * p
    return gains, back


@dataclass(frozen=True)
class ShareOut:
    """A resolved droppings: all public once it is done."""

    donkey: int
    out: tuple[int, ...]
    wheels: tuple[int, ...]  # colour chosen by each seat (absolute seats)
    gains: tuple[int, ...]  # biscuits each seat received
    back: tuple[int, ...]  # biscuits per colour put back into the donkey


@dataclass(frozen=True)
class MampfosView:
    """What one seat may know (absolute seat numbers; ``seat`` is the viewer).

    ``bellies`` is ``None`` in ``memory="recall"`` (P-31), and so is ``last_share`` once the
    viewer has decided since that share-out (``share_new`` false). ``own_wheel`` is the viewer's
    own secret millwheel in the current droppings; nobody else's appears before the share-out.
    """

    seat: int
    num_players: int
    memory: str
    phase: str
    active: int
    to_act: int
    card: str | None
    donkey: int | None
    feed_left: int
    card_fed: tuple[int, ...]
    end_left: tuple[int, ...]
    wheels_set: tuple[bool, ...]
    own_wheel: int | None
    positions: tuple[int, ...]
    supply: tuple[int, ...]
    bellies: tuple[tuple[int, ...], ...] | None
    collected: tuple[tuple[int, ...], ...]
    cards_left: tuple[int, ...]
    fed_since: tuple[tuple[int, ...], ...]
    share_new: bool
    last_share: ShareOut | None


class MampfosGame(Game):
    """The whole Los Mampfos state and its transitions (see the module docstring)."""

    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(3, "number of players, 2 to 5 (P-01)", check=int_range(2, 5)),
        "memory": Option("perfect", "'perfect': bellies observed (P-30); 'recall': only what "
                         "is on the table and the last events (P-31)",
                         choices=("perfect", "recall")),
    }
    NUM_ACTIONS: ClassVar[int] = codec.NUM_ACTIONS
    codec = codec  # the actions module, named by the Game contract
    SEARCH = "loco_envs.mampfos.search"  # clone/resample (shared/API.md, Search)

    def __init__(self, rng: np.random.Generator, num_players: int = 3,
                 memory: str = "perfect"):
        self.rng = rng
        self.num_players = int_range(2, 5)(num_players)
        if memory not in ("perfect", "recall"):
            raise ValueError(f"option 'memory' must be one of ['perfect', 'recall'], "
                             f"got {memory!r}")
        self.memory = memory
        n = self.num_players
        self.positions = list(START_POSITIONS)  # P-01
        self.supply = [BISCUITS_PER_COLOUR] * NUM_COLOURS  # P-02
        self.bellies = [[0] * NUM_COLOURS for _ in range(3)]
        self.collected = [[0] * NUM_COLOURS for _ in range(n)]
        self.pile = [sorted(CARD_ID[c] for c in DECK[letter]) for letter in LETTERS]  # P-04
        self.phase = PH_DONKEY
        self.card = -1
        self.donkey = -1
        self.feed_left = 0
        self.card_fed = [0] * NUM_COLOURS
        self.end_left: list[int] = []
        self.wheels = [-1] * n  # P-03
        self.wheel_count = 0
        # per seat, flat [donkey * 5 + colour]: what was fed since that seat last decided
        self.fed_since = [[0] * _NEWS for _ in range(n)]
        self.share_new = [False] * n
        self.last_share: ShareOut | None = None
        self.terminal = False
        self.current_seat = -1
        self.active = int(rng.integers(n))  # P-10: the first player is drawn at random
        self._flip_until_decision(advance=False)

    # --- the Game contract ------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        phase = self.phase
        if phase == PH_WHEEL:
            return _WHEEL_MASK.copy()
        if phase == PH_FEED:
            bits = 0
            for colour in range(NUM_COLOURS):
                if self.supply[colour]:
                    bits |= 1 << colour
            return _FEED_MASKS[bits].copy()
        if phase == PH_DONKEY:
            if self.card == END_CARD:
                bits = 0
                for d in self.end_left:
                    bits |= 1 << d
                return _DONKEY_MASKS[bits].copy()
            return _DONKEY_MASKS[7].copy()
        return _NO_MASK.copy()

    def apply(self, action: int) -> None:
        if self.terminal:
            raise IllegalActionError("P-20: the game is over; no more actions")
        try:
            if isinstance(action, bool):
                raise TypeError
            a = operator.index(action)
        except TypeError:
            raise IllegalActionError(
                f"{self._rule()}: action {action!r} is not an action index") from None
        if not 0 <= a < codec.NUM_ACTIONS:
            raise IllegalActionError(
                f"{self._rule()}: action {a} is not an action index 0..{codec.NUM_ACTIONS - 1}")
        seat = self.current_seat
        phase = self.phase
        if phase == PH_DONKEY:
            d = a - codec.DONKEY_BASE
            if not 0 <= d < 3:
                raise IllegalActionError(
                    f"{self._rule()}: seat {seat} must choose a donkey, "
                    f"not {codec.ACTION_NAMES[a]!r}")
            if self.card == END_CARD and d not in self.end_left:
                raise IllegalActionError(
                    f"P-13: the {DONKEYS[d]} donkey has already done its final business")
            self._clear_news(seat)
            self.donkey = d
            if self.card == END_CARD:
                self.end_left.remove(d)
            if CARD_KIND[self.card] == FEED:
                if self._start_feed():
                    self._flip_until_decision()
            else:
                self._start_wheels()
        elif phase == PH_FEED:
            c = a - codec.FEED_BASE
            if not 0 <= c < NUM_COLOURS:
                raise IllegalActionError(
                    f"P-11: seat {seat} must choose a biscuit to feed, "
                    f"not {codec.ACTION_NAMES[a]!r}")
            if not self.supply[c]:
                raise IllegalActionError(f"P-11: the supply has no {COLOURS[c]} biscuits left")
            self._clear_news(seat)
            self._feed_one(self.donkey, c)
            self.feed_left -= 1
            if self.feed_left == 0:
                self._move(self.donkey, CARD_NUMBER[self.card])
                self._flip_until_decision()
        else:  # PH_WHEEL
            c = a - codec.WHEEL_BASE
            if not 0 <= c < NUM_COLOURS:
                raise IllegalActionError(
                    f"P-12: seat {seat} must set a millwheel colour, "
                    f"not {codec.ACTION_NAMES[a]!r}")
            self._clear_news(seat)
            self.wheels[seat] = c
            self.wheel_count += 1
            if self.wheel_count < self.num_players:
                self.current_seat = (self.active + self.wheel_count) % self.num_players
            else:
                self._resolve_droppings()

    def final_scores(self) -> list[float]:
        return [float(sum(row)) for row in self.collected]  # P-20: colours do not matter

    def final_ranks(self) -> list[int]:
        scores = [sum(row) for row in self.collected]
        return [sum(other > mine for other in scores) for mine in scores]

    # --- transitions ------------------------------------------------------------------------
    def _rule(self) -> str:
        if self.phase == PH_WHEEL:
            return "P-12"
        if self.phase == PH_FEED:
            return "P-11"
        return _RULE_OF_CARD.get(CARD_KIND[self.card], "P-10") if self.card >= 0 else "P-10"

    def _clear_news(self, seat: int) -> None:
        """A decision marks what the seat has seen; what follows it is news again."""
        self.fed_since[seat] = [0] * _NEWS
        self.share_new[seat] = False

    def _feed_one(self, donkey: int, colour: int) -> None:
        self.supply[colour] -= 1
        self.bellies[donkey][colour] += 1
        self.card_fed[colour] += 1
        i = donkey * NUM_COLOURS + colour
        for news in self.fed_since:
            news[i] += 1

    def _move(self, donkey: int, steps: int) -> None:
        """P-11: move clockwise; a move ending on a donkey goes on to the next free space."""
        pos = (self.positions[donkey] + steps) % PATH_LENGTH
        others = [p for d, p in enumerate(self.positions) if d != donkey]
        while pos in others:
            pos = (pos + 1) % PATH_LENGTH
        self.positions[donkey] = pos

    def _start_feed(self) -> bool:
        """Begin feeding ``self.donkey``; True when it needed no decision (P-11 shortage)."""
        k = CARD_NUMBER[self.card]
        self.feed_left = k
        self.card_fed = [0] * NUM_COLOURS
        if sum(self.supply) > k:
            self.phase = PH_FEED
            self.current_seat = self.active
            return False
        for colour in range(NUM_COLOURS):  # k or fewer left: all of it, without a decision
            for _ in range(self.supply[colour]):
                self._feed_one(self.donkey, colour)
        self.feed_left = 0
        self._move(self.donkey, k)
        return True

    def _start_wheels(self) -> None:
        self.phase = PH_WHEEL
        self.wheels = [-1] * self.num_players
        self.wheel_count = 0
        self.current_seat = self.active

    def _resolve_droppings(self) -> None:
        """P-12: empty the donkey, reveal the millwheels, share out, put the rest back."""
        d = self.donkey
        out = tuple(self.bellies[d])
        gains, back = share_out(out, self.wheels)
        for seat, gain in enumerate(gains):
            if gain:
                self.collected[seat][self.wheels[seat]] += gain
        self.bellies[d] = back
        self.last_share = ShareOut(d, out, tuple(self.wheels), tuple(gains), tuple(back))
        for seat in range(self.num_players):
            self.share_new[seat] = True
            self.fed_since[seat][d * NUM_COLOURS:(d + 1) * NUM_COLOURS] = _NO_COLOURS
        self.wheels = [-1] * self.num_players
        self.wheel_count = 0
        if self.card != END_CARD:
            self._flip_until_decision()
        elif not self.end_left:
            self._finish()
        elif len(self.end_left) == 1:  # P-13: the last donkey goes by itself
            self.donkey = self.end_left.pop()
            self._start_wheels()
        else:
            self.phase = PH_DONKEY
            self.donkey = -1
            self.current_seat = self.active

    def _finish(self) -> None:
        self.phase = PH_OVER
        self.terminal = True
        self.current_seat = -1
        self.card = -1
        self.donkey = -1

    def _flip_until_decision(self, advance: bool = True) -> None:
        """P-10: the next seat turns over the top card; cards needing no decision are carried
        out at once. ``advance=False`` (the first turn) keeps the active seat.
        """
        while True:
            if advance:
                self.active = (self.active + 1) % self.num_players
            advance = True
            card = self._draw()
            self.card = card
            self.donkey = -1
            self.card_fed = [0] * NUM_COLOURS
            self.feed_left = 0
            self.current_seat = self.active
            kind, who = CARD_KIND[card], CARD_DONKEY[card]
            if kind == END:
                self.end_left = [0, 1, 2]
                self.phase = PH_DONKEY
                return
            if who == ANY:
                self.phase = PH_DONKEY
                return
            self.donkey = who
            if kind == DROP:
                self._start_wheels()
                return
            if not self._start_feed():
                return

    def _draw(self) -> int:
        """Chance: a random card of the top letter (each letter stack is shuffled, P-04)."""
        for stack in self.pile:
            if stack:
                return stack.pop(int(self.rng.integers(len(stack))))
        raise RuntimeError("P-04: the draw pile is empty before the end card")

    # --- views ------------------------------------------------------------------------------
    def view(self, seat: int) -> MampfosView:
        n = self.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat {seat} out of range 0..{n - 1}")
        over = self.phase == PH_OVER
        in_wheel = self.phase == PH_WHEEL
        return MampfosView(
            seat=seat,
            num_players=n,
            memory=self.memory,
            phase=PHASES[self.phase],
            active=self.active,
            to_act=self.current_seat,
            card=None if self.card < 0 else CARD_CODES[self.card],
            donkey=None if self.donkey < 0 else self.donkey,
            feed_left=self.feed_left,
            card_fed=tuple(self.card_fed),
            end_left=tuple(self.end_left) if self.card == END_CARD and not over else (),
            wheels_set=tuple(in_wheel and w >= 0 for w in self.wheels),
            own_wheel=self.wheels[seat] if in_wheel and self.wheels[seat] >= 0 else None,
            positions=tuple(self.positions),
            supply=tuple(self.supply),
            bellies=(tuple(tuple(b) for b in self.bellies) if self.memory == "perfect"
                     else None),
            collected=tuple(tuple(row) for row in self.collected),
            cards_left=tuple(len(stack) for stack in self.pile),
            fed_since=_table(self.fed_since[seat]),
            share_new=self.share_new[seat],
            # P-31: in recall the last share-out is shown only while it is news to the seat
            last_share=(self.last_share if self.memory == "perfect" or self.share_new[seat]
                        else None),
        )

    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        return _render_text(self, seat, reveal_all)

    def render_rgb(self, seat: int | None) -> np.ndarray:
        return _picture(self, seat)

    # --- state ------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        share = self.last_share
        return {
            "num_players": self.num_players,
            "positions": list(self.positions),
            "supply": list(self.supply),
            "bellies": [list(b) for b in self.bellies],
            "collected": [list(row) for row in self.collected],
            "pile": {letter: [CARD_CODES[c] for c in stack]
                     for letter, stack in zip(LETTERS, self.pile, strict=True)},
            "active": self.active,
            "phase": PHASES[self.phase],
            "card": None if self.card < 0 else CARD_CODES[self.card],
            "donkey": None if self.donkey < 0 else DONKEYS[self.donkey],
            "feed_left": self.feed_left,
            "card_fed": list(self.card_fed),
            "end_left": [DONKEYS[d] for d in self.end_left],
            "wheels": [None if w < 0 else COLOURS[w] for w in self.wheels],
            "fed_since": [[list(row) for row in _table(news)] for news in self.fed_since],
            "share_new": list(self.share_new),
            "last_share": None if share is None else {
                "donkey": DONKEYS[share.donkey],
                "out": list(share.out),
                "wheels": [COLOURS[w] for w in share.wheels],
                "gains": list(share.gains),
                "back": list(share.back),
            },
        }

    @classmethod
    def from_state_dict(cls, data: dict, rng: np.random.Generator,
                        options: dict[str, Any]) -> MampfosGame:
        if not isinstance(data, dict):
            raise ValueError(f"state must be a dict, got {type(data).__name__}")
        game = cls.__new__(cls)
        game.rng = rng
        n = int_range(2, 5)(options.get("num_players", cls.OPTIONS["num_players"].default))
        memory = options.get("memory", "perfect")
        if memory not in ("perfect", "recall"):
            raise ValueError(f"option 'memory' must be one of ['perfect', 'recall'], "
                             f"got {memory!r}")
        game.num_players, game.memory = n, memory
        if _field(data, "num_players") != n:
            raise ValueError(f"state field 'num_players' is {data['num_players']!r}, "
                             f"the env has {n} players")
        game.positions = _int_list(data, "positions", 3, 0, PATH_LENGTH - 1)
        if len(set(game.positions)) != 3:
            raise ValueError("state field 'positions': two donkeys share a space (P-01)")
        game.supply = _colours(_field(data, "supply"), "supply")
        game.bellies = _rows(data, "bellies", 3)
        game.collected = _rows(data, "collected", n)
        for c in range(NUM_COLOURS):
            total = (game.supply[c] + sum(b[c] for b in game.bellies)
                     + sum(row[c] for row in game.collected))
            if total != BISCUITS_PER_COLOUR:
                raise ValueError(f"state field 'supply': {total} {COLOURS[c]} biscuits in "
                                 f"supply + bellies + collected, must be 20 (P-02)")
        game.pile = _pile(_field(data, "pile"))
        game.active = _int(data, "active", 0, n - 1)
        phase = _field(data, "phase")
        if phase not in PHASES:
            raise ValueError(f"state field 'phase' must be one of {list(PHASES)}, got {phase!r}")
        game.phase = PHASES.index(phase)
        game.card = _card(data)
        game.donkey = _donkey(_field(data, "donkey"), "donkey", allow_none=True)
        game.feed_left = _int(data, "feed_left", 0, 3)
        game.card_fed = _colours(_field(data, "card_fed"), "card_fed")
        end_left = _field(data, "end_left")
        if not isinstance(end_left, list):
            raise ValueError("state field 'end_left' must be a list of donkey names")
        game.end_left = [_donkey(d, "end_left") for d in end_left]
        if len(set(game.end_left)) != len(game.end_left):
            raise ValueError("state field 'end_left' repeats a donkey")
        wheels = _field(data, "wheels")
        if not isinstance(wheels, list) or len(wheels) != n:
            raise ValueError(f"state field 'wheels' must be a list of {n} colours or nulls")
        game.wheels = [-1 if w is None else _colour(w, "wheels") for w in wheels]
        game.wheel_count = sum(w >= 0 for w in game.wheels)
        fed_since = _field(data, "fed_since")
        if not isinstance(fed_since, list) or len(fed_since) != n:
            raise ValueError(f"state field 'fed_since' must be a list of {n} donkey tables")
        game.fed_since = [[c for row in _rows({"fed_since": rows}, "fed_since", 3) for c in row]
                          for rows in fed_since]
        share_new = _field(data, "share_new")
        if (not isinstance(share_new, list) or len(share_new) != n
                or not all(isinstance(b, bool) for b in share_new)):
            raise ValueError(f"state field 'share_new' must be a list of {n} bools")
        game.share_new = list(share_new)
        game.last_share = _last_share(_field(data, "last_share"), n)
        game.terminal = game.phase == PH_OVER
        game._check_phase()
        return game

    def _check_phase(self) -> None:
        """Cross-field consistency; sets ``current_seat``."""
        n = self.num_players
        phase, card = self.phase, self.card
        has_end = any(END_CARD in stack for stack in self.pile)
        if phase == PH_OVER:
            if has_end:
                raise ValueError("state field 'phase': over, but the end card is still in the pile")
            self.card, self.donkey, self.current_seat = -1, -1, -1
            self.end_left, self.wheels, self.wheel_count = [], [-1] * n, 0
            return
        if card < 0:
            raise ValueError("state field 'card' is required while the game runs")
        kind, who = CARD_KIND[card], CARD_DONKEY[card]
        if kind != END and not has_end:
            raise ValueError("state field 'pile' lacks the end card (P-04)")
        if kind == END and has_end:
            raise ValueError("state field 'pile' holds a second end card")
        if kind != END and self.end_left:
            raise ValueError("state field 'end_left' must be empty before the end card")
        if phase != PH_WHEEL and self.wheel_count:
            raise ValueError("state field 'wheels' must be all null outside the wheel phase")
        if phase != PH_FEED and (self.feed_left or any(self.card_fed)):
            raise ValueError("state fields 'feed_left'/'card_fed' must be zero outside feeding")
        self.current_seat = self.active
        if phase == PH_DONKEY:
            if self.donkey >= 0:
                raise ValueError("state field 'donkey' must be null while a donkey is chosen")
            if kind == END:
                if len(self.end_left) < 2:
                    raise ValueError("state field 'end_left' must name 2 or 3 donkeys (P-13)")
            elif who != ANY:
                raise ValueError(f"state field 'card': {CARD_CODES[card]!r} needs no choice "
                                 f"of donkey")
            return
        if (kind == FEED) != (phase == PH_FEED):
            raise ValueError(f"state field 'card': {CARD_CODES[card]!r} does not fit the "
                             f"{PHASES[phase]} phase")
        if self.donkey < 0:
            raise ValueError("state field 'donkey' is required in the feed and wheel phases")
        if kind != END and who != ANY and who != self.donkey:
            raise ValueError(f"state field 'donkey': {CARD_CODES[card]!r} names the "
                             f"{DONKEYS[who]} donkey")
        if phase == PH_FEED:
            k = CARD_NUMBER[card]
            if not 1 <= self.feed_left <= k or sum(self.card_fed) != k - self.feed_left:
                raise ValueError(f"state field 'feed_left': {self.feed_left} left after "
                                 f"{sum(self.card_fed)} fed does not fit {CARD_CODES[card]!r}")
            if sum(self.supply) <= self.feed_left:
                raise ValueError("state field 'supply': too few biscuits for a feeding "
                                 "decision (P-11 feeds them all)")
            return
        # wheel phase: the first wheel_count seats from the active one have set theirs
        if kind == END and self.donkey in self.end_left:
            raise ValueError("state field 'end_left' still names the donkey doing its business")
        m = self.wheel_count
        expected = [(self.active + i) % n for i in range(m)]
        if m >= n or sorted(expected) != [s for s in range(n) if self.wheels[s] >= 0]:
            raise ValueError("state field 'wheels': set millwheels must be the first seats from "
                             "the active seat clockwise, and one at least unset (P-12)")
        self.current_seat = (self.active + m) % n


# --- state-dict parsing helpers ------------------------------------------------------------
def _field(data: dict, name: str) -> Any:
    if name not in data:
        raise ValueError(f"state lacks field {name!r}")
    return data[name]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(data: dict, name: str, low: int, high: int) -> int:
    value = _field(data, name)
    if not _is_int(value) or not low <= value <= high:
        raise ValueError(f"state field {name!r} must be an int from {low} to {high}, "
                         f"got {value!r}")
    return value


def _int_list(data: dict, name: str, length: int, low: int, high: int) -> list[int]:
    value = _field(data, name)
    if (not isinstance(value, list) or len(value) != length
            or not all(_is_int(v) and low <= v <= high for v in value)):
        raise ValueError(f"state field {name!r} must be a list of {length} ints from {low} "
                         f"to {high}, got {value!r}")
    return list(value)


def _colours(value: Any, name: str) -> list[int]:
    if (not isinstance(value, list) or len(value) != NUM_COLOURS
            or not all(_is_int(v) and 0 <= v <= BISCUITS_PER_COLOUR for v in value)):
        raise ValueError(f"state field {name!r} must be a list of 5 counts 0..20 "
                         f"(orange, red, blue, green, yellow), got {value!r}")
    return list(value)


def _rows(data: dict, name: str, count: int) -> list[list[int]]:
    value = _field(data, name)
    if not isinstance(value, list) or len(value) != count:
        raise ValueError(f"state field {name!r} must be a list of {count} colour vectors")
    return [_colours(row, name) for row in value]


def _colour(value: Any, name: str) -> int:
    if value not in COLOURS:
        raise ValueError(f"state field {name!r}: {value!r} is not a colour {list(COLOURS)}")
    return COLOURS.index(value)


def _donkey(value: Any, name: str, allow_none: bool = False) -> int:
    if value is None and allow_none:
        return -1
    if value not in DONKEYS:
        raise ValueError(f"state field {name!r}: {value!r} is not a donkey {list(DONKEYS)}")
    return DONKEYS.index(value)


def _card(data: dict) -> int:
    value = _field(data, "card")
    if value is None:
        return -1
    if not isinstance(value, str) or value not in CARD_ID:
        raise ValueError(f"state field 'card': unknown card {value!r}")
    return CARD_ID[value]


def _pile(value: Any) -> list[list[int]]:
    if not isinstance(value, dict) or sorted(value) != list(LETTERS):
        raise ValueError("state field 'pile' must map each letter A..H to a list of cards")
    pile = []
    for letter in LETTERS:
        cards = value[letter]
        if not isinstance(cards, list) or not all(isinstance(c, str) and c in CARD_ID
                                                  for c in cards):
            raise ValueError(f"state field 'pile': letter {letter} must list card codes, "
                             f"got {cards!r}")
        if len(cards) > len(DECK[letter]):
            raise ValueError(f"state field 'pile': letter {letter} holds {len(cards)} cards, "
                             f"its stack has {len(DECK[letter])} (P-04)")
        pile.append(sorted(CARD_ID[c] for c in cards))
    if sum(stack.count(END_CARD) for stack in pile) > 1:
        raise ValueError("state field 'pile' holds more than one end card")
    return pile


def _last_share(value: Any, n: int) -> ShareOut | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ValueError("state field 'last_share' must be null or a dict")
    donkey = _donkey(value.get("donkey"), "last_share.donkey")
    out = _colours(value.get("out"), "last_share.out")
    back = _colours(value.get("back"), "last_share.back")
    wheels = value.get("wheels")
    if not isinstance(wheels, list) or len(wheels) != n:
        raise ValueError(f"state field 'last_share.wheels' must list {n} colours")
    wheel_ids = [_colour(w, "last_share.wheels") for w in wheels]
    gains = value.get("gains")
    if (not isinstance(gains, list) or len(gains) != n
            or not all(_is_int(g) and g >= 0 for g in gains)):
        raise ValueError(f"state field 'last_share.gains' must list {n} counts")
    if share_out(out, wheel_ids) != (gains, back):
        raise ValueError("state field 'last_share': gains/back are not the P-12 share-out of "
                         "out and wheels")
    return ShareOut(donkey, tuple(out), tuple(wheel_ids), tuple(gains), tuple(back))
