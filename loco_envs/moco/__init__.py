"""Moco!: Reiner Knizia's Loco! with the Decktet, for 2–5 players (env id ``moco_v0``)."""

from __future__ import annotations

from loco_envs.moco.rules import MocoGame, MocoView

__all__ = ["MocoGame", "MocoView"]
