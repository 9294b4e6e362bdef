"""The ansi picture of a Loco Momo table: the 2x2 forest and every player's 5x5 picture.

Tokens are drawn as their codes (``Rb`` = blue rabbit) in their background colour, so the
picture reads the same without colour support.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loco_envs.momo.actions import (
    AREAS,
    COLOUR_OF,
    COLS,
    NUM_TOKEN_TYPES,
    ROWS,
    SPECIES,
    TOKEN_CODES,
)

if TYPE_CHECKING:
    from loco_envs.momo.rules import MomoGame

_ANSI = ("\x1b[94m", "\x1b[38;5;130m", "\x1b[92m")  # blue, brown, green
_RESET = "\x1b[0m"
_ROW_NAMES = ("1 pair match", "2 stacked", "3 stacked", "4 groups", "5 species")
_BOARD_WIDTH = 3 * COLS - 1  # visible width of a row of tokens
_COLUMN = _BOARD_WIDTH + 4


def token(t: int, colour: bool = True) -> str:
    if t < 0:
        return ".."
    code = TOKEN_CODES[t]
    return f"{_ANSI[COLOUR_OF[t]]}{code}{_RESET}" if colour else code


def _tokens(counts: list[int]) -> str:
    items = [token(t) for t in range(NUM_TOKEN_TYPES) for _ in range(counts[t])]
    return " ".join(items)


def _area(game: MomoGame, a: int) -> str:
    cells = [token(t) for t in range(NUM_TOKEN_TYPES) for _ in range(game.forest[a][t])]
    cells += [".."] * (4 - len(cells))
    return f"{AREAS[a]}: " + " ".join(cells)


def render_game(game: MomoGame, seat: int | None, reveal_all: bool = False) -> str:
    """The table as ``seat`` sees it (``None``: public). ``reveal_all`` adds the bag order."""
    from loco_envs.momo.rules import HEXAGONS, photographer_level, score_breakdown

    n = game.num_players
    lines = []
    if game.terminal:
        lines.append(f"Loco Momo - game over after round {game.round}")
    else:
        who = f"player_{game.current_seat}"
        lines.append(
            f"Loco Momo - round {game.round}/6, {who} to {game.phase} "
            f"(first player: player_{game.first_player})"
        )
    lines.append(f"Forest   bag: {len(game.bag)} tokens   discarded: {sum(game.discarded)}")
    lines.append("  " + _area(game, 0) + "    " + _area(game, 1))
    lines.append("  " + _area(game, 3) + "    " + _area(game, 2))
    extras = []
    if game.expansion_a >= 0:
        extras.append(f"A: fewest {HEXAGONS[game.expansion_a]} +7")
    if game.expansion_b >= 0:
        extras.append(f"B: {SPECIES[game.expansion_b]} in row 1's last cell +5")
    if extras:
        lines.append("Expansions  " + "   ".join(extras))
    if game.pending_total:
        lines.append(f"Taken by player_{game.current_seat}, to place: {_tokens(game.pending)}")
    if reveal_all:
        bag = " ".join(token(t) for t in reversed(game.bag))
        lines.append(f"Bag, next first: {bag or '-'}")
    lines.append("")
    gap = " " * (_COLUMN - _BOARD_WIDTH)  # tokens carry escape codes: pad by hand
    lines.append(
        " " * 14
        + "".join(
            (f"player_{s}" + (" (you)" if s == seat else "")).ljust(_COLUMN) for s in range(n)
        ).rstrip()
    )
    lines.append(
        " " * 14 + "".join(f"{game.points(s)} pts".ljust(_COLUMN) for s in range(n)).rstrip()
    )
    for r in range(ROWS):
        row = [
            " ".join(token(t) for t in game.boards[s][r * COLS : (r + 1) * COLS]) for s in range(n)
        ]
        lines.append(f"{_ROW_NAMES[r]:<14}" + gap.join(row))
    if game.terminal:
        lines.append("")
        scores = game.final_scores()
        ranks = game.final_ranks()
        extra = game.expansion_points()
        for s in range(n):
            parts = "+".join(str(p) for p in score_breakdown(game.boards[s]))
            line = f"player_{s}: {scores[s]:.0f} points ({parts}"
            line += f" +{extra[s]} expansions)" if extra[s] else ")"
            if n == 1:
                line += f", {photographer_level(scores[s])}"
            else:
                line += f", rank {ranks[s] + 1}"
            lines.append(line)
    return "\n".join(lines)
