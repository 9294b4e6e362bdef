"""Loco Momo's scoring (K-20..K-24, K-30/K-31 constants, K-40 levels): the rules engine, the
renderers and the bots share it (kept apart so that none imports the rules for a score)."""

from __future__ import annotations

from collections.abc import Sequence

from loco_envs.momo import actions as A
from loco_envs.momo.actions import COLOUR_OF, COLOURS, COLS, ROWS, SPECIES, SPECIES_OF

ROUNDS = 6  # K-04
#: f(n) of K-22/K-23 for n = 0..5.
F = (0, 1, 2, 5, 9, 14)
PAIR_MATCH_POINTS = 4  # K-20
STACKED_PAIR_POINTS = 3  # K-21
COLOUR_BONUS = 5  # K-24
ENDANGERED_POINTS = 7  # K-30
FLOWER_POINTS = 5  # K-31
#: K-30 hexagons: the five species then the three colours.
HEXAGONS: tuple[str, ...] = SPECIES + COLOURS
#: K-40 photographer levels: (lowest score of the level, name).
PHOTOGRAPHER_LEVELS: tuple[tuple[int, str], ...] = (
    (62, "chief photographer"),
    (56, "nearly there"),
    (46, "assistant photographer"),
)


def photographer_level(score: float) -> str:
    """K-40: ``"career change"`` (<=45), ``"assistant photographer"`` (46-55), ``"nearly
    there"`` (56-61) or ``"chief photographer"`` (>=62)."""
    for low, name in PHOTOGRAPHER_LEVELS:
        if score >= low:
            return name
    return "career change"


def score_breakdown(cells: Sequence[int]) -> tuple[int, int, int, int, int]:
    """Points of one picture (25 cells row-major, ``-1`` empty) by rule.

    Returns (K-20 pair match, K-21 stacked pairs, K-22 groups, K-23 species, K-24 colour bonus).
    """
    sp = [SPECIES_OF[t] if t >= 0 else -1 for t in cells]
    pair_match = stacked = 0
    for c in range(COLS):
        mid, low = sp[COLS + c], sp[2 * COLS + c]
        if mid >= 0 and mid == low:
            stacked += STACKED_PAIR_POINTS
            if sp[c] == mid:
                pair_match += PAIR_MATCH_POINTS
    counts = [0] * A.NUM_SPECIES
    for s in sp[3 * COLS : 4 * COLS]:
        if s >= 0:
            counts[s] += 1
    groups = sum(F[k] for k in counts)
    species = F[len({s for s in sp[4 * COLS :] if s >= 0})]
    bonus = 0
    for r in range(ROWS):
        bonus += _one_colour(cells[r * COLS : r * COLS + COLS])
    for c in range(COLS):
        bonus += _one_colour(cells[c::COLS])
    return pair_match, stacked, groups, species, bonus


def _one_colour(line: Sequence[int]) -> int:
    first = line[0]
    if first < 0:
        return 0
    colour = COLOUR_OF[first]
    for t in line:
        if t < 0 or COLOUR_OF[t] != colour:
            return 0
    return COLOUR_BONUS


def board_points(cells: Sequence[int]) -> int:
    """K-20..K-24 total of one picture."""
    return sum(score_breakdown(cells))
