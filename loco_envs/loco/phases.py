"""LOCO's decision phases and call states: the names the rules, the state loader and the
renderers share (kept apart so that none of them imports another for a constant)."""

from __future__ import annotations

PHASES = ("turn", "after_draw", "after_penalty", "colour", "target", "call", "contre", "slap",
          "over")
TURN, AFTER_DRAW, AFTER_PENALTY, COLOUR, TARGET, CALL, CONTRE, SLAP, OVER = range(len(PHASES))
CALL_STATES = ("none", "owed", "announced", "silent")
NO_CALL, OWED, ANNOUNCED, SILENT = range(len(CALL_STATES))
