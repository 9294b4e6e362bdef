"""``loco_envs.wrappers.RLlibObservations``: RLlib's keys, everything else untouched."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

import loco_envs
from loco_envs.wrappers import RLlibObservations


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
def test_wrapped_env_passes_api_test(env_id):
    api_test(RLlibObservations(loco_envs.make(env_id, num_players=2, max_decisions=40)),
             num_cycles=60)


def test_observations_carry_rllib_keys_and_the_same_values():
    plain = loco_envs.make("moco_v0", num_players=2)
    wrapped = RLlibObservations(loco_envs.make("moco_v0", num_players=2))
    plain.reset(seed=3)
    wrapped.reset(seed=3)
    space = wrapped.observation_space("player_0")
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["observations"] == plain.observation_space("player_0")["observation"]
    for _ in range(10):
        mine, theirs = wrapped.last()[0], plain.last()[0]
        assert set(mine) == {"observations", "action_mask"} and space.contains(mine)
        assert np.array_equal(mine["observations"], theirs["observation"])
        assert np.array_equal(mine["action_mask"], theirs["action_mask"])
        action = int(np.flatnonzero(theirs["action_mask"])[0])
        wrapped.step(action)
        plain.step(action)
    assert wrapped.agent_selection == plain.agent_selection


def test_truncation_passes_through():
    env = RLlibObservations(loco_envs.make("loco_v0", num_players=2, max_decisions=3))
    env.reset(seed=0)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    obs, reward, terminated, truncated, info = env.last()
    assert truncated and not terminated and reward == 0 and info["truncated"]
    assert not obs["action_mask"].any()
