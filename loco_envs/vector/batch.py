"""``GameBatch``: a slice of a vector env's games in one process, stepped in one tight loop.

Both backends run their games through this class: the in-process one over all games, each process
of the shared-memory one (the caller's and its workers) over its own slice, writing straight
into the shared arrays. Each game
is a raw env of the suite (``RulesAECEnv``), stepped by ``step_unsynced``: the rules engine's
``apply`` and the record's move line, without PettingZoo's per-move bookkeeping, which the
env's own ``sync`` brings up to date at the end of a game (so the final rewards, scores, ranks,
``max_decisions`` truncation and records are those of the single env, computed by its code) and
whenever a caller asks for the env (:meth:`GameBatch.env`). After the moves of a step, one call
of the env class's ``encode_rows`` writes the observations of every game whose seat to act is
observed (the same vectors as ``observe``), and one call of the game class's ``write_masks``
every game's mask, so an engine can do the work of all its games in a few numpy calls. Both
get the game class's ``batch_arrays``, where an engine may keep the part of its games' state
that they gather (LOCO's hands, Moco!'s table, hands and counts), each game in its own row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from loco_envs.core.registry import raw_env_class

__all__ = ["Buffers", "GameBatch", "buffer_layout", "first_seeds", "next_seed"]

#: Largest episode seed (the single env's seeds are drawn below it too).
SEED_HIGH = 2**31 - 1


def first_seeds(seed: int, num_envs: int) -> list[int]:
    """Each game's first episode seed, derived from one seed (game ``i``: from ``[seed, i]``).

    A game's seed does not depend on how many games there are, so game 3 of a batch of 8 plays
    the deals of game 3 of a batch of 256.
    """
    return [int(np.random.SeedSequence([seed, i]).generate_state(1)[0] % SEED_HIGH)
            for i in range(num_envs)]


def next_seed(rng: np.random.Generator) -> int:
    """The seed of a game's next episode, from the game's own generator."""
    return int(rng.integers(SEED_HIGH))


def buffer_layout(num_envs: int, obs_size: int, num_actions: int,
                  num_players: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    """Name -> (shape, dtype) of every array a vector env shares with its games."""
    n, p = num_envs, num_players
    return {
        "obs": ((n, obs_size), np.float32),
        "masks": ((n, num_actions), np.int8),
        "seats": ((n,), np.int64),
        "rewards": ((n, p), np.float32),
        "terminations": ((n,), np.bool_),
        "truncations": ((n,), np.bool_),
        "scores": ((n, p), np.float32),
        "ranks": ((n, p), np.int64),
        "lengths": ((n,), np.int64),
        "episode_seeds": ((n,), np.int64),
        "actions": ((n,), np.int64),
        "bots": ((n,), np.int64),
        "observed": ((n, p), np.bool_),
    }


@dataclass
class Buffers:
    """The arrays of :func:`buffer_layout` (plain memory or views of shared memory)."""

    obs: np.ndarray
    masks: np.ndarray
    seats: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    lengths: np.ndarray
    episode_seeds: np.ndarray
    actions: np.ndarray
    bots: np.ndarray
    observed: np.ndarray

    def rows(self, start: int, stop: int) -> Buffers:
        """Views of games ``start..stop-1`` (a slice of the shared-memory backend)."""
        return Buffers(**{name: getattr(self, name)[start:stop] for name in self.__dict__})


class GameBatch:
    """Games ``start..stop-1`` of a vector env (see the module docstring).

    ``bots`` are objects with the bot protocol (``act(view, action_mask, rng)``); a game whose
    ``bots`` entry is ``k >= 0`` at a step lets the ``k``-th of them choose its action, from the
    view of the seat to act, with the game's own bot generator.
    """

    def __init__(self, env_id: str, options: dict[str, Any], start: int, stop: int,
                 buffers: Buffers, bots: Sequence[Any] = (), autoreset: bool = True):
        cls = raw_env_class(env_id)
        self.envs = [cls(**options) for _ in range(start, stop)]
        self.env_class, self.game_class = cls, cls.game_class
        players = self.envs[0].num_players if self.envs else 0
        self.arrays = self.game_class.batch_arrays(len(self.envs), players)
        self.start = start
        self.buf = buffers
        self.bot_objects = list(bots)
        self.bot_reads_view = [getattr(bot, "reads_view", True) for bot in self.bot_objects]
        self.autoreset = autoreset
        self.rngs: list[np.random.Generator] = []
        self.bot_rngs: list[np.random.Generator] = []
        self.row_games: list[Any] = [None] * len(self.envs)  # the game in each arrays row
        self.lent: set[int] = set()  # games handed out by env() since the last step

    def view(self, j: int, seat: int) -> Any:
        """``view(seat)`` of game ``j`` (its rules state is always up to date)."""
        return self.envs[j].game.view(seat)

    def env(self, j: int) -> Any:
        """Game ``j``'s raw env, its PettingZoo bookkeeping brought up to date first.

        The caller may step or reset it: :meth:`refresh_lent` then rewrites the game's rows
        from it before the next step is checked.
        """
        env = self.envs[j]
        env.sync()
        self.lent.add(j)
        return env

    def refresh_lent(self) -> None:
        """Rewrite the arrays, seat, observation and mask of every game handed out by
        :meth:`env`, which its caller may have changed behind the batch's back."""
        lent, self.lent = self.lent, set()
        for j in sorted(lent):
            self._adopt(j)
            self._write(j, self.envs[j], fresh=True)

    def reset(self, seeds: Sequence[int]) -> None:
        """Start every game of the slice on its seed (first episode) and write its arrays."""
        self.rngs = [np.random.default_rng(s) for s in seeds]
        self.bot_rngs = [np.random.default_rng([s, 1]) for s in seeds]
        self.lent.clear()  # every game's rows are written afresh below
        b = self.buf
        b.rewards[:] = 0
        b.terminations[:] = False
        b.truncations[:] = False
        for j, seed in enumerate(seeds):
            self._start(j, int(seed))

    def _start(self, j: int, seed: int) -> None:
        env = self.envs[j]
        env.reset(seed=seed)
        self._adopt(j)
        self.buf.episode_seeds[j] = seed
        self._write(j, env, fresh=True)

    def _adopt(self, j: int) -> None:
        """Put game ``j``'s current game into its row of the batch arrays, if not there yet."""
        game = self.envs[j].game
        if self.arrays is None or self.row_games[j] is game:
            return
        if self.row_games[j] is not None:
            self.row_games[j].move_to(None)  # a caller may still hold it: it keeps its state
        game.move_to(self.arrays, j)
        self.row_games[j] = game

    def _write(self, j: int, env: Any, fresh: bool = False) -> None:
        game, b = env.game, self.buf
        if env.over:  # only with autoreset disabled: nothing to act on
            b.seats[j] = -1
            b.masks[j] = 0
            return
        seat = game.current_seat
        b.seats[j] = seat
        # A seat a bot plays reads its view: no encoding, except at an episode's first decision
        # (the caller only learns of the new episode, and who plays it, after this step).
        if fresh or b.observed[j, seat]:
            env.encode_into(seat, self.buf.obs[j])
        b.masks[j] = game.legal_mask()

    def step(self) -> None:
        """One decision in every game whose ``actions`` (or ``bots``) entry asks for one.

        The vector env checked the caller's actions against the masks, so they are played
        unchecked (``play_legal``). So is a bot's action that its game's mask allows; one that
        it does not goes to the engine's checked ``apply``, which raises the rule it breaks (a
        bot bug).
        """
        b = self.buf
        b.rewards[:] = 0
        b.terminations[:] = False
        b.truncations[:] = False
        bots, actions = b.bots.tolist(), b.actions.tolist()  # plain ints: cheaper per game
        observed, seats = b.observed.tolist(), b.seats.tolist()  # as the step began
        envs, num_actions = self.envs, b.masks.shape[1]
        going, going_games = [], []  # games that go on, and their engines (one mask write)
        seen, seen_envs, seen_seats = [], [], []  # those observed now (one encoder call)
        for j in np.flatnonzero((b.actions >= 0) | (b.bots >= 0)).tolist():
            env = envs[j]
            k = bots[j]
            if k >= 0:
                view = env.game.view(seats[j]) if self.bot_reads_view[k] else None
                action = int(self.bot_objects[k].act(view, b.masks[j], self.bot_rngs[j]))
                checked = 0 <= action < num_actions and b.masks[j, action] == 1
            else:
                action, checked = actions[j], True
            if env.step_unsynced(action, checked=checked):
                self._finish(j, env)  # writes the game's arrays itself
                seats[j] = int(b.seats[j])
                continue
            game = env.game
            seat = seats[j] = game.current_seat
            if observed[j][seat]:  # see _write
                seen.append(j)
                seen_envs.append(env)
                seen_seats.append(seat)
            going.append(j)
            going_games.append(game)
        b.seats[:] = seats
        self.env_class.encode_rows(seen_envs, seen_seats, b.obs, seen, self.arrays)
        self.game_class.write_masks(going_games, b.masks, going, self.arrays)

    def _finish(self, j: int, env: Any) -> None:
        """Game ``j`` ended or hit ``max_decisions``: its results, then its next episode."""
        env.sync()  # the env's own final rewards, scores and ranks (or its truncation)
        b, game = self.buf, env.game
        for s, agent in enumerate(env.possible_agents):
            b.rewards[j, s] = env.rewards[agent]
            b.scores[j, s] = env.infos[agent]["score"]
        if game.terminal:
            b.terminations[j] = True
            b.ranks[j] = game.final_ranks()
        else:
            b.truncations[j] = True
            b.ranks[j] = -1
        b.lengths[j] = env.decisions
        if self.autoreset:
            self._start(j, next_seed(self.rngs[j]))
        else:
            self._write(j, env)
