"""The Los Mampfos action codec: 13 actions, one context-free name each.

| index | names | decision |
|---|---|---|
| 0-2 | ``donkey <d>``, d = white, grey, brown | which donkey (★ card, end order) |
| 3-7 | ``feed <c>``, c = orange, red, blue, green, yellow | the next biscuit fed |
| 8-12 | ``wheel <c>``, c = orange, red, blue, green, yellow | the secret millwheel colour |
"""

from __future__ import annotations

import operator

#: Biscuit colours in codec order (also the order of every colour vector of the game).
COLOURS: tuple[str, ...] = ("orange", "red", "blue", "green", "yellow")
#: Donkeys in codec order; the card table writes them W, G, B.
DONKEYS: tuple[str, ...] = ("white", "grey", "brown")
DONKEY_LETTERS: tuple[str, ...] = ("W", "G", "B")

NUM_COLOURS = len(COLOURS)
NUM_DONKEYS = len(DONKEYS)

DONKEY_BASE = 0
FEED_BASE = DONKEY_BASE + NUM_DONKEYS
WHEEL_BASE = FEED_BASE + NUM_COLOURS
NUM_ACTIONS = WHEEL_BASE + NUM_COLOURS

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"donkey {d}" for d in DONKEYS)
    + tuple(f"feed {c}" for c in COLOURS)
    + tuple(f"wheel {c}" for c in COLOURS)
)
_ACTION_INDEX = {name: i for i, name in enumerate(ACTION_NAMES)}


def donkey_action(donkey: int) -> int:
    """Action choosing ``donkey`` (0 white, 1 grey, 2 brown)."""
    return DONKEY_BASE + donkey


def feed_action(colour: int) -> int:
    """Action feeding one biscuit of ``colour`` (index into :data:`COLOURS`)."""
    return FEED_BASE + colour


def wheel_action(colour: int) -> int:
    """Action setting the millwheel to ``colour``."""
    return WHEEL_BASE + colour


def action_to_str(action: int) -> str:
    """The name of an action index; ``ValueError`` outside ``0 .. NUM_ACTIONS - 1``."""
    try:
        index = operator.index(action)
    except TypeError:
        index = -1
    if isinstance(action, bool) or not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is not an action index 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[index]


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; ``ValueError`` for an unknown name."""
    index = _ACTION_INDEX.get(text) if isinstance(text, str) else None
    if index is None:
        raise ValueError(f"unknown action {text!r}; actions are {list(ACTION_NAMES)}")
    return index
