"""What a game tells a person about the decision in front of them: the narration that the
command-line player (:mod:`loco_envs.play`) prints around its generic loop.

Each game's narrator lives beside its renderer (``loco_envs/<game>/narration.py``); this base
class holds the defaults, which fit a game with no secret choices.
"""

from __future__ import annotations

from typing import Any


class Narrator:
    """Game-specific words around the generic loop (the defaults fit games with no secrets)."""

    def __init__(self, env: Any):
        self.env = env

    def label(self, seat: int) -> str:
        """A seat as the game's own render names it."""
        return f"player_{seat}"

    def situation(self, seat: int) -> str | None:
        """One or two sentences on the decision ``seat`` faces now."""
        return None

    def hint(self, seat: int, action: int) -> str | None:
        """A short gloss shown next to a legal move (e.g. whom a Swap target is)."""
        return None

    def hidden(self) -> bool:
        """Is the decision about to be made kept secret until every chooser has chosen?"""
        return False

    def announce_hidden(self, seat: int) -> str | None:
        """What the others may learn at once when ``seat`` makes a hidden choice."""
        return None

    def window_open(self) -> bool:
        """After a hidden choice: is the same window still collecting choices?"""
        return False

    def snapshot(self) -> Any:
        """Whatever :meth:`reveal` needs from the moment a hidden window opened."""
        return None

    def reveal(self, person: int, before: Any, choices: list[tuple[int, int]]) -> list[str]:
        """Lines to print once a hidden window has closed."""
        return []

    def events(self, before: Any) -> list[str]:
        """Lines about what a move set off (a round won, ...), given :meth:`snapshot_events`."""
        return []

    def detail(self, before: Any, seat: int, action: int) -> str:
        """Public facts to add to a move's line (e.g. how many cards a draw took)."""
        return ""

    def snapshot_events(self) -> Any:
        return None
