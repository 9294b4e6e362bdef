"""The command-line player's words for Moco!."""

from __future__ import annotations

from loco_envs.core.narration import Narrator
from loco_envs.moco.cards import SUITS


class MocoNarrator(Narrator):
    """Moco!: what a play and a chip do."""

    def label(self, seat: int) -> str:
        return f"P{seat}"

    def situation(self, seat: int) -> str | None:
        v = self.env.view(seat)
        if v.phase == "play":
            return ("Play a card onto the pile of one of its suits: the top card of each pile "
                    "sets what every chip of that suit is worth at the end.")
        if v.phase == "chip":
            return f"You played on {SUITS[v.played_pile]}: now take a chip from the supply."
        return None
