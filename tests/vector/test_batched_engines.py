"""The batched hooks a vector env calls once a step (``RulesAECEnv.encode_rows``,
``Game.write_masks``) against the one-game paths they stand in for, in every game.

LOCO and Moco! override both with code that shares numpy calls between games; the others use
the defaults. Each step here hands the hooks the games in a shuffled order, into rows left
stale by an earlier step, for random seats (not only the seat to act: a slap window a seat is
not deciding in must read as the turn there, L-41), and compares every row.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import loco_envs

CONFIGS = [
    ("loco_v0", {"num_players": 2}),
    ("loco_v0", {"num_players": 4, "rounds": 3, "stacking": "identical", "timeout_rate": 0.05}),
    ("loco_v0", {"num_players": 10, "photo_finish": "seat"}),
    ("moco_v0", {"num_players": 2}),
    ("moco_v0", {"num_players": 5, "match": True}),
    ("momo_v0", {"num_players": 3}),
    ("mampfos_v0", {"num_players": 4}),
]
GAMES, STEPS = 12, 120


@pytest.mark.parametrize(("env_id", "options"), CONFIGS)
def test_batched_encoders_and_masks_equal_the_one_game_paths(env_id, options):
    envs = [loco_envs.make(env_id, wrapped=False, **options) for _ in range(GAMES)]
    for i, env in enumerate(envs):
        env.reset(seed=100 + i)
    cls, game_class = type(envs[0]), envs[0].game_class
    size, actions = envs[0].observation_size(), game_class.NUM_ACTIONS
    rng = np.random.default_rng(5)
    obs = np.empty((GAMES + 3, size), np.float32)
    masks = np.empty((GAMES + 3, actions), np.int8)
    for _ in range(STEPS):
        obs.fill(7.0)  # stale rows; three are not written this step
        masks.fill(3)
        rows = rng.permutation(GAMES + 3)[:GAMES].tolist()
        seats = rng.integers(envs[0].num_players, size=GAMES).tolist()
        cls.encode_rows(envs, seats, obs, rows)
        expected = [copy.deepcopy(env.game).legal_mask() for env in envs]  # uncached
        game_class.write_masks([env.game for env in envs], masks, rows)
        for env, seat, row, mask in zip(envs, seats, rows, expected, strict=True):
            np.testing.assert_array_equal(obs[row], env.encode(seat))
            np.testing.assert_array_equal(masks[row], mask)
            np.testing.assert_array_equal(env.game.legal_mask(), mask)  # the cache agrees
        again = np.full_like(masks, 3)  # now every game's mask is cached: the other branch
        game_class.write_masks([env.game for env in envs], again, rows)
        np.testing.assert_array_equal(again[rows], masks[rows])
        unwritten = np.setdiff1d(np.arange(GAMES + 3), rows)
        assert (obs[unwritten] == 7.0).all() and (masks[unwritten] == 3).all()
        for i, env in enumerate(envs):
            if env.over:
                env.reset(seed=1000 + i + int(rng.integers(10**6)))
            else:
                env.step(int(rng.choice(np.flatnonzero(masks[rows[i]]))))


def test_no_games_write_nothing():
    env = loco_envs.make("loco_v0", wrapped=False)
    obs = np.full((2, env.observation_size()), 7.0, np.float32)
    masks = np.full((2, env.game_class.NUM_ACTIONS), 3, np.int8)
    for env_id in ("loco_v0", "moco_v0", "momo_v0"):
        cls = type(loco_envs.make(env_id, wrapped=False))
        cls.encode_rows([], [], obs, [])
        cls.game_class.write_masks([], masks, [])
    assert (obs == 7.0).all() and (masks == 3).all()
