"""The Decktet cards Moco! uses, as one data table, and their short codes.

Suits, in the order used by every suit-indexed list of the package (piles, chips, supply):

| index | suit   | letter |
|-------|--------|--------|
| 0     | Moons  | ``m``  |
| 1     | Suns   | ``s``  |
| 2     | Waves  | ``w``  |
| 3     | Leaves | ``l``  |
| 4     | Wyrms  | ``y``  |
| 5     | Knots  | ``k``  |

A card's code is its rank letter or digit followed by its suit letters in suit order:
Aces ``Am`` … ``Ak``; numbered cards ``2mk`` (the Author), ``5ml`` (the Forest), …; Pawns
``P`` + three suits (``Pmsl`` the Harvest); Crowns ``C`` + suit (``Cw`` the Sea); the Excuse
``X``. Codes are unique even ignoring case. Card ids are row numbers of :data:`CARDS`; the six
Aces are ids 0–5 (id = suit index) and are never in play: they are the bases of the piles.
"""

from __future__ import annotations

from dataclasses import dataclass

SUITS: tuple[str, ...] = ("moons", "suns", "waves", "leaves", "wyrms", "knots")
SUIT_LETTERS = "mswlyk"
NUM_SUITS = 6


@dataclass(frozen=True)
class Card:
    """One row of the card table."""

    id: int
    code: str
    name: str
    rank: str  # "A", "2".."9", "P" (Pawn), "C" (Crown), "X" (Excuse)
    value: int  # what a chip of a pile topped by this card is worth (M-21)
    suits: tuple[int, ...]  # empty for the Excuse, which fits any pile (M-10)


# name, rank, chip value as a pile's top, suit letters. Courts are not used (rules page).
_TABLE: tuple[tuple[str, str, int, str], ...] = (
    ("Ace of Moons", "A", 1, "m"),
    ("Ace of Suns", "A", 1, "s"),
    ("Ace of Waves", "A", 1, "w"),
    ("Ace of Leaves", "A", 1, "l"),
    ("Ace of Wyrms", "A", 1, "y"),
    ("Ace of Knots", "A", 1, "k"),
    ("Author", "2", 2, "mk"),
    ("Desert", "2", 2, "sy"),
    ("Origin", "2", 2, "wl"),
    ("Journey", "3", 3, "mw"),
    ("Painter", "3", 3, "sk"),
    ("Savage", "3", 3, "ly"),
    ("Mountain", "4", 4, "ms"),
    ("Sailor", "4", 4, "wl"),
    ("Battle", "4", 4, "yk"),
    ("Forest", "5", 5, "ml"),
    ("Discovery", "5", 5, "sw"),
    ("Soldier", "5", 5, "yk"),
    ("Lunatic", "6", 6, "mw"),
    ("Penitent", "6", 6, "sy"),
    ("Market", "6", 6, "lk"),
    ("Chance Meeting", "7", 7, "ml"),
    ("Castle", "7", 7, "sk"),
    ("Cave", "7", 7, "wy"),
    ("Diplomat", "8", 8, "ms"),
    ("Mill", "8", 8, "wl"),
    ("Betrayal", "8", 8, "yk"),
    ("Pact", "9", 9, "ms"),
    ("Darkness", "9", 9, "wy"),
    ("Merchant", "9", 9, "lk"),
    ("Harvest", "P", 1, "msl"),
    ("Watchman", "P", 1, "myk"),
    ("Light Keeper", "P", 1, "swk"),
    ("Borderland", "P", 1, "wly"),
    ("Huntress", "C", 10, "m"),
    ("Bard", "C", 10, "s"),
    ("Sea", "C", 10, "w"),
    ("End", "C", 10, "l"),
    ("Calamity", "C", 10, "y"),
    ("Windfall", "C", 10, "k"),
    ("Excuse", "X", 0, ""),
)

CARDS: tuple[Card, ...] = tuple(
    Card(i, rank + letters, name, rank, value, tuple(SUIT_LETTERS.index(c) for c in letters))
    for i, (name, rank, value, letters) in enumerate(_TABLE)
)
NUM_CARDS = len(CARDS)  # 41
EXCUSE = NUM_CARDS - 1
#: The cards that can be in a hand (everything but the Aces), in id order.
PLAYABLE: tuple[int, ...] = tuple(c.id for c in CARDS if c.rank != "A")
FIRST_PLAYABLE = NUM_SUITS  # ids 6..40
NUM_PLAYABLE = len(PLAYABLE)  # 35
#: M-02: the playing deck without the Excuse (34 cards), and with it (35, five players).
DECK_WITHOUT_EXCUSE: tuple[int, ...] = PLAYABLE[:-1]
DECK_WITH_EXCUSE: tuple[int, ...] = PLAYABLE

CODES: tuple[str, ...] = tuple(c.code for c in CARDS)
CARD_BY_CODE: dict[str, int] = {c.code.lower(): c.id for c in CARDS}
VALUES: tuple[int, ...] = tuple(c.value for c in CARDS)

assert len(CARD_BY_CODE) == NUM_CARDS, "card codes must be unique ignoring case"
assert [c.id for c in CARDS[:NUM_SUITS]] == [c.suits[0] for c in CARDS[:NUM_SUITS]]


def card_id(code: str) -> int:
    """The id of a card code (case-insensitive); ``ValueError`` for an unknown code."""
    try:
        return CARD_BY_CODE[code.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown card code {code!r}") from None


def deck(num_players: int) -> tuple[int, ...]:
    """M-02: the cards shuffled and dealt for ``num_players`` (the Excuse only with five)."""
    return DECK_WITH_EXCUSE if num_players == 5 else DECK_WITHOUT_EXCUSE
