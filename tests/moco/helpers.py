"""Positions for the Moco! tests, built as state dicts, and an independent scorer."""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.moco.rules import MocoGame

SUITS = ["moons", "suns", "waves", "leaves", "wyrms", "knots"]


def position(
    hands: list[str],
    piles: dict[str, str] | None = None,
    chips: list[list[int]] | None = None,
    *,
    current_seat: int = 0,
    phase: str = "play",
    played_pile: str | None = None,
    removed: str = "",
    dealer: int | None = None,
    match: bool = False,
    game: int = 0,
    match_scores: list[int] | None = None,
) -> dict[str, Any]:
    """A state dict: hands as space-separated codes per seat, piles by suit name (bottom first).

    The supply is whatever chips the seats do not hold (M-04).
    """
    n = len(hands)
    chips = chips or [[0] * 6 for _ in range(n)]
    piles = piles or {}
    return {
        "num_players": n,
        "match": match,
        "game": game,
        "dealer": (current_seat - 1) % n if dealer is None else dealer,
        "match_scores": match_scores or [0] * n,
        "phase": phase,
        "current_seat": current_seat,
        "played_pile": played_pile,
        "hands": [h.split() for h in hands],
        "removed": removed.split(),
        "piles": [piles.get(s, "").split() for s in SUITS],
        "chips": [list(c) for c in chips],
        "supply": [5 - sum(c[k] for c in chips) for k in range(6)],
    }


def load(state: dict[str, Any], seed: int = 0) -> MocoGame:
    options = {"num_players": state["num_players"], "match": state["match"]}
    return MocoGame.from_state_dict(state, np.random.default_rng(seed), options)


def do(game: MocoGame, *names: str) -> None:
    for name in names:
        game.apply(MocoGame.str_to_action(name))


def legal_names(game: MocoGame) -> set[str]:
    return {MocoGame.action_to_str(a) for a in game.legal_actions()}


def chip_value_of_code(code: str | None) -> int:
    """M-21 from the card code alone (written apart from the engine's card table)."""
    if code is None:
        return 1  # only the Ace
    head = code[0]
    if head.isdigit():
        return int(head)
    return {"P": 1, "C": 10, "X": 0}[head]


def scores_from_state(state: dict[str, Any]) -> list[int]:
    """Each seat's chips valued by the pile tops of ``state`` (M-21, M-22)."""
    values = [chip_value_of_code(p[-1] if p else None) for p in state["piles"]]
    return [sum(c * v for c, v in zip(chips, values, strict=True)) for chips in state["chips"]]
