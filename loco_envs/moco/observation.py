"""Moco! view -> flat ``float32`` observation, with a named-slice table.

Everything is from the observer's point of view: per-seat blocks start with the observer and go
on clockwise (relative seat ``r`` is absolute seat ``(seat + r) % n``). Card blocks have one
entry per playable card (card ids 6–40 in :data:`loco_envs.moco.cards.CARDS` order, entry
``id - 6``); suit blocks follow suit order moons, suns, waves, leaves, wyrms, knots.

The last column is each entry's range by the rules, declared as the ``Box``'s ``low``/``high``
(:func:`bounds`). H is the hand dealt (M-03: 16, 11, 8, 7 for 2–5 players). Entries that a
player count or the ``match`` option keeps fixed still declare the range they take over those
(Gymnasium's checker asks for ``low < high`` everywhere).

| slice | size | meaning | range (why) |
|---|---|---|---|
| ``hand`` | 35 | 1 for each card in the observer's hand | 0–1 |
| ``pile_cards`` | 6 × 35 | 1 where a card lies on a pile (the public history of each pile) | 0–1 |
| ``pile_tops`` | 6 × 35 | 1 for each pile's top card (a row of zeros: only the Ace) | 0–1 |
| ``pile_heights`` | 6 | cards above each Ace | 0–6 (M-20 ends the game at 6) |
| ``pile_values`` | 6 | what one chip of each suit is worth now (M-21) | 1–10 (0 with the Excuse) |
| ``supply`` | 6 | chips left in the supply per suit | 0–5 (M-04) |
| ``chips`` | n × 6 | chips held per suit, by relative seat | 0–5 (M-04) |
| ``hand_sizes`` | n | cards in each hand, by relative seat | 0–H |
| ``num_removed`` | 1 | cards removed unseen (M-03) | 0–2 |
| ``phase`` | 2 | one-hot: play a card / take a chip (zeros once over) | 0–1 |
| ``played_pile`` | 6 | one-hot: the pile just played on (chip phase, M-12) | 0–1 |
| ``to_act`` | n | one-hot: relative seat to decide | 0–1 |
| ``dealer`` | n | one-hot: relative seat of this game's dealer (M-05) | 0–1 |
| ``match_game`` | 2 | index of the game in the match, and the number of games (M-30) | 0–n−1, 1–n |
| ``match_scores`` | n | finished games' totals / 10, by relative seat (M-30) | 0–(n−1)·H (a) |

(a) A game's score is at most 10·H: one chip per card played, at most H cards, a chip worth at
most 10 (a Crown on top). Only the n − 1 games before the last of a match can be finished and
still observed.

Length: 484 + 10 n (504, 514, 524, 534 for 2–5 players).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from loco_envs.core.bounds import slice_bounds
from loco_envs.moco.cards import (
    CODES,
    FIRST_PLAYABLE,
    NUM_PLAYABLE,
    NUM_SUITS,
    SUITS,
    VALUES,
    deck,
)
from loco_envs.moco.rules import (
    ACE_ONLY_VALUE,
    CHIPS_PER_SUIT,
    COUNT_CHIPS,
    HAND_SIZE,
    PHASES,
    REMOVED,
    MocoBatchArrays,
    MocoGame,
    MocoView,
    count_size,
    pile_values,
)

MATCH_SCORE_SCALE = 10.0
_PHASE_INDEX = {"play": 0, "chip": 1}
#: The engine's phase number -> entry of the ``phase`` slice (None: over, no entry).
_PHASE_ENTRY = tuple(_PHASE_INDEX.get(name) for name in PHASES)
#: Number of players -> observer seat -> the absolute seats in relative order.
_ORDERS = {n: [[(seat + r) % n for r in range(n)] for seat in range(n)] for n in range(2, 6)}


def slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation of a ``num_players`` game."""
    n = num_players
    sizes = [
        ("hand", NUM_PLAYABLE),
        ("pile_cards", NUM_SUITS * NUM_PLAYABLE),
        ("pile_tops", NUM_SUITS * NUM_PLAYABLE),
        ("pile_heights", NUM_SUITS),
        ("pile_values", NUM_SUITS),
        ("supply", NUM_SUITS),
        ("chips", n * NUM_SUITS),
        ("hand_sizes", n),
        ("num_removed", 1),
        ("phase", 2),
        ("played_pile", NUM_SUITS),
        ("to_act", n),
        ("dealer", n),
        ("match_game", 2),
        ("match_scores", n),
    ]
    out: dict[str, slice] = {}
    start = 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


_SLICES = {n: slices(n) for n in range(2, 6)}
SLICES = _SLICES  # number of players -> the table


def observation_size(num_players: int) -> int:
    return _SLICES[num_players]["match_scores"].stop


#: M-20: a pile with this many cards above its Ace ends the game.
MAX_PILE_HEIGHT = 6


def bounds(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` of the observation (the table in the module docstring)."""
    n, hand = num_players, HAND_SIZE[num_players]
    table = {name: (0, 1) for name in ("hand", "pile_cards", "pile_tops", "phase",
                                       "played_pile", "to_act", "dealer")}
    table |= {
        "pile_heights": (0, MAX_PILE_HEIGHT),
        "pile_values": (min(VALUES[c] for c in deck(n)), max(VALUES)),  # an Ace: 1
        "supply": (0, CHIPS_PER_SUIT),
        "chips": (0, CHIPS_PER_SUIT),
        "hand_sizes": (0, hand),
        "num_removed": (0, max(REMOVED.values())),
        "match_game": ([0, 1], [n - 1, n]),
        "match_scores": (0, (n - 1) * hand * max(VALUES) / MATCH_SCORE_SCALE),
    }
    return slice_bounds(_SLICES[n], table)


class _Offsets(NamedTuple):
    """Where each slice starts for one player count, as plain ints (hot-path lookups); the
    card blocks' starts are shifted back by ``FIRST_PLAYABLE`` so a card id indexes them."""

    size: int
    hand: int
    pile_cards: int
    pile_tops: int
    phase: int
    played_pile: int
    to_act: int
    dealer: int
    counts: int  # pile_heights … num_removed, back to back
    match: int


def _offsets(n: int) -> _Offsets:
    sl = _SLICES[n]
    return _Offsets(
        sl["match_scores"].stop,
        sl["hand"].start - FIRST_PLAYABLE,
        sl["pile_cards"].start - FIRST_PLAYABLE,
        sl["pile_tops"].start - FIRST_PLAYABLE,
        sl["phase"].start,
        sl["played_pile"].start,
        sl["to_act"].start,
        sl["dealer"].start,
        sl["pile_heights"].start,
        sl["match_game"].start,
    )


_OFFSETS = {n: _offsets(n) for n in _SLICES}


def encode(view: MocoView) -> np.ndarray:
    """The observation vector of ``view``'s seat.

    One fancy-indexed write for the one-hot entries and two slice writes for the counts keep it
    cheap: it runs at every ``observe``.
    """
    n = view.num_players
    size, hand0, cards0, tops0, phase0, played0, act0, dealer0, counts0, match0 = _OFFSETS[n]
    out = np.zeros(size, np.float32)
    me = view.seat
    ones = [hand0 + card for card in view.hand]
    for suit, pile in enumerate(view.piles):
        if pile:
            row = suit * NUM_PLAYABLE
            base = cards0 + row
            ones += [base + card for card in pile]
            ones.append(tops0 + row + pile[-1])
    if view.phase in _PHASE_INDEX:
        ones.append(phase0 + _PHASE_INDEX[view.phase])
    if view.played_pile >= 0:
        ones.append(played0 + view.played_pile)
    if view.current_seat >= 0:
        ones.append(act0 + (view.current_seat - me) % n)
    ones.append(dealer0 + (view.dealer - me) % n)
    out[ones] = 1.0
    order = [(me + r) % n for r in range(n)]
    # pile_heights, pile_values, supply, chips, hand_sizes, num_removed lie back to back.
    counts = [len(p) for p in view.piles]
    counts += pile_values(view.piles)
    counts += view.supply
    for s in order:
        counts += view.chips[s]
    counts += [view.hand_sizes[s] for s in order]
    counts.append(view.num_removed)
    out[counts0:counts0 + len(counts)] = counts
    scores = view.match_scores
    out[match0:] = [view.game, view.num_games] + [scores[s] / MATCH_SCORE_SCALE for s in order]
    return out


def encode_game(game: MocoGame, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The same vector as ``encode(game.view(seat))``, read straight from the engine's state.

    The env's hot path: building the view (sorted hand, tuples of every pile and chip row)
    costs more than the encoding, so this reads the engine's own lists (its package's private
    state, read-only) in one pass over the piles. The counts from ``pile_heights`` to
    ``num_removed`` go in as one slice; every other entry is a scalar write through a
    ``memoryview`` (under half the cost of a numpy item write, and cheaper than turning a
    list of indices into an index array). With ``out`` (a ``float32`` array of the
    observation's length, e.g. a vector env's buffer row) it writes there and returns it.
    ``tests/moco/test_env.py`` pins it to :func:`encode`.
    """
    offsets = _OFFSETS[game.num_players]
    if out is None:
        out = np.zeros(offsets.size, np.float32)
    else:
        out.fill(0)
    out[offsets.counts:offsets.phase] = _write_entries(game, seat, memoryview(out), offsets)
    return out


def encode_batch(games: Sequence[MocoGame], seats: Sequence[int], obs: np.ndarray,
                 rows: Sequence[int], arrays: MocoBatchArrays) -> None:
    """:func:`encode_game` of ``games[i]`` for ``seats[i]`` into ``obs[rows[i]]``, for all ``i``,
    where ``games[i]`` keeps row ``rows[i]`` of ``arrays`` (:meth:`MocoGame.move_to`).

    A vector env's step: the hand, the table and the counts are copied from the batch arrays,
    the seats put in the observer's order by one gather, and the one-hot and match entries
    are computed for all the rows together, a dozen numpy calls whatever the number of games.
    ``tests/vector/test_batched_engines.py`` pins it to :func:`encode_game`.
    """
    if not games:
        return
    n = games[0].num_players
    sl = _SLICES[n]
    at = np.asarray(rows, np.intp)
    seat = np.asarray(seats, np.intp)
    obs[at, sl["hand"]] = arrays.hands[at, seat]
    obs[at, sl["pile_cards"].start:sl["pile_tops"].stop] = arrays.table[at]
    obs[at, sl["pile_heights"].start:sl["phase"].start] = arrays.counts[at[:, None],
                                                                        _COUNT_ORDER[n][seat]]
    obs[at, sl["phase"].start:] = _tails(games, seat, n)


def _count_order(n: int) -> np.ndarray:
    """Observer seat -> the ``MocoBatchArrays.counts`` columns of the observation's entries
    from ``pile_heights`` to ``num_removed`` (the seats' blocks in relative order)."""
    chips, sizes = COUNT_CHIPS, COUNT_CHIPS + NUM_SUITS * n
    table = []
    for order in _ORDERS[n]:
        columns = list(range(COUNT_CHIPS))
        columns += [chips + NUM_SUITS * s + k for s in order for k in range(NUM_SUITS)]
        columns += [sizes + s for s in order]
        columns.append(count_size(n) - 1)
        table.append(columns)
    return np.array(table, np.intp)


_COUNT_ORDER = {n: _count_order(n) for n in _SLICES}
#: The engine's phase number -> column of the ``phase`` slice (-1: over, no entry).
_PHASE_COLUMN = np.array([-1 if e is None else e for e in _PHASE_ENTRY], np.intp)
#: Number of players -> observer seat -> the absolute seats in relative order, as an array.
_ORDER_TABLE = {n: np.array(orders, np.intp) for n, orders in _ORDERS.items()}


def _tails(games: Sequence[MocoGame], seat: np.ndarray, n: int) -> np.ndarray:
    """The entries from ``phase`` to ``match_scores`` of every game, one row each.

    The games' few scalars are read in one flat list; the one-hot entries are set in one
    call, those a game does not have (no phase once over, no pile outside the chip phase, no
    seat to act) in a scratch column past the end.
    """
    sl = _SLICES[n]
    start = sl["phase"].start
    width = sl["match_scores"].stop - start
    k = len(games)
    state = np.array([x for g in games for x in (g.phase, g.played_pile, g.current_seat,
                                                   g.dealer, g.game, g.num_games)],
                     np.intp).reshape(k, 6)
    played, current = state[:, 1], state[:, 2]
    columns = np.empty((k, 4), np.intp)
    phase = _PHASE_COLUMN[state[:, 0]]
    columns[:, 0] = np.where(phase >= 0, phase, width)
    columns[:, 1] = np.where(played >= 0, sl["played_pile"].start - start + played, width)
    columns[:, 2] = np.where(current >= 0,
                             sl["to_act"].start - start + (current - seat) % n, width)
    columns[:, 3] = sl["dealer"].start - start + (state[:, 3] - seat) % n
    tail = np.zeros((k, width + 1), np.float32)
    every = np.arange(k)[:, None]
    tail[every, columns] = 1
    match = sl["match_game"].start - start
    tail[:, match:match + 2] = state[:, 4:6]
    scores = np.array([x for g in games for x in g.match_scores], np.float64).reshape(k, n)
    tail[:, match + 2:width] = scores[every, _ORDER_TABLE[n][seat]] / MATCH_SCORE_SCALE
    return tail[:, :width]


def _write_entries(game: MocoGame, seat: int, w: memoryview, offsets: _Offsets) -> list[int]:
    """Every entry but the counts into a zeroed ``w``; returns the counts (``pile_heights`` to
    ``num_removed``) for the caller to write as one slice."""
    n = game.num_players
    _, hand0, cards0, tops0, phase0, played0, act0, dealer0, _, match0 = offsets
    hands = game._hands
    for card in hands[seat]:
        w[hand0 + card] = 1.0
    heights, values = [], []
    for suit, pile in enumerate(game._piles):
        if pile:
            row = suit * NUM_PLAYABLE
            first = cards0 + row
            for card in pile:
                w[first + card] = 1.0
            top = pile[-1]
            w[tops0 + row + top] = 1.0
            heights.append(len(pile))
            values.append(VALUES[top])
        else:
            heights.append(0)
            values.append(ACE_ONLY_VALUE)  # M-21, as pile_values
    phase = _PHASE_ENTRY[game.phase]
    if phase is not None:
        w[phase0 + phase] = 1.0
    if game.played_pile >= 0:
        w[played0 + game.played_pile] = 1.0
    if game.current_seat >= 0:
        w[act0 + (game.current_seat - seat) % n] = 1.0
    w[dealer0 + (game.dealer - seat) % n] = 1.0
    w[match0] = game.game
    w[match0 + 1] = game.num_games
    order = _ORDERS[n][seat]
    scores = game.match_scores
    for r, s in enumerate(order, match0 + 2):
        if scores[s]:
            w[r] = scores[s] / MATCH_SCORE_SCALE
    chips = game._chips
    counts = heights + values + game._supply
    for s in order:
        counts += chips[s]
    counts += [len(hands[s]) for s in order]
    counts.append(len(game._removed))
    return counts


def to_string(obs: np.ndarray, num_players: int) -> str:
    """A readable dump of an observation, slice by slice (for debugging)."""
    sl = _SLICES[num_players]
    lines = []
    for name, s in sl.items():
        part = obs[s]
        if name == "hand":
            text = " ".join(CODES[FIRST_PLAYABLE + i] for i in np.flatnonzero(part)) or "-"
        elif name in ("pile_cards", "pile_tops"):
            rows = part.reshape(NUM_SUITS, NUM_PLAYABLE)
            text = "; ".join(
                f"{SUITS[k]}: " + (" ".join(CODES[FIRST_PLAYABLE + i]
                                            for i in np.flatnonzero(rows[k])) or "-")
                for k in range(NUM_SUITS)
            )
        else:
            text = " ".join(f"{x:g}" for x in part)
        lines.append(f"{name:<13}{text}")
    return "\n".join(lines)
