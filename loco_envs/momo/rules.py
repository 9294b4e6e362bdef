"""Loco Momo's rules engine (``docs/rules/momo.md``, rule ids K-xx).

Players draft animal tokens from a 2x2 forest and place them on a 5x5 picture whose rows and
columns are scored at the end of round 6. Tokens are identities ``0..14`` (``species * 3 +
colour``, codes such as ``"Rb"``; see :mod:`loco_envs.momo.actions`).

A turn is one *pick* decision (K-10/K-11) followed by one *place* decision per taken token
(K-12) until every taken token is placed or discarded (K-13); then the forest is refilled
(K-14) and the next seat clockwise (seat + 1) plays.

``state_dict`` schema (JSON-safe; every field is required)
----------------------------------------------------------
==============  ===================================================================================
field           meaning
==============  ===================================================================================
num_players     1..4 (must match the ``num_players`` option)
expansion_a     ``null``, or the K-30 hexagon: ``"rabbit" "leopard" "eagle" "bear" "duck"
                "blue" "brown" "green"`` (non-null exactly when the ``expansion_a`` option is on)
expansion_b     ``null``, or the K-31 flower: one of the five species
first_player    seat that starts every round (K-04)
turn            completed turns, ``0 .. 6 * num_players``; round = turn // num_players + 1.
                The game is over exactly when ``turn == 6 * num_players``.
phase           ``"pick"``, ``"place"`` (taken tokens wait in ``pending``) or ``"over"``
current_seat    ``(first_player + turn) % num_players``, or ``-1`` when over
bag             token codes in draw order (the first one is drawn next)
forest          4 lists (areas A, B, C, D) of at most 4 token codes each (order is irrelevant)
boards          one per seat: 5 rows (top first), each the list of its tokens from the left
                (a row is always filled from the left, K-12)
pending         token codes the current seat has taken and not yet placed
discarded       token codes out of the game (K-13)
==============  ===================================================================================

Consistency is checked: exactly 7 of each of the 15 identities over bag + forest + boards +
pending + discarded (K-01); ``pending`` is non-empty exactly in the place phase, and then the
current seat's board has room (K-13); in the pick phase every area holds 4 tokens unless the bag
is empty, and the forest is not empty (K-14). A malformed dict raises ``ValueError`` naming the
field. ``state_dict`` lists forest, pending and discarded tokens in identity order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from loco_envs.core import Game, IllegalActionError, Option, int_range
from loco_envs.momo import actions as A
from loco_envs.momo.actions import (
    AREA_SIZE,
    CELLS,
    COLOUR_OF,
    COLS,
    COPIES,
    NUM_ACTIONS,
    NUM_AREAS,
    NUM_TOKEN_TYPES,
    PLACE_BASE,
    ROWS,
    SPECIES,
    SPECIES_OF,
    TOKEN_CODES,
    TOKENS_OF_COLOUR,
)
from loco_envs.momo.render import picture as _picture
from loco_envs.momo.render import render_game as _render_text
from loco_envs.momo.scoring import (  # noqa: F401 (re-exported: importable from here too)
    COLOUR_BONUS,
    ENDANGERED_POINTS,
    FLOWER_POINTS,
    HEXAGONS,
    PAIR_MATCH_POINTS,
    PHOTOGRAPHER_LEVELS,
    ROUNDS,
    STACKED_PAIR_POINTS,
    F,
    board_points,
    photographer_level,
    score_breakdown,
)

_DUCKS = A.TOKENS_OF_SPECIES[4]
_PHASES = ("pick", "place", "over")
_TOKEN_RANGE = range(NUM_TOKEN_TYPES)
_AREA_BASES = tuple(a * NUM_TOKEN_TYPES for a in range(NUM_AREAS))
_PLACE_BASES = tuple(PLACE_BASE + t * ROWS for t in range(NUM_TOKEN_TYPES))
_STATE_FIELDS = (
    "num_players",
    "expansion_a",
    "expansion_b",
    "first_player",
    "turn",
    "phase",
    "current_seat",
    "bag",
    "forest",
    "boards",
    "pending",
    "discarded",
)


@dataclass(frozen=True)
class MomoView:
    """What one seat may know: everything but the bag's order (K-01).

    Seats are absolute here; :mod:`loco_envs.momo.observation` re-orders them relative to
    ``seat``. Token tuples hold counts per identity (index ``species * 3 + colour``).
    """

    seat: int
    num_players: int
    round: int  # 1..6
    turn: int  # completed turns
    first_player: int
    current_seat: int  # -1 once over
    phase: str  # "pick" | "place" | "over"
    forest: tuple[tuple[int, ...], ...]  # 4 areas x 15 counts
    boards: tuple[tuple[int, ...], ...]  # per seat: 25 cells row-major, -1 empty
    pending: tuple[int, ...]  # 15 counts: taken by current_seat, not yet placed
    bag: tuple[int, ...]  # 15 counts, known by elimination
    discarded: tuple[int, ...]  # 15 counts
    expansion_a: int  # -1 off; 0..4 a species, 5..7 a colour (HEXAGONS)
    expansion_b: int  # -1 off; 0..4 a species
    points: tuple[int, ...]  # per seat: K-20..K-24 points of the picture so far

    @property
    def bag_size(self) -> int:
        return sum(self.bag)

    def turns_left(self, seat: int) -> int:
        """Turns ``seat`` still plays, the current one included (seat k's turns are numbered
        ``(k - first_player) % n + j * n`` for j = 0..5)."""
        offset = (seat - self.first_player) % self.num_players
        done = 0 if self.turn <= offset else -(-(self.turn - offset) // self.num_players)
        return ROUNDS - min(ROUNDS, done)


class MomoGame(Game):
    """Mutable Loco Momo state; see the module docstring for the ``state_dict`` schema."""

    OPTIONS: ClassVar[dict[str, Option]] = {
        "num_players": Option(2, "players, 1 (solo, K-40) to 4 (K-04)", check=int_range(1, 4)),
        "expansion_a": Option(
            False, "K-30 endangered species and habitat (not in solo)", choices=(False, True)
        ),
        "expansion_b": Option(False, "K-31 acrobatic picture (not in solo)", choices=(False, True)),
    }
    NUM_ACTIONS: ClassVar[int] = NUM_ACTIONS
    codec = A
    SEARCH = "loco_envs.momo.search"  # clone/resample (shared/API.md, Search)

    def __init__(
        self,
        rng: np.random.Generator,
        num_players: int = 2,
        expansion_a: bool = False,
        expansion_b: bool = False,
    ):
        _check_options(num_players, expansion_a, expansion_b)
        self._blank(rng, num_players)
        # K-01: all 105 tokens in the bag; the list is drawn from its end.
        self.bag = rng.permutation(np.repeat(np.arange(NUM_TOKEN_TYPES), COPIES)).tolist()
        self.bag_counts = [COPIES] * NUM_TOKEN_TYPES
        self._refill()  # K-05: 4 tokens per area, A to D
        self.first_player = int(rng.integers(num_players))  # K-04
        self.current_seat = self.first_player
        # K-30 / K-31: one hexagon of 8, one flower of 5.
        self.expansion_a = int(rng.integers(len(HEXAGONS))) if expansion_a else -1
        self.expansion_b = int(rng.integers(A.NUM_SPECIES)) if expansion_b else -1

    def _blank(self, rng: np.random.Generator, num_players: int) -> None:
        self.rng = rng
        self.num_players = num_players
        self.expansion_a = -1
        self.expansion_b = -1
        self.bag: list[int] = []
        self.bag_counts = [0] * NUM_TOKEN_TYPES
        self.forest = [[0] * NUM_TOKEN_TYPES for _ in range(NUM_AREAS)]
        self.area_size = [0] * NUM_AREAS
        self.boards = [[-1] * CELLS for _ in range(num_players)]
        self.row_fill = [[0] * ROWS for _ in range(num_players)]
        self.board_fill = [0] * num_players
        self.pending = [0] * NUM_TOKEN_TYPES
        self.pending_total = 0
        self.discarded = [0] * NUM_TOKEN_TYPES
        self.first_player = 0
        self.turn = 0
        self.total_turns = ROUNDS * num_players
        self.current_seat = 0
        self.terminal = False
        self._points: list[int | None] = [None] * num_players

    # --- decisions ----------------------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.terminal:
            return "over"
        return "place" if self.pending_total else "pick"

    @property
    def round(self) -> int:
        return min(ROUNDS, self.turn // self.num_players + 1)

    def legal_actions(self) -> list[int]:
        if self.terminal:
            return []
        if self.pending_total == 0:  # K-10: any token on the forest
            return [
                base + t
                for base, area in zip(_AREA_BASES, self.forest, strict=True)
                for t in _TOKEN_RANGE
                if area[t]
            ]
        # K-12: any taken token, on any row with room
        rows = [r for r, fill in enumerate(self.row_fill[self.current_seat]) if fill < COLS]
        pending = self.pending
        return [_PLACE_BASES[t] + r for t in _TOKEN_RANGE if pending[t] for r in rows]

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        legal = self.legal_actions()
        if legal:
            mask[legal] = 1
        return mask

    def apply(self, action: int) -> None:
        if self.terminal:
            raise IllegalActionError("K-04: the game is over (6 rounds played)")
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(f"K-10: action {action!r} is not an action index")
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(
                f"K-10: action {action} is not an action index (0..{NUM_ACTIONS - 1})"
            )
        if self.pending_total == 0:
            if action >= PLACE_BASE:
                raise IllegalActionError(
                    f"K-10: {A.ACTION_STRINGS[action]!r} is a placement, but the turn starts "
                    "with a pick from the forest"
                )
            self._pick(*divmod(action, NUM_TOKEN_TYPES))
        else:
            if action < PLACE_BASE:
                raise IllegalActionError(
                    f"K-12: {A.ACTION_STRINGS[action]!r} is a pick, but the taken tokens must "
                    "be placed first"
                )
            self._place(*divmod(action - PLACE_BASE, ROWS))

    def _pick(self, a: int, t: int) -> None:
        forest = self.forest
        if not forest[a][t]:
            raise IllegalActionError(
                f"K-10: there is no {TOKEN_CODES[t]} in area {A.AREAS[a]} to pick"
            )
        d = self.destination(a, t)
        # K-10: the token moves; K-11: take its colour in the destination, itself included.
        forest[a][t] -= 1
        forest[d][t] += 1
        self.area_size[a] -= 1
        dest = forest[d]
        pending = self.pending
        taken = 0
        for u in TOKENS_OF_COLOUR[COLOUR_OF[t]]:
            k = dest[u]
            if k:
                pending[u] += k
                dest[u] = 0
                taken += k
        self.area_size[d] += 1 - taken
        self.pending_total = taken
        self._settle()

    def destination(self, a: int, t: int) -> int:
        """K-10: the area a token of identity ``t`` picked in area ``a`` moves to."""
        species = SPECIES_OF[t]
        if species == 0:  # rabbit: clockwise
            return (a + 1) % NUM_AREAS
        if species == 1:  # leopard: anticlockwise
            return (a + 3) % NUM_AREAS
        if species == 2:  # eagle: diagonal
            return (a + 2) % NUM_AREAS
        if species == 3:  # bear: stays
            return a
        # duck: clockwise to the first other area holding a duck; stays if none does
        forest = self.forest
        for step in (1, 2, 3):
            b = (a + step) % NUM_AREAS
            area = forest[b]
            if area[_DUCKS[0]] or area[_DUCKS[1]] or area[_DUCKS[2]]:
                return b
        return a

    def _place(self, t: int, row: int) -> None:
        seat = self.current_seat
        if not self.pending[t]:
            raise IllegalActionError(f"K-12: no {TOKEN_CODES[t]} is waiting to be placed")
        fills = self.row_fill[seat]
        col = fills[row]
        if col >= COLS:
            raise IllegalActionError(f"K-12: row {row + 1} is full")
        # K-12: leftmost empty cell of the row; placed tokens never move.
        self.boards[seat][row * COLS + col] = t
        fills[row] = col + 1
        self.board_fill[seat] += 1
        self._points[seat] = None
        self.pending[t] -= 1
        self.pending_total -= 1
        self._settle()

    def _settle(self) -> None:
        seat = self.current_seat
        if self.pending_total and self.board_fill[seat] == CELLS:
            # K-13: what fits nowhere leaves the game at once, without a decision.
            for u in range(NUM_TOKEN_TYPES):
                self.discarded[u] += self.pending[u]
                self.pending[u] = 0
            self.pending_total = 0
        if self.pending_total == 0:
            self._end_turn()

    def _refill(self) -> None:
        """K-05/K-14: fill every area to 4 tokens, A to D, while the bag lasts."""
        bag, counts, sizes, forest = self.bag, self.bag_counts, self.area_size, self.forest
        for a in range(NUM_AREAS):
            area = forest[a]
            while sizes[a] < AREA_SIZE and bag:
                t = bag.pop()
                counts[t] -= 1
                area[t] += 1
                sizes[a] += 1

    def _end_turn(self) -> None:
        self._refill()
        self.turn += 1
        if not any(self.area_size):
            # K-14: an empty forest stays empty (the bag is empty too): every turn left is
            # skipped.
            self.turn = self.total_turns
        if self.turn >= self.total_turns:
            self.terminal = True
            self.current_seat = -1
        else:
            self.current_seat = (self.first_player + self.turn) % self.num_players

    # --- results ------------------------------------------------------------------------
    def points(self, seat: int) -> int:
        """K-20..K-24 points of a seat's picture as it stands."""
        cached = self._points[seat]
        if cached is None:
            cached = self._points[seat] = board_points(self.boards[seat])
        return cached

    def expansion_points(self) -> list[int]:
        """K-30 + K-31 points of each seat (0 without expansions)."""
        extra = [0] * self.num_players
        if self.expansion_a >= 0:
            k = self.expansion_a
            if k < A.NUM_SPECIES:
                match = [SPECIES_OF[t] == k for t in range(NUM_TOKEN_TYPES)]
            else:
                match = [COLOUR_OF[t] == k - A.NUM_SPECIES for t in range(NUM_TOKEN_TYPES)]
            counts = [sum(1 for t in board if t >= 0 and match[t]) for board in self.boards]
            fewest = min(counts)
            for seat, k in enumerate(counts):
                if k == fewest:
                    extra[seat] += ENDANGERED_POINTS
        if self.expansion_b >= 0:
            for seat, board in enumerate(self.boards):
                last = board[COLS - 1]  # fifth cell of the top row
                if last >= 0 and SPECIES_OF[last] == self.expansion_b:
                    extra[seat] += FLOWER_POINTS
        return extra

    def final_scores(self) -> list[float]:
        extra = self.expansion_points()
        return [float(self.points(s) + extra[s]) for s in range(self.num_players)]

    def final_ranks(self) -> list[int]:
        """K-25: highest total first; equal totals share a rank (no tie-break)."""
        scores = self.final_scores()
        return [sum(other > mine for other in scores) for mine in scores]

    # --- information --------------------------------------------------------------------
    def view(self, seat: int) -> MomoView:
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} out of range 0..{self.num_players - 1}")
        return MomoView(
            seat=seat,
            num_players=self.num_players,
            round=self.round,
            turn=self.turn,
            first_player=self.first_player,
            current_seat=self.current_seat,
            phase=self.phase,
            forest=tuple(tuple(area) for area in self.forest),
            boards=tuple(tuple(board) for board in self.boards),
            pending=tuple(self.pending),
            bag=tuple(self.bag_counts),
            discarded=tuple(self.discarded),
            expansion_a=self.expansion_a,
            expansion_b=self.expansion_b,
            points=tuple(self.points(s) for s in range(self.num_players)),
        )

    def state_dict(self) -> dict:
        def codes(counts: Sequence[int]) -> list[str]:
            return [TOKEN_CODES[t] for t in range(NUM_TOKEN_TYPES) for _ in range(counts[t])]

        return {
            "num_players": self.num_players,
            "expansion_a": HEXAGONS[self.expansion_a] if self.expansion_a >= 0 else None,
            "expansion_b": SPECIES[self.expansion_b] if self.expansion_b >= 0 else None,
            "first_player": self.first_player,
            "turn": self.turn,
            "phase": self.phase,
            "current_seat": self.current_seat,
            "bag": [TOKEN_CODES[t] for t in reversed(self.bag)],
            "forest": [codes(area) for area in self.forest],
            "boards": [
                [
                    [TOKEN_CODES[t] for t in board[r * COLS : (r + 1) * COLS] if t >= 0]
                    for r in range(ROWS)
                ]
                for board in self.boards
            ],
            "pending": codes(self.pending),
            "discarded": codes(self.discarded),
        }

    @classmethod
    def from_state_dict(
        cls, data: dict, rng: np.random.Generator, options: dict[str, Any]
    ) -> MomoGame:
        if not isinstance(data, dict):
            raise ValueError(f"state must be a dict, got {type(data).__name__}")
        unknown = sorted(set(data) - set(_STATE_FIELDS))
        if unknown:
            raise ValueError(f"state field {unknown[0]!r} is unknown; fields: {_STATE_FIELDS}")
        missing = [f for f in _STATE_FIELDS if f not in data]
        if missing:
            raise ValueError(f"state field {missing[0]!r} is missing")
        opts = {name: opt.default for name, opt in cls.OPTIONS.items()}
        opts.update({k: v for k, v in options.items() if k in cls.OPTIONS})
        n = data["num_players"]
        if isinstance(n, bool) or not isinstance(n, int) or n != opts["num_players"]:
            raise ValueError(
                f"state field 'num_players' is {n!r}; the num_players option is "
                f"{opts['num_players']}"
            )
        game = cls.__new__(cls)
        game._blank(rng, n)
        game.expansion_a = _parse_choice(data, "expansion_a", HEXAGONS, opts["expansion_a"])
        game.expansion_b = _parse_choice(data, "expansion_b", SPECIES, opts["expansion_b"])
        _check_options(n, game.expansion_a >= 0, game.expansion_b >= 0)
        game.first_player = _parse_int(data, "first_player", 0, n - 1)
        game.turn = _parse_int(data, "turn", 0, game.total_turns)
        phase = data["phase"]
        if phase not in _PHASES:
            raise ValueError(f"state field 'phase' must be one of {_PHASES}, got {phase!r}")
        current = data["current_seat"]

        bag = _parse_tokens(data["bag"], "bag")
        game.bag = bag[::-1]
        for t in bag:
            game.bag_counts[t] += 1
        forest = data["forest"]
        if not isinstance(forest, list) or len(forest) != NUM_AREAS:
            raise ValueError("state field 'forest' must be a list of 4 areas (A, B, C, D)")
        for a, area in enumerate(forest):
            tokens = _parse_tokens(area, f"forest[{a}]")
            if len(tokens) > AREA_SIZE:
                raise ValueError(f"state field 'forest[{a}]' holds {len(tokens)} tokens (max 4)")
            for t in tokens:
                game.forest[a][t] += 1
            game.area_size[a] = len(tokens)
        boards = data["boards"]
        if not isinstance(boards, list) or len(boards) != n:
            raise ValueError(f"state field 'boards' must be a list of {n} boards")
        for seat, board in enumerate(boards):
            if not isinstance(board, list) or len(board) != ROWS:
                raise ValueError(f"state field 'boards[{seat}]' must be a list of 5 rows")
            for r, row in enumerate(board):
                tokens = _parse_tokens(row, f"boards[{seat}][{r}]")
                if len(tokens) > COLS:
                    raise ValueError(
                        f"state field 'boards[{seat}][{r}]' holds {len(tokens)} tokens (max 5)"
                    )
                for c, t in enumerate(tokens):
                    game.boards[seat][r * COLS + c] = t
                game.row_fill[seat][r] = len(tokens)
            game.board_fill[seat] = sum(game.row_fill[seat])
        for t in _parse_tokens(data["pending"], "pending"):
            game.pending[t] += 1
        game.pending_total = sum(game.pending)
        for t in _parse_tokens(data["discarded"], "discarded"):
            game.discarded[t] += 1

        # K-01: every token is somewhere, once.
        for t in range(NUM_TOKEN_TYPES):
            total = (
                game.bag_counts[t]
                + sum(area[t] for area in game.forest)
                + sum(board.count(t) for board in game.boards)
                + game.pending[t]
                + game.discarded[t]
            )
            if total != COPIES:
                raise ValueError(
                    f"state fields 'bag'/'forest'/'boards'/'pending'/'discarded': "
                    f"{TOKEN_CODES[t]} appears {total} times, K-01 has {COPIES} of each token"
                )
        game.terminal = game.turn == game.total_turns
        expected_phase = game.phase
        if phase != expected_phase:
            raise ValueError(
                f"state field 'phase' is {phase!r} but turn {game.turn} with "
                f"{game.pending_total} pending token(s) means {expected_phase!r}"
            )
        expected_seat = -1 if game.terminal else (game.first_player + game.turn) % n
        if isinstance(current, bool) or current != expected_seat:
            raise ValueError(
                f"state field 'current_seat' is {current!r}; first_player and turn give "
                f"{expected_seat}"
            )
        game.current_seat = expected_seat
        if game.terminal and game.pending_total:
            raise ValueError("state field 'pending' must be empty once the game is over")
        if phase == "place" and game.board_fill[expected_seat] == CELLS:
            raise ValueError(
                "state field 'pending': the current seat's board is full, so its tokens "
                "would have been discarded (K-13)"
            )
        if phase == "pick":
            if not any(game.area_size):
                raise ValueError(
                    "state field 'forest' is empty in the pick phase; K-14 skips such turns"
                )
            if game.bag and min(game.area_size) < AREA_SIZE:
                raise ValueError(
                    "state field 'forest': an area is short while the bag still has tokens (K-14)"
                )
        return game

    # --- names and pictures ---------------------------------------------------------------
    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        return _render_text(self, seat, reveal_all=reveal_all)

    def render_rgb(self, seat: int | None) -> np.ndarray:
        return _picture(self, seat)


def _check_options(num_players: int, expansion_a: bool, expansion_b: bool) -> None:
    if (
        isinstance(num_players, bool)
        or not isinstance(num_players, int)
        or not (1 <= num_players <= 4)
    ):
        raise ValueError(f"option 'num_players' must be 1 to 4 (K-04), got {num_players!r}")
    if num_players == 1:
        for name, on in (("expansion_a", expansion_a), ("expansion_b", expansion_b)):
            if on:
                raise ValueError(
                    f"option {name!r} must be False in solo play (K-40: expansions are not "
                    "played solo)"
                )


def _parse_int(data: dict, field: str, low: int, high: int) -> int:
    value = data[field]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"state field {field!r} must be an integer {low}..{high}, got {value!r}")
    return value


def _parse_choice(data: dict, field: str, names: Sequence[str], on: bool) -> int:
    value = data[field]
    if value is None:
        if on:
            raise ValueError(f"state field {field!r} is null but the {field} option is on")
        return -1
    if value not in names:
        raise ValueError(f"state field {field!r} must be null or one of {list(names)}")
    if not on:
        raise ValueError(f"state field {field!r} is set but the {field} option is off")
    return list(names).index(value)


def _parse_tokens(value: object, field: str) -> list[int]:
    if not isinstance(value, list):
        raise ValueError(f"state field {field!r} must be a list of token codes")
    return [A.parse_token(code, field) for code in value]
