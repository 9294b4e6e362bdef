"""The rules engine of Moco! (rule ids M-xx of ``docs/rules/moco.md``).

Moco! is Reiner Knizia's Loco! played with the Decktet: six piles, one per suit, each based on
its Ace; on a turn a seat plays a card onto a pile of one of the card's suits (M-10) and then
takes a chip from the supply (M-11, M-12, M-13). The game ends at once when a pile holds six
cards above its Ace or the last card is played (M-20); a chip is worth the top card of its
suit's pile (M-21). With ``match=True`` as many games as players are played with the dealer
moving one seat each game, and the scores add up (M-30).

Seats are numbered clockwise; the seat after the dealer starts (M-05). A turn is two decisions of
the same seat, a play then a chip; the card that ends a game earns no chip (M-20).

``state_dict`` schema (JSON-safe; card codes as in :mod:`loco_envs.moco.cards`; every
suit-indexed list is in suit order moons, suns, waves, leaves, wyrms, knots):

| field | type | meaning |
|---|---|---|
| ``num_players`` | int 2–5 | must equal the ``num_players`` option |
| ``match`` | bool | must equal the ``match`` option |
| ``game`` | int | index of the game being played in the match (always 0 without ``match``) |
| ``dealer`` | int | dealer seat of this game; the seat after it started (M-05) |
| ``match_scores`` | list of n ints | totals of the match's finished games, by seat (M-30) |
| ``phase`` | ``"play"`` / ``"chip"`` / ``"over"`` | the decision the current seat owes |
| ``current_seat`` | int | seat to decide; ``-1`` when ``phase`` is ``"over"`` |
| ``played_pile`` | suit name or null | the pile just played on (``"chip"`` phase only, M-12) |
| ``hands`` | n lists of card codes | each seat's hand |
| ``removed`` | list of card codes | the cards removed unseen (M-03) |
| ``piles`` | 6 lists of card codes | the cards on each pile above its Ace, bottom first |
| ``chips`` | n lists of 6 ints | chips each seat holds, per suit |
| ``supply`` | 6 ints | chips left in the supply, per suit |

Validation (a malformed dict raises ``ValueError`` naming the field): known codes only, no
card twice, no Aces in hands/removed/piles, the Excuse only with five players, every pile card
of the pile's suit (or the Excuse), at most six cards on a pile, ``chips`` + ``supply`` = 5 per
suit (M-04), and a ``phase`` consistent with M-20 (``"over"`` exactly when a pile holds six or
no hand holds a card, and then only in a match's last game). A state need not hold the whole
deck: cards in none of ``hands``, ``removed``, ``piles`` are out of that game (handy for
end-game positions); a dealt game always holds the whole M-02 deck.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from loco_envs.core import Game, IllegalActionError, Option, int_range
from loco_envs.moco import actions as codec
from loco_envs.moco.cards import (
    CARDS,
    CODES,
    EXCUSE,
    FIRST_PLAYABLE,
    NUM_PLAYABLE,
    NUM_SUITS,
    SUITS,
    VALUES,
    card_id,
    deck,
)
from loco_envs.moco.render import picture as _picture
from loco_envs.moco.render import render_text as _render_text

#: M-03: cards removed unseen, by number of players.
REMOVED = {2: 2, 3: 1, 4: 2, 5: 0}
#: M-03: cards dealt to each seat, by number of players.
HAND_SIZE = {2: 16, 3: 11, 4: 8, 5: 7}
CHIPS_PER_SUIT = 5  # M-04
PILE_LIMIT = 6  # M-20: six cards besides the Ace end the game
ACE_ONLY_VALUE = 1  # M-21

PLAY, CHIP, OVER = 0, 1, 2
PHASES = ("play", "chip", "over")

_CARD_PLAYS = codec.CARD_PLAYS
_PLAY_CARD_T = codec.PLAY_CARD
_PLAY_PILE_T = codec.PLAY_PILE
_NUM_PLAYS = codec.NUM_PLAYS
_FIRST_CHIP = codec.FIRST_CHIP
_NO_CHIP = codec.NO_CHIP
_NUM_ACTIONS = codec.NUM_ACTIONS
#: Column of each play action's card in a ``MocoBatchArrays.hands`` row of one seat.
_PLAY_HAND_COLUMN = np.array(_PLAY_CARD_T, np.intp) - FIRST_PLAYABLE

#: ``MocoBatchArrays``' layout: where the pile tops start in a ``table`` row, and where each
#: block starts in a ``counts`` row (the hand sizes and the removed cards follow the chips).
TABLE_TOPS = NUM_SUITS * NUM_PLAYABLE
COUNT_HEIGHTS, COUNT_VALUES, COUNT_SUPPLY, COUNT_CHIPS = 0, NUM_SUITS, 2 * NUM_SUITS, 3 * NUM_SUITS
#: Fewer games than this are encoded and masked one by one: below it the batched paths' fixed
#: cost (a few dozen numpy calls, about 100 µs a step) is more than the games' own.
BATCH_MIN = 8


def count_size(num_players: int) -> int:
    """Length of a ``MocoBatchArrays.counts`` row."""
    return COUNT_CHIPS + (NUM_SUITS + 1) * num_players + 1


@dataclass
class MocoBatchArrays:
    """:meth:`MocoGame.batch_arrays`: the table, hands and counts of a vector env batch's
    ``N`` games (``float32``, one row each), kept up to date by the games as they move.

    They are laid out as the observation's blocks, so the batched encoder copies them instead
    of walking each game's lists (:func:`loco_envs.moco.observation.encode_batch`):

    - ``table`` ``(N, 2 * 6 * 35)``: 1 where a card lies on a pile, then 1 for each pile's top
      card (suit-major, card ``id - 6``), the ``pile_cards`` and ``pile_tops`` blocks;
    - ``hands`` ``(N, P, 35)``: 1 for each card in each seat's hand;
    - ``counts`` ``(N, count_size(P))``: pile heights, pile values (M-21), supply, each seat's
      chips, each seat's hand size, cards removed, seats in absolute order.
    """

    table: np.ndarray
    hands: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class MocoView:
    """What one seat may know: its own hand and the public table, never others' hands or the
    removed cards. Per-seat tuples are indexed by absolute seat; cards are ids of
    :data:`loco_envs.moco.cards.CARDS`; per-suit tuples are in suit order."""

    seat: int
    num_players: int
    current_seat: int  # -1 once the (last) game is over
    phase: str  # "play", "chip" or "over"
    played_pile: int  # the pile just played on in the "chip" phase, else -1
    hand: tuple[int, ...]  # own cards, sorted by id
    piles: tuple[tuple[int, ...], ...]  # public history: cards above each Ace, bottom first
    chips: tuple[tuple[int, ...], ...]  # chips[seat][suit]
    supply: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    num_removed: int
    dealer: int
    game: int  # index of the game in the match
    num_games: int
    match_scores: tuple[int, ...]  # totals of the finished games of the match

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(len(p) for p in self.piles)

    @property
    def tops(self) -> tuple[int, ...]:
        """Top card of each pile (the Ace, id = suit, when nothing was played there)."""
        return tuple(p[-1] if p else suit for suit, p in enumerate(self.piles))

    @property
    def pile_values(self) -> tuple[int, ...]:
        """M-21: what one chip of each suit is worth now."""
        return pile_values(self.piles)


def pile_values(piles: Any) -> tuple[int, ...]:
    """M-21: the chip value of each suit: its pile's top card, 1 for an Ace-only pile."""
    return tuple(VALUES[p[-1]] if p else ACE_ONLY_VALUE for p in piles)


def ranks_from_scores(scores: list[int]) -> list[int]:
    """M-22 / M-30: 0 for the highest score; tied seats share a position."""
    return [sum(other > mine for other in scores) for mine in scores]


def _boolean(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"must be True or False, got {value!r}")
    return bool(value)


class MocoGame(Game):
    """A game (or a match, M-30) of Moco! for 2–5 players."""

    OPTIONS = {
        "num_players": Option(4, "number of players, 2 to 5 (M-01)", check=int_range(2, 5)),
        "match": Option(False, "play a match of one game per player, the dealer moving one seat "
                        "each game, scores adding up (M-30)", check=_boolean),
    }
    NUM_ACTIONS = _NUM_ACTIONS
    codec = codec  # the actions module, named by the Game contract
    SEARCH = "loco_envs.moco.search"  # clone/resample (shared/API.md, Search)

    def __init__(self, rng: np.random.Generator, num_players: int = 4, match: bool = False):
        self.rng = rng
        self.num_players = self.OPTIONS["num_players"].validate("num_players", num_players)
        self.match = self.OPTIONS["match"].validate("match", match)
        self.num_games = num_players if self.match else 1
        self.game = 0
        self.match_scores = [0] * num_players
        self._alloc()
        self._deal(int(rng.integers(num_players)))  # M-05: a randomly drawn dealer

    def _alloc(self) -> None:
        n = self.num_players
        self._hands: list[set[int]] = [set() for _ in range(n)]
        self._removed: list[int] = []
        self._piles: list[list[int]] = [[] for _ in range(NUM_SUITS)]
        self._chips = [[0] * NUM_SUITS for _ in range(n)]
        self._supply = [CHIPS_PER_SUIT] * NUM_SUITS
        self._cards_in_hands = 0
        self.phase = PLAY
        self.played_pile = -1
        self.terminal = False
        self._rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # see move_to

    def _deal(self, dealer: int) -> None:
        """M-01 … M-05: Aces as pile bases, shuffle, remove unseen, deal evenly, full supply."""
        n = self.num_players
        cards = np.array(deck(n), np.intp)[self.rng.permutation(len(deck(n)))]
        removed = REMOVED[n]
        size = HAND_SIZE[n]
        dealt = cards[removed:].tolist()
        self._hands = [set(dealt[seat * size: (seat + 1) * size]) for seat in range(n)]
        self._cards_in_hands = size * n
        self._removed = [int(c) for c in cards[:removed]]
        self._piles = [[] for _ in range(NUM_SUITS)]
        self._chips = [[0] * NUM_SUITS for _ in range(n)]
        self._supply = [CHIPS_PER_SUIT] * NUM_SUITS
        self.dealer = dealer
        self.current_seat = (dealer + 1) % n
        self.phase = PLAY
        self.played_pile = -1
        self.terminal = False
        if self._rows is not None:
            self._write_rows()

    # --- a vector env's batch arrays -----------------------------------------------------
    @classmethod
    def batch_arrays(cls, num_games: int, num_players: int) -> MocoBatchArrays:
        return MocoBatchArrays(
            np.zeros((num_games, 2 * TABLE_TOPS), np.float32),
            np.zeros((num_games, num_players, NUM_PLAYABLE), np.float32),
            np.zeros((num_games, count_size(num_players)), np.float32),
        )

    def move_to(self, arrays: MocoBatchArrays | None, row: int = 0) -> None:
        """``Game.move_to``: from now on every move also writes what it changes into row
        ``row`` of ``arrays`` (flat views of it, kept in ``_rows``); ``None`` stops that. The
        lists stay the state that the rules read."""
        if arrays is None:
            self._rows = None
            return
        self._rows = (arrays.table[row], arrays.hands[row].reshape(-1), arrays.counts[row])
        self._write_rows()

    def _write_rows(self) -> None:
        """The game's whole rows from its lists (when it joins a batch, and at each deal)."""
        table, hands, counts = self._rows
        table[:] = 0
        ones = []
        for suit, pile in enumerate(self._piles):
            if pile:
                at = suit * NUM_PLAYABLE - FIRST_PLAYABLE
                ones += [at + card for card in pile]
                ones.append(TABLE_TOPS + at + pile[-1])
        table[ones] = 1
        hands[:] = 0
        hands[[seat * NUM_PLAYABLE - FIRST_PLAYABLE + card
               for seat, hand in enumerate(self._hands) for card in hand]] = 1
        row = [len(p) for p in self._piles] + list(pile_values(self._piles)) + self._supply
        for chips in self._chips:
            row += chips
        row += [len(h) for h in self._hands]
        row.append(len(self._removed))
        counts[:] = row

    # --- decisions -------------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(_NUM_ACTIONS, np.int8)
        mask[self._legal_list()] = 1
        return mask

    def _legal_list(self) -> list[int]:
        """The legal actions (M-10: a card of the hand on a pile it may go to; M-11 … M-13: a
        takable chip, or no chip when none is), unsorted: ``legal_mask`` sets their entries."""
        if self.phase == PLAY:
            plays = _CARD_PLAYS
            return [a for card in self._hands[self.current_seat] for a in plays[card]]
        if self.phase == CHIP:
            return [_FIRST_CHIP + suit for suit in self._takable()] or [_NO_CHIP]
        return []

    @classmethod
    def write_masks(cls, games: Sequence[MocoGame], out: np.ndarray, rows: Sequence[int],
                    arrays: MocoBatchArrays | None = None) -> None:
        """``Game.write_masks`` from the batch arrays, a few numpy calls for all the games: a
        play is legal when its card is in the hand (M-10: the actions are the card's piles),
        a chip when the supply holds one, but not of the pile just played on with two players
        (M-11, M-12); no chip when no chip is (M-13)."""
        if arrays is None or len(games) < BATCH_MIN:
            super().write_masks(games, out, rows)
            return
        plays, play_seats, chips, barred = [], [], [], []
        for game, row in zip(games, rows, strict=True):
            if game.phase == PLAY:
                plays.append(row)
                play_seats.append(game.current_seat)
            elif game.phase == CHIP:
                chips.append(row)
                barred.append(game.played_pile if game.num_players == 2 else -1)
        out[list(rows)] = 0
        if plays:
            at = np.asarray(plays, np.intp)[:, None]
            seats = np.asarray(play_seats, np.intp)[:, None]
            out[at[:, 0], :_NUM_PLAYS] = arrays.hands[at, seats, _PLAY_HAND_COLUMN]
        if chips:
            at = np.asarray(chips, np.intp)
            takable = arrays.counts[at, COUNT_SUPPLY:COUNT_SUPPLY + NUM_SUITS] > 0
            barred_pile = np.asarray(barred, np.intp)
            two = np.flatnonzero(barred_pile >= 0)
            takable[two, barred_pile[two]] = False
            out[at, _FIRST_CHIP:_NO_CHIP] = takable
            out[at, _NO_CHIP] = ~takable.any(axis=1)

    def _takable(self) -> list[int]:
        """M-11 … M-13: suits whose chip the current seat may take after its play."""
        barred = self.played_pile if self.num_players == 2 else -1
        supply = self._supply
        return [s for s in range(NUM_SUITS) if supply[s] and s != barred]

    def apply(self, action: int) -> None:
        phase = self.phase
        if phase == OVER:
            raise IllegalActionError("M-20: the game is over; no decision is left")
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if a != action or not 0 <= a < _NUM_ACTIONS:
            rule = "M-10" if phase == PLAY else "M-11"
            raise IllegalActionError(
                f"{rule}: action {action!r} is not an index from 0 to {_NUM_ACTIONS - 1}"
            )
        if phase == PLAY:
            self._play(a)
        else:
            self._take(a)

    def _play(self, a: int) -> None:
        seat = self.current_seat
        if a >= _NUM_PLAYS:
            raise IllegalActionError(
                f"M-10: seat {seat} must play a card before taking a chip "
                f"({codec.action_to_str(a)!r} is not a play)"
            )
        card = _PLAY_CARD_T[a]
        hand = self._hands[seat]
        if card not in hand:
            raise IllegalActionError(f"M-10: {CODES[card]} is not in seat {seat}'s hand")
        pile = _PLAY_PILE_T[a]
        hand.remove(card)
        self._cards_in_hands -= 1
        stack = self._piles[pile]
        stack.append(card)
        if self._rows is not None:
            self._mark_play(seat, card, pile, stack, len(hand))
        if len(stack) >= PILE_LIMIT or self._cards_in_hands == 0:
            self._end_game()  # M-20: at once, before any chip
        else:
            self.phase = CHIP
            self.played_pile = pile

    def _mark_play(self, seat: int, card: int, pile: int, stack: list[int], hand_size: int) -> None:
        """A play's changes to the game's batch rows: the card on the pile and its new top,
        out of the hand; the pile's height and value (M-21), the hand's size."""
        table, hands, counts = self._rows
        at = pile * NUM_PLAYABLE - FIRST_PLAYABLE
        table[at + card] = 1
        if len(stack) > 1:
            table[TABLE_TOPS + at + stack[-2]] = 0
        table[TABLE_TOPS + at + card] = 1
        hands[seat * NUM_PLAYABLE - FIRST_PLAYABLE + card] = 0
        counts[COUNT_HEIGHTS + pile] = len(stack)
        counts[COUNT_VALUES + pile] = VALUES[card]
        counts[COUNT_CHIPS + NUM_SUITS * self.num_players + seat] = hand_size

    def _take(self, a: int) -> None:
        seat = self.current_seat
        if a < _NUM_PLAYS:
            raise IllegalActionError(
                f"M-11: seat {seat} has played; it takes a chip (or 'no chip'), not "
                f"{codec.action_to_str(a)!r}"
            )
        if a == _NO_CHIP:
            takable = self._takable()
            if takable:
                raise IllegalActionError(
                    f"M-13: 'no chip' only when no chip may be taken; seat {seat} may take "
                    + ", ".join(SUITS[s] for s in takable)
                )
        else:
            suit = a - _FIRST_CHIP
            if not self._supply[suit]:
                raise IllegalActionError(f"M-13: no {SUITS[suit]} chip is left in the supply")
            if self.num_players == 2 and suit == self.played_pile:
                raise IllegalActionError(
                    f"M-12: with two players seat {seat} may not take a {SUITS[suit]} chip "
                    f"after playing on the {SUITS[suit]} pile"
                )
            self._supply[suit] -= 1
            self._chips[seat][suit] += 1
            if self._rows is not None:
                counts = self._rows[2]
                counts[COUNT_SUPPLY + suit] = self._supply[suit]
                counts[COUNT_CHIPS + NUM_SUITS * seat + suit] = self._chips[seat][suit]
        self.phase = PLAY
        self.played_pile = -1
        self.current_seat = self._next_seat(seat)

    def _next_seat(self, seat: int) -> int:
        """Clockwise (M-05), passing over empty hands (M-20); some hand holds a card here."""
        n = self.num_players
        hands = self._hands
        nxt = (seat + 1) % n
        while not hands[nxt]:
            nxt = (nxt + 1) % n
        return nxt

    def _end_game(self) -> None:
        """M-20 ends this game; in a match (M-30) the next one is dealt by the next seat."""
        if self.game + 1 < self.num_games:
            for seat, score in enumerate(self.game_scores()):
                self.match_scores[seat] += score
            self.game += 1
            self._deal((self.dealer + 1) % self.num_players)
        else:
            self.phase = OVER
            self.played_pile = -1
            self.current_seat = -1
            self.terminal = True

    # --- results ---------------------------------------------------------------------------
    def game_scores(self) -> list[int]:
        """M-21, M-22: each seat's chips valued by the piles of the game on the table."""
        values = pile_values(self._piles)
        return [sum(c * v for c, v in zip(chips, values, strict=True)) for chips in self._chips]

    def final_scores(self) -> list[float]:
        """The game's score (M-22), or the match total (M-30)."""
        return [float(m + g) for m, g in zip(self.match_scores, self.game_scores(), strict=True)]

    def final_ranks(self) -> list[int]:
        return ranks_from_scores(self.final_scores())

    # --- information -----------------------------------------------------------------------
    def hand(self, seat: int) -> tuple[int, ...]:
        """The card ids in ``seat``'s hand, sorted."""
        return tuple(sorted(self._hands[seat]))

    def view(self, seat: int) -> MocoView:
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} out of range 0..{self.num_players - 1}")
        return MocoView(
            seat=seat,
            num_players=self.num_players,
            current_seat=self.current_seat,
            phase=PHASES[self.phase],
            played_pile=self.played_pile,
            hand=self.hand(seat),
            piles=tuple(tuple(p) for p in self._piles),
            chips=tuple(tuple(c) for c in self._chips),
            supply=tuple(self._supply),
            hand_sizes=tuple(len(h) for h in self._hands),
            num_removed=len(self._removed),
            dealer=self.dealer,
            game=self.game,
            num_games=self.num_games,
            match_scores=tuple(self.match_scores),
        )

    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        return _render_text(self, seat, reveal_all)

    def render_rgb(self, seat: int | None) -> np.ndarray:
        return _picture(self, seat)

    # --- state -----------------------------------------------------------------------------
    def state_dict(self) -> dict:
        return {
            "num_players": self.num_players,
            "match": self.match,
            "game": self.game,
            "dealer": self.dealer,
            "match_scores": list(self.match_scores),
            "phase": PHASES[self.phase],
            "current_seat": self.current_seat,
            "played_pile": SUITS[self.played_pile] if self.played_pile >= 0 else None,
            "hands": [[CODES[c] for c in self.hand(s)] for s in range(self.num_players)],
            "removed": [CODES[c] for c in self._removed],
            "piles": [[CODES[c] for c in p] for p in self._piles],
            "chips": [list(c) for c in self._chips],
            "supply": list(self._supply),
        }

    @classmethod
    def from_state_dict(
        cls, data: dict, rng: np.random.Generator, options: dict[str, Any]
    ) -> MocoGame:
        return _StateReader(data, options).build(cls, rng)


_FIELDS = ("num_players", "match", "game", "dealer", "match_scores", "phase", "current_seat",
           "played_pile", "hands", "removed", "piles", "chips", "supply")


class _StateReader:
    """Checks a state dict field by field; every error names the field it is about."""

    def __init__(self, data: Any, options: dict[str, Any]):
        if not isinstance(data, dict):
            raise ValueError(f"state must be a dict, got {type(data).__name__}")
        missing = [f for f in _FIELDS if f not in data]
        if missing:
            raise ValueError(f"state field {missing[0]!r} is missing")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ValueError(f"state field {unknown[0]!r} is unknown; fields are {list(_FIELDS)}")
        self.data = data
        self.options = options

    @staticmethod
    def fail(field: str, why: str) -> ValueError:
        return ValueError(f"state field {field!r}: {why}")

    def int_in(self, field: str, low: int, high: int, value: Any = None) -> int:
        value = self.data[field] if value is None else value
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field, f"expected an integer from {low} to {high}, got {value!r}")
        return value

    def int_list(self, field: str, value: Any, length: int) -> list[int]:
        if not isinstance(value, list) or len(value) != length:
            raise self.fail(field, f"expected a list of {length} integers, got {value!r}")
        for x in value:
            if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                raise self.fail(field, f"expected non-negative integers, got {x!r}")
        return list(value)

    def cards(self, field: str, value: Any) -> list[int]:
        if not isinstance(value, list):
            raise self.fail(field, f"expected a list of card codes, got {value!r}")
        ids = []
        for code in value:
            if not isinstance(code, str):
                raise self.fail(field, f"expected card codes, got {code!r}")
            try:
                card = card_id(code)
            except ValueError as exc:
                raise self.fail(field, str(exc)) from None
            if CARDS[card].rank == "A":
                raise self.fail(field, f"{CODES[card]} is an Ace, the base of a pile (M-01)")
            ids.append(card)
        return ids

    def build(self, cls: type[MocoGame], rng: np.random.Generator) -> MocoGame:
        d = self.data
        n = self.int_in("num_players", 2, 5)
        if n != self.options.get("num_players", n):
            raise self.fail("num_players", f"{n} but the option num_players is "
                            f"{self.options['num_players']}")
        match = d["match"]
        if not isinstance(match, bool):
            raise self.fail("match", f"expected true or false, got {match!r}")
        if match != self.options.get("match", match):
            raise self.fail("match", f"{match} but the option match is {self.options['match']}")
        num_games = n if match else 1
        game_index = self.int_in("game", 0, num_games - 1)
        dealer = self.int_in("dealer", 0, n - 1)
        match_scores = self.int_list("match_scores", d["match_scores"], n)
        if game_index == 0 and any(match_scores):
            raise self.fail("match_scores", "must be zeros before a match's first game ends")
        phase_name = d["phase"]
        if phase_name not in PHASES:
            raise self.fail("phase", f"expected one of {list(PHASES)}, got {phase_name!r}")
        phase = PHASES.index(phase_name)

        hands_raw = d["hands"]
        if not isinstance(hands_raw, list) or len(hands_raw) != n:
            raise self.fail("hands", f"expected {n} lists of card codes, got {hands_raw!r}")
        hands = [self.cards("hands", h) for h in hands_raw]
        removed = self.cards("removed", d["removed"])
        piles_raw = d["piles"]
        if not isinstance(piles_raw, list) or len(piles_raw) != NUM_SUITS:
            raise self.fail("piles", f"expected {NUM_SUITS} lists of card codes, got {piles_raw!r}")
        piles = [self.cards("piles", p) for p in piles_raw]
        seen: dict[int, str] = {}
        for field, group in [("hands", c) for c in hands] + [("removed", removed)] + [
            ("piles", p) for p in piles
        ]:
            for card in group:
                if card in seen:
                    raise self.fail(field, f"card {CODES[card]} appears twice "
                                    f"(also in {seen[card]!r})")
                seen[card] = field
                if card == EXCUSE and n != 5:
                    raise self.fail(field, "the Excuse is only used with five players (M-02)")
        for suit, pile in enumerate(piles):
            if len(pile) > PILE_LIMIT:
                raise self.fail("piles", f"the {SUITS[suit]} pile holds {len(pile)} cards, "
                                f"more than {PILE_LIMIT} (M-20)")
            for card in pile:
                if card != EXCUSE and suit not in CARDS[card].suits:
                    raise self.fail("piles", f"{CODES[card]} has no suit of the {SUITS[suit]} "
                                    "pile (M-10)")

        chips_raw = d["chips"]
        if not isinstance(chips_raw, list) or len(chips_raw) != n:
            raise self.fail("chips", f"expected {n} lists of {NUM_SUITS} integers")
        chips = [self.int_list("chips", c, NUM_SUITS) for c in chips_raw]
        supply = self.int_list("supply", d["supply"], NUM_SUITS)
        for suit in range(NUM_SUITS):
            total = supply[suit] + sum(c[suit] for c in chips)
            if total != CHIPS_PER_SUIT:
                raise self.fail("supply", f"{total} {SUITS[suit]} chips in supply and hands, "
                                f"expected {CHIPS_PER_SUIT} (M-04)")

        ended = any(len(p) >= PILE_LIMIT for p in piles) or not any(hands)
        if ended and phase != OVER:
            raise self.fail("phase", f"{phase_name!r} but the game has ended (M-20)")
        if phase == OVER and not ended:
            raise self.fail("phase", "'over' but no pile holds six cards and hands hold cards "
                            "(M-20)")
        if phase == OVER and game_index != num_games - 1:
            raise self.fail("phase", "'over' before the match's last game (M-30)")
        if phase == OVER:
            seat = d["current_seat"]
            if seat != -1 or not isinstance(seat, int) or isinstance(seat, bool):
                raise self.fail("current_seat", f"must be -1 once the game is over, got {seat!r}")
        else:
            seat = self.int_in("current_seat", 0, n - 1)
            if phase == PLAY and not hands[seat]:
                raise self.fail("current_seat", f"seat {seat} must play but holds no card")
        played = d["played_pile"]
        if phase == CHIP:
            if played not in SUITS:
                raise self.fail("played_pile", f"expected a suit name in the chip phase, "
                                f"got {played!r}")
            played_pile = SUITS.index(played)
            if not piles[played_pile]:
                raise self.fail("played_pile", f"nothing was played on the {played} pile")
        elif played is not None:
            raise self.fail("played_pile", f"must be null outside the chip phase, got {played!r}")
        else:
            played_pile = -1

        game = cls.__new__(cls)
        game.rng = rng
        game.num_players = n
        game.match = match
        game.num_games = num_games
        game.game = game_index
        game.match_scores = match_scores
        game._alloc()
        game._hands = [set(h) for h in hands]
        game._cards_in_hands = sum(len(h) for h in hands)
        game._removed = removed
        game._piles = piles
        game._chips = chips
        game._supply = supply
        game.dealer = dealer
        game.current_seat = seat
        game.phase = phase
        game.played_pile = played_pile
        game.terminal = phase == OVER
        return game
