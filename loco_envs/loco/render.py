"""Pictures of a LOCO table: the text one (``ansi``) and the image (``rgb_array``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core.pictures import DIM, HIGHLIGHT, INK, Canvas, fan
from loco_envs.loco import cards as C
from loco_envs.loco.phases import CALL_STATES, PHASES

PHASE_TEXT = {
    "turn": "turn", "after_draw": "play the drawn card or pass",
    "after_penalty": "penalty drawn: play or pass", "colour": "name a colour",
    "target": "name a Swap target", "call": "LOCO! or silent", "contre": "Contre-LOCO window",
    "slap": "interception window", "over": "match over",
}


def hand_text(counts) -> str:
    cards = [C.CODES[i] for i, n in enumerate(counts) for _ in range(int(n))]
    return " ".join(cards) if cards else "(empty)"


def render(game: Any, seat: int | None, reveal_all: bool = False) -> str:
    """Hands are shown only for ``seat`` (or all with ``reveal_all``).

    The decision shown is the one ``seat`` may know of (``None``: the public table): a secret
    slap window it is not deciding in looks like the regular turn (L-41); ``reveal_all`` shows
    the real one.
    """
    phase_index, actor = ((game.phase, game.current_seat) if reveal_all
                          else game.visible_decision(seat))
    phase = PHASES[phase_index]
    arrow = "clockwise" if game.direction == 1 else "counter-clockwise"
    decider = " (decisive round)" if game.decider else ""
    lines = [
        f"LOCO  round {game.round}/{game.rounds}{decider}  draw pile {len(game.draw_pile)}  "
        f"play {arrow}",
        f"top {C.CODES[game.discard[-1]]}  colour {C.COLOUR_NAMES[game.colour]}"
        + (f"  pending {game.pending_kind} x{game.pending}" if game.pending else ""),
    ]
    for s in range(game.num_players):
        marker = ">" if s == actor else " "
        status = "left" if not game.active[s] else ("" if game.in_round[s] else "sits out")
        call = CALL_STATES[game.calls[s]]
        call_text = {"announced": " LOCO!", "silent": " (silent)", "owed": " (must call)"}.get(
            call, "")
        line = (f"{marker} p{s}: {game.hand_sizes[s]:2d} cards{call_text}  score "
                f"{game.scores[s]} ({game.rounds_won[s]} won) {status}").rstrip()
        if reveal_all or s == seat:
            line += f"\n      hand: {hand_text(game.hands[s])}"
        lines.append(line)
    if game.terminal:
        ranks = game.final_ranks()
        order = sorted(range(game.num_players), key=ranks.__getitem__)
        lines.append("match over: " + ", ".join(f"p{s} #{ranks[s] + 1}" for s in order))
    else:
        lines.append(f"p{actor} to decide: {PHASE_TEXT[phase]}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The picture (render_mode="rgb_array")
# --------------------------------------------------------------------------------------------
CARD_COLOURS = ((214, 48, 49), (241, 196, 15), (39, 174, 96), (41, 128, 185))
WILD_COLOUR = (35, 35, 35)
WIDTH = 760


def card_fill(identity: int) -> tuple[int, int, int]:
    colour = C.COLOUR[identity]
    return WILD_COLOUR if colour < 0 else CARD_COLOURS[colour]


def picture(game: Any, seat: int | None) -> np.ndarray:
    """The table as ``seat`` sees it (``None``: the public), an ``(H, W, 3) uint8`` image.

    Drawn from a view only, so it shows what that view holds and nothing more: the viewer's own
    hand face up, the other hands face down, and a secret slap window (L-41) only to the seat
    deciding in it. The public picture is a non-deciding seat's view without its hand.
    """
    n = game.num_players
    if seat is None:
        viewer = (game.current_seat + 1) % n if game.current_seat >= 0 else 0
        view = game.view(viewer)
    else:
        view = game.view(seat)
    row_height = 74
    canvas = Canvas(WIDTH, 178 + n * row_height + 34)
    arrow = "clockwise" if view.direction == 1 else "counter-clockwise"
    title = f"LOCO   round {view.round}/{view.rounds}" + ("  decisive" if view.decider else "")
    canvas.text((12, 8), title, size=18)
    who = "public table" if seat is None else f"seen by p{seat}"
    canvas.text((WIDTH - 12, 8), who, DIM, size=14, anchor="ra")
    # draw pile, discard pile, colour in play
    canvas.back(16, 44, 70, 104)
    canvas.text((51, 156), f"draw {view.draw_pile_size}", DIM, size=13, anchor="ma")
    canvas.card(104, 44, 70, 104, C.CODES[view.top], card_fill(view.top), size=26,
                outline=CARD_COLOURS[view.colour], width=4)
    canvas.text((139, 156), "discard", DIM, size=13, anchor="ma")
    canvas.disc(212, 70, 16, CARD_COLOURS[view.colour])
    canvas.text((236, 62), f"colour {C.COLOUR_NAMES[view.colour]}", size=15)
    canvas.text((196, 100), f"play goes {arrow}", size=15)
    if view.pending:
        canvas.text((196, 126), f"penalty {view.pending_kind} x{view.pending} pending",
                    HIGHLIGHT, size=15)
    if view.phase != "over":
        canvas.text((470, 62), f"p{view.actor} to decide:", HIGHLIGHT, size=15)
        canvas.text((470, 84), PHASE_TEXT[view.phase], HIGHLIGHT, size=15)
        if view.drawn is not None:
            canvas.text((470, 106), f"drew {C.CODES[view.drawn]}", size=15)
    # one row per seat
    for s in range(n):
        y = 178 + s * row_height
        mine = seat is not None and s == seat
        canvas.box(8, y, WIDTH - 16, row_height - 8,
                   (28, 110, 74) if s == view.actor and view.phase != "over" else (16, 72, 47))
        status = "" if view.active[s] else "  left"
        if view.active[s] and not view.in_round[s]:
            status = "  sits out"
        name = f"p{s}" + (" (you)" if mine else "") + status
        canvas.text((18, y + 6), name, HIGHLIGHT if s == view.actor else INK, size=16)
        call = {"announced": "LOCO!", "silent": "silent", "owed": "must call"}.get(
            view.calls[s], "")
        canvas.text((18, y + 28), f"{view.hand_sizes[s]} cards  {call}", size=13)
        canvas.text((18, y + 46), f"score {view.scores[s]}  won {view.rounds_won[s]}", DIM,
                    size=12)
        if mine:
            cards = [i for i, k in enumerate(view.hand) for _ in range(k)]
            xs = fan(len(cards), 170, WIDTH - 190, 38, 42)
            for x, card in zip(xs, cards, strict=True):
                canvas.card(x, y + 6, 38, row_height - 20, C.CODES[card], card_fill(card),
                            size=14)
        else:
            xs = fan(view.hand_sizes[s], 170, WIDTH - 190, 30, 14)
            for x in xs:
                canvas.back(x, y + 10, 30, row_height - 28)
    if view.phase == "over":
        ranks = game.final_ranks()
        order = sorted(range(n), key=ranks.__getitem__)
        canvas.text((12, canvas.height - 26),
                    "match over: " + ", ".join(f"p{s} #{ranks[s] + 1}" for s in order),
                    HIGHLIGHT, size=15)
    return canvas.array()
