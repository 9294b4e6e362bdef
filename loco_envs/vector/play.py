"""The batched game loop: many games of one vector env, each seat a bot, a policy or the caller.

Tournaments and evaluation (:mod:`benchmarks.batched`) and behaviour cloning's collection
(:mod:`train.imitation`) play batches of games this one way; it lives beside the vector env so
that ``benchmarks`` and ``train`` import it without importing each other.

Who sits where: ``lineup[g, s]`` is the key in ``players`` of the player in seat ``s`` of game
``g``, or :data:`CALLER` for a seat the caller plays (the learner, the student). A player is

- a scripted bot (``act(view, mask, rng)``): its compiled twin decides for all its games in one
  call where the engine has one (``VectorGameEnv.bot_actions``), else ``act`` game by game;
- a :class:`PolicySeat` (a ``ppo:`` bot or a bare ``NumpyPolicy`` become one through
  :func:`as_player`): one forward pass over all its games a round.

Each round (one ``vec.step`` for every game stepped): the caller's games get ``decide(games)``,
or, without ``decide``, wait (action ``-1``), and :func:`play` returns once every live game waits
for the caller; then each player, in ascending key order, acts in its games; ``on_step(games)``
follows each step. :func:`play` returns when every game is over (seat ``-1``).

Randomness: :class:`SeatGenerators` holds the generator of every seat; bots and policies draw
from their seat's own, so a game's moves do not depend on the batch it is played in; a
generator shared by several games is drawn in a fixed order: players by key, games in index
order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.policy import NumpyPolicy, gumbel_noise, transform_observation

__all__ = ["CALLER", "PolicySeat", "SeatGenerators", "as_player", "bot_actions",
           "play"]

#: The ``lineup`` entry of a seat the caller plays.
CALLER = -1


@dataclass(frozen=True)
class PolicySeat:
    """A frozen policy at a sampling temperature (0: greedy), batched over its games."""

    policy: NumpyPolicy
    temperature: float = 1.0
    name: str = "policy"


def as_player(player: Any) -> Any:
    """A ``ppo:`` bot (a ``NumpyPolicy`` as ``.policy`` and a ``.temperature``) or a bare
    ``NumpyPolicy`` as a :class:`PolicySeat`, so it is batched; anything else as it is."""
    if isinstance(player, NumpyPolicy):
        return PolicySeat(player)
    if isinstance(getattr(player, "policy", None), NumpyPolicy) and hasattr(player, "temperature"):
        return PolicySeat(player.policy, player.temperature, getattr(player, "name", "policy"))
    return player


class SeatGenerators:
    """The generator each seat of each game draws from, kept both as a numpy ``Generator`` (for
    ``bot.act`` and policies) and as the compiled engine's state words (for compiled twins).

    A generator changes form only when the other form is asked for; the round trip is exact
    (:mod:`loco_envs.compiled.rng`), so every draw is the one game-by-game play makes.
    ``slots[g, s]`` indexes ``generators``: seats may share one (imitation draws all of a
    game's bot moves from one generator).
    """

    def __init__(self, generators: Sequence[np.random.Generator], slots: Any):
        self.generators = list(generators)
        self.slots = np.asarray(slots, np.int64)
        self.words = np.zeros((len(self.generators), R.STATE_WORDS), np.uint64)
        self._in_words = np.zeros(len(self.generators), bool)

    @classmethod
    def per_seat(cls, generators: Sequence[Sequence[np.random.Generator]]) -> SeatGenerators:
        """``generators[g][s]``: one generator for each seat of each game."""
        flat = [rng for row in generators for rng in row]
        return cls(flat, np.arange(len(flat)).reshape(len(generators), -1))

    @classmethod
    def per_game(cls, generators: Sequence[np.random.Generator],
                 num_players: int) -> SeatGenerators:
        """``generators[g]``: one generator for all seats of game ``g``."""
        return cls(generators, np.repeat(np.arange(len(generators))[:, None], num_players, 1))

    def generator(self, game: int, seat: int) -> np.random.Generator:
        """The seat's generator, brought up to date from the state words if they moved on."""
        k = int(self.slots[game, seat])
        if self._in_words[k]:
            R.set_generator(self.generators[k], self.words[k])
            self._in_words[k] = False
        return self.generators[k]

    def word_slots(self, games: np.ndarray, seats: np.ndarray) -> np.ndarray | None:
        """The slots of these seats with their state words up to date, or ``None`` when two
        share a slot (a compiled call advances each row's words on its own)."""
        k = self.slots[games, seats]
        if np.unique(k).size != k.size:
            return None
        for j in k[~self._in_words[k]].tolist():
            R.from_generator(self.generators[j], self.words[j])
        self._in_words[k] = True
        return k


def bot_actions(vec: Any, bot: Any, games: Any, generators: SeatGenerators,
                twin: bool | None = None) -> np.ndarray:
    """``bot``'s action in each of ``games`` (its seat to act), drawing from the seat's generator:
    on its compiled twin, all games in one call, where the engine has one; else game by game.
    ``twin``: whether it has one, if the caller knows (else asked of ``vec``)."""
    games = np.asarray(games, np.int64)
    seats = vec.seats[games]
    if games.size and (_has_twin(vec, bot) if twin is None else twin):
        k = generators.word_slots(games, seats)
        if k is not None:
            drawn = generators.words[k]
            chosen = vec.bot_actions(bot, games, drawn)
            generators.words[k] = drawn
            return chosen
    return np.array([bot.act(vec.view(i, s), vec.masks[i], generators.generator(i, s))
                     for i, s in zip(games.tolist(), seats.tolist(), strict=True)], np.int64)


def _has_twin(vec: Any, bot: Any) -> bool:
    """Whether ``vec.bot_actions`` plays ``bot`` (asked with no games: nothing is drawn)."""
    return vec.bot_actions(bot, np.zeros(0, np.int64),
                           np.zeros((0, R.STATE_WORDS), np.uint64)) is not None


def play(vec: Any, lineup: np.ndarray, players: Any, generators: SeatGenerators,
         decide: Callable[[np.ndarray], Any] | None = None,
         on_step: Callable[[np.ndarray], None] | None = None) -> None:
    """Step the games until each is over, or (without ``decide``) until the caller is to act in
    every live game; see the module docstring. ``players[key]`` for each key in ``lineup``."""
    twins: dict[int, bool] = {}  # whether each bot has a compiled twin, asked once
    while True:
        live = np.flatnonzero(vec.seats >= 0)
        who = lineup[live, vec.seats[live]]
        if live.size == 0 or (decide is None and (who == CALLER).all()):
            return
        actions = np.full(vec.num_envs, -1, np.int64)
        mine = live[who == CALLER]
        if decide is not None and mine.size:
            actions[mine] = decide(mine)
        _players_act(vec, live, who, players, generators, actions, twins)
        vec.step(actions)
        if on_step is not None:
            on_step(live if decide is not None else live[who != CALLER])


def _players_act(vec: Any, live: np.ndarray, who: np.ndarray, players: Any,
                 generators: SeatGenerators, actions: np.ndarray,
                 twins: dict[int, bool]) -> None:
    """Every player's actions in its games this round, into ``actions`` (``twins``: the
    bots' compiled twins found so far, by key)."""
    policies = []
    for key in np.unique(who[who != CALLER]).tolist():
        games = live[who == key]
        player = as_player(players[key])
        if isinstance(player, PolicySeat):
            policies.append((player, games))
        else:
            if key not in twins:
                twins[key] = _has_twin(vec, player)
            actions[games] = bot_actions(vec, player, games, generators, twins[key])
    if policies:
        _policy_actions(vec, policies, generators, actions)


def _policy_actions(vec: Any, policies: list[tuple[PolicySeat, np.ndarray]],
                    generators: SeatGenerators, actions: np.ndarray) -> None:
    """One forward pass per policy; the inputs transformed once for all policies sharing a
    transform (with action features the transform costs more than a forward pass)."""
    inputs = {}
    for transform in {p.policy.obs_transform for p, _ in policies}:
        games = np.sort(np.concatenate([g for p, g in policies
                                        if p.policy.obs_transform == transform]))
        inputs[transform] = (games, transform_observation(vec.obs[games], transform))
    for seat, games in policies:
        rows, transformed = inputs[seat.policy.obs_transform]
        actions[games] = _sample(vec, seat, games, transformed[np.searchsorted(rows, games)],
                                 generators)


def _sample(vec: Any, seat: PolicySeat, games: np.ndarray, inputs: np.ndarray,
            generators: SeatGenerators) -> np.ndarray:
    """Gumbel-max over the masked logits, each row's noise from its own seat's generator: the
    draws of ``NumpyPolicy.act_observation`` game by game (nothing drawn when greedy)."""
    policy, masks = seat.policy, vec.masks[games]
    if vec.obs.shape[1] != policy.observation_size:
        raise ValueError(f"{seat.name}: observation of size {vec.obs.shape[1]}, the policy was "
                         f"trained on size {policy.observation_size}")
    logits = np.where(masks.astype(bool), policy.logits_of_inputs(inputs).astype(np.float64),
                      -np.inf)
    if seat.temperature:
        noise = np.stack([generators.generator(i, int(vec.seats[i])).random(masks.shape[1])
                          for i in games.tolist()])
        logits = logits / seat.temperature + gumbel_noise(noise)
    return np.argmax(logits, axis=1)
