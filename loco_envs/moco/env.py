"""Moco! as a PettingZoo AEC environment (``moco_v0``): the documentation page.

Moco! is Reiner Knizia's Loco! played with the Decktet (rules ``docs/rules/moco.md``, rule ids
M-xx, engine ``loco_envs.moco.rules``). Six piles, one per suit, each based on its Ace. On a
turn a player plays a card onto a pile of one of the card's suits, then takes a chip of any suit
from the supply. When a pile holds six cards above its Ace (or the last card is played) the game
ends at once, and each chip is worth the top card of its suit's pile: numbered cards their rank,
Pawn 1, Crown 10, Excuse 0, a bare Ace 1. Every card played changes the worth of everyone's chips.

>>> import loco_envs
>>> env = loco_envs.make("moco_v0", num_players=3)
>>> env.reset(seed=0)

## Creation arguments

| argument | default | values |
|---|---|---|
| ``num_players`` | 4 | 2–5 (M-01) |
| ``match`` | ``False`` | ``True``: one game per player, the dealer moving on, totals (M-30) |
| ``reward`` | ``"rank"`` | ``"rank"`` or ``"score"`` (see Rewards) |
| ``render_mode`` | ``None`` | ``None``, ``"ansi"`` (``render()`` returns text), ``"human"``, ``"rgb_array"`` (an image) |
| ``max_decisions`` | ``None`` | an episode cap (a positive integer, see below) |

With ``max_decisions`` set, after that many decisions (all seats together) every agent is
truncated, reward 0, its score so far in ``infos`` (``loco_envs.core.rules_env``).

## Agents

``player_0`` … ``player_{n-1}``; ``player_i`` sits in seat i, seats go clockwise. A random dealer is
drawn at ``reset`` (from its seed) and the seat after it starts (M-05). A turn is two decisions
of the same agent: a play, then a chip; so the same agent is selected twice in a row. The card
that ends a game earns no chip (M-20). In a match the next game is dealt at once after a game
ends, by the next dealer.

## Actions

``Discrete(79)`` for every player count; the action mask marks the legal ones.

* 0–71 ``"play <card> on <pile>"``: play a card from the hand on a pile of one of its suits
  (M-10). Per card (code, Decktet name, chip value when on top, then index and pile):

| card | name | value | indices |
|---|---|---|---|
| ``2mk`` | Author | 2 | 0 moons, 1 knots |
| ``2sy`` | Desert | 2 | 2 suns, 3 wyrms |
| ``2wl`` | Origin | 2 | 4 waves, 5 leaves |
| ``3mw`` | Journey | 3 | 6 moons, 7 waves |
| ``3sk`` | Painter | 3 | 8 suns, 9 knots |
| ``3ly`` | Savage | 3 | 10 leaves, 11 wyrms |
| ``4ms`` | Mountain | 4 | 12 moons, 13 suns |
| ``4wl`` | Sailor | 4 | 14 waves, 15 leaves |
| ``4yk`` | Battle | 4 | 16 wyrms, 17 knots |
| ``5ml`` | Forest | 5 | 18 moons, 19 leaves |
| ``5sw`` | Discovery | 5 | 20 suns, 21 waves |
| ``5yk`` | Soldier | 5 | 22 wyrms, 23 knots |
| ``6mw`` | Lunatic | 6 | 24 moons, 25 waves |
| ``6sy`` | Penitent | 6 | 26 suns, 27 wyrms |
| ``6lk`` | Market | 6 | 28 leaves, 29 knots |
| ``7ml`` | Chance Meeting | 7 | 30 moons, 31 leaves |
| ``7sk`` | Castle | 7 | 32 suns, 33 knots |
| ``7wy`` | Cave | 7 | 34 waves, 35 wyrms |
| ``8ms`` | Diplomat | 8 | 36 moons, 37 suns |
| ``8wl`` | Mill | 8 | 38 waves, 39 leaves |
| ``8yk`` | Betrayal | 8 | 40 wyrms, 41 knots |
| ``9ms`` | Pact | 9 | 42 moons, 43 suns |
| ``9wy`` | Darkness | 9 | 44 waves, 45 wyrms |
| ``9lk`` | Merchant | 9 | 46 leaves, 47 knots |
| ``Pmsl`` | Harvest | 1 | 48 moons, 49 suns, 50 leaves |
| ``Pmyk`` | Watchman | 1 | 51 moons, 52 wyrms, 53 knots |
| ``Pswk`` | Light Keeper | 1 | 54 suns, 55 waves, 56 knots |
| ``Pwly`` | Borderland | 1 | 57 waves, 58 leaves, 59 wyrms |
| ``Cm`` | Huntress | 10 | 60 moons |
| ``Cs`` | Bard | 10 | 61 suns |
| ``Cw`` | Sea | 10 | 62 waves |
| ``Cl`` | End | 10 | 63 leaves |
| ``Cy`` | Calamity | 10 | 64 wyrms |
| ``Ck`` | Windfall | 10 | 65 knots |
| ``X`` | Excuse | 0 | 66 moons, 67 suns, 68 waves, 69 leaves, 70 wyrms, 71 knots |

* 72–77 ``"chip moons"``, ``"chip suns"``, ``"chip waves"``, ``"chip leaves"``, ``"chip wyrms"``,
  ``"chip knots"``: take a chip of that suit (M-11; not the suit just played on with two
  players, M-12; not an exhausted suit, M-13).
* 78 ``"no chip"``: legal only when no chip may be taken (M-13), and then the only legal action.

Card codes: rank (``A``, ``2``–``9``, ``P`` Pawn, ``C`` Crown, ``X`` Excuse) followed by suit
letters ``m`` moons, ``s`` suns, ``w`` waves, ``l`` leaves, ``y`` wyrms, ``k`` knots
(``loco_envs.moco.cards``). ``env.unwrapped.action_to_str(a)`` / ``str_to_action(s)`` convert.

## Observations

``{"observation": Box(low, high, (484 + 10 n,), float32), "action_mask": Box(0, 1, (79,),
int8)}`` (504, 514, 524, 534 for 2–5 players); ``low``/``high`` are each entry's range by the
rules (``loco_envs.moco.observation.bounds``). From the observer's point of view: per-seat
blocks start with the observer and go on clockwise. Never the others' hands or the removed cards.

| slice | size | meaning |
|---|---|---|
| ``hand`` | 35 | own cards (one entry per playable card, card ids 6–40) |
| ``pile_cards`` | 6 × 35 | the cards on each pile: the public history |
| ``pile_tops`` | 6 × 35 | each pile's top card (zeros: only the Ace) |
| ``pile_heights`` | 6 | cards above each Ace, 0–6 |
| ``pile_values`` | 6 | current chip value per suit, 0–10 (M-21) |
| ``supply`` | 6 | chips left per suit, 0–5 |
| ``chips`` | n × 6 | chips held per suit, by relative seat |
| ``hand_sizes`` | n | cards left in each hand, by relative seat |
| ``num_removed`` | 1 | cards removed unseen (M-03) |
| ``phase`` | 2 | one-hot: play / chip |
| ``played_pile`` | 6 | one-hot: the pile just played on (chip phase) |
| ``to_act`` | n | one-hot: relative seat to decide |
| ``dealer`` | n | one-hot: relative seat of the dealer |
| ``match_game`` | 2 | game index in the match, number of games (M-30) |
| ``match_scores`` | n | totals of the match's finished games / 10, by relative seat |

``loco_envs.moco.observation`` holds the slice table (``slices(n)``) and ``to_string``.
``env.unwrapped.view(agent)`` returns the same information as a
``loco_envs.moco.rules.MocoView``, with each pile's cards in play order.

## Rewards

Paid once, at the end of the game (of the match with ``match=True``). ``"rank"``: (players beaten
− players beating you) / (n − 1), ties neutral. ``"score"``: your chip total (match total) minus
the mean of the others'. An illegal move through the wrapped env ends the game with −1 for the
mover.

## State and records

``env.unwrapped.state_dict()`` / ``env.reset(seed=s, options={"state": d})``: schema in
``loco_envs.moco.rules``. ``env.unwrapped.save_record(path)`` writes a JSON Lines record that
``loco_envs.replay`` checks.

## Search
``env.unwrapped.game.clone()`` copies the game; ``env.unwrapped.game.resample(seat, rng)`` deals
the other hands and the removed cards again from the cards ``seat`` cannot see (uniform:
``loco_envs.moco.search``). ``agents.make("moco/ismcts")`` searches on it, ``loco_envs.openspiel``
makes the game an OpenSpiel game; see ``docs/search.md``.

## Version history

* v0: first release (rules M-01 … M-30).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pettingzoo.utils.env import AECEnv

from loco_envs.core import RulesAECEnv, wrap
from loco_envs.moco import observation
from loco_envs.moco.rules import BATCH_MIN, MocoBatchArrays, MocoGame


class raw_env(RulesAECEnv):  # noqa: N801 (PettingZoo's classic name)
    """The unwrapped Moco! environment (see the module docstring)."""

    game_class = MocoGame
    env_id = "moco_v0"
    metadata = {"name": "moco_v0", "render_modes": ["ansi", "human", "rgb_array"],
                "render_fps": 2, "is_parallelizable": False}

    def observation_size(self) -> int:
        return observation.observation_size(self.num_players)

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return observation.bounds(self.num_players)

    def encode(self, seat: int) -> np.ndarray:
        return observation.encode_game(self.game, seat)

    def encode_into(self, seat: int, out: np.ndarray) -> None:
        observation.encode_game(self.game, seat, out)

    @classmethod
    def encode_rows(cls, envs: Sequence[RulesAECEnv], seats: Sequence[int], obs: np.ndarray,
                    rows: Sequence[int], arrays: MocoBatchArrays | None = None) -> None:
        if arrays is None or len(envs) < BATCH_MIN:
            super().encode_rows(envs, seats, obs, rows)
        else:
            observation.encode_batch([env.game for env in envs], seats, obs, rows, arrays)


def env(**options) -> AECEnv:
    """The wrapped environment (illegal-move termination, bounds check, order enforcing)."""
    return wrap(raw_env(**options))
