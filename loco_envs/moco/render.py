"""The ansi picture of a Moco! table.

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

from loco_envs.moco.cards import CODES, NUM_SUITS, SUIT_LETTERS, SUITS

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
