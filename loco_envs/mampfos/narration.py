"""The command-line player's words for Los Mampfos: feeding, the secret millwheels."""

from __future__ import annotations

from typing import Any

from loco_envs.core.narration import Narrator
from loco_envs.mampfos.actions import COLOURS, DONKEYS


class MampfosNarrator(Narrator):
    """Los Mampfos: the feeding, the secret millwheels and their share-out."""

    def situation(self, seat: int) -> str | None:
        v = self.env.view(seat)
        donkey = DONKEYS[v.donkey] if v.donkey is not None and v.donkey >= 0 else "?"
        if v.phase == "donkey":
            return "Choose the donkey for this card."
        if v.phase == "feed":
            return (f"Feed the {donkey} donkey one biscuit ({v.feed_left} to go); what you feed "
                    "is announced to everyone.")
        if v.phase == "wheel":
            return (f"The {donkey} donkey is about to drop its load: set your millwheel in "
                    "secret. Each colour that comes out is shared among those who chose it "
                    "(fewer biscuits than choosers: nobody gets any).")
        return None

    def snapshot_events(self) -> Any:
        return sum(self.env.view(0).cards_left)

    def events(self, before: Any) -> list[str]:
        v = self.env.view(0)  # a card was turned over when the pile shrank
        if v.card is None or sum(v.cards_left) == before or v.phase == "over":
            return []
        return [f"{self.label(v.active)} turns over the next card: {v.card}."]

    def hidden(self) -> bool:
        return not self.env.game.terminal and self.env.view(0).phase == "wheel"

    def announce_hidden(self, seat: int) -> str | None:
        return f"{self.label(seat)} has set a millwheel (hidden until everyone has)"

    def window_open(self) -> bool:
        v = self.env.view(0)
        return v.phase == "wheel" and any(v.wheels_set)

    def reveal(self, person: int, before: Any, choices: list[tuple[int, int]]) -> list[str]:
        share = self.env.view(person).last_share
        if share is None:
            return []
        got = ", ".join(f"{self.label(s)} {COLOURS[w]} +{share.gains[s]}"
                        for s, w in enumerate(share.wheels))
        return [f"The {DONKEYS[share.donkey]} donkey drops its load. Millwheels: {got}."]
