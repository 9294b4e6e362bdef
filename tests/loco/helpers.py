"""Small helpers for LOCO rule tests: build a position, act by name, read the result."""

from __future__ import annotations

import numpy as np

from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.rules import LocoGame
from loco_envs.loco.state import position

__all__ = ["act", "game", "hand", "legal", "position", "total_cards"]


def game(state: dict, seed: int = 0, **options) -> LocoGame:
    """A game starting from ``state`` (see :func:`loco_envs.loco.state.position`)."""
    options.setdefault("num_players", len(state["hands"]))
    return LocoGame.from_state_dict(state, np.random.default_rng(seed), options)


def act(g: LocoGame, *texts: str) -> None:
    """Play actions by name, in order."""
    for text in texts:
        g.apply(A.str_to_action(text))


def legal(g: LocoGame) -> set[str]:
    return {A.action_to_str(a) for a in g.legal_actions()}


def hand(g: LocoGame, seat: int) -> list[str]:
    return sorted(C.CODES[i] for i, n in enumerate(g.hands[seat]) for _ in range(int(n)))


def total_cards(g: LocoGame) -> int:
    return sum(g.hand_sizes) + len(g.draw_pile) + len(g.discard)
