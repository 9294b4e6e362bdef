"""LOCO — a 112-card shedding game for 2–10 players.

Stacking +2/+4, Swap, Rotation, identical cards played together, out-of-turn interception
("slaps") judged by arrival order, the LOCO! call and Contre-LOCO, a turn clock, and matches of
1, 3, 5 or 7 rounds. Rules: ``docs/rules/loco.md`` (ids L-01 … L-73); the engine is
``loco_envs.loco.rules``.

|  |  |
|---|---|
| Import | ``from loco_envs import loco_v0`` or ``loco_envs.make("loco_v0")`` |
| Agents | ``player_0`` … ``player_{n-1}`` (seat i), 2 to 10 |
| Action space | ``Discrete(242)`` with an ``int8`` action mask |
| Observation | ``Box(low, high, (size,), float32)``, size = 242 + 14·n; each entry's range by the rules (``loco_envs.loco.observation.bounds``) |

Creation arguments
------------------
| option | default | meaning |
|---|---|---|
| num_players | 2 | 2 to 10 (L-01) |
| rounds | 1 | match length: 1, 3, 5 or 7 rounds, all played (L-72) |
| photo_finish | ``"random"`` | who wins a slap race: seeded draw, or ``"seat"`` = the slapper nearest after the card's player (L-42) |
| timeout_rate | 0.0 | chance that a seat's turn times out as it begins (slow players, L-60–L-62); one number or one per seat |
| stacking | ``"any"`` | what answers a pending +2 (L-32): ``"any"`` +2 (the seed), or ``"identical"``: only a card identical to the top (a +2 of the same colour; +4 by +4 either way); a refused answer names L-32 |
| reward | ``"rank"`` | ``"rank"``: (beaten − beaten by)/(n−1); ``"score"``: match total minus the others' mean; paid at the end only |
| render_mode | None | ``"ansi"`` (render returns text), ``"human"`` (printed) or ``"rgb_array"`` (an ``(H, W, 3) uint8`` image) |
| max_decisions | None | an episode cap: after that many decisions (all seats together) every agent is truncated, reward 0, its score so far in ``infos`` (``loco_envs.core.rules_env``); a policy that always draws or passes never ends a game |

Actions (``loco_envs.loco.actions``)
------------------------------------
| index | action |
|---|---|
| 0–111 | ``play <card>[ xk]``: play k identical cards (one index per card of the deck: numbers and S/R/+2 have x1, x2; X has x1; W, +4, O have x1…x4), in the order r1 r1x2 r2 … bX, W…, +4…, O… |
| 112–223 | ``slap <card>[ xk]``: the same layout, out of turn (L-40) |
| 224 | ``draw``: one card, or the whole pending penalty (L-11, L-32) |
| 225 | ``pass``: after a draw, after a penalty draw, or to decline a slap / a Contre-LOCO shout |
| 226–229 | ``colour r``, ``colour y``, ``colour g``, ``colour b`` after a wild (L-12) |
| 230–238 | ``target +d``: Swap with the seat d places clockwise (L-35) |
| 239–241 | ``loco``, ``silent`` (L-50/L-51), ``contre`` (L-52) |

The decision phases, in the order the rules page fixes, are ``turn``, ``after_draw``,
``after_penalty``, ``colour``, ``target``, ``call``, ``contre`` and ``slap``; the same agent may
act several times in a row (a wild and its colour). Slap and Contre-LOCO choices are collected
one agent at a time and stay hidden until all are in. Every holder of a card identical to the
one that landed is asked in its slap window (L-41): the card's player, and the player whose turn
it now is, who races the others for it (L-42); if nobody slaps, that player's turn follows.

Secret slap windows, and what the AEC API itself makes public
--------------------------------------------------------------
Only holders of the top card are asked in a slap window, so a seat that is not deciding in it
sees the table exactly as with no window: ``view(agent)``, the observation vector and the render
from its seat show the regular turn with the turn seat to act (phase ``turn``), as does the
public pictures (``render_text(None)``, ``render_rgb(None)``); the choices made so far stay in the engine.

What the AEC protocol itself exposes cannot be hidden: ``agent_selection`` (and so
``agent_iter()``, ``last()``, and the one non-zero action mask: the turn seat's mask is all
zeros while others are asked) names the agent asked, which tells whoever reads it between steps
that a window is open and who holds the card. The same goes for a game record (every decision is
a line) and for ``render_mode="human"``, which draws the table from the seat to act.

The suite's own tools never feed these to a policy. A bot is called only for the agent to act,
with that agent's ``view`` and mask (``benchmarks.tournament``, ``loco_envs.play``, the demo,
the self-play trainer's opponents); the PPO learner and its frozen snapshots see only their own
observation vector and mask, taken when they act; ``loco_envs.vector`` hands out each game's
observation for its seat to act only, and its ``seats`` array (every game's ``agent_selection``)
routes actions, not a policy's input. A loop of your own should do the same: give a policy
``observe(agent)`` for the agent it plays, never ``agent_selection`` or the sequence of agents
asked. With ``timeout_rate`` the slow player's clock is drawn when its turn actually begins,
after the window.

Observation slices: see ``loco_envs.loco.observation`` (own hand, top card, colour,
direction, pending penalty, phase, drawn card, every seat's hand size / LOCO state / scores by
relative seat, round, draw-pile size, discard-pile counts).

Search
------
``env.unwrapped.game.clone()`` copies the game (its generator included: a clone replays alike);
``env.unwrapped.game.resample(seat, rng)`` redeals the other hands and the draw pile among the cards
``seat`` cannot see, keeping what it learnt (hands it saw change hands by Swap or Rotation, the
cards of a reshuffled draw pile) and redrawing others' secret slap and Contre-LOCO choices:
``loco_envs.loco.search``. ``agents.make("loco/ismcts")`` searches on it (``agents.ismcts``),
``loco_envs.openspiel`` makes the game an OpenSpiel game; see ``docs/search.md``.

Version history
---------------
- v0 (0.1.0): first release.
- v0, since: the turn seat decides in slap windows (L-41); slap windows are invisible to the
  seats not deciding; shouters pay Contre-LOCO clockwise from the card's player; a turn the
  player drew in does not count as timed out (L-61); option ``stacking``. Records made before
  replay differently.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from loco_envs.core import RulesAECEnv
from loco_envs.core.registry import wrap
from loco_envs.loco import observation
from loco_envs.loco.rules import LocoBatchArrays, LocoGame


class raw_env(RulesAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped LOCO AEC environment."""

    game_class = LocoGame
    env_id = "loco_v0"
    metadata = {"name": "loco_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 2, "is_parallelizable": False}

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

    def encode_into(self, seat: int, out: np.ndarray) -> None:
        observation.encode_game(self.game, seat, out)

    @classmethod
    def encode_rows(cls, envs: Sequence[RulesAECEnv], seats: Sequence[int], obs: np.ndarray,
                    rows: Sequence[int], arrays: LocoBatchArrays | None = None) -> None:
        observation.encode_games([env.game for env in envs], seats, obs, rows, arrays)


def env(**options: Any):
    """The wrapped LOCO env (illegal moves end the game with -1 for the offender)."""
    return wrap(raw_env(**options))
