"""LOCO observation: a :class:`~loco_envs.loco.rules.LocoView` as a flat ``float32`` vector.

Seats are relative to the observer (0 = self, 1 = next clockwise, ...). Points are scaled by
1/100. Each entry's range by the rules is the observation ``Box``'s ``low``/``high``
(:func:`bounds`; one-hot entries and flags 0..1):

- counts per identity (``hand``, ``discard``): 0 to the copies in the deck (2, 1 for a Swap,
  4 for a wild kind); a hand size or the draw pile: 0..111 (every card but the discard's top);
- ``pending``: 0..111. The penalty itself has no bound (a reshuffle during a +2 chain can hand
  the same cards back to be played again), but a draw hands over at most the 111 cards outside
  the top (L-13), so ``min(pending, 111)`` has the same effect on every draw to come and is what
  the vector holds; ``swaps_left``: 0..1 (a Swap identity has one copy, L-20);
- total/100 and left-over/100: 0..(R + 1)·1479/100, where R is the ``rounds`` option: at most
  R + 1 rounds are scored (a decisive round with a winner ends the ties, L-73), and one round
  gives at most the deck's 1480 points less the winner's last card, on the pile (L-71);
  rounds won: 0..R + 1;
- ``match``: round 1..R + n − 1 (each further decisive round follows one emptied by a seat
  leaving, L-61), match length 1..7 (the lengths L-72 allows: Gymnasium's checker asks for
  ``low < high`` in every entry), decisive round 0..1.

==================  ====================  ===================================================
slice               size                  content
==================  ====================  ===================================================
hand                55                    own cards, count per identity (cards.py order)
top                 55                    one-hot identity of the top card
colour              4                     one-hot current colour (r y g b)
direction           1                     1 clockwise, 0 counter-clockwise
pending             3                     pending penalty cards; one-hot kind (+2, +4)
phase               8                     one-hot decision phase (turn … slap); a slap
                                          window the observer is not deciding in reads
                                          as the turn (L-41)
drawn               55                    one-hot card just drawn (own normal draw only)
swaps_left          1                     Swap targets still to name
seats               14 × n                per relative seat: hand size, call state one-hot
                                          (none/owed/announced/silent), active, in round,
                                          total/100, rounds won, left-over/100, has the turn,
                                          decides now, played last, is judged in the
                                          Contre-LOCO window
contre_announced    1                     the judged player announced
match               3                     round, match length, decisive round
draw_pile           1                     cards in the draw pile
discard             55                    count per identity in the discard pile
==================  ====================  ===================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from loco_envs.core.bounds import slice_bounds
from loco_envs.loco.cards import (
    CODES,
    COLOURS,
    DECK_SIZE,
    FULL_DECK_COUNTS,
    MOST_COPIES,
    NUM_IDENTITIES,
    POINTS,
)
from loco_envs.loco.rules import (
    AFTER_DRAW,
    CALL_STATES,
    CONTRE,
    PHASES,
    LocoBatchArrays,
    LocoGame,
    LocoView,
)

PER_SEAT = 14
NUM_PHASES = len(PHASES) - 1  # "over" is never observed by an agent that acts


@cache
def slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation for ``num_players``."""
    sizes = [
        ("hand", NUM_IDENTITIES), ("top", NUM_IDENTITIES), ("colour", len(COLOURS)),
        ("direction", 1), ("pending", 3), ("phase", NUM_PHASES), ("drawn", NUM_IDENTITIES),
        ("swaps_left", 1), ("seats", PER_SEAT * num_players), ("contre_announced", 1),
        ("match", 3), ("draw_pile", 1), ("discard", NUM_IDENTITIES),
    ]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(num_players: int) -> int:
    return slices(num_players)["discard"].stop


#: The most cards a hand, the draw pile or a draw can hold: all but the discard pile's top.
MAX_CARDS = DECK_SIZE - 1
#: L-71: the most one round can give its winner (the deck less the cheapest card on the pile).
MAX_ROUND_POINTS = int(FULL_DECK_COUNTS @ POINTS) - int(POINTS.min())
#: L-72: the match lengths the ``rounds`` option allows.
ROUND_CHOICES = LocoGame.OPTIONS["rounds"].choices
#: Per-seat columns (see the module docstring) that are flags: calls, active … judged.
_SEAT_FLAGS = (1, 2, 3, 4, 5, 6, 10, 11, 12, 13)


def bounds(num_players: int, rounds: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` of the observation (the ranges of the module docstring)."""
    n, scored = num_players, rounds + 1
    seat_high = np.zeros(PER_SEAT, np.float32)
    seat_high[list(_SEAT_FLAGS)] = 1
    seat_high[0] = MAX_CARDS
    seat_high[[7, 9]] = scored * MAX_ROUND_POINTS / 100
    seat_high[8] = scored
    table = {name: (0, 1) for name in ("top", "colour", "direction", "phase", "drawn",
                                       "contre_announced")}
    table |= {
        "hand": (0, FULL_DECK_COUNTS),
        "discard": (0, FULL_DECK_COUNTS),
        "pending": (0, [MAX_CARDS, 1, 1]),
        "swaps_left": (0, MOST_COPIES["X"]),
        "seats": (0, np.tile(seat_high, n)),
        "match": ([1, min(ROUND_CHOICES), 0], [rounds + n - 1, max(ROUND_CHOICES), 1]),
        "draw_pile": (0, MAX_CARDS),
    }
    return slice_bounds(slices(n), table)


_CALL_INDEX = {name: i for i, name in enumerate(CALL_STATES)}


def encode(view: LocoView) -> np.ndarray:
    n = view.num_players
    sl = slices(n)
    obs = np.zeros(observation_size(n), np.float32)
    obs[sl["hand"]] = view.hand
    obs[sl["top"].start + view.top] = 1
    obs[sl["colour"].start + view.colour] = 1
    obs[sl["direction"].start] = view.direction == 1
    p = sl["pending"].start
    obs[p] = min(view.pending, MAX_CARDS)  # the same effect on any draw (module docstring)
    if view.pending_kind:
        obs[p + 1 + (view.pending_kind == "+4")] = 1
    phase = PHASES.index(view.phase)
    if phase < NUM_PHASES:
        obs[sl["phase"].start + phase] = 1
    if view.drawn is not None:
        obs[sl["drawn"].start + view.drawn] = 1
    obs[sl["swaps_left"].start] = view.swaps_left
    order = [(view.seat + rel) % n for rel in range(n)]  # self first, then clockwise
    seats = obs[sl["seats"]].reshape(n, PER_SEAT)
    seats[:, 0] = [view.hand_sizes[s] for s in order]
    seats[np.arange(n), [1 + _CALL_INDEX[view.calls[s]] for s in order]] = 1
    seats[:, 5] = [view.active[s] for s in order]
    seats[:, 6] = [view.in_round[s] for s in order]
    seats[:, 7] = [view.scores[s] / 100 for s in order]
    seats[:, 8] = [view.rounds_won[s] for s in order]
    seats[:, 9] = [view.leftover[s] / 100 for s in order]
    for column, seat in ((10, view.turn_seat), (11, view.actor), (12, view.lander),
                         (13, view.contre_caller)):
        if seat >= 0:
            seats[order.index(seat), column] = 1
    obs[sl["contre_announced"].start] = view.contre_announced
    m = sl["match"].start
    obs[m: m + 3] = view.round, view.rounds, view.decider
    obs[sl["draw_pile"].start] = view.draw_pile_size
    obs[sl["discard"]] = view.discard_counts
    return obs


class _Offsets:
    """Start index of every slice for one player count, as plain ints (hot-path lookups)."""

    def __init__(self, num_players: int):
        sl = slices(num_players)
        self.size = sl["discard"].stop
        self.top, self.colour = sl["top"].start, sl["colour"].start
        self.direction, self.pending = sl["direction"].start, sl["pending"].start
        self.phase, self.drawn = sl["phase"].start, sl["drawn"].start
        self.swaps_left, self.seats = sl["swaps_left"].start, sl["seats"].start
        self.contre_announced, self.match = sl["contre_announced"].start, sl["match"].start
        self.draw_pile, self.discard = sl["draw_pile"].start, sl["discard"].start


_offsets = cache(_Offsets)


def encode_game(game: LocoGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The same vector as ``encode(game.view(seat))``, read straight from the engine's state.

    This is the env's hot path: the two count blocks as array copies, every other entry a
    scalar write through a ``memoryview`` (under half the cost of a numpy item write) into a
    zeroed buffer, zero entries skipped; ``tests/loco/test_env.py`` pins it to :func:`encode`. With
    ``out`` (a ``float32`` array of the observation's length, e.g. a vector env's buffer row)
    it writes there and returns it.
    """
    o = _offsets(game.num_players)
    if out is None:
        obs = np.zeros(o.size, np.float32)
    else:
        obs = out
        obs.fill(0)
    obs[:NUM_IDENTITIES] = game.hands[seat]
    obs[o.discard:] = game.discard_counts
    _write_entries(game, seat, memoryview(obs), 0, o)
    return obs


def encode_games(games: Sequence[LocoGame], seats: Sequence[int], obs: np.ndarray,
                 rows: Sequence[int], arrays: LocoBatchArrays | None = None) -> None:
    """:func:`encode_game` of ``games[i]`` for ``seats[i]`` into ``obs[rows[i]]``, for all ``i``.

    A vector env's step: the zeroing and the two count blocks are one numpy call each for all
    the rows (the blocks gathered from ``arrays``, the batch's ``LocoGame.batch_arrays``, in
    which ``games[i]`` holds row ``rows[i]``; without them, from the games), and the other
    entries go through one flat ``memoryview`` of ``obs`` (a 2-D C-contiguous ``float32``
    array); ``tests/vector/test_batched_engines.py`` pins it to :func:`encode_game`.
    """
    if not games:
        return
    o = _offsets(games[0].num_players)
    index = np.array(rows, np.intp)  # numpy turns a list into an index anew for every use
    obs[index] = 0
    if arrays is None:
        obs[index, :NUM_IDENTITIES] = [game.hands[seat]
                                       for game, seat in zip(games, seats, strict=True)]
        obs[index, o.discard:] = [game.discard_counts for game in games]
    else:
        obs[index, :NUM_IDENTITIES] = arrays.hands[index, np.array(seats, np.intp)]
        obs[index, o.discard:] = arrays.discard_counts[index]
    flat = memoryview(obs).cast("B").cast("f")
    for game, seat, row in zip(games, seats, rows, strict=True):
        _write_entries(game, seat, flat, row * o.size, o)


def _write_entries(game: LocoGame, seat: int, w: memoryview, base: int, o: _Offsets) -> None:
    """Every entry but the two count blocks, into a zeroed ``w[base: base + o.size]``."""
    w[base + o.top + game.discard[-1]] = 1.0
    w[base + o.colour + game.colour] = 1.0
    if game.direction == 1:
        w[base + o.direction] = 1.0
    if game.pending:
        w[base + o.pending] = min(game.pending, MAX_CARDS)
    if game.pending_kind:
        w[base + o.pending + 1 + (game.pending_kind == "+4")] = 1.0
    phase, actor = game.visible_decision(seat)  # a secret slap window looks like the turn (L-41)
    if phase < NUM_PHASES:
        w[base + o.phase + phase] = 1.0
    if phase == AFTER_DRAW and seat == game.current_seat and game.drawn is not None:
        w[base + o.drawn + game.drawn] = 1.0
    if game.swaps_left:
        w[base + o.swaps_left] = game.swaps_left
    n = game.num_players
    sizes, calls, active, in_round = game.hand_sizes, game.calls, game.active, game.in_round
    scores, won, leftover = game.scores, game.rounds_won, game.leftover
    seats0 = base + o.seats
    for s in range(n):
        row = seats0 + ((s - seat) % n) * PER_SEAT
        if sizes[s]:
            w[row] = sizes[s]
        w[row + 1 + calls[s]] = 1.0
        if active[s]:
            w[row + 5] = 1.0
        if in_round[s]:
            w[row + 6] = 1.0
        if scores[s]:
            w[row + 7] = scores[s] / 100
        if won[s]:
            w[row + 8] = won[s]
        if leftover[s]:
            w[row + 9] = leftover[s] / 100
    caller, announced = game.contre_queue[0] if phase == CONTRE else (-1, False)
    for column, who in ((10, game.turn_seat), (11, actor), (12, game.lander),
                        (13, caller)):
        if who >= 0:
            w[seats0 + ((who - seat) % n) * PER_SEAT + column] = 1.0
    if announced:
        w[base + o.contre_announced] = 1.0
    match = base + o.match
    w[match] = game.round
    w[match + 1] = game.rounds
    if game.decider:
        w[match + 2] = 1.0
    if game.draw_pile:
        w[base + o.draw_pile] = len(game.draw_pile)


def to_string(obs: np.ndarray, num_players: int) -> str:
    """The debugging twin of :func:`encode`: every non-zero entry by slice name."""
    parts = []
    for name, sl in slices(num_players).items():
        values = obs[sl]
        nonzero = np.flatnonzero(values)
        if name in ("hand", "top", "drawn", "discard"):
            items = [f"{CODES[i]}:{values[i]:g}" for i in nonzero]
        else:
            items = [f"{i}:{values[i]:g}" for i in nonzero]
        parts.append(f"{name}[{' '.join(items)}]")
    return " ".join(parts)
