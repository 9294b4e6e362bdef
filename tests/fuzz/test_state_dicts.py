"""Fuzzing ``reset(options={"state": d})`` of every game with mutated valid state dicts.

A state dict is what a user or a file hands the env. For each mutated dict the env either
refuses it with a ``ValueError`` naming a field of the schema, and is left exactly as it was
(state, record header, agent to act), or accepts it, and then the state is a real one: it
survives a ``state_dict`` round trip, its observations are finite and inside the observation
space, and legal moves can be played from it.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest
from hypothesis import strategies as st

import loco_envs
from tests.fuzz.fuzzing import bounded, budgets, count, field_names, mutated

SETUPS = [(env_id, players) for env_id in loco_envs.available_envs() for players in (2, 3)]


@functools.cache
def env_for(env_id: str, players: int):
    return loco_envs.make(env_id, wrapped=False, num_players=players)


@functools.lru_cache(maxsize=512)
def valid_state(env_id: str, players: int, seed: int, moves: int) -> str:
    """The state after ``moves`` random legal moves from deal ``seed``, as JSON text."""
    env = loco_envs.make(env_id, wrapped=False, num_players=players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if env.over:
            break
        env.step(int(rng.choice(np.flatnonzero(env.game.legal_mask()))))
    return json.dumps(env.state_dict())


def snapshot(env) -> str:
    return json.dumps([env.state_dict(), env.record_lines(), env.agent_selection,
                       env.agents], sort_keys=True, default=str)


def check_usable(env, rng: np.random.Generator) -> None:
    """An accepted state is a real one: round trip, observations in bounds, moves playable."""
    state = env.state_dict()
    text = json.dumps(state, allow_nan=False)
    again = loco_envs.make(env.env_id, wrapped=False, num_players=env.num_players)
    again.reset(seed=0, options={"state": json.loads(text)})
    assert again.state_dict() == state
    for _ in range(12):
        if env.over:
            break
        for agent in env.agents:
            obs = env.observe(agent)
            space = env.observation_space(agent)
            assert np.isfinite(obs["observation"]).all()
            box, vector = space["observation"], obs["observation"]
            outside = np.flatnonzero((vector < box.low) | (vector > box.high))
            assert not outside.size, (f"observation of {agent} outside its space at {outside}: "
                                      f"{obs['observation'][outside]} not in "
                                      f"{box.low[outside]}..{box.high[outside]}")
            assert space.contains(obs), f"observation of {agent} not in its space"
            env.view(agent)
        mask = env.game.legal_mask()
        legal = np.flatnonzero(mask)
        assert legal.size, "a state that is not over with no legal move"
        env.step(int(rng.choice(legal)))
    env.render() if env.render_mode else None


def state_property(env_id: str, players: int, data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 30), label="deal")
    moves = data.draw(st.sampled_from([0, 1, 3, 10, 40, 150]), label="moves")
    valid = json.loads(valid_state(env_id, players, seed, moves))
    bad, paths = mutated(data, valid)
    env = env_for(env_id, players)
    env.reset(seed=seed)
    before = snapshot(env)
    target = f"state dict {env_id} {players}p"
    with bounded():
        try:
            env.reset(seed=1, options={"state": bad})
        except ValueError as exc:
            count(target, "ValueError")
            names = field_names(valid) | {"state"}
            message = str(exc)
            assert any(name in message for name in names), f"no field named in {message!r}"
            assert snapshot(env) == before, "a refused state changed the env"
            return
        count(target, "accepted")
        check_usable(env, np.random.default_rng(seed))


test_state_dicts, test_state_dicts_slow = (
    pytest.mark.parametrize(("env_id", "players"), SETUPS)(test)
    for test in budgets(state_property, data=st.data()))
