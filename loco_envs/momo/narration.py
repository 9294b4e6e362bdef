"""The command-line player's words for Loco Momo."""

from __future__ import annotations

from loco_envs.core.narration import Narrator


class MomoNarrator(Narrator):
    """Loco Momo: how a pick moves and what a place does."""

    def situation(self, seat: int) -> str | None:
        v = self.env.view(seat)
        if v.phase == "pick":
            return ("Pick a token: it moves by its animal (rabbit clockwise, leopard "
                    "anticlockwise, eagle across, bear stays, duck to the next ducks) and you "
                    "take every token of its colour in the area it lands in.")
        if v.phase == "place":
            return "Place a token you took: it goes to the leftmost empty cell of the row named."
        return None
