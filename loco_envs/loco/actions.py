"""LOCO action codec: one ``Discrete(242)`` for every player count.

=========  =========================================================================
indices    meaning (string form)
=========  =========================================================================
0–111      play k identical cards of one identity (``play r5``, ``play r5 x2``)
112–223    slap k identical cards on the top card, out of turn (``slap y+2``)
224        ``draw``: draw one card, or the whole pending penalty (L-32)
225        ``pass``: decline the drawn card / end the turn after a penalty draw /
           no slap / no Contre-LOCO
226–229    ``colour r``, ``colour y``, ``colour g``, ``colour b`` for a wild (L-12)
230–238    ``target +1`` … ``target +9``: Swap with the seat that many places
           clockwise (L-35)
239        ``loco``: announce LOCO! (L-50)
240        ``silent``: stay silent at one card (L-51)
241        ``contre``: shout Contre-LOCO (L-52)
=========  =========================================================================

The play and slap blocks list each identity in the order of :mod:`loco_envs.loco.cards`, with
one index per possible number of copies (2 for most coloured cards, 1 for a Swap, 4 for a wild):
112 indices, one per card of the deck.
"""

from __future__ import annotations

import numpy as np

from loco_envs.loco.cards import CODES, COLOURS, COPIES, NUM_IDENTITIES

_play_ident: list[int] = []
_play_count: list[int] = []
PLAY_BASE: list[int] = []
for _ident in range(NUM_IDENTITIES):
    PLAY_BASE.append(len(_play_ident))
    for _k in range(1, COPIES[_ident] + 1):
        _play_ident.append(_ident)
        _play_count.append(_k)

NUM_PLAYS = len(_play_ident)  # 112
PLAY_IDENT = np.array(_play_ident, dtype=np.int64)
PLAY_COUNT = np.array(_play_count, dtype=np.int64)
PLAY_IDENT_LIST = _play_ident
PLAY_COUNT_LIST = _play_count

PLAY0 = 0
SLAP0 = NUM_PLAYS
DRAW = 2 * NUM_PLAYS
PASS = DRAW + 1
COLOUR0 = PASS + 1
TARGET0 = COLOUR0 + len(COLOURS)
MAX_TARGET = 9
LOCO = TARGET0 + MAX_TARGET
SILENT = LOCO + 1
CONTRE = SILENT + 1
NUM_ACTIONS = CONTRE + 1  # 242


def play_action(identity: int, count: int = 1) -> int:
    return PLAY0 + PLAY_BASE[identity] + count - 1


def slap_action(identity: int, count: int = 1) -> int:
    return SLAP0 + PLAY_BASE[identity] + count - 1


def _card_with_count(ident: int, count: int) -> str:
    return CODES[ident] if count == 1 else f"{CODES[ident]} x{count}"


def _build_names() -> list[str]:
    names = [""] * NUM_ACTIONS
    for i in range(NUM_PLAYS):
        card = _card_with_count(_play_ident[i], _play_count[i])
        names[PLAY0 + i] = f"play {card}"
        names[SLAP0 + i] = f"slap {card}"
    names[DRAW], names[PASS] = "draw", "pass"
    for c, letter in enumerate(COLOURS):
        names[COLOUR0 + c] = f"colour {letter}"
    for d in range(1, MAX_TARGET + 1):
        names[TARGET0 + d - 1] = f"target +{d}"
    names[LOCO], names[SILENT], names[CONTRE] = "loco", "silent", "contre"
    return names


ACTION_NAMES = _build_names()
_NAME_TO_ACTION = {name: i for i, name in enumerate(ACTION_NAMES)}


def action_to_str(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} out of range 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[action]


def str_to_action(text: str) -> int:
    if not isinstance(text, str):
        raise ValueError(f"LOCO action name must be a string, got {type(text).__name__}")
    key = " ".join(text.split())
    if key.endswith(" x1"):
        key = key[:-3]
    try:
        return _NAME_TO_ACTION[key]
    except KeyError:
        raise ValueError(
            f"unknown LOCO action {text!r}; e.g. 'play r5', 'play r5 x2', 'slap y+2', 'draw', "
            "'pass', 'colour g', 'target +1', 'loco', 'silent', 'contre'"
        ) from None
