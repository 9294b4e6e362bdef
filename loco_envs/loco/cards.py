"""The LOCO deck as one data table (rules page, "The 112 cards").

A card's *identity* is (kind, colour) for coloured cards and the kind alone for wilds; identical
cards are interchangeable, so hands and piles are counts per identity. Identities are numbered
colour-major: ``colour * 13 + kind`` for the 52 coloured identities, then ``W``, ``+4``, ``O``.

Card codes (``shared/API.md``): colour ``r y g b`` + ``1``…``9``, ``S`` (Skip), ``R`` (Reverse),
``+2``, ``X`` (Swap); wilds ``W`` (Wild), ``+4``, ``O`` (Rotation).
"""

from __future__ import annotations

import numpy as np

COLOURS = "rygb"
COLOUR_NAMES = ("red", "yellow", "green", "blue")

#: kind, copies per colour (coloured) or in all (wild), points left in hand.
COLOURED_KINDS: tuple[tuple[str, int, int], ...] = (
    *((str(n), 2, n) for n in range(1, 10)),
    ("S", 2, 20),
    ("R", 2, 10),
    ("+2", 2, 30),
    ("X", 1, 30),
)
WILD_KINDS: tuple[tuple[str, int, int], ...] = (("W", 4, 40), ("+4", 4, 50), ("O", 4, 40))

KINDS_PER_COLOUR = len(COLOURED_KINDS)
NUM_IDENTITIES = KINDS_PER_COLOUR * len(COLOURS) + len(WILD_KINDS)
DECK_SIZE = 112
HAND_SIZE = 8

CODES: list[str] = []
KIND: list[str] = []  # "1".."9", "S", "R", "+2", "X", "W", "+4", "O"
COLOUR: list[int] = []  # 0..3, or -1 for wilds
COPIES: list[int] = []
POINTS_LIST: list[int] = []
for _c, _letter in enumerate(COLOURS):
    for _kind, _copies, _points in COLOURED_KINDS:
        CODES.append(_letter + _kind)
        KIND.append(_kind)
        COLOUR.append(_c)
        COPIES.append(_copies)
        POINTS_LIST.append(_points)
for _kind, _copies, _points in WILD_KINDS:
    CODES.append(_kind)
    KIND.append(_kind)
    COLOUR.append(-1)
    COPIES.append(_copies)
    POINTS_LIST.append(_points)

CODE_TO_ID = {code: i for i, code in enumerate(CODES)}
POINTS = np.array(POINTS_LIST, dtype=np.int64)
FULL_DECK_COUNTS = np.array(COPIES, dtype=np.int16)
#: The most copies one identity of each kind has: what can be played together (L-20).
MOST_COPIES = {kind: max(c for c, k in zip(COPIES, KIND, strict=True) if k == kind)
               for kind in dict.fromkeys(KIND)}
assert int(FULL_DECK_COUNTS.sum()) == DECK_SIZE

WILD = CODE_TO_ID["W"]
PLUS4 = CODE_TO_ID["+4"]
ROTATION = CODE_TO_ID["O"]
IS_WILD = np.array([c < 0 for c in COLOUR])
IS_NUMBER = np.array([k.isdigit() for k in KIND])
PLUS2_IDS = [i for i, k in enumerate(KIND) if k == "+2"]


def is_wild(identity: int) -> bool:
    return COLOUR[identity] < 0


def matches(card: int, top: int, colour: int) -> bool:
    """L-10: same colour as the current one, same number or action kind as the top, or a wild."""
    return COLOUR[card] < 0 or COLOUR[card] == colour or KIND[card] == KIND[top]


def card_id(code: str) -> int:
    """Identity of a card code; ``ValueError`` for an unknown code."""
    try:
        return CODE_TO_ID[code]
    except KeyError:
        raise ValueError(f"unknown card code {code!r}") from None


def deck_list() -> list[int]:
    """All 112 cards as identities, in table order (shuffle before use)."""
    return [i for i, copies in enumerate(COPIES) for _ in range(copies)]
