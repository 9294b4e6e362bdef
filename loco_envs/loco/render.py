"""A plain-text picture of a LOCO table that a person can follow."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loco_envs.loco import cards as C

if TYPE_CHECKING:
    from loco_envs.loco.rules import LocoGame

PHASE_TEXT = {
    "turn": "turn", "after_draw": "play the drawn card or pass",
    "after_penalty": "penalty drawn: play or pass", "colour": "name a colour",
    "target": "name a Swap target", "call": "LOCO! or silent", "contre": "Contre-LOCO window",
    "slap": "interception window", "over": "match over",
}


def hand_text(counts) -> str:
    cards = [C.CODES[i] for i, n in enumerate(counts) for _ in range(int(n))]
    return " ".join(cards) if cards else "(empty)"


def render(game: LocoGame, seat: int | None, reveal_all: bool = False) -> str:
    """Hands are shown only for ``seat`` (or all with ``reveal_all``).

    The decision shown is the one ``seat`` may know of (``None``: the public table): a secret
    slap window it is not deciding in looks like the regular turn (L-41); ``reveal_all`` shows
    the real one.
    """
    from loco_envs.loco.rules import CALL_STATES, PHASES

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
