"""The LOCO rules engine (``docs/rules/loco.md``, rules L-01 … L-73).

Seats, not agents: seat ``i`` is ``player_i``. Hands and piles are counts/lists of card
identities (:mod:`loco_envs.loco.cards`). Every decision of the game, including the races of the
real game, is a decision of one seat, in the order the rules page fixes:

1. a landing (play or slap) applies its effects; an empty hand ends the round first (L-70);
   a wild's colour and a Swap's targets are asked of its player right away (phase ``colour`` /
   ``target``);
2. every seat now at one card that owes a call decides ``loco`` / ``silent`` (phase ``call``),
   clockwise from the player of the card;
3. for each of them, the opponents decide together whether to shout ``contre`` (phase
   ``contre``); shouters who pay a card draw it in clockwise seat order from the card's player;
4. the interception window for the top card (phase ``slap``, L-41): every seat holding an
   identical card decides whether to slap and with how many copies, the card's player and the
   seat whose turn it now is included (the latter races the others for the card instead of
   losing it to any slapper; if nobody slaps it takes its turn as usual);
5. the next regular turn (phase ``turn``; then ``after_draw`` or ``after_penalty``).

Decisions made "together" (``contre``, ``slap``) are asked one seat at a time and kept hidden
until all are in; races go to a seeded draw, or to the seat nearest after the card's player with
``photo_finish="seat"`` (L-42).

A slap window is secret (L-41): only holders of the top card are asked, so a seat not deciding
in it sees the table as if no window were open (:meth:`LocoGame.visible_decision`: phase
``turn``, the turn seat to act) in its view, its observation and its render; the public render
(``seat=None``) does too. Option ``stacking`` (rules page, settled ambiguities): ``"any"`` (the
seed: any +2 answers a +2) or ``"identical"`` (only a card identical to the top answers).

Settled points beyond the rules page, each documented where it is coded:

- The clock (L-60/L-62) counts regular turns only; :meth:`LocoGame.timeout` on any other decision
  takes its neutral choice (colour unchanged, the next seat as Swap target, silent, no shout,
  no slap). A turn in which the player drew themselves is not a timed-out turn (L-61: the draw
  resets the count) even if the clock then ends it with the pass. Option ``timeout_rate`` (a
  probability, or one per seat) makes the engine time out a seat's turn at random as it begins,
  to simulate slow players; that draw comes when the turn begins, after any slap window.
- A seat that leaves (L-61) forfeits: it ranks behind every seat still in the match.
- The decisive round of L-73 is played only for a tie at the top; its points count in the
  totals, so its winner comes first. Lower ties stay shared.
- A Contre-LOCO window is skipped when its caller no longer holds one card (a shout lost in an
  earlier window made them draw).
- No interception window opens on the card turned up at the deal: windows follow landings.

``state_dict`` schema (JSON; cards as codes, piles bottom to top)::

    num_players, rounds (match length), round (1-based), decider (bool),
    hands: [[code, ...] per seat], draw_pile: [code, ...], discard: [code, ...],
    colour: "r"|"y"|"g"|"b", direction: 1 | -1, pending: int, pending_kind: null|"+2"|"+4",
    phase: "turn"|"after_draw"|"after_penalty"|"colour"|"target"|"call"|"contre"|"slap"|"over",
    actor: seat to decide (-1 when over), turn_seat: seat whose regular turn is next/current,
    lander: seat of the last landing (-1 at a deal), drawn: code|null (after a normal draw),
    swaps_left: int, rotations_left: int,
    calls: ["none"|"owed"|"announced"|"silent" per seat],
    call_queue: [seat, ...], contre_queue: [[seat, announced], ...],
    window: {"kind": null|"contre"|"slap", "to_decide": [seat, ...], "choices": {seat: int}}
        (to_decide: the seats still to answer, the one deciding first; a slap window may
        hold the card's player and the turn seat),
    slap_window_due: bool, active: [bool], in_round: [bool],
    scores, rounds_won, leftover, timeouts: [int per seat]

All 112 cards must be in the hands and piles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from loco_envs.core import Game, IllegalActionError, Option, int_range
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco import search as _search
from loco_envs.loco.phases import (  # noqa: F401 (re-exported: importable from here too)
    AFTER_DRAW,
    AFTER_PENALTY,
    ANNOUNCED,
    CALL,
    CALL_STATES,
    COLOUR,
    CONTRE,
    NO_CALL,
    OVER,
    OWED,
    PHASES,
    SILENT,
    SLAP,
    TARGET,
    TURN,
)
from loco_envs.loco.render import picture as _picture
from loco_envs.loco.render import render as _render_text
from loco_envs.loco.state import load_state as _load_state

CONSECUTIVE_TIMEOUTS_TO_LEAVE = 4
CONTRE_SILENT_PENALTY = 2
CONTRE_WRONG_SHOUT_PENALTY = 1
STACKING = ("any", "identical")

# MATCH[top, colour] is an int8 row over the 112 play actions: does that identity match?
_MATCH = np.zeros((C.NUM_IDENTITIES, len(C.COLOURS), A.NUM_PLAYS), dtype=np.int8)
for _top in range(C.NUM_IDENTITIES):
    for _col in range(len(C.COLOURS)):
        for _a in range(A.NUM_PLAYS):
            _MATCH[_top, _col, _a] = C.matches(A.PLAY_IDENT_LIST[_a], _top, _col)
_PLUS2_PLAYS = np.isin(A.PLAY_IDENT, C.PLUS2_IDS).astype(np.int8)
_PLUS4_PLAYS = (A.PLAY_IDENT == C.PLUS4).astype(np.int8)
# IDENTICAL_PLAYS[top] is an int8 row over the play actions: plays of that very identity.
_IDENTICAL_PLAYS = (A.PLAY_IDENT[None, :] == np.arange(C.NUM_IDENTITIES)[:, None]).astype(np.int8)
# The plays a turn or an after-penalty decision allows before the hand is looked at, one row per
# situation (``LocoGame._play_row``): MATCH[top, colour], then the answers to a pending +2, to a
# pending +4, and (stacking 'identical') to each identity on top.
_PLAY_ROWS = np.concatenate([_MATCH.reshape(-1, A.NUM_PLAYS), _PLUS2_PLAYS[None],
                             _PLUS4_PLAYS[None], _IDENTICAL_PLAYS])
_PLUS2_ROW = C.NUM_IDENTITIES * len(C.COLOURS)
_PLUS4_ROW = _PLUS2_ROW + 1
_IDENTICAL_ROW0 = _PLUS4_ROW + 1


def _phase_masks() -> np.ndarray:
    """Every mask of the phases whose legal actions a card and a count settle (one per row).

    Row ``_DRAWN_ROW0 + card * _COUNTS + k``: after a draw, ``card`` playable with ``k`` copies
    in hand (L-11; ``k = 0``: pass only); ``_SLAP_ROW0 + top * _COUNTS + k``: a slap window for
    a holder of ``k`` copies of ``top`` (L-40); then the colour (L-12), call (L-51) and
    Contre-LOCO (L-52) decisions. ``LocoGame._phase_row`` names the row of a game.
    """
    table = np.zeros((_COLOUR_ROW + 3, A.NUM_ACTIONS), np.int8)
    for ident in range(C.NUM_IDENTITIES):
        for k in range(_COUNTS):
            base = A.PLAY_BASE[ident]
            table[_DRAWN_ROW0 + ident * _COUNTS + k, A.PLAY0 + base: A.PLAY0 + base + k] = 1
            table[_SLAP_ROW0 + ident * _COUNTS + k, A.SLAP0 + base: A.SLAP0 + base + k] = 1
    table[_DRAWN_ROW0: _COLOUR_ROW, A.PASS] = 1
    table[_COLOUR_ROW, A.COLOUR0: A.COLOUR0 + len(C.COLOURS)] = 1
    table[_CALL_ROW, [A.LOCO, A.SILENT]] = 1
    table[_CONTRE_ROW, [A.CONTRE, A.PASS]] = 1
    table.flags.writeable = False  # rows are copied out, never handed out
    return table


_COUNTS = int(C.FULL_DECK_COUNTS.max()) + 1  # 0..4 copies of one identity in a hand
_DRAWN_ROW0 = 0
_SLAP_ROW0 = _DRAWN_ROW0 + C.NUM_IDENTITIES * _COUNTS
_COLOUR_ROW = _SLAP_ROW0 + C.NUM_IDENTITIES * _COUNTS
_CALL_ROW, _CONTRE_ROW = _COLOUR_ROW + 1, _COLOUR_ROW + 2
_PHASE_MASKS = _phase_masks()
# CLOCKWISE[n][seat]: every seat in ascending order, wrapping, starting with ``seat``.
_CLOCKWISE = {n: [[(seat + i) % n for i in range(n)] for seat in range(n)]
              for n in range(2, 11)}
# CLOCKWISE_AFTER[n][seat]: the same, ``seat`` last instead of first.
_CLOCKWISE_AFTER = {n: [order[1:] + order[:1] for order in orders]
                    for n, orders in _CLOCKWISE.items()}


def _timeout_rates(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [float(_probability(v)) for v in value]
    return _probability(value)


def _probability(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"must be a probability from 0 to 1 (or a list of them), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class LocoBatchArrays:
    """:meth:`LocoGame.batch_arrays`: hands ``(N, P, 55)`` and discard counts ``(N, 55)``
    (``int16``, cards per identity) of a vector env batch's ``N`` games, one row each."""

    hands: np.ndarray
    discard_counts: np.ndarray


@dataclass(frozen=True)
class LocoView:
    """What one seat may know. Seats are absolute here; the observation makes them relative."""

    seat: int
    num_players: int
    phase: str
    actor: int
    turn_seat: int
    lander: int
    hand: tuple[int, ...]  # counts per identity
    drawn: int | None  # identity drawn this turn (own draw only)
    top: int
    colour: int
    direction: int
    pending: int
    pending_kind: str | None
    swaps_left: int
    hand_sizes: tuple[int, ...]
    calls: tuple[str, ...]
    active: tuple[bool, ...]
    in_round: tuple[bool, ...]
    scores: tuple[int, ...]
    rounds_won: tuple[int, ...]
    leftover: tuple[int, ...]
    round: int
    rounds: int
    decider: bool
    draw_pile_size: int
    discard_counts: tuple[int, ...]
    contre_caller: int  # whose call the current Contre-LOCO window judges (-1: none)
    contre_announced: bool
    stacking: str = "any"  # the option in force: "any" or "identical" (what answers a +2)

    @property
    def hand_codes(self) -> list[str]:
        return [C.CODES[i] for i, n in enumerate(self.hand) for _ in range(n)]


class LocoGame(Game):
    """State and transitions of a LOCO match (see the module docstring)."""

    OPTIONS = {
        "num_players": Option(2, "players, 2 to 10 (L-01)", check=int_range(2, 10)),
        "rounds": Option(1, "match length in rounds (L-72)", choices=(1, 3, 5, 7)),
        "photo_finish": Option("random", "race arbitration (L-42): 'random' or 'seat'",
                               choices=("random", "seat")),
        "timeout_rate": Option(0.0, "chance that a seat's turn times out as it begins (L-62); "
                               "one number or one per seat", check=_timeout_rates),
        "stacking": Option("any", "what answers a pending +2 (L-32): 'any' +2, or only a card "
                           "'identical' to the top (+4 by +4 either way)",
                           choices=STACKING),
    }
    NUM_ACTIONS = A.NUM_ACTIONS
    codec = A
    SEARCH = "loco_envs.loco.search"  # clone/resample (shared/API.md, Search)
    # Every field of __init__ in the object itself, not in a separate dict: a vector env steps
    # hundreds of games a call, and each game's state then touches less memory (1.10x-1.13x
    # for 64 and 256 games, 1.03x-1.06x for one env, measured on 2026-12-03).
    __slots__ = (
        "rng", "num_players", "rounds", "photo_finish", "stacking", "timeout_rates", "hands",
        "hand_sizes", "draw_pile", "discard", "discard_counts", "colour", "direction", "pending",
        "pending_kind", "phase", "current_seat", "turn_seat", "lander", "drawn", "swaps_left",
        "rotations_left", "calls", "call_queue", "contre_queue", "window_kind",
        "window_to_decide", "window_choices", "slap_window_due", "active", "in_round", "scores",
        "rounds_won", "leftover", "timeouts", "round", "decider", "terminal", "_mask",
        "known", "pile_bound",
    )

    def __init__(self, rng: np.random.Generator, num_players: int = 2, rounds: int = 1,
                 photo_finish: str = "random", timeout_rate: float | Sequence[float] = 0.0,
                 stacking: str = "any", _deal: bool = True):
        self.rng = rng
        self.num_players = n = num_players
        self.rounds = rounds
        self.photo_finish = photo_finish
        self.stacking = stacking
        rates = timeout_rate if isinstance(timeout_rate, (list, tuple)) else [timeout_rate] * n
        if len(rates) != n:
            raise ValueError(f"option 'timeout_rate': expected {n} rates, got {len(rates)}")
        self.timeout_rates = [float(r) for r in rates]
        self.hands = [np.zeros(C.NUM_IDENTITIES, np.int16) for _ in range(n)]
        self.hand_sizes = [0] * n
        self.draw_pile: list[int] = []
        self.discard: list[int] = []
        self.discard_counts = np.zeros(C.NUM_IDENTITIES, np.int16)  # of ``discard``, per identity
        self.colour = 0
        self.direction = 1
        self.pending = 0
        self.pending_kind: str | None = None
        self.phase = TURN
        self.current_seat = 0
        self.turn_seat = 0
        self.lander = -1
        self.drawn: int | None = None
        self.swaps_left = 0
        self.rotations_left = 0
        self.calls = [NO_CALL] * n
        self.call_queue: list[int] = []
        self.contre_queue: list[tuple[int, bool]] = []
        self.window_kind: str | None = None
        self.window_to_decide: list[int] = []
        self.window_choices: dict[int, int] = {}
        self.slap_window_due = False
        self.active = [True] * n
        self.in_round = [True] * n
        self.scores = [0] * n
        self.rounds_won = [0] * n
        self.leftover = [0] * n
        self.timeouts = [0] * n
        self.round = 1
        self.decider = False
        self.terminal = False
        self._mask: np.ndarray | None = None
        # What each seat has learnt of the hidden cards (loco_envs.loco.search: resample);
        # None until a Swap, a Rotation or a reshuffle teaches anyone anything.
        self.known: np.ndarray | None = None
        self.pile_bound: np.ndarray | None = None
        if _deal:
            self._deal(int(rng.integers(n)))  # L-03: round 1 opens at a random seat
            self._begin_turn()

    # ------------------------------------------------------------------ setup and piles
    def _playing(self, seat: int) -> bool:
        return self.active[seat] and self.in_round[seat]

    def _deal(self, opener: int) -> None:
        """L-01/L-02/L-04: fresh deck, 8 each, open on a number card, clockwise."""
        deck = C.deck_list()
        self.rng.shuffle(deck)
        for seat in range(self.num_players):
            self.hands[seat][:] = 0
            self.hand_sizes[seat] = 0
            if self._playing(seat):
                for _ in range(C.HAND_SIZE):
                    self.hands[seat][deck.pop()] += 1
                self.hand_sizes[seat] = C.HAND_SIZE
        if not any(C.IS_NUMBER[card] for card in deck):
            self._deal(opener)  # no number card left to open on: deal again
            return
        turned: list[int] = []
        while not C.IS_NUMBER[deck[-1]]:
            turned.append(deck.pop())
        self._set_discard([deck.pop()])
        if turned:
            deck.extend(turned)
            self.rng.shuffle(deck)
        self.draw_pile = deck
        self.colour = C.COLOUR[self.discard[-1]]
        self.direction = 1
        self.pending, self.pending_kind = 0, None
        self.calls = [NO_CALL] * self.num_players
        self.call_queue, self.contre_queue = [], []
        self._close_window()
        self.slap_window_due = False
        self.lander = -1
        self.drawn = None
        self.swaps_left = self.rotations_left = 0
        self.turn_seat = opener
        self.known = self.pile_bound = None  # a fresh deal: nobody knows a hidden card

    def _set_discard(self, cards: list[int]) -> None:
        self.discard = cards
        self.discard_counts[:] = np.bincount(cards, minlength=C.NUM_IDENTITIES)

    def _draw(self, seat: int, count: int) -> list[int]:
        """L-13: draw up to ``count`` cards, reshuffling the discard pile under its top card."""
        got: list[int] = []
        for _ in range(count):
            if not self.draw_pile and len(self.discard) > 1:
                self.draw_pile = self.discard[:-1]
                self._set_discard(self.discard[-1:])
                self.rng.shuffle(self.draw_pile)
                _search.note_reshuffle(self)
            if not self.draw_pile:
                break
            card = self.draw_pile.pop()
            self.hands[seat][card] += 1
            if self.pile_bound is not None:
                self.pile_bound[seat, card] -= 1
            got.append(card)
        if got:
            self._resize(seat, self.hand_sizes[seat] + len(got))
        return got

    def _resize(self, seat: int, size: int) -> None:
        """Track hand size and the LOCO call it owes (L-50, L-54: one card, one call)."""
        old = self.hand_sizes[seat]
        self.hand_sizes[seat] = size
        if size != 1:
            self.calls[seat] = NO_CALL
        elif old != 1:
            self.calls[seat] = OWED

    def _step_from(self, seat: int, steps: int) -> int:
        """The seat ``steps`` places on in the direction of play, over seats still playing."""
        n, d = self.num_players, self.direction
        active, in_round = self.active, self.in_round
        for _ in range(steps):
            seat = (seat + d) % n
            while not (active[seat] and in_round[seat]):
                seat = (seat + d) % n
        return seat

    def _clockwise_from(self, seat: int) -> list[int]:
        """Playing seats in ascending order, wrapping, starting with ``seat`` itself."""
        active, in_round = self.active, self.in_round
        return [s for s in _CLOCKWISE[self.num_players][seat] if active[s] and in_round[s]]

    def _clockwise_after(self, seat: int) -> list[int]:
        """Playing seats clockwise after ``seat``, ending with ``seat`` if it is playing.

        That is ``_clockwise_from(seat)`` with its first seat moved to the end, in one pass
        when ``seat`` plays (the card's player at a slap window always does).
        """
        active, in_round = self.active, self.in_round
        if not (seat >= 0 and active[seat] and in_round[seat]):
            order = self._clockwise_from(seat)
            return order[1:] + order[:1]
        return [s for s in _CLOCKWISE_AFTER[self.num_players][seat] if active[s] and in_round[s]]

    def _num_playing(self) -> int:
        return sum(self._playing(s) for s in range(self.num_players))

    # ------------------------------------------------------------------ legal actions
    def legal_mask(self) -> np.ndarray:
        """The current seat's legal actions, cached until the next transition."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def _compute_mask(self) -> np.ndarray:
        if self.terminal:
            return np.zeros(A.NUM_ACTIONS, np.int8)
        phase = self.phase
        if phase == TURN or phase == AFTER_PENALTY:  # L-10/L-32/L-33; draw, or pass after one
            mask = np.zeros(A.NUM_ACTIONS, np.int8)
            hand = self.hands[self.current_seat]
            mask[: A.NUM_PLAYS] = _PLAY_ROWS[self._play_row()] & (hand[A.PLAY_IDENT]
                                                                  >= A.PLAY_COUNT)
            mask[A.DRAW if phase == TURN else A.PASS] = 1
            return mask
        if phase == TARGET:
            return self._target_mask()
        return _PHASE_MASKS[self._phase_row()].copy()

    def _phase_row(self) -> int:
        """The row of ``_PHASE_MASKS`` holding the mask of an after-draw, colour, call,
        Contre-LOCO or slap decision."""
        phase = self.phase
        if phase == AFTER_DRAW:  # L-11: the drawn card, with its copies, if it matches; or pass
            card = self.drawn
            if card is not None and C.matches(card, self.discard[-1], self.colour):
                return _DRAWN_ROW0 + card * _COUNTS + int(self.hands[self.current_seat][card])
            return _DRAWN_ROW0
        if phase == SLAP:  # L-40: copies identical to the top, or pass
            top = self.discard[-1]
            return _SLAP_ROW0 + top * _COUNTS + int(self.hands[self.current_seat][top])
        return {COLOUR: _COLOUR_ROW, CALL: _CALL_ROW, CONTRE: _CONTRE_ROW}[phase]

    def _target_mask(self) -> np.ndarray:
        """L-35: every other seat still playing may be named as a Swap's target."""
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        seat, n = self.current_seat, self.num_players
        for d in range(1, n):
            if self._playing((seat + d) % n):
                mask[A.TARGET0 + d - 1] = 1
        return mask

    def _play_row(self) -> int:
        """The row of ``_PLAY_ROWS`` whose plays a turn or an after-penalty decision allows.

        A card matching the top (L-10; after the penalty draw too, L-32), or with a penalty
        pending only its answers (L-32/L-33, option ``stacking``). The hand is checked apart.
        """
        top = self.discard[-1]
        if self.phase == TURN and self.pending:
            if self.stacking == "identical":
                return _IDENTICAL_ROW0 + top
            return _PLUS2_ROW if self.pending_kind == "+2" else _PLUS4_ROW
        return top * len(C.COLOURS) + self.colour

    @classmethod
    def batch_arrays(cls, num_games: int, num_players: int) -> LocoBatchArrays:
        """``Game.batch_arrays``: every game's hands and discard counts, for one gather each."""
        return LocoBatchArrays(np.zeros((num_games, num_players, C.NUM_IDENTITIES), np.int16),
                               np.zeros((num_games, C.NUM_IDENTITIES), np.int16))

    def move_to(self, arrays: LocoBatchArrays | None, row: int = 0) -> None:
        """``Game.move_to``: the hands and the discard counts become views of row ``row``.

        The engine changes ``hands[s]`` and ``discard_counts`` in place only (a Swap or a
        Rotation moves the contents), so the views stay its state; ``None`` gives the game
        arrays of its own again.
        """
        if arrays is None:
            self.hands = [hand.copy() for hand in self.hands]
            self.discard_counts = self.discard_counts.copy()
            return
        arrays.hands[row] = self.hands
        arrays.discard_counts[row] = self.discard_counts
        self.hands = list(arrays.hands[row])
        self.discard_counts = arrays.discard_counts[row]

    @classmethod
    def write_masks(cls, games: Sequence[LocoGame], out: np.ndarray, rows: Sequence[int],
                    arrays: LocoBatchArrays | None = None) -> None:
        """``Game.write_masks``: the masks of all games in a few array operations.

        Turns and after-penalty decisions (a ``_PLAY_ROWS`` row and the hand, as in
        :meth:`legal_mask`) are computed together, the other phases but a Swap's target are
        one gather from ``_PHASE_MASKS``. The games do not cache them: the vector env checks
        actions against ``out`` and plays them with ``play_legal``. Games with a cached mask,
        ended ones and targets go one at a time.
        """
        rest, rest_rows = [], []
        turns, turn_rows, phased, phase_rows = [], [], [], []
        for game, row in zip(games, rows, strict=True):
            phase = game.phase
            if game._mask is not None or game.terminal or phase == TARGET:
                rest.append(game)
                rest_rows.append(row)
            elif phase == TURN or phase == AFTER_PENALTY:
                turns.append(game)
                turn_rows.append(row)
            else:
                phased.append(game._phase_row())
                phase_rows.append(row)
        if turns:  # indices as arrays: numpy turns a list into one anew for every use
            index = np.array(turn_rows, np.intp)
            out[index] = cls._turn_masks(turns, index, arrays)
        if phased:
            out[phase_rows] = _PHASE_MASKS[np.array(phased, np.intp)]
        super().write_masks(rest, out, rest_rows)

    @staticmethod
    def _turn_masks(games: Sequence[LocoGame], rows: np.ndarray,
                    arrays: LocoBatchArrays | None) -> np.ndarray:
        """The masks of turn and after-penalty decisions, as ``_compute_mask`` has them."""
        seats = [game.current_seat for game in games]
        if arrays is None:
            hands = np.array([game.hands[seat] for game, seat in zip(games, seats, strict=True)])
        else:
            hands = arrays.hands[rows, np.array(seats, np.intp)]
        masks = np.zeros((len(games), A.NUM_ACTIONS), np.int8)
        play_rows = np.array([game._play_row() for game in games], np.intp)
        masks[:, :A.NUM_PLAYS] = _PLAY_ROWS[play_rows] & (hands[:, A.PLAY_IDENT] >= A.PLAY_COUNT)
        turn = [game.phase == TURN for game in games]
        masks[:, A.DRAW] = turn
        masks[:, A.PASS] = np.logical_not(turn)
        return masks

    def _penalty_reason(self) -> str:
        kind = self.pending_kind
        if self.stacking == "identical":
            top = C.CODES[self.discard[-1]]
            return (f" (a {kind} penalty is pending and stacking='identical': only a card "
                    f"identical to the top, {top}, answers it; or draw it)")
        return f" (a {kind} penalty is pending: answer with {kind} or draw it)"

    def _illegal_reason(self, action: int) -> str:
        """Name the rule an illegal action breaks."""
        phase = self.phase
        name = A.ACTION_NAMES[action] if 0 <= action < A.NUM_ACTIONS else str(action)
        if self.terminal:
            return "L-72: the match is over"
        if not 0 <= action < A.NUM_ACTIONS:
            return f"action {action} is not in 0..{A.NUM_ACTIONS - 1}"
        if A.PLAY0 <= action < A.SLAP0 or A.SLAP0 <= action < A.DRAW:
            i = (action - A.PLAY0) % A.NUM_PLAYS
            ident, k = A.PLAY_IDENT_LIST[i], A.PLAY_COUNT_LIST[i]
            if self.hands[self.current_seat][ident] < k:
                held = int(self.hands[self.current_seat][ident])
                return f"L-20: {name} needs {k} x {C.CODES[ident]}, the hand holds {held}"
        expected = {
            TURN: "L-10/L-32: play a matching card or draw"
            + (self._penalty_reason() if self.pending else ""),
            AFTER_DRAW: "L-11: after a draw only the drawn card may be played, or pass",
            AFTER_PENALTY: "L-32: after the penalty draw play a matching card or pass",
            COLOUR: "L-12: name the colour of the wild just played",
            TARGET: "L-35: name another seat still playing as the Swap's target",
            CALL: "L-51: announce LOCO or stay silent",
            CONTRE: "L-52: shout Contre-LOCO or pass",
            SLAP: "L-40/L-41: slap copies identical to the top card, or pass",
        }[phase]
        return f"{expected}; {name!r} is not legal now (phase {PHASES[phase]})"

    # ------------------------------------------------------------------ transitions
    def apply(self, action: int) -> None:
        if self.terminal or not 0 <= action < A.NUM_ACTIONS or not self.legal_mask()[action]:
            raise IllegalActionError(self._illegal_reason(action))
        self.play_legal(action)

    def play_legal(self, action: int) -> None:
        """``apply`` less its check (``Game.play_legal``): a vector env checked the action."""
        self._mask = None
        seat, phase = self.current_seat, self.phase
        if action < A.SLAP0:
            i = action - A.PLAY0
            self.timeouts[seat] = 0
            self._land(seat, A.PLAY_IDENT_LIST[i], A.PLAY_COUNT_LIST[i])
        elif action < A.DRAW:
            self.window_choices[seat] = A.PLAY_COUNT_LIST[action - A.SLAP0]
            self._next_in_window()
        elif action == A.DRAW:
            self.timeouts[seat] = 0  # L-61: a turn the player plays themselves resets the count
            self._take_draw(seat)
        elif action == A.PASS:
            if phase in (AFTER_DRAW, AFTER_PENALTY):
                self.timeouts[seat] = 0
                self._end_turn()
            else:  # no shout / no slap
                self.window_choices[seat] = 0
                self._next_in_window()
        elif action < A.TARGET0:
            self._name_colour(action - A.COLOUR0)
        elif action < A.LOCO:
            self._swap_with((seat + action - A.TARGET0 + 1) % self.num_players)
        elif action in (A.LOCO, A.SILENT):
            self.calls[seat] = ANNOUNCED if action == A.LOCO else SILENT
            self.contre_queue.append((seat, action == A.LOCO))
            self.call_queue.pop(0)
            self._advance()
        else:  # CONTRE
            self.window_choices[seat] = 1
            self._next_in_window()

    def _take_draw(self, seat: int) -> None:
        """L-11/L-32/L-33: a normal draw of one, or the whole pending penalty."""
        if self.pending:
            self._draw(seat, self.pending)
            self.pending, self.pending_kind = 0, None
            self._set_decision(AFTER_PENALTY, seat)
        else:
            got = self._draw(seat, 1)
            self.drawn = got[0] if got else None
            self._set_decision(AFTER_DRAW, seat)

    def _land(self, seat: int, ident: int, count: int) -> None:
        """A play or a successful slap (L-43): cards land, effects apply (L-70 first)."""
        self.hands[seat][ident] -= count
        if self.known is not None:
            _search.note_land(self, seat, ident, count)
        self._resize(seat, self.hand_sizes[seat] - count)
        self.discard.extend([ident] * count)
        self.discard_counts[ident] += count
        self.lander = seat
        self.drawn = None
        if self.hand_sizes[seat] == 0:
            self._end_round(seat)  # L-70: before any effect of the last card
            return
        self.slap_window_due = True
        kind = C.KIND[ident]
        if C.COLOUR[ident] >= 0:
            self.colour = C.COLOUR[ident]  # L-12
        if kind == "S":
            self.turn_seat = self._step_from(seat, count + 1)  # L-30
        elif kind == "R":
            if count % 2:
                self.direction = -self.direction  # L-31
            steps = count + 1 if self._num_playing() == 2 else 1
            self.turn_seat = self._step_from(seat, steps)
        else:
            self.turn_seat = self._step_from(seat, 1)
        if kind == "+2" or kind == "+4":
            self.pending += (2 if kind == "+2" else 4) * count  # L-32/L-33/L-20
            self.pending_kind = kind
        if kind == "X":
            self.swaps_left = count
            self._set_decision(TARGET, seat)
        elif C.COLOUR[ident] < 0:
            self.rotations_left = count if kind == "O" else 0
            self._set_decision(COLOUR, seat)
        else:
            self._after_effects()

    def _name_colour(self, colour: int) -> None:
        self.colour = colour
        if self.rotations_left:
            for _ in range(self.rotations_left):
                self._rotate_hands()  # L-36
            self.rotations_left = 0
            self._owe_calls_at_one_card()
        self._after_effects()

    def _swap_with(self, target: int) -> None:
        """L-35: exchange whole hands; with k Swaps a target is named for each in turn."""
        seat, hands = self.current_seat, self.hands
        _search.note_swap(self, seat, target)
        held = hands[seat].copy()  # contents move, the arrays stay (see move_to)
        hands[seat][:] = hands[target]
        hands[target][:] = held
        sizes = self.hand_sizes
        sizes[seat], sizes[target] = sizes[target], sizes[seat]
        self.swaps_left -= 1
        if self.swaps_left:
            return
        self._owe_calls_at_one_card()
        self._after_effects()

    def _rotate_hands(self) -> None:
        """Every hand moves one seat in the direction of play, over seats that left."""
        seats = [s for s in range(self.num_players) if self._playing(s)]
        _search.note_rotation(self, seats)
        moved = {self._step_from(s, 1): (self.hands[s].copy(), self.hand_sizes[s])
                 for s in seats}  # contents move, the arrays stay (see move_to)
        for s, (hand, size) in moved.items():
            self.hands[s][:] = hand
            self.hand_sizes[s] = size

    def _owe_calls_at_one_card(self) -> None:
        """L-54: after any Swap or Rotation everyone at one card owes a call again."""
        for s in range(self.num_players):
            self.calls[s] = OWED if self.hand_sizes[s] == 1 and self._playing(s) else NO_CALL

    def _after_effects(self) -> None:
        """Steps 2-5 of the order of decisions, once the landing's effects are in."""
        calls = self.calls
        self.call_queue = ([s for s in self._clockwise_from(self.lander) if calls[s] == OWED]
                           if OWED in calls else [])
        self.contre_queue = []
        self._advance()

    def _advance(self) -> None:
        """Move to the next decision: calls, Contre-LOCO windows, slap window, regular turn."""
        while True:
            if self.call_queue:
                self._set_decision(CALL, self.call_queue[0])
                return
            if self.contre_queue:
                caller, _ = self.contre_queue[0]
                if self.hand_sizes[caller] != 1:
                    self.contre_queue.pop(0)
                    continue
                self._open_window("contre", self._clockwise_from(caller)[1:])
                return
            if self.slap_window_due:
                self.slap_window_due = False
                top, hands = self.discard[-1], self.hands
                eligible = [s for s in self._clockwise_after(self.lander)
                            if hands[s][top] > 0]  # L-41: nobody excluded
                if eligible:
                    self._open_window("slap", eligible)
                    return
                continue
            self._begin_turn()
            return

    def _open_window(self, kind: str, seats: list[int]) -> None:
        self.window_kind = kind
        self.window_to_decide = list(seats)
        self.window_choices = {}
        self._set_decision(CONTRE if kind == "contre" else SLAP, seats[0])

    def _close_window(self) -> None:
        self.window_kind = None
        self.window_to_decide = []
        self.window_choices = {}

    def _next_in_window(self) -> None:
        self.window_to_decide.pop(0)
        if self.window_to_decide:
            self._set_decision(self.phase, self.window_to_decide[0])
            return
        choices = self.window_choices
        kind = self.window_kind
        self._close_window()
        if kind == "contre":
            self._resolve_contre(choices)
            self._advance()
        else:
            self._resolve_slaps(choices)

    def _resolve_contre(self, shouted: dict[int, int]) -> None:
        """L-52: a silent caller draws 2 once; after an announcement each shouter draws 1.

        Paying shouters draw one after the other clockwise from the card's player (order of
        decisions, step 3), which decides who gets which card off the draw pile.
        """
        caller, announced = self.contre_queue.pop(0)
        shouters = [s for s in self._clockwise_from(self.lander) if shouted.get(s)]
        if not shouters:
            return
        if announced:
            for s in shouters:
                self._draw(s, CONTRE_WRONG_SHOUT_PENALTY)
        else:
            self._draw(caller, CONTRE_SILENT_PENALTY)

    def _resolve_slaps(self, choices: dict[int, int]) -> None:
        """L-42/L-43: the first card received wins the race and lands as a play."""
        slappers = sorted(s for s, k in choices.items() if k)
        if not slappers:
            self._advance()
            return
        if self.photo_finish == "seat":
            winner = next(s for s in self._order_after(self.lander) if s in slappers)
        else:
            winner = slappers[int(self.rng.integers(len(slappers)))]
        self._land(winner, self.discard[-1], choices[winner])

    def _order_after(self, seat: int) -> list[int]:
        """Every seat in the direction of play after ``seat``, ending with ``seat``."""
        n = self.num_players
        return [(seat + self.direction * i) % n for i in range(1, n + 1)]

    def _set_decision(self, phase: int, seat: int) -> None:
        self.phase = phase
        self.current_seat = seat

    def _begin_turn(self) -> None:
        """Start ``turn_seat``'s regular turn; a slow seat may time out at once (L-62)."""
        seat = self.turn_seat
        self._set_decision(TURN, seat)
        rate = self.timeout_rates[seat]
        if rate and self.rng.random() < rate:
            self.timeout()

    def _end_turn(self) -> None:
        self.drawn = None
        self.turn_seat = self._step_from(self.turn_seat, 1)
        self._begin_turn()

    # ------------------------------------------------------------------ the clock
    def timeout(self) -> None:
        """L-60/L-61: the clock ran out for the current decision-maker.

        In a regular turn the server draws (the whole pending penalty, if any) and passes;
        four timed-out turns in a row free the seat, the fourth handled like the others first
        (the draw, reshuffling by L-13 if needed), then the hand goes into the draw pile. After
        the player's own draw the clock only passes: that turn was played, not timed out.
        Other decisions take their neutral choice.
        """
        if self.terminal:
            raise IllegalActionError("L-72: the match is over")
        self._mask = None
        seat, phase = self.current_seat, self.phase
        if phase in (AFTER_DRAW, AFTER_PENALTY):
            self._end_turn()
        elif phase == TURN:
            self._draw(seat, self.pending or 1)
            self.pending, self.pending_kind = 0, None
            self.timeouts[seat] += 1
            if self.timeouts[seat] >= CONSECUTIVE_TIMEOUTS_TO_LEAVE:
                self._leave(seat)
            else:
                self._end_turn()
        elif phase == COLOUR:
            self._name_colour(self.colour)
        elif phase == TARGET:
            offset = (self._step_from(seat, 1) - seat) % self.num_players
            self.apply(A.TARGET0 + offset - 1)
        elif phase == CALL:
            self.apply(A.SILENT)
        else:
            self.apply(A.PASS)

    def _leave(self, seat: int) -> None:
        """L-61: the seat leaves the match; its hand goes into the draw pile."""
        next_seat = self._step_from(seat, 1)
        self.active[seat] = False
        _search.note_leave(self, seat)
        for ident in np.flatnonzero(self.hands[seat]):
            self.draw_pile.extend([int(ident)] * int(self.hands[seat][ident]))
        self.rng.shuffle(self.draw_pile)
        self.hands[seat][:] = 0
        self.hand_sizes[seat] = 0
        self.calls[seat] = NO_CALL
        self.pending, self.pending_kind = 0, None
        if sum(self.active) == 1:
            self._end_match()
            return
        if self._num_playing() < 2:  # a decisive round emptied: settle it afresh
            self._after_round()
            return
        self.turn_seat = next_seat
        self.drawn = None
        self._begin_turn()

    # ------------------------------------------------------------------ rounds and match
    def _end_round(self, winner: int) -> None:
        """L-70/L-71: the winner scores the points left in the other hands."""
        points = 0
        for seat in range(self.num_players):
            if seat != winner and self._playing(seat):
                left = int(self.hands[seat] @ C.POINTS)
                self.leftover[seat] += left
                points += left
        self.scores[winner] += points
        self.rounds_won[winner] += 1
        self._after_round()

    def _after_round(self) -> None:
        if self.round < self.rounds and not self.decider:
            self.round += 1
            self._start_round([self.active[s] for s in range(self.num_players)])
            return
        tied = self._tied_at_top()
        if len(tied) > 1:  # L-73: one more round among the tied players only
            self.round += 1
            self.decider = True
            self._start_round([s in tied for s in range(self.num_players)])
            return
        self._end_match()

    def _start_round(self, in_round: list[bool]) -> None:
        self.in_round = in_round
        seats = [s for s in range(self.num_players) if self._playing(s)]
        opener = min(seats, key=lambda s: (self.scores[s], s))  # L-03
        self._deal(opener)
        self._begin_turn()

    def _key(self, seat: int) -> tuple:
        """L-72/L-73 order: total, then rounds won, then fewest left-over points."""
        return (not self.active[seat], -self.scores[seat], -self.rounds_won[seat],
                self.leftover[seat])

    def _tied_at_top(self) -> list[int]:
        best = min(self._key(s) for s in range(self.num_players))
        return [s for s in range(self.num_players) if self._key(s) == best and self.active[s]]

    def _end_match(self) -> None:
        self.terminal = True
        self.phase = OVER
        self.current_seat = -1
        self._close_window()

    def final_ranks(self) -> list[int]:
        keys = [self._key(s) for s in range(self.num_players)]
        return [sum(other < mine for other in keys) for mine in keys]

    def final_scores(self) -> list[float]:
        return [float(s) for s in self.scores]

    # ------------------------------------------------------------------ views and text
    def view(self, seat: int) -> LocoView:
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} out of range 0..{self.num_players - 1}")
        caller, announced = self.contre_queue[0] if self.phase == CONTRE else (-1, False)
        discard_counts = self.discard_counts.tolist()
        phase, actor = self.visible_decision(seat)
        return LocoView(
            seat=seat, num_players=self.num_players, phase=PHASES[phase],
            actor=actor, turn_seat=self.turn_seat, lander=self.lander,
            hand=tuple(self.hands[seat].tolist()),
            drawn=self.drawn if seat == self.current_seat and self.phase == AFTER_DRAW else None,
            top=self.discard[-1], colour=self.colour, direction=self.direction,
            pending=self.pending, pending_kind=self.pending_kind,
            swaps_left=self.swaps_left, hand_sizes=tuple(self.hand_sizes),
            calls=tuple(CALL_STATES[c] for c in self.calls), active=tuple(self.active),
            in_round=tuple(self.in_round), scores=tuple(self.scores),
            rounds_won=tuple(self.rounds_won), leftover=tuple(self.leftover),
            round=self.round, rounds=self.rounds, decider=self.decider,
            draw_pile_size=len(self.draw_pile),
            discard_counts=tuple(discard_counts),
            contre_caller=caller, contre_announced=announced, stacking=self.stacking,
        )

    def visible_decision(self, seat: int | None) -> tuple[int, int]:
        """(phase, deciding seat) as ``seat`` may know them (``None``: the public table).

        L-41: only holders of the top card are asked in a slap window, so even showing that a
        window is open would reveal that someone holds it. Every seat but the one deciding now
        sees what it would see with no window: the regular turn, the turn seat to act. Nothing
        else in a view changes during a window (the landing before it already showed its
        effects, the choices stay in the engine).
        """
        if self.phase == SLAP and seat != self.current_seat:
            return TURN, self.turn_seat
        return self.phase, self.current_seat

    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        return _render_text(self, seat, reveal_all)

    def render_rgb(self, seat: int | None) -> np.ndarray:
        return _picture(self, seat)

    # ------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict:
        codes = C.CODES
        return {
            "num_players": self.num_players, "rounds": self.rounds, "round": self.round,
            "decider": self.decider,
            "hands": [[codes[i] for i in np.repeat(np.arange(C.NUM_IDENTITIES), h)]
                      for h in self.hands],
            "draw_pile": [codes[i] for i in self.draw_pile],
            "discard": [codes[i] for i in self.discard],
            "colour": C.COLOURS[self.colour], "direction": self.direction,
            "pending": self.pending, "pending_kind": self.pending_kind,
            "phase": PHASES[self.phase], "actor": self.current_seat,
            "turn_seat": self.turn_seat, "lander": self.lander,
            "drawn": None if self.drawn is None else codes[self.drawn],
            "swaps_left": self.swaps_left, "rotations_left": self.rotations_left,
            "calls": [CALL_STATES[c] for c in self.calls],
            "call_queue": list(self.call_queue),
            "contre_queue": [[s, bool(a)] for s, a in self.contre_queue],
            "window": {"kind": self.window_kind, "to_decide": list(self.window_to_decide),
                       "choices": {str(s): k for s, k in self.window_choices.items()}},
            "slap_window_due": self.slap_window_due,
            "active": list(self.active), "in_round": list(self.in_round),
            "scores": list(self.scores), "rounds_won": list(self.rounds_won),
            "leftover": list(self.leftover), "timeouts": list(self.timeouts),
        }

    @classmethod
    def from_state_dict(cls, data: dict, rng: np.random.Generator,
                        options: dict[str, Any]) -> LocoGame:
        return _load_state(cls, data, rng, options)
