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
    _compare_batched_paths(env_id, options, with_arrays=False)


@pytest.mark.parametrize(("env_id", "options"), [c for c in CONFIGS if c[0] == "loco_v0"])
def test_batched_paths_read_the_state_kept_in_batch_arrays(env_id, options):
    """LOCO keeps hands and discard counts in ``batch_arrays``; Swaps and Rotations (L-35,
    L-36) move contents, so the arrays stay the games' state through every move and reset."""
    _compare_batched_paths(env_id, options, with_arrays=True)


def _compare_batched_paths(env_id: str, options: dict, with_arrays: bool) -> None:
    envs = [loco_envs.make(env_id, wrapped=False, **options) for _ in range(GAMES)]
    cls, game_class = type(envs[0]), envs[0].game_class
    size, actions = envs[0].observation_size(), game_class.NUM_ACTIONS
    rng = np.random.default_rng(5)
    arrays = game_class.batch_arrays(GAMES + 3, envs[0].num_players) if with_arrays else None
    # Each game's row (three rows never written); with arrays it is also its arrays row.
    home = rng.permutation(GAMES + 3)[:GAMES].tolist()
    for i, env in enumerate(envs):
        _reset(env, 100 + i, arrays, home[i])
    obs = np.empty((GAMES + 3, size), np.float32)
    masks = np.empty((GAMES + 3, actions), np.int8)
    for _ in range(STEPS):
        obs.fill(7.0)  # stale rows; three are not written this step
        masks.fill(3)
        order = rng.permutation(GAMES).tolist()
        games = [envs[i] for i in order]
        if with_arrays:  # a game's rows are its arrays row
            rows = [home[i] for i in order]
        else:
            rows = rng.permutation(GAMES + 3)[:GAMES].tolist()
        seats = rng.integers(envs[0].num_players, size=GAMES).tolist()
        cls.encode_rows(games, seats, obs, rows, arrays)
        expected = [copy.deepcopy(env.game).legal_mask() for env in games]  # uncached
        game_class.write_masks([env.game for env in games], masks, rows, arrays)
        for env, seat, row, mask in zip(games, seats, rows, expected, strict=True):
            np.testing.assert_array_equal(obs[row], env.encode(seat))
            np.testing.assert_array_equal(masks[row], mask)
            np.testing.assert_array_equal(env.game.legal_mask(), mask)  # caches the mask
        again = np.full_like(masks, 3)  # now every game's mask is cached: the other branch
        game_class.write_masks([env.game for env in games], again, rows, arrays)
        np.testing.assert_array_equal(again[rows], masks[rows])
        unwritten = np.setdiff1d(np.arange(GAMES + 3), rows)
        assert (obs[unwritten] == 7.0).all() and (masks[unwritten] == 3).all()
        for env, row, mask in zip(games, rows, masks[rows], strict=True):
            if env.over:
                _reset(env, 1000 + row + int(rng.integers(10**6)), arrays, row)
            else:
                env.step(int(rng.choice(np.flatnonzero(mask))))
            if with_arrays:
                assert all(np.shares_memory(hand, arrays.hands[row]) for hand in env.game.hands)
                assert np.shares_memory(env.game.discard_counts, arrays.discard_counts[row])


def _reset(env, seed: int, arrays, row: int) -> None:
    env.reset(seed=seed)
    if arrays is not None:
        env.game.move_to(arrays, row)


def test_an_ended_game_given_back_its_arrays_keeps_its_state():
    """A caller may hold a game whose row the batch gives to the next episode."""
    env = loco_envs.make("loco_v0", wrapped=False)
    env.reset(seed=3)
    arrays = env.game_class.batch_arrays(1, 2)
    env.game.move_to(arrays, 0)
    game, hands = env.game, [hand.copy() for hand in env.game.hands]
    game.move_to(None)
    arrays.hands[:] = 0
    arrays.discard_counts[:] = 0
    np.testing.assert_array_equal(game.hands, hands)
    assert game.discard_counts.sum() == len(game.discard)


def test_no_games_write_nothing():
    env = loco_envs.make("loco_v0", wrapped=False)
    obs = np.full((2, env.observation_size()), 7.0, np.float32)
    masks = np.full((2, env.game_class.NUM_ACTIONS), 3, np.int8)
    for env_id in ("loco_v0", "moco_v0", "momo_v0"):
        cls = type(loco_envs.make(env_id, wrapped=False))
        cls.encode_rows([], [], obs, [])
        cls.game_class.write_masks([], masks, [])
    assert (obs == 7.0).all() and (masks == 3).all()
