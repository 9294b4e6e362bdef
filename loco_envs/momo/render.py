"""Pictures of a Loco Momo table, the 2x2 forest and every player's 5x5 picture: the text one
(``ansi``) and the image (``rgb_array``).

Tokens are drawn as their codes (``Rb`` = blue rabbit) in their background colour, so the
picture reads the same without colour support.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core.pictures import DIM, HIGHLIGHT, INK, PANEL, Canvas
from loco_envs.momo.actions import (
    AREAS,
    COLOUR_OF,
    COLS,
    NUM_TOKEN_TYPES,
    ROWS,
    SPECIES,
    TOKEN_CODES,
)
from loco_envs.momo.scoring import HEXAGONS, photographer_level, score_breakdown

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


def _area(game: Any, a: int) -> str:
    cells = [token(t) for t in range(NUM_TOKEN_TYPES) for _ in range(game.forest[a][t])]
    cells += [".."] * (4 - len(cells))
    return f"{AREAS[a]}: " + " ".join(cells)


def render_game(game: Any, seat: int | None, reveal_all: bool = False) -> str:
    """The table as ``seat`` sees it (``None``: public). ``reveal_all`` adds the bag order."""
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


# --------------------------------------------------------------------------------------------
# The picture (render_mode="rgb_array")
# --------------------------------------------------------------------------------------------
TOKEN_COLOURS = ((60, 130, 220), (150, 95, 50), (60, 170, 80))  # blue, brown, green
CELL = 34


def _disc(canvas: Canvas, cx: float, cy: float, t: int, r: float = 13) -> None:
    canvas.disc(cx, cy, r, TOKEN_COLOURS[COLOUR_OF[t]], TOKEN_CODES[t][0], size=13)


def picture(game: Any, seat: int | None) -> np.ndarray:
    """The table as ``seat`` sees it (``None``: the public), an ``(H, W, 3) uint8`` image.

    Everything but the bag's order is public in Loco Momo (K-01), and the picture is drawn from
    a view, which never holds that order.
    """
    view = game.view(seat if seat is not None else 0)
    n = view.num_players
    board_w = CELL * COLS + 20
    width = max(560, 24 + n * (board_w + 12))
    top = 236
    canvas = Canvas(width, top + 40 + CELL * ROWS + 30)
    if view.phase == "over":
        status = f"game over after round {view.round}"
    else:
        status = f"round {view.round}/6: player_{view.current_seat} to {view.phase}"
    canvas.text((12, 8), "Loco Momo", size=18)
    canvas.text((130, 10), status, HIGHLIGHT, size=15)
    who = "public table" if seat is None else f"seen by player_{seat}"
    canvas.text((width - 12, 8), who, DIM, size=14, anchor="ra")
    # the forest: areas A B / D C (K-02, clockwise from the top left)
    for a, (col, row) in enumerate(((0, 0), (1, 0), (1, 1), (0, 1))):
        x, y = 12 + col * 150, 40 + row * 90
        canvas.box(x, y, 140, 80, PANEL)
        canvas.text((x + 6, y + 4), AREAS[a], DIM, size=13)
        tokens = [t for t in range(NUM_TOKEN_TYPES) for _ in range(view.forest[a][t])]
        for k, t in enumerate(tokens):
            _disc(canvas, x + 30 + (k % 4) * 30, y + 44, t)
    bag = sum(view.bag)
    canvas.text((320, 44), f"bag {bag} tokens   discarded {sum(view.discarded)}", size=14)
    y = 68
    if view.expansion_a >= 0:
        canvas.text((320, y), f"A: fewest {HEXAGONS[view.expansion_a]} +7", size=13)
        y += 20
    if view.expansion_b >= 0:
        canvas.text((320, y), f"B: {SPECIES[view.expansion_b]} in row 1's last cell +5",
                    size=13)
        y += 20
    pending = [t for t in range(NUM_TOKEN_TYPES) for _ in range(view.pending[t])]
    if pending:
        canvas.text((320, y + 4), f"taken by player_{view.current_seat}, to place:", size=13)
        for k, t in enumerate(pending):
            _disc(canvas, 334 + k * 30, y + 40, t)
    # one 5x5 picture per player
    for s in range(n):
        x0 = 12 + s * (board_w + 12)
        canvas.box(x0, top, board_w, 40 + CELL * ROWS + 16,
                   (28, 110, 74) if s == view.current_seat else PANEL)
        name = f"player_{s}" + (" (you)" if seat is not None and s == seat else "")
        canvas.text((x0 + 8, top + 4), name, HIGHLIGHT if s == view.current_seat else INK,
                    size=14)
        canvas.text((x0 + 8, top + 22), f"{view.points[s]} pts", DIM, size=13)
        cells = view.boards[s]
        for r in range(ROWS):
            for c in range(COLS):
                cx = x0 + 10 + c * CELL + CELL / 2
                cy = top + 42 + r * CELL + CELL / 2
                t = cells[r * COLS + c]
                if t < 0:
                    canvas.box(cx - 14, cy - 14, 28, 28, (40, 120, 85), None, radius=6)
                else:
                    _disc(canvas, cx, cy, t, r=14)
    return canvas.array()
