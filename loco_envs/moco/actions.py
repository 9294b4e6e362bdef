"""The action codec of Moco!: one index per (card, pile) play the suits allow, per chip, no chip.

A turn is two decisions of the same seat: first a play, then a chip (M-10, M-11).

| indices | action | string |
|---|---|---|
| 0–71 | play a card on a pile of one of its suits (Excuse: any) | ``"play 5ml on leaves"`` |
| 72–77 | take a chip of suit 0–5 (moons … knots) | ``"chip waves"`` |
| 78 | take no chip (only when none may be taken, M-13) | ``"no chip"`` |

Play indices run through the playable cards in card-id order and, for each card, through its
suits in suit order: ``2mk`` on moons = 0, ``2mk`` on knots = 1, ``2sy`` on suns = 2, …; the
Excuse's six plays are 66–71. :func:`action_table` lists them all. The same codec serves every
player count (the Excuse's plays are never legal with fewer than five players).
"""

from __future__ import annotations

from loco_envs.moco.cards import CARDS, CODES, EXCUSE, NUM_SUITS, PLAYABLE, SUITS

_plays: list[tuple[int, int]] = []
for _card in PLAYABLE:
    for _pile in CARDS[_card].suits if _card != EXCUSE else range(NUM_SUITS):
        _plays.append((_card, _pile))

#: Card id and pile (suit index) of every play action.
PLAY_CARD: tuple[int, ...] = tuple(card for card, _ in _plays)
PLAY_PILE: tuple[int, ...] = tuple(pile for _, pile in _plays)
NUM_PLAYS = len(_plays)  # 72
FIRST_CHIP = NUM_PLAYS  # chip of suit s is FIRST_CHIP + s
NO_CHIP = FIRST_CHIP + NUM_SUITS  # 78
NUM_ACTIONS = NO_CHIP + 1  # 79

_PLAY_INDEX: dict[tuple[int, int], int] = {play: i for i, play in enumerate(_plays)}
#: For each card id, its play action indices (empty for the Aces).
CARD_PLAYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i, (card, _) in enumerate(_plays) if card == c.id) for c in CARDS
)

_NAMES: tuple[str, ...] = (
    tuple(f"play {CODES[card]} on {SUITS[pile]}" for card, pile in _plays)
    + tuple(f"chip {suit}" for suit in SUITS)
    + ("no chip",)
)
_BY_NAME: dict[str, int] = {name.lower(): i for i, name in enumerate(_NAMES)}
assert len(_BY_NAME) == NUM_ACTIONS


def play_action(card: int, pile: int) -> int:
    """The index of playing ``card`` on ``pile``; ``ValueError`` if no suit of the card fits."""
    try:
        return _PLAY_INDEX[(card, pile)]
    except KeyError:
        raise ValueError(f"M-10: {CODES[card]} has no suit of pile {SUITS[pile]}") from None


def chip_action(suit: int) -> int:
    """The index of taking a chip of ``suit``."""
    if not 0 <= suit < NUM_SUITS:
        raise ValueError(f"no suit {suit}")
    return FIRST_CHIP + suit


def action_to_str(action: int) -> str:
    """The short name of an action index."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is not an index from 0 to {NUM_ACTIONS - 1}")
    return _NAMES[action]


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str` (case and extra spaces ignored)."""
    key = " ".join(str(text).split()).lower()
    if key not in _BY_NAME:
        raise ValueError(
            f"unknown action {text!r}; expected 'play <card> on <suit>', 'chip <suit>' or 'no chip'"
        )
    return _BY_NAME[key]


def action_table() -> list[tuple[int, str]]:
    """Every action index with its name (for documentation and debugging)."""
    return list(enumerate(_NAMES))
