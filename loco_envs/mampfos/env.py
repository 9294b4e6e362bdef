"""Los Mampfos (``mampfos_v0``): feed the donkeys, guess what comes out, share it.

A game of simultaneous secret choices and memory for 2-5 players (rules ``P-xx`` in
``docs/rules/mampfos.md``). Three donkeys trot round a path of 12 spaces. Turn by turn a card is
turned over: a feed card has the active player feed a donkey some biscuits (colours of their
choice, announced) and move it; a droppings card has every player secretly set a millwheel to a
colour, then the donkey is emptied and each colour is shared among those who chose it. The end
card makes all three donkeys do their business once more. Most biscuits wins; ties share the win.

>>> import loco_envs
>>> env = loco_envs.make("mampfos_v0", num_players=3, memory="recall")

Creation arguments
------------------
| argument | default | values |
|---|---|---|
| ``num_players`` | ``3`` | 2 to 5 |
| ``memory`` | ``"perfect"`` | ``"perfect"``: bellies are observed (P-30); ``"recall"``: only what is on the table and the latest announcements (P-31) |
| ``reward`` | ``"rank"`` | ``"rank"`` or ``"score"`` (see Rewards) |
| ``render_mode`` | ``None`` | ``None``, ``"ansi"`` (``render()`` returns text), ``"human"``, ``"rgb_array"`` (an ``(H, W, 3) uint8`` image) |

``max_decisions`` (default ``None``), a positive integer, caps an episode: after that many
decisions (all seats together) every agent is truncated, reward 0, its score so far in
``infos`` (``loco_envs.core.rules_env``).

Agents
------
``player_0 … player_{n-1}``; ``player_i`` sits in seat i, clockwise is increasing i. The first
player is drawn at random from the reset seed. Card flips need no decision and are drawn from
the env's seeded generator, so ``agent_selection`` always names a player with a decision.

Simultaneous choices are asked in turn: in a droppings, every player (from the active player
clockwise) chooses a millwheel colour. Until all have chosen and the share-out is done, no
observation, view or render of any agent shows another agent's choice (only that it was set).

Actions (``Discrete(13)``)
--------------------------
| index | name | when legal |
|---|---|---|
| 0–2 | ``donkey white``, ``donkey grey``, ``donkey brown`` | the active player chooses a donkey: a ★ feed or droppings card (any donkey), or the next donkey of the end card's final droppings (one not yet done, P-13) |
| 3–7 | ``feed orange``, ``feed red``, ``feed blue``, ``feed green``, ``feed yellow`` | the active player feeds one biscuit of that colour to the card's donkey (the colour must be in the supply); asked once per biscuit (P-11) |
| 8–12 | ``wheel orange``, ``wheel red``, ``wheel blue``, ``wheel green``, ``wheel yellow`` | a player sets their millwheel in a droppings (P-12); all five always legal |

Observation
-----------
``observe(agent)`` returns ``{"observation": float32[size], "action_mask": int8[13]}`` with
``size = 122 + 14 n`` for ``memory="perfect"`` and ``107 + 14 n`` for ``"recall"`` (2 players:
150 / 135; 5 players: 192 / 177). Seat-indexed slices are relative to the observer (self
first, then clockwise). Colour vectors: orange, red, blue, green, yellow; donkeys: white, grey,
brown. The observation space is ``Box(low, high)`` with each entry's range by the rules
(``loco_envs.mampfos.observation.bounds``). ``loco_envs.mampfos.observation.slices(n, memory)``
gives the exact offsets; in order:

| slice | length | content |
|---|---|---|
| phase | 4 | one-hot: donkey, feed, wheel, over |
| to_act | n | one-hot relative seat to act |
| active | n | one-hot relative seat whose card is carried out |
| card_kind | 3 | one-hot card in play: feed, droppings, end |
| card_donkey | 4 | one-hot donkey on the card: white, grey, brown, any (★) |
| card_number | 1 | number of a feed card |
| donkey | 3 | one-hot donkey being fed / emptied |
| feed_left | 1 | biscuits still to feed under the card |
| card_fed | 5 | biscuits fed under the card so far |
| end_left | 3 | donkeys still to be chosen for the final droppings |
| wheels_set | n | relative seats that have set their millwheel (colour hidden) |
| own_wheel | 5 | own millwheel colour once set |
| positions | 36 | per donkey, one-hot space 0..11 |
| supply | 5 | supply by colour |
| bellies | 15 | per donkey, contents by colour (``"perfect"`` only, P-30) |
| collected | 5n | per relative seat, biscuits collected by colour |
| cards_left | 8 | cards left per back letter A..H |
| fed_since | 15 | per donkey, biscuits fed since the observer's last decision |
| share_new | 1 | the last share-out is news to the observer |
| share_donkey | 3 | one-hot donkey of the last share-out |
| share_out | 5 | what came out, by colour |
| share_back | 5 | what went back into the donkey, by colour |
| share_wheels | 5n | per relative seat, one-hot millwheel colour in the last share-out |
| share_gains | n | per relative seat, biscuits received in the last share-out |

``env.unwrapped.view(agent)`` returns the ``loco_envs.mampfos.rules.MampfosView`` the
vector encodes (absolute seats). In ``"recall"`` its ``bellies`` is ``None``, and so is its
``last_share`` (share slices zero) once the agent has decided since that share-out. ``fed_since``
and the last share-out are P-31's "last event" seen from an agent that only looks at its own turns:
everything announced since its previous decision, so nothing public is lost between decisions,
while the bellies themselves must be remembered.

Rewards
-------
Nothing before the end. ``"rank"``: (players beaten − players beating you) / (n − 1); tied
players (a shared win) get the same reward. ``"score"``: own biscuits minus the mean of the
others'. An illegal move through the wrapped env ends the game with reward −1 for the mover.

State and records
-----------------
``env.unwrapped.state_dict()`` is documented in ``loco_envs.mampfos.rules``;
``env.reset(seed=s, options={"state": d})`` starts from it. ``save_record``/``loco_envs.replay``
write and check JSON Lines records.

Search
------
``env.unwrapped.game.clone()`` copies the game; ``env.unwrapped.game.resample(seat, rng)`` redraws
the millwheels others have set in a droppings under way, keeping everything the seat watched
(``loco_envs.mampfos.search``). ``agents.make("mampfos/ismcts")`` searches on it,
``loco_envs.openspiel`` makes the game an OpenSpiel game; see ``docs/search.md``.

Version history
---------------
* ``mampfos_v0``: first version (default card table of ``docs/rules/mampfos.md``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from loco_envs.core.registry import wrap
from loco_envs.core.rules_env import RulesAECEnv
from loco_envs.mampfos.observation import bounds, encode, observation_size
from loco_envs.mampfos.rules import MampfosGame


class raw_env(RulesAECEnv):  # noqa: N801 (PettingZoo's classic name)
    """The unwrapped Los Mampfos AEC env (see the module docstring)."""

    game_class = MampfosGame
    env_id = "mampfos_v0"
    metadata: ClassVar[dict[str, Any]] = {
        "name": "mampfos_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
        "is_parallelizable": False,
    }

    def observation_size(self) -> int:
        return observation_size(self.options["num_players"], self.options["memory"])

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return bounds(self.options["num_players"], self.options["memory"])

    def encode(self, seat: int) -> np.ndarray:
        return encode(self.game.view(seat))


def env(**options: Any) -> Any:
    """The wrapped env (``TerminateIllegalWrapper`` → ``AssertOutOfBounds`` → order checks)."""
    return wrap(raw_env(**options))
