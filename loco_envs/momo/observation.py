"""Loco Momo view -> flat ``float32`` observation, with a named-slice table.

Everything is from the observer's point of view: entries indexed by seat are in relative order
(index 0 is the observer, 1 the next seat clockwise, ...). Tokens are counted per identity
``species * 3 + colour`` (``Rb Rn Rg Lb ... Dg``). The range of each entry, by the rules, is
the observation ``Box``'s ``low``/``high`` (:func:`bounds`); one-hot entries are 0..1.

==============  =============  ===========================================================
name            length         content (range, why)
==============  =============  ===========================================================
forest          60             area-major (A, B, C, D) counts of the 15 identities (0..4:
                               an area holds 4 tokens, K-05/K-14)
pending         15             tokens the seat to act has taken and not placed yet (0..5:
                               one colour of an area's 4 tokens plus the moved one, K-11)
bag             15             bag composition, known by elimination (0..7 copies, K-01)
bag_size        1              tokens left in the bag (0..89: 105 less the 16 of K-05)
discarded       15             tokens out of the game (K-13) (0..7)
phase           2              one-hot: pick, place (both 0 once over)
round           6              one-hot round 1..6
expansion_a     8              one-hot K-30 hexagon (5 species, 3 colours); 0 when off
expansion_b     5              one-hot K-31 flower species; 0 when off
to_act          n              one-hot relative seat to act (all 0 once over)
first_player    n              one-hot relative seat of the first player
turns_left      n              turns each relative seat still plays, current included (0..6)
points          n              K-20..K-24 points of each relative seat's picture so far
                               (0..113: the sum of each rule's most, 20 + 15 + 14 + 14 + 50)
boards          n * 25 * 8     relative seats, cells row-major; per cell one-hot species
                               (R L E B D) then one-hot colour (b n g); an empty cell is 0
==============  =============  ===========================================================
"""

from __future__ import annotations

from functools import cache

import numpy as np

from loco_envs.core.bounds import slice_bounds
from loco_envs.momo.actions import (
    AREA_SIZE,
    CELLS,
    COLOUR_OF,
    COLS,
    COPIES,
    NUM_AREAS,
    NUM_COLOURS,
    NUM_SPECIES,
    NUM_TOKEN_TYPES,
    NUM_TOKENS,
    ROWS,
    SPECIES_LETTERS,
    SPECIES_OF,
    TOKEN_CODES,
)
from loco_envs.momo.rules import (
    COLOUR_BONUS,
    HEXAGONS,
    PAIR_MATCH_POINTS,
    ROUNDS,
    STACKED_PAIR_POINTS,
    F,
    MomoView,
)

CELL_FEATURES = NUM_SPECIES + NUM_COLOURS  # 8
_FIXED = (
    ("forest", NUM_AREAS * NUM_TOKEN_TYPES),
    ("pending", NUM_TOKEN_TYPES),
    ("bag", NUM_TOKEN_TYPES),
    ("bag_size", 1),
    ("discarded", NUM_TOKEN_TYPES),
    ("phase", 2),
    ("round", ROUNDS),
    ("expansion_a", len(HEXAGONS)),
    ("expansion_b", NUM_SPECIES),
)
# Features of a cell holding each identity (row 15, reached by index -1, is the empty cell).
_CELL_FEATURES = np.zeros((NUM_TOKEN_TYPES + 1, CELL_FEATURES), np.float32)
for _t in range(NUM_TOKEN_TYPES):
    _CELL_FEATURES[_t, SPECIES_OF[_t]] = 1.0
    _CELL_FEATURES[_t, NUM_SPECIES + COLOUR_OF[_t]] = 1.0
#: forest, pending, bag, bag_size and discarded are contiguous counts at the start.
_COUNTS_END = sum(size for _, size in _FIXED[:5])


@cache
def slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation for ``num_players``."""
    table: dict[str, slice] = {}
    start = 0
    sizes = list(_FIXED) + [
        ("to_act", num_players),
        ("first_player", num_players),
        ("turns_left", num_players),
        ("points", num_players),
        ("boards", num_players * CELLS * CELL_FEATURES),
    ]
    for name, size in sizes:
        table[name] = slice(start, start + size)
        start += size
    return table


#: The slice table of each player count.
SLICES: dict[int, dict[str, slice]] = {n: slices(n) for n in range(1, 5)}


def observation_size(num_players: int) -> int:
    return slices(num_players)["boards"].stop


#: The most K-20..K-24 can give one picture: each rule at its maximum (K-20 every top-row token,
#: K-21 every column, K-22 five of a species, K-23 five species, K-24 every row and column).
MAX_POINTS = (COLS * PAIR_MATCH_POINTS + COLS * STACKED_PAIR_POINTS + F[COLS] + F[COLS]
              + (ROWS + COLS) * COLOUR_BONUS)


def bounds(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` of the observation (the ranges of the module docstring).

    The same with or without expansions: an entry that an option keeps at 0 still declares its
    range, as Gymnasium's checker asks (``low < high`` everywhere).
    """
    table = {name: (0, 1) for name in ("phase", "round", "to_act", "first_player", "boards")}
    table |= {
        "forest": (0, AREA_SIZE),
        "pending": (0, AREA_SIZE + 1),
        "bag": (0, COPIES),
        "bag_size": (0, NUM_TOKENS - NUM_AREAS * AREA_SIZE),
        "discarded": (0, COPIES),
        "expansion_a": (0, 1),
        "expansion_b": (0, 1),
        "turns_left": (0, ROUNDS),
        "points": (0, MAX_POINTS),
    }
    return slice_bounds(slices(num_players), table)


def encode(view: MomoView) -> np.ndarray:
    """The observation vector of ``view.seat`` (a handful of numpy calls: it runs every step)."""
    n = view.num_players
    sl = slices(n)
    out = np.zeros(observation_size(n), np.float32)
    forest = view.forest
    out[:_COUNTS_END] = (
        forest[0]
        + forest[1]
        + forest[2]
        + forest[3]
        + view.pending
        + view.bag
        + (sum(view.bag),)
        + view.discarded
    )
    ones = [sl["round"].start + view.round - 1]
    if view.phase != "over":
        ones.append(sl["phase"].start + (view.phase == "place"))
    if view.expansion_a >= 0:
        ones.append(sl["expansion_a"].start + view.expansion_a)
    if view.expansion_b >= 0:
        ones.append(sl["expansion_b"].start + view.expansion_b)
    if view.current_seat >= 0:
        ones.append(sl["to_act"].start + (view.current_seat - view.seat) % n)
    ones.append(sl["first_player"].start + (view.first_player - view.seat) % n)
    out[ones] = 1.0
    seats = [(view.seat + k) % n for k in range(n)]  # relative order, observer first
    out[sl["turns_left"].start : sl["points"].stop] = [view.turns_left(s) for s in seats] + [
        view.points[s] for s in seats
    ]
    cells = np.array([view.boards[s] for s in seats], np.intp)
    out[sl["boards"]] = _CELL_FEATURES[cells].reshape(-1)
    return out


def to_string(obs: np.ndarray, num_players: int) -> str:
    """A readable dump of an observation (the debugging twin of :func:`encode`)."""
    sl = slices(num_players)
    lines = []
    for name in ("forest", "pending", "bag", "discarded"):
        part = obs[sl[name]]
        if name == "forest":
            for a in range(NUM_AREAS):
                counts = part[a * NUM_TOKEN_TYPES : (a + 1) * NUM_TOKEN_TYPES]
                lines.append(f"forest {'ABCD'[a]}: " + _counts(counts))
        else:
            lines.append(f"{name}: " + _counts(part))
    for name in (
        "bag_size",
        "phase",
        "round",
        "expansion_a",
        "expansion_b",
        "to_act",
        "first_player",
        "turns_left",
        "points",
    ):
        lines.append(f"{name}: {obs[sl[name]].astype(int).tolist()}")
    boards = obs[sl["boards"]].reshape(num_players, CELLS, CELL_FEATURES)
    for rel in range(num_players):
        lines.append(f"board of relative seat {rel}:")
        for r in range(5):
            row = []
            for c in range(5):
                cell = boards[rel, r * 5 + c]
                if not cell.any():
                    row.append("..")
                else:
                    s = int(np.argmax(cell[:NUM_SPECIES]))
                    col = int(np.argmax(cell[NUM_SPECIES:]))
                    row.append(SPECIES_LETTERS[s] + "bng"[col])
            lines.append("  " + " ".join(row))
    return "\n".join(lines)


def _counts(part: np.ndarray) -> str:
    items = [f"{TOKEN_CODES[t]}x{int(k)}" for t, k in enumerate(part) if k]
    return " ".join(items) if items else "-"
