"""Loco Momo (``momo_v0``): draft animal tokens from a 2x2 forest onto a 5x5 picture.

Rules: ``docs/rules/momo.md`` (rule ids K-xx), engine in ``loco_envs.momo.rules``.

>>> import loco_envs
>>> env = loco_envs.make("momo_v0", num_players=2)

Creation arguments
------------------
| argument | default | meaning |
|---|---|---|
| num_players | 2 | 1 (solo, K-40) to 4 players (K-04) |
| expansion_a | False | K-30 endangered species and habitat (fewest tokens of a drawn species or colour: +7); not with ``num_players=1`` |
| expansion_b | False | K-31 acrobatic picture (drawn species in row 1's fifth cell: +5); not with ``num_players=1`` |
| reward | "rank" | ``"rank"`` or ``"score"`` (see Rewards) |
| render_mode | None | ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"`` or ``"rgb_array"`` (an ``(H, W, 3) uint8`` image) |
| max_decisions | None | a positive integer: an episode cap; after that many decisions (all seats together) every agent is truncated, reward 0, its score so far in ``infos`` (``loco_envs.core.rules_env``) |

The single-agent Gymnasium form of the solo game is ``gymnasium.make("loco_envs/MomoSolo-v0")``
(``loco_envs.momo.solo``).

Agents
------
``player_0 … player_{n-1}``; ``player_i`` sits in seat i and seats play in increasing order
(clockwise) from a random first player, six rounds (K-04). An agent acts several times in a row:
one pick, then one placement per taken token.

Actions: ``Discrete(135)``
--------------------------
Tokens are ``species * 3 + colour`` in the order ``Rb Rn Rg Lb Ln Lg Eb En Eg Bb Bn Bg Db Dn
Dg`` (species Rabbit Leopard Eagle Bear Duck; colours blue, brown (``n``), green).

| index | action |
|---|---|
| 0 .. 14 | ``pick <token> in A`` for the 15 tokens in the order above (K-10, K-11) |
| 15 .. 29 | ``pick <token> in B`` |
| 30 .. 44 | ``pick <token> in C`` |
| 45 .. 59 | ``pick <token> in D`` |
| 60 .. 64 | ``place Rb on row 1`` … ``place Rb on row 5`` (K-12: leftmost empty cell) |
| 65 .. 69 | ``place Rn on row 1..5`` |
| 70 .. 74 | ``place Rg on row 1..5`` |
| 75 .. 79 | ``place Lb on row 1..5`` |
| 80 .. 84 | ``place Ln on row 1..5`` |
| 85 .. 89 | ``place Lg on row 1..5`` |
| 90 .. 94 | ``place Eb on row 1..5`` |
| 95 .. 99 | ``place En on row 1..5`` |
| 100 .. 104 | ``place Eg on row 1..5`` |
| 105 .. 109 | ``place Bb on row 1..5`` |
| 110 .. 114 | ``place Bn on row 1..5`` |
| 115 .. 119 | ``place Bg on row 1..5`` |
| 120 .. 124 | ``place Db on row 1..5`` |
| 125 .. 129 | ``place Dn on row 1..5`` |
| 130 .. 134 | ``place Dg on row 1..5`` |

Pick = ``area * 15 + token``; place = ``60 + token * 5 + (row - 1)``. The mask allows the picks
of tokens present in the forest, then the placements of taken tokens on rows with room. Tokens
that fit nowhere are discarded without a decision (K-13); when the forest is empty the remaining
turns are skipped (K-14).

Observation: ``Box(low, high, (size,), float32)``
-------------------------------------------------
``low``/``high``: each entry's range by the rules (``loco_envs.momo.observation.bounds``).
``size = 127 + 204 n``: 331 (1 player), 535 (2), 739 (3), 943 (4). Slices, in order (see
``loco_envs.momo.observation``; seat-indexed parts are relative, the observer first):

| name | length | content |
|---|---|---|
| forest | 60 | counts of each token in areas A, B, C, D |
| pending | 15 | tokens taken by the seat to act, not yet placed |
| bag | 15 | bag composition (known by elimination; never its order) |
| bag_size | 1 | tokens left in the bag |
| discarded | 15 | tokens out of the game |
| phase | 2 | one-hot pick / place |
| round | 6 | one-hot round |
| expansion_a | 8 | one-hot K-30 hexagon (0 when off) |
| expansion_b | 5 | one-hot K-31 flower (0 when off) |
| to_act | n | one-hot relative seat to act |
| first_player | n | one-hot relative first player |
| turns_left | n | turns each relative seat still plays |
| points | n | K-20..K-24 points of each relative seat's picture so far |
| boards | 200 n | per relative seat, 25 cells row-major x (5 species + 3 colours) |

Rewards
-------
Paid once, at the end. ``"rank"``: (players beaten - players beating you) / (n - 1), ties count
as neither (K-25: highest total wins, a tie is shared). ``"score"``: own points minus the mean of
the others' points. **Solo** (``num_players=1``): both give the final score itself (the rank
reward would always be 0). At the end every agent's ``info`` holds ``score`` and ``rank``; solo
adds ``photographer_level`` (K-40).

Search
------
``env.unwrapped.game.clone()`` copies the game; ``env.unwrapped.game.resample(seat, rng)``
shuffles the bag, the only hidden information (``loco_envs.momo.search``).
``agents.make("momo/ismcts")`` searches on it, ``loco_envs.openspiel`` makes the game an OpenSpiel
game; see ``docs/search.md``.

Version history
---------------
* v0: first version: all rules K-01 … K-40, expansions A and B, solo AEC and Gymnasium envs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core import RulesAECEnv
from loco_envs.core.registry import wrap
from loco_envs.momo.observation import bounds, encode, observation_size
from loco_envs.momo.rules import MomoGame, _check_options, photographer_level


class raw_env(RulesAECEnv):  # noqa: N801 - PettingZoo's classic name
    """The unwrapped Loco Momo AEC environment (see the module docstring)."""

    game_class = MomoGame
    env_id = "momo_v0"
    metadata = {"name": "momo_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 2, "is_parallelizable": False}

    def __init__(self, **options: Any):
        super().__init__(**options)
        o = self.options
        _check_options(o["num_players"], o["expansion_a"], o["expansion_b"])

    def observation_size(self) -> int:
        return observation_size(self.num_players)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return bounds(self.num_players)

    def encode(self, seat: int) -> np.ndarray:
        return encode(self.game.view(seat))

    def _finish(self) -> None:
        super()._finish()
        if self.num_players == 1:
            agent = self.possible_agents[0]
            level = photographer_level(self.game.final_scores()[0])
            self.infos[agent]["photographer_level"] = level


def env(**options: Any) -> Any:
    """The wrapped environment (illegal move -> termination, out-of-bounds check, order check)."""
    return wrap(raw_env(**options))
