"""The ansi picture of a Los Mampfos table, as one seat (or the public) sees it.

Hidden things are drawn only with ``reveal_all``: other players' millwheels before the
share-out, and, with ``memory="recall"``, the bellies and a share-out the seat saw at an earlier
decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loco_envs.mampfos.actions import COLOURS, DONKEYS

if TYPE_CHECKING:
    from loco_envs.mampfos.rules import MampfosGame

_DONKEY_MARK = ("W", "G", "B")
_COLOUR_MARK = ("o", "r", "b", "g", "y")


def _colour_counts(counts: list[int] | tuple[int, ...]) -> str:
    return " ".join(f"{mark}{count}" for mark, count in zip(_COLOUR_MARK, counts, strict=True))


def render(game: MampfosGame, seat: int | None, reveal_all: bool = False) -> str:
    """Text picture; ``seat=None`` shows public information only."""
    from loco_envs.mampfos.rules import CARD_CODES, LETTERS, PATH_LENGTH, PHASES

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
