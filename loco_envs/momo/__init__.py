"""Loco Momo: the rules engine, action codec, observation and environments (``momo_v0``)."""

from loco_envs.momo.rules import (
    MomoGame,
    MomoView,
    board_points,
    photographer_level,
    score_breakdown,
)

__all__ = ["MomoGame", "MomoView", "board_points", "photographer_level", "score_breakdown"]
