"""Pictures of a Los Mampfos table as one seat (or the public) sees it: the text one (``ansi``)
and the image (``rgb_array``).

Hidden things are drawn only with ``reveal_all``: other players' millwheels before the
share-out, and, with ``memory="recall"``, the bellies and a share-out the seat saw at an earlier
decision.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core.pictures import DIM, HIGHLIGHT, INK, PANEL, Canvas
from loco_envs.mampfos.actions import COLOURS, DONKEYS
from loco_envs.mampfos.components import CARD_CODES, LETTERS, PATH_LENGTH, PHASES

_DONKEY_MARK = ("W", "G", "B")
_COLOUR_MARK = ("o", "r", "b", "g", "y")


def _colour_counts(counts: list[int] | tuple[int, ...]) -> str:
    return " ".join(f"{mark}{count}" for mark, count in zip(_COLOUR_MARK, counts, strict=True))


def render(game: Any, seat: int | None, reveal_all: bool = False) -> str:
    """Text picture; ``seat=None`` shows public information only."""
    n = game.num_players
    lines = [f"Los Mampfos, {n} players, memory={game.memory}"
             + ("" if seat is None else f", seen by player_{seat}")]
    path = ["."] * PATH_LENGTH
    for d, pos in enumerate(game.positions):
        path[pos] = _DONKEY_MARK[d]
    lines.append("path    " + " ".join(f"{i:>2}" for i in range(PATH_LENGTH)))
    lines.append("        " + " ".join(f"{p:>2}" for p in path))
    lines.append("supply  " + _colour_counts(game.supply))
    show_bellies = game.memory == "perfect" or reveal_all
    for d in range(3):
        belly = _colour_counts(game.bellies[d]) if show_bellies else "(remember!)"
        lines.append(f"{DONKEYS[d]:>6}  " + belly)
    left = " ".join(f"{letter}{len(stack)}"
                    for letter, stack in zip(LETTERS, game.pile, strict=True) if stack)
    lines.append(f"pile    {left or '-'}")
    lines.append("players")
    phase = PHASES[game.phase]
    for s in range(n):
        marks = ("*" if s == game.active and phase != "over" else " ")
        marks += (">" if s == game.current_seat else " ")
        row = game.collected[s]
        text = f"  {marks} player_{s}: {sum(row):>3}  ({_colour_counts(row)})"
        if phase == "wheel":
            w = game.wheels[s]
            if w < 0:
                text += "  wheel: -"
            elif reveal_all or s == seat:
                text += f"  wheel: {COLOURS[w]}"
            else:
                text += "  wheel: set (hidden)"
        lines.append(text)
    if phase == "over":
        ranks = game.final_ranks()
        winners = ", ".join(f"player_{s}" for s in range(n) if ranks[s] == 0)
        lines.append(f"game over; winner(s): {winners}")
    else:
        card = CARD_CODES[game.card]
        doing = {"donkey": "chooses a donkey",
                 "feed": f"feeds the {DONKEYS[game.donkey] if game.donkey >= 0 else '?'} "
                         f"donkey ({game.feed_left} to go, so far {_colour_counts(game.card_fed)})",
                 "wheel": f"sets a millwheel for the "
                          f"{DONKEYS[game.donkey] if game.donkey >= 0 else '?'} donkey"}[phase]
        lines.append(f"card    {card} (player_{game.active}); player_{game.current_seat} "
                     f"{doing}")
        if card == "end":
            pending = ", ".join(DONKEYS[d] for d in game.end_left) or "-"
            lines.append(f"end     still to choose: {pending}")
    # a seat sees the last share-out as its view does (P-31: recall drops it once seen)
    share = game.last_share if seat is None or reveal_all else game.view(seat).last_share
    if share is not None:
        got = ", ".join(f"player_{s} {COLOURS[share.wheels[s]]}+{share.gains[s]}"
                        for s in range(n))
        lines.append(f"last    {DONKEYS[share.donkey]} dropped {_colour_counts(share.out)}; "
                     f"{got}; back {_colour_counts(share.back)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The picture (render_mode="rgb_array")
# --------------------------------------------------------------------------------------------
BISCUIT_COLOURS = ((240, 140, 40), (215, 50, 50), (60, 110, 220), (60, 170, 80),
                   (245, 215, 60))  # orange, red, blue, green, yellow
DONKEY_COLOURS = ((240, 240, 240), (150, 150, 150), (130, 85, 45))  # white, grey, brown
WIDTH = 720


def _biscuits(canvas: Canvas, x: float, y: float, counts: Any) -> None:
    for k, count in enumerate(counts):
        canvas.disc(x + 13 + k * 30, y, 12, BISCUIT_COLOURS[k], str(count), size=11)


def picture(game: Any, seat: int | None) -> np.ndarray:
    """The table as ``seat`` sees it (``None``: the public), an ``(H, W, 3) uint8`` image.

    Drawn from a view only: another seat's millwheel shows as "set", never its colour, and with
    ``memory="recall"`` the bellies are not drawn (P-31). The public picture is seat 0's view
    without its own millwheel.
    """
    view = game.view(seat if seat is not None else 0)
    n = view.num_players
    row_height = 44
    players_top = 300
    canvas = Canvas(WIDTH, players_top + n * row_height + 50)
    canvas.text((12, 8), f"Los Mampfos   memory={view.memory}", size=18)
    who = "public table" if seat is None else f"seen by player_{seat}"
    canvas.text((WIDTH - 12, 8), who, DIM, size=14, anchor="ra")
    # the path with the donkeys
    cell = (WIDTH - 24) / PATH_LENGTH
    for i in range(PATH_LENGTH):
        canvas.box(12 + i * cell + 2, 40, cell - 4, 44, PANEL)
        canvas.text((12 + i * cell + 6, 42), str(i), DIM, size=11)
    for d, pos in enumerate(view.positions):
        cx = 12 + pos * cell + cell / 2
        canvas.disc(cx, 66, 13, DONKEY_COLOURS[d], _DONKEY_MARK[d], size=12)
    canvas.text((12, 96), "supply", DIM, size=13)
    _biscuits(canvas, 80, 104, view.supply)
    for d in range(3):
        y = 132 + d * 28
        canvas.disc(22, y + 8, 10, DONKEY_COLOURS[d], _DONKEY_MARK[d], size=11)
        canvas.text((40, y), DONKEYS[d], size=13)
        if view.bellies is None:
            canvas.text((90, y), "belly: remember!", DIM, size=13)
        else:
            _biscuits(canvas, 80, y + 8, view.bellies[d])
    left = "  ".join(f"{letter}{k}" for letter, k in zip(LETTERS, view.cards_left, strict=True)
                     if k)
    canvas.text((260, 96), f"pile  {left or '-'}", size=13)
    if view.phase == "over":
        canvas.text((260, 122), "game over", HIGHLIGHT, size=15)
    else:
        donkey = DONKEYS[view.donkey] if view.donkey is not None else "?"
        doing = {"donkey": "chooses a donkey",
                 "feed": f"feeds the {donkey} donkey ({view.feed_left} to go)",
                 "wheel": f"sets a millwheel for the {donkey} donkey"}[view.phase]
        canvas.text((260, 122), f"card {view.card} (player_{view.active})", size=14)
        canvas.text((260, 144), f"player_{view.to_act} {doing}", HIGHLIGHT, size=14)
    share = view.last_share
    if share is not None:
        canvas.text((260, 176), f"last: the {DONKEYS[share.donkey]} donkey dropped", DIM, size=13)
        _biscuits(canvas, 260, 206, share.out)
        gains = ", ".join(f"player_{s} +{share.gains[s]}" for s in range(n))
        canvas.text((260, 226), gains, DIM, size=13)
    canvas.text((12, players_top - 22), "players: biscuits collected", DIM, size=13)
    for s in range(n):
        y = players_top + s * row_height
        canvas.box(8, y, WIDTH - 16, row_height - 6,
                   (28, 110, 74) if s == view.to_act and view.phase != "over" else PANEL)
        mine = seat is not None and s == seat
        name = f"player_{s}" + (" (you)" if mine else "")
        canvas.text((18, y + 10), name, HIGHLIGHT if s == view.to_act else INK, size=15)
        _biscuits(canvas, 150, y + 19, view.collected[s])
        canvas.text((320, y + 10), f"{sum(view.collected[s])} in all", size=14)
        if view.phase == "wheel":
            if mine and view.own_wheel is not None and view.own_wheel >= 0:
                canvas.text((440, y + 10), "millwheel", size=14)
                canvas.disc(530, y + 19, 11, BISCUIT_COLOURS[view.own_wheel])
            else:
                canvas.text((440, y + 10), "millwheel " + ("set" if view.wheels_set[s] else "-"),
                            DIM, size=14)
    if view.phase == "over":
        ranks = game.final_ranks()
        winners = ", ".join(f"player_{s}" for s in range(n) if ranks[s] == 0)
        canvas.text((12, canvas.height - 32), f"winner(s): {winners}", HIGHLIGHT, size=15)
    return canvas.array()
