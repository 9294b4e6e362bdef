"""LOCO — a 112-card shedding game for 2–10 players.

Stacking +2/+4, Swap, Rotation, identical cards played together, out-of-turn interception
("slaps") judged by arrival order, the LOCO! call and Contre-LOCO, a turn clock, and matches of
1, 3, 5 or 7 rounds. Rules: ``shared/rules/loco.md`` (ids L-01 … L-73); the engine is
:mod:`loco_envs.loco.rules`.

=====================  ============================================================
Import                 ``from loco_envs import loco_v0`` or ``loco_envs.make("loco_v0")``
Agents                 ``player_0`` … ``player_{n-1}`` (seat i), 2 to 10
Action space           ``Discrete(242)`` with an ``int8`` action mask
Observation            ``Box(0, 255, (size,), float32)``, size = 242 + 14·n
=====================  ============================================================

Creation arguments
------------------
============== ============ =========================================================
option         default      meaning
============== ============ =========================================================
num_players    2            2 to 10 (L-01)
rounds         1            match length: 1, 3, 5 or 7 rounds, all played (L-72)
photo_finish   ``"random"`` who wins a slap race: seeded draw, or ``"seat"`` = the
                            slapper nearest after the card's player (L-42)
timeout_rate   0.0          chance that a seat's turn times out as it begins (slow
                            players, L-60–L-62); one number or one per seat
reward         ``"rank"``   ``"rank"``: (beaten − beaten by)/(n−1); ``"score"``: match
                            total minus the others' mean; paid at the end only
render_mode    None         ``"ansi"`` (render returns text) or ``"human"`` (printed)
============== ============ =========================================================

Actions (``loco_envs.loco.actions``)
------------------------------------
=========  ===============================================================
0–111      ``play <card>[ xk]``: play k identical cards (one index per card
           of the deck: numbers and S/R/+2 have x1, x2; X has x1; W, +4, O
           have x1…x4), in the order r1 r1x2 r2 … bX, W…, +4…, O…
112–223    ``slap <card>[ xk]``: the same layout, out of turn (L-40)
224        ``draw``: one card, or the whole pending penalty (L-11, L-32)
225        ``pass``: after a draw, after a penalty draw, or to decline a
           slap / a Contre-LOCO shout
226–229    ``colour r|y|g|b`` after a wild (L-12)
230–238    ``target +d``: Swap with the seat d places clockwise (L-35)
239–241    ``loco``, ``silent`` (L-50/L-51), ``contre`` (L-52)
=========  ===============================================================

The decision phases, in the order the rules page fixes, are ``turn``, ``after_draw``,
``after_penalty``, ``colour``, ``target``, ``call``, ``contre`` and ``slap``; the same agent may
act several times in a row (a wild and its colour). Slap and Contre-LOCO choices are collected
one agent at a time and stay hidden until all are in.

Observation slices: see :mod:`loco_envs.loco.observation` (own hand, top card, colour,
direction, pending penalty, phase, drawn card, every seat's hand size / LOCO state / scores by
relative seat, round, draw-pile size, discard-pile counts).

Version history
---------------
- v0 (0.1.0): first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core import RulesAECEnv
from loco_envs.core.registry import wrap
from loco_envs.loco import observation
from loco_envs.loco.rules import LocoGame


class raw_env(RulesAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped LOCO AEC environment."""

    game_class = LocoGame
    env_id = "loco_v0"
    metadata = {"name": "loco_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, **options: Any):
        super().__init__(**options)
        rates = self.options["timeout_rate"]
        if isinstance(rates, list) and len(rates) != self.num_players:
            raise ValueError(f"option 'timeout_rate': expected one rate per seat "
                             f"({self.num_players}), got {len(rates)}")

    def observation_size(self) -> int:
        return observation.observation_size(self.num_players)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observation.bounds(self.num_players, self.options["rounds"])

    def encode(self, seat: int) -> np.ndarray:
        return observation.encode_game(self.game, seat)


def env(**options: Any):
    """The wrapped LOCO env (illegal moves end the game with -1 for the offender)."""
    return wrap(raw_env(**options))
