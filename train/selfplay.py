"""Self-play over a vector env: the learner's seat in N games, as one SB3 ``VecEnv``.

Each of the ``num_envs`` games of a :func:`loco_envs.make_vec` env has a learner seat (drawn per
episode) and an opponent code for every other seat, drawn per episode from the
:class:`~train.pool.OpponentPool`. After the learner's actions are applied (one vector step for
all games), the opponents play until the learner is to act again in every game: per round, the
games where a bot is to act let the vector env's own bots choose (in the process of each
game's slice with the shared-memory backend), and the games where a frozen snapshot is to act
get their actions from **one forward pass per snapshot** over all of them
(``NumpyPolicy.act_batch``, their observations transformed once for all snapshots); games
where the learner waits are skipped (action ``-1``).

What SB3 sees, per game: the learner's observation (``obs_transform`` applied), the learner's
legal actions (``action_masks()``, what ``MaskablePPO`` reads), and at the end of a game, on the
learner's move or on an opponent's, the learner's **own** final reward with ``done=True``; the
info then holds ``seat``, ``final_reward``, ``first`` (share of first place) and ``opponents``.
Nothing is paid before the end. A game stopped by the ``max_decisions`` cap is done with reward
0 and ``truncated: True`` in its info, and is *not* bootstrapped: evaluation scores such a game
as a tie (reward 0), so the learner is trained toward the same value. Only the first end of a
game within one step counts: a new game that ended before the learner acted in it (possible in
principle after an autoreset) is not the learner's episode.

Seeds: the games from the vector env's ``reset(seed)``; seats, opponents and snapshot sampling
from ``numpy.random.default_rng([seed, 2])``; so the same seed gives the same run with either
backend (``tests/train/test_selfplay.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

import loco_envs
from loco_envs.policy import NumpyPolicy, transform_bounds, transform_observation
from loco_envs.train.pool import OpponentPool

__all__ = ["LEARNER", "LEARNER_REWARDS", "SelfPlayVecEnv"]

#: What the learner may be paid at a game's end (the trainer's key ``learner_reward``).
LEARNER_REWARDS = ("game", "first")

#: Opponent code of the learner's own seat.
LEARNER = -1


class SelfPlayVecEnv(VecEnv):
    """The learner's side of ``num_envs`` games against the pool (see the module docstring)."""

    def __init__(self, env_id: str, num_envs: int, pool: OpponentPool,
                 env_options: dict[str, Any] | None = None, obs_transform: str = "log1p",
                 seed: int = 0, backend: str = "serial", num_workers: int | None = None,
                 learner_reward: str = "game", device: str | None = None):
        if learner_reward not in LEARNER_REWARDS:
            raise ValueError(f"learner_reward must be one of {list(LEARNER_REWARDS)}, got "
                             f"{learner_reward!r}")
        self.learner_reward = learner_reward
        self.device = device
        self._on_device: dict[int, Any] = {}  # opponent code -> its torch actor on device
        self.vec = loco_envs.make_vec(env_id, num_envs, backend=backend, num_workers=num_workers,
                                      bots=pool.bots, **(env_options or {}))
        self.pool = pool
        self.obs_transform = obs_transform
        self.num_players = self.vec.num_players
        raw = self.vec.single_observation_space
        low, high = transform_bounds(obs_transform, raw.low, raw.high)
        obs_space = spaces.Box(min(0.0, float(low.min())), float(high.max()), low.shape,
                               np.float32)
        super().__init__(num_envs, obs_space, self.vec.single_action_space)
        self._seed = seed
        self.rng = np.random.default_rng([seed, 2])
        self.learner_seat = np.zeros(num_envs, np.int64)
        self.opponents = np.full((num_envs, self.num_players), LEARNER, np.int64)
        self._rows = np.arange(num_envs)
        self._actions = np.zeros(num_envs, np.int64)

    # --- SB3 VecEnv API --------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        self.vec.reset(seed=self._seed)
        self.rng = np.random.default_rng([self._seed, 2])
        self._new_episodes(self._rows)
        self._play_opponents(None, None, None, counting=np.zeros(self.num_envs, bool))
        return self._observations()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        n = self.num_envs
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict] = [{} for _ in range(n)]
        counting = np.ones(n, bool)  # the learner just acted in every game's current episode
        self.vec.step(self._actions)
        self._collect_ends(self._rows, rewards, dones, infos, counting)
        self._play_opponents(rewards, dones, infos, counting)
        return self._observations(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """``(N, A) bool``: the learner's legal actions in each game."""
        return self.vec.masks.astype(bool)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":  # sb3-contrib's get_action_masks stacks these rows
            return list(self.action_masks()[self._indices(indices)])
        raise AttributeError(f"SelfPlayVecEnv has no per-game method {method_name!r}")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            return [None for _ in self._indices(indices)]
        raise AttributeError(f"SelfPlayVecEnv has no per-game attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"SelfPlayVecEnv has no per-game attribute {attr_name!r}")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks"

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        if seed is not None:
            self._seed = int(seed)
        return [None for _ in range(self.num_envs)]

    def close(self) -> None:
        self.vec.close()

    # --- the pool ----------------------------------------------------------------------------
    def add_snapshot(self, policy: NumpyPolicy) -> int:
        """Put a frozen copy of the learner into the pool (games playing old ones keep them).

        Returns its opponent code.
        """
        in_use = self.opponents[self.opponents >= len(self.pool.bots)]
        return self.pool.add_snapshot(policy, np.unique(in_use).tolist())

    # --- internals -----------------------------------------------------------------------------
    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _observations(self) -> np.ndarray:
        """The learner's inputs, an array of their own (the games' next step rewrites
        ``vec.obs``, and SB3 keeps these until the step after): a transform that computes
        anything returns a fresh array already, and copying LOCO's 13 MB once more cost
        more than the transform's arithmetic."""
        inputs = transform_observation(self.vec.obs, self.obs_transform)
        return inputs.copy() if np.may_share_memory(inputs, self.vec.obs) else inputs

    def _new_episodes(self, games: np.ndarray) -> None:
        """A learner seat and opponents for the new episode of each of ``games``."""
        if games.size == 0:
            return
        p = self.num_players
        self.learner_seat[games] = self.rng.integers(p, size=games.size)
        codes = self.pool.sample(self.rng, games.size * p).reshape(games.size, p)
        codes[np.arange(games.size), self.learner_seat[games]] = LEARNER
        self.opponents[games] = codes
        # only the learner's and the snapshots' seats need observation vectors
        self.vec.observed[games] = (codes == LEARNER) | (codes >= len(self.pool.bots))

    def _play_opponents(self, rewards, dones, infos, counting: np.ndarray) -> None:
        """Opponents move, round by round, until the learner is to act in every game."""
        vec, n_bots = self.vec, len(self.pool.bots)
        while True:
            who = self.opponents[self._rows, vec.seats]
            waiting = np.flatnonzero(who != LEARNER)
            if waiting.size == 0:
                return
            actions = np.full(self.num_envs, -1, np.int64)
            bots = np.full(self.num_envs, -1, np.int64)
            codes = who[waiting]
            by_bot = waiting[codes < n_bots]
            bots[by_bot] = who[by_bot]
            self._play_snapshots(waiting[codes >= n_bots], codes[codes >= n_bots], actions)
            vec.step(actions, bots)
            self._collect_ends(waiting, rewards, dones, infos, counting)

    def _play_snapshots(self, games: np.ndarray, codes: np.ndarray, actions: np.ndarray) -> None:
        """Actions of the snapshots to act in ``games``: one forward pass per snapshot.

        Their inputs are transformed once for all of them (the snapshots are the learner's, with
        its ``obs_transform``): with action features the transform costs more than a forward.
        """
        if games.size == 0:
            return
        vec = self.vec
        inputs = transform_observation(vec.obs[games], self.obs_transform)
        for code in np.unique(codes).tolist():
            rows = np.flatnonzero(codes == code)
            mine, policy = games[rows], self.pool.policy(code)
            shared = inputs[rows] if policy.obs_transform == self.obs_transform else None
            logits = None if self.device is None else self._device_logits(
                code, policy, vec.obs[mine], shared)
            actions[mine] = policy.act_batch(vec.obs[mine], vec.masks[mine], self.rng,
                                             inputs=shared, logits=logits)

    def _device_logits(self, code: int, member: Any, obs: np.ndarray,
                       inputs: np.ndarray | None) -> np.ndarray:
        """A frozen member's logits by its torch copy on :attr:`device` (made at its first
        move, dropped once the pool has dropped it): the same network as its numpy one, for a
        trainer whose update runs on a GPU, where thousands of games' forward passes cost
        less than on the CPU. The moves are drawn from them as from numpy's logits."""
        import torch

        from loco_envs.train.networks import actor_of

        actor = self._on_device.get(code)
        if actor is None:
            self._on_device = {c: a for c, a in self._on_device.items() if self.pool.holds(c)}
            actor = actor_of(getattr(member, "policy", member)).to(self.device)
            self._on_device[code] = actor
        if inputs is None:
            inputs = transform_observation(obs, member.obs_transform)
        with torch.no_grad():
            return actor(torch.from_numpy(inputs).to(self.device)).cpu().numpy()

    def _reward(self, game_reward: float, first: float | None) -> float:
        """The learner's pay: the game's reward, or with ``learner_reward='first'`` its share
        ``f`` of first place as ``(n f - 1) / (n - 1)`` (a capped game: 0, a tie of all)."""
        if self.learner_reward == "game":
            return game_reward
        n = self.num_players
        return 0.0 if first is None else (n * first - 1.0) / (n - 1)

    def _collect_ends(self, games: np.ndarray, rewards, dones, infos,
                      counting: np.ndarray) -> None:
        """The learner's result for games among ``games`` that just ended; new episodes."""
        vec = self.vec
        ended = games[vec.terminations[games] | vec.truncations[games]]
        if ended.size == 0:
            return
        for i in ended[counting[ended]].tolist():
            seat = int(self.learner_seat[i])
            first = None
            if not vec.truncations[i]:
                ranks = vec.buf.ranks[i]
                best = ranks.min()
                first = float(ranks[seat] == best) / int((ranks == best).sum())
            reward = self._reward(float(vec.rewards[i, seat]), first)
            rewards[i], dones[i] = reward, True
            info: dict[str, Any] = {
                "seat": seat, "final_reward": reward,
                "opponents": [self.pool.name(int(c)) for s, c in enumerate(self.opponents[i])
                              if s != seat]}
            if first is None:
                info["truncated"] = True
            else:
                info["first"] = first
            infos[i] = info
            self.pool.record(info["opponents"], reward)  # PFSP's win rates (train.pool)
        counting[ended] = False
        self._new_episodes(ended)
