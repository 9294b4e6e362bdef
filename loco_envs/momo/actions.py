"""Loco Momo's tokens and action codec.

Tokens
------
A token is one of 15 identities, ``species * 3 + colour`` (K-01):

* species ``R`` rabbit, ``L`` leopard, ``E`` eagle, ``B`` bear, ``D`` duck (indices 0..4);
* background colours ``b`` blue, ``n`` brown (``b`` is taken; ``BN`` is brown's IEC 60757
  code), ``g`` green (indices 0..2).

Its code is the species letter then the colour letter: ``Rb`` is a blue rabbit, ``Dn`` a brown
duck. These codes are used in ``state_dict``, action strings, renders and tests.

Actions (``NUM_ACTIONS`` = 135, the same for every player count)
----------------------------------------------------------------
* ``0 .. 59``  pick: ``area * 15 + token`` -> ``"pick Rb in A"`` (areas ``A B C D``, K-10).
  Copies of one identity in one area are interchangeable, so (area, identity) names every
  distinct pick.
* ``60 .. 134`` place: ``60 + token * 5 + row`` -> ``"place Rb on row 1"`` (rows 1..5 from the
  top, K-12): one of the taken tokens goes to the leftmost empty cell of that row.
"""

from __future__ import annotations

SPECIES: tuple[str, ...] = ("rabbit", "leopard", "eagle", "bear", "duck")
COLOURS: tuple[str, ...] = ("blue", "brown", "green")
SPECIES_LETTERS = "RLEBD"
COLOUR_LETTERS = "bng"
NUM_SPECIES = 5
NUM_COLOURS = 3
NUM_TOKEN_TYPES = NUM_SPECIES * NUM_COLOURS  # 15
COPIES = 7  # K-01: 5 x 3 x 7 = 105
NUM_TOKENS = NUM_TOKEN_TYPES * COPIES

AREAS = "ABCD"  # K-02: clockwise from the top left
NUM_AREAS = 4
AREA_SIZE = 4  # K-05
ROWS = 5  # K-03
COLS = 5
CELLS = ROWS * COLS

#: Token code of each identity: ``TOKEN_CODES[species * 3 + colour]``.
TOKEN_CODES: tuple[str, ...] = tuple(s + c for s in SPECIES_LETTERS for c in COLOUR_LETTERS)
TOKEN_INDEX: dict[str, int] = {code: i for i, code in enumerate(TOKEN_CODES)}
#: Species / colour of each identity (faster than divmod on the hot path).
SPECIES_OF: tuple[int, ...] = tuple(t // NUM_COLOURS for t in range(NUM_TOKEN_TYPES))
COLOUR_OF: tuple[int, ...] = tuple(t % NUM_COLOURS for t in range(NUM_TOKEN_TYPES))
#: Identities of each colour (the K-11 take looks only at these).
TOKENS_OF_COLOUR: tuple[tuple[int, ...], ...] = tuple(
    tuple(s * NUM_COLOURS + c for s in range(NUM_SPECIES)) for c in range(NUM_COLOURS)
)
#: Identities of each species.
TOKENS_OF_SPECIES: tuple[tuple[int, ...], ...] = tuple(
    tuple(s * NUM_COLOURS + c for c in range(NUM_COLOURS)) for s in range(NUM_SPECIES)
)

PICK_BASE = 0
NUM_PICKS = NUM_AREAS * NUM_TOKEN_TYPES  # 60
PLACE_BASE = PICK_BASE + NUM_PICKS
NUM_PLACES = NUM_TOKEN_TYPES * ROWS  # 75
NUM_ACTIONS = PLACE_BASE + NUM_PLACES  # 135


def token_name(token: int) -> str:
    """``"blue rabbit"`` for people."""
    return f"{COLOURS[COLOUR_OF[token]]} {SPECIES[SPECIES_OF[token]]}"


def pick_action(area: int, token: int) -> int:
    return PICK_BASE + area * NUM_TOKEN_TYPES + token


def place_action(token: int, row: int) -> int:
    """``row`` counts from 0 (the top row, row 1 in the rules)."""
    return PLACE_BASE + token * ROWS + row


def decode(action: int) -> tuple[str, int, int]:
    """``("pick", area, token)`` or ``("place", token, row)``; ``ValueError`` if out of range."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is not in 0..{NUM_ACTIONS - 1}")
    if action < PLACE_BASE:
        area, token = divmod(action - PICK_BASE, NUM_TOKEN_TYPES)
        return "pick", area, token
    token, row = divmod(action - PLACE_BASE, ROWS)
    return "place", token, row


def _name(action: int) -> str:
    kind, a, b = decode(action)
    if kind == "pick":
        return f"pick {TOKEN_CODES[b]} in {AREAS[a]}"
    return f"place {TOKEN_CODES[a]} on row {b + 1}"


ACTION_STRINGS: tuple[str, ...] = tuple(_name(a) for a in range(NUM_ACTIONS))
_ACTION_OF: dict[str, int] = {s: a for a, s in enumerate(ACTION_STRINGS)}


def action_to_str(action: int) -> str:
    """The name of an action index, e.g. ``"pick Rb in A"`` or ``"place Dg on row 5"``."""
    if isinstance(action, bool) or not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is not in 0..{NUM_ACTIONS - 1}")
    return ACTION_STRINGS[int(action)]


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str` (spaces are normalised, nothing else is guessed)."""
    if not isinstance(text, str):
        raise ValueError(f"action name must be a string, got {text!r}")
    key = " ".join(text.split())
    if key not in _ACTION_OF:
        raise ValueError(
            f"unknown action {text!r}; expected 'pick <token> in <A-D>' or "
            f"'place <token> on row <1-5>' with tokens like 'Rb' (species RLEBD, colour bng)"
        )
    return _ACTION_OF[key]


def parse_token(code: object, field: str) -> int:
    """Identity of a token code; ``ValueError`` naming ``field`` otherwise."""
    if not isinstance(code, str) or code not in TOKEN_INDEX:
        raise ValueError(
            f"state field {field!r}: {code!r} is not a token code (species RLEBD + colour bng)"
        )
    return TOKEN_INDEX[code]
