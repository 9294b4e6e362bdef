"""Pictures of a Moco! table: the text one (``ansi``, below) and the image (``rgb_array``).

Example (two players, seat 0 to take a chip after playing the Forest on the leaves pile)::

    Moco! 2 players, game 1/1, dealer P1; P0 takes a chip (played on leaves)
    pile    base  cards above the Ace            h  value  supply
    moons   Am    -                              0    1      5
    leaves  Al    5ml                            1    5      5
    ...
    removed: 2 cards, unseen
    P0 *  hand 2mk 3mw ... (15)       chips m0 s0 w0 l0 y0 k0  worth 0
    P1    hand 16 cards               chips m0 s0 w0 l0 y0 k0  worth 0

Suit names are coloured with ansi codes; other seats' hands show only their size unless
``reveal_all`` (or ``seat`` is ``None`` with ``reveal_all``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core.pictures import CARD_FACE, DIM, HIGHLIGHT, INK, OUTLINE, PANEL, Canvas, fan
from loco_envs.moco.cards import CARDS, CODES, NUM_SUITS, SUIT_LETTERS, SUITS

_COLOUR = ("\033[37m", "\033[33m", "\033[34m", "\033[32m", "\033[31m", "\033[35m")
_RESET = "\033[0m"
_BOLD = "\033[1m"


def _suit(suit: int, width: int = 0) -> str:
    return f"{_COLOUR[suit]}{SUITS[suit]:<{width}}{_RESET}"


def render_text(game: Any, seat: int | None, reveal_all: bool = False) -> str:
    """The table as ``seat`` sees it (``None``: public information only)."""
    view = game.view(seat if seat is not None else 0)
    n = view.num_players
    if view.phase == "over":
        status = "the game is over"
        if view.num_games > 1:
            status = "the match is over"
    elif view.phase == "play":
        status = f"P{view.current_seat} plays a card"
    else:
        status = f"P{view.current_seat} takes a chip (played on {SUITS[view.played_pile]})"
    lines = [
        f"{_BOLD}Moco!{_RESET} {n} players, game {view.game + 1}/{view.num_games}, "
        f"dealer P{view.dealer}; {status}",
        f"{'pile':<8}{'base':<6}{'cards above the Ace':<31}{'h':>2}{'value':>7}{'supply':>8}",
    ]
    values = view.pile_values
    for suit in range(NUM_SUITS):
        pile = view.piles[suit]
        cards = " ".join(CODES[c] for c in pile) or "-"
        lines.append(
            f"{_suit(suit, 8)}{CODES[suit]:<6}{cards:<31}{len(pile):>2}"
            f"{values[suit]:>7}{view.supply[suit]:>8}"
        )
    removed = game.state_dict()["removed"] if reveal_all else []
    if removed:
        lines.append("removed: " + " ".join(removed))
    else:
        plural = "" if view.num_removed == 1 else "s"
        lines.append(f"removed: {view.num_removed} card{plural}, unseen")
    for s in range(n):
        mark = "*" if s == view.current_seat else " "
        if reveal_all or s == seat:
            hand = game.hand(s)
            shown = f"hand {' '.join(CODES[c] for c in hand) or '-'} ({len(hand)})"
        else:
            shown = f"hand {view.hand_sizes[s]} cards"
        chips = " ".join(f"{SUIT_LETTERS[k]}{view.chips[s][k]}" for k in range(NUM_SUITS))
        worth = sum(c * v for c, v in zip(view.chips[s], values, strict=True))
        total = f"  match {view.match_scores[s] + worth}" if view.num_games > 1 else ""
        lines.append(f"P{s} {mark}  {shown:<34} chips {chips}  worth {worth}{total}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The picture (render_mode="rgb_array")
# --------------------------------------------------------------------------------------------
SUIT_COLOURS = ((205, 205, 215), (240, 190, 40), (60, 120, 215), (50, 160, 80),
                (200, 55, 50), (170, 70, 170))
WIDTH = 760
#: The most cards a pile can hold above its Ace: every other card of that suit, and the Excuse.
_MOST_ABOVE_ACE = max(sum(1 for c in CARDS[NUM_SUITS:] if suit in c.suits or not c.suits)
                      for suit in range(NUM_SUITS))


def _card(canvas: Canvas, x: float, y: float, w: float, h: float, card: int) -> None:
    """A Decktet card: white, a stripe per suit it belongs to, its code."""
    canvas.box(x, y, w, h, CARD_FACE, OUTLINE, radius=4)
    suits = CARDS[card].suits
    for k, suit in enumerate(suits):
        canvas.box(x + 3 + k * 9, y + 3, 7, 7, SUIT_COLOURS[suit], None, radius=1)
    canvas.text((x + w - 4, y + h - 3), CODES[card], OUTLINE, size=12, anchor="rd")


def picture(game: Any, seat: int | None) -> np.ndarray:
    """The table as ``seat`` sees it (``None``: the public), an ``(H, W, 3) uint8`` image.

    Drawn from ``view(seat)`` only: the viewer's hand face up, other hands face down, the
    removed cards never (the public picture is seat 0's view without its hand).
    """
    view = game.view(seat if seat is not None else 0)
    n = view.num_players
    values = view.pile_values
    pile_top, card_h, step = 70, 30, 20
    rows_top = pile_top + 32 + card_h + _MOST_ABOVE_ACE * step + 56  # one size all game
    row_height = 64
    canvas = Canvas(WIDTH, rows_top + n * row_height + 12)
    status = {"over": "the game is over", "play": f"P{view.current_seat} plays a card",
              "chip": f"P{view.current_seat} takes a chip"}[view.phase]
    canvas.text((12, 8), f"Moco!   game {view.game + 1}/{view.num_games}   dealer "
                f"P{view.dealer}", size=18)
    canvas.text((12, 36), status, HIGHLIGHT, size=15)
    who = "public table" if seat is None else f"seen by P{seat}"
    canvas.text((WIDTH - 12, 8), who, DIM, size=14, anchor="ra")
    canvas.text((WIDTH - 12, 36), f"removed: {view.num_removed} unseen", DIM, size=13,
                anchor="ra")
    column = (WIDTH - 24) / NUM_SUITS
    for suit in range(NUM_SUITS):
        x = 12 + suit * column
        played = view.phase == "chip" and suit == view.played_pile
        canvas.box(x + 2, pile_top, column - 4, rows_top - pile_top - 14,
                   (28, 110, 74) if played else PANEL)
        canvas.disc(x + 14, pile_top + 14, 7, SUIT_COLOURS[suit])
        canvas.text((x + 26, pile_top + 5), SUITS[suit], size=14)
        cards = (suit, *view.piles[suit])
        for k, card in enumerate(cards):
            _card(canvas, x + 10, pile_top + 32 + k * step, column - 20, card_h, card)
        bottom = rows_top - 44
        canvas.text((x + 10, bottom), f"value {values[suit]}", INK, size=14)
        canvas.text((x + 10, bottom + 18), f"supply {view.supply[suit]}", DIM, size=13)
    for s in range(n):
        y = rows_top + s * row_height
        canvas.box(8, y, WIDTH - 16, row_height - 6,
                   (28, 110, 74) if s == view.current_seat else PANEL)
        mine = seat is not None and s == seat
        canvas.text((18, y + 6), f"P{s}" + (" (you)" if mine else ""),
                    HIGHLIGHT if s == view.current_seat else INK, size=16)
        worth = sum(c * v for c, v in zip(view.chips[s], values, strict=True))
        total = f"  match {view.match_scores[s] + worth}" if view.num_games > 1 else ""
        canvas.text((18, y + 30), f"worth {worth}{total}", DIM, size=13)
        for k in range(NUM_SUITS):
            canvas.disc(150 + k * 34, y + 18, 11, SUIT_COLOURS[k], str(view.chips[s][k]))
        if mine:
            xs = fan(len(view.hand), 360, WIDTH - 372, 44, 48)
            for x, card in zip(xs, view.hand, strict=True):
                _card(canvas, x, y + 8, 44, row_height - 22, card)
        else:
            for x in fan(view.hand_sizes[s], 360, WIDTH - 372, 26, 14):
                canvas.back(x, y + 8, 26, row_height - 22)
    return canvas.array()
