"""Los Mampfos: feed the donkeys, guess what comes out (``mampfos_v0``)."""

from __future__ import annotations

from loco_envs.mampfos.rules import MampfosGame, MampfosView, ShareOut

__all__ = ["MampfosGame", "MampfosView", "ShareOut"]
