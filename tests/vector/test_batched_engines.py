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


@pytest.mark.parametrize(("env_id", "options"), [
    *[c for c in CONFIGS if c[0] in ("loco_v0", "moco_v0")],
    ("moco_v0", {"num_players": 3, "match": True}),
    ("moco_v0", {"num_players": 4}),
])
def test_batched_paths_read_the_state_kept_in_batch_arrays(env_id, options):
    """LOCO keeps hands and discard counts in ``batch_arrays`` (Swaps and Rotations, L-35,
    L-36, move contents); Moco! writes each move's changes into them, and a match's next deal
    (M-30) rewrites them. Either way the arrays stay the games' state through every move and
    reset."""
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
            if with_arrays and env_id == "loco_v0":
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


def test_a_moco_game_loaded_or_given_back_keeps_its_rows_right():
    """A loaded state (any table, chips and hands) is written whole into the game's rows, and
    a game given back stops writing into the row the batch hands on."""
    from loco_envs.moco.rules import BATCH_MIN

    env = loco_envs.make("moco_v0", wrapped=False, num_players=3)
    env.reset(seed=4)
    for _ in range(9):
        env.step(int(np.flatnonzero(env.game.legal_mask())[-1]))
    state = env.state_dict()
    envs = [loco_envs.make("moco_v0", wrapped=False, num_players=3) for _ in range(BATCH_MIN)]
    rows = list(range(1, BATCH_MIN + 1))  # row 0 is never written
    arrays = env.game_class.batch_arrays(BATCH_MIN + 1, 3)
    for row, other in zip(rows, envs, strict=True):
        other.reset(seed=row, options={"state": state})
        other.game.move_to(arrays, row)
    obs = np.zeros((BATCH_MIN + 1, env.observation_size()), np.float32)
    masks = np.zeros((BATCH_MIN + 1, env.game_class.NUM_ACTIONS), np.int8)
    seats = [row % 3 for row in rows]
    type(env).encode_rows(envs, seats, obs, rows, arrays)
    env.game_class.write_masks([other.game for other in envs], masks, rows, arrays)
    for row, seat in zip(rows, seats, strict=True):
        np.testing.assert_array_equal(obs[row], env.encode(seat))
        np.testing.assert_array_equal(masks[row], env.game.legal_mask())
    assert not obs[0].any() and not masks[0].any()
    envs[0].game.move_to(None)
    before = [a.copy() for a in (arrays.table, arrays.hands, arrays.counts)]
    envs[0].step(int(np.flatnonzero(envs[0].game.legal_mask())[0]))
    after = (arrays.table, arrays.hands, arrays.counts)
    assert all((a == b).all() for a, b in zip(before, after, strict=True))


def test_no_games_write_nothing():
    env = loco_envs.make("loco_v0", wrapped=False)
    obs = np.full((2, env.observation_size()), 7.0, np.float32)
    masks = np.full((2, env.game_class.NUM_ACTIONS), 3, np.int8)
    for env_id in ("loco_v0", "moco_v0", "momo_v0"):
        cls = type(loco_envs.make(env_id, wrapped=False))
        cls.encode_rows([], [], obs, [])
        cls.game_class.write_masks([], masks, [])
    assert (obs == 7.0).all() and (masks == 3).all()
