"""Loco Momo's per-action features (``momo_actions``, loco_envs/momo/features.py): each pick's
take and
overflow are what the engine does (K-11, K-13), each place's points what the scorer gives
(K-12, K-20..K-24), and the picture values are those ``momo/heuristic`` judges by."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import loco_envs
from loco_envs.agents.momo import MomoHeuristic
from loco_envs.agents.ppo import load_bot
from loco_envs.momo import actions as codec
from loco_envs.momo.features import MOMO_K, momo_actions
from loco_envs.momo.picture import picture_value
from loco_envs.momo.rules import board_points
from loco_envs.policy import ACTION_FEATURES, NumpyPolicy, save_policy
from tests.agents.helpers import random_decisions


def _positions(num_players: int, games: int = 3, seed: int = 0):
    """(engine, view of the mover, observation, mask) of every decision of random games."""
    for env, obs in random_decisions("momo_v0", num_players, games, seed):
        yield (env.game, env.view(env.game.current_seat), obs["observation"],
               obs["action_mask"])


def _features(obs: np.ndarray) -> np.ndarray:
    return momo_actions(obs[None])[0].reshape(codec.NUM_ACTIONS, MOMO_K)


@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_K11_K13_pick_features_are_the_engines_take_and_overflow(num_players):
    """A pick's 'taken' is the count the engine hands the mover (K-11); 'no room' is what
    exceeds the picture's empty cells (K-13); only legal actions carry features."""
    picks = 0
    for game, view, obs, mask in _positions(num_players):
        feats = _features(obs)
        assert np.array_equal(np.flatnonzero(feats[:, 4]), np.flatnonzero(mask))
        if view.phase != "pick":
            assert not feats[:codec.NUM_PICKS].any()
            continue
        empty = sum(c < 0 for c in view.boards[view.seat])
        for action in np.flatnonzero(mask):
            after = copy.deepcopy(game)
            after.apply(int(action))
            seen = after.view(view.seat)  # a full picture discards at once (K-13)
            taken = sum(seen.pending) + sum(seen.discarded) - sum(view.discarded)
            assert feats[action, 2] == pytest.approx(taken / 5)
            assert feats[action, 3] == pytest.approx(max(0, taken - empty) / 5)
            picks += 1
    assert picks > 50


@pytest.mark.parametrize("num_players", [2, 3])
def test_K12_place_features_are_the_points_the_placement_scores(num_players):
    """A place puts the token in the row's leftmost empty cell (K-12); its points change is
    the scorer's (K-20..K-24) and its value change the heuristic's picture value."""
    bot = MomoHeuristic()
    places = 0
    for _, view, obs, mask in _positions(num_players):
        if view.phase != "place":
            continue
        feats = _features(obs)
        assert not feats[:codec.NUM_PICKS].any()
        cells = list(view.boards[view.seat])
        hope = bot.hope(view)
        for action in np.flatnonzero(mask):
            token, row = divmod(int(action) - codec.PLACE_BASE, codec.ROWS)
            col = next(c for c in range(codec.COLS) if cells[row * codec.COLS + c] < 0)
            after = list(cells)
            after[row * codec.COLS + col] = token
            gain = board_points(after) - board_points(cells)
            assert feats[action, 1] == pytest.approx(gain / 10, abs=1e-6)
            value = picture_value(tuple(after), hope) - picture_value(tuple(cells), hope)
            assert feats[action, 0] == pytest.approx(value / 10, abs=1e-5)
            assert feats[action, 3] == (col == codec.COLS - 1)
            places += 1
    assert places > 50


def test_the_heuristics_choice_is_the_best_feature_value():
    """Feature 0 is the value ``momo/heuristic`` maximises, so its argmax is the bot's move
    (ties aside: float32 rounding may reorder values equal to the sixth digit)."""
    bot, rng = MomoHeuristic(), np.random.default_rng(0)
    agree = total = 0
    for _, view, obs, mask in _positions(2, games=6):
        legal = np.flatnonzero(mask)
        best = legal[np.argmax(_features(obs)[legal, 0])]
        agree += best == bot.act(view, mask, rng)
        total += 1
    assert agree >= 0.99 * total


def test_features_are_zero_for_an_observer_who_is_not_to_move():
    env = loco_envs.make("momo_v0", wrapped=False, num_players=3)
    env.reset(seed=4)
    mover = env.agent_selection
    for agent in env.agents:
        feats = _features(env.observe(agent)["observation"])
        assert feats.any() == (agent == mover)


def test_features_stay_inside_their_declared_limit():
    limit = ACTION_FEATURES["momo_actions"].limit
    for _, _, obs, _ in _positions(2, games=4, seed=3):
        assert np.abs(momo_actions(obs[None])).max() <= limit


def test_an_observation_of_another_size_is_refused_naming_the_game():
    with pytest.raises(ValueError, match="Loco Momo observes"):
        momo_actions(np.zeros((1, 7), np.float32))


def test_a_policy_with_momo_features_saves_loads_and_plays_with_numpy(tmp_path):
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    width = env.observation_size() + ACTION_FEATURES["momo_actions"].size
    rng = np.random.default_rng(0)
    policy = NumpyPolicy(
        hidden=[(rng.normal(0, 0.1, (16, width)).astype(np.float32), np.zeros(16, np.float32))],
        action=(rng.normal(0, 0.1, (codec.NUM_ACTIONS, 16)).astype(np.float32),
                np.zeros(codec.NUM_ACTIONS, np.float32)),
        obs_transform="log1p+momo_actions")
    path = save_policy(tmp_path / "momo", policy, {"env_id": "momo_v0",
                                                   "env_options": {"num_players": 2}})
    bot = load_bot(path)
    for _, view, obs, mask in _positions(2, games=1):
        rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
        assert bot.act(view, mask, rng1) == policy.act_observation(obs, mask, rng2, 1.0)
