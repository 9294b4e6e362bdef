"""Observations stay inside their declared per-entry bounds, over random and scripted play.

The bounds come from each game's rules (``bounds`` in ``loco_envs/<game>/observation.py``); this
plays whole games with ``random`` and ``<game>/heuristic`` bots for several player counts and
options and checks every agent's observation after every decision.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import loco_envs
from loco_envs import agents

#: (env id, options): player counts from the smallest to the largest, and the options that
#: change what can be seen (match length, stacking, the clock, expansions, memory).
CASES = [
    ("loco_v0", {"num_players": 2}),
    ("loco_v0", {"num_players": 4, "rounds": 3, "stacking": "identical"}),
    ("loco_v0", {"num_players": 6, "timeout_rate": 0.3}),
    ("loco_v0", {"num_players": 10}),
    ("moco_v0", {"num_players": 2}),
    ("moco_v0", {"num_players": 3, "match": True}),
    ("moco_v0", {"num_players": 5, "match": True}),
    ("momo_v0", {"num_players": 1}),
    ("momo_v0", {"num_players": 2, "expansion_a": True}),
    ("momo_v0", {"num_players": 4, "expansion_a": True, "expansion_b": True}),
    ("mampfos_v0", {"num_players": 2}),
    ("mampfos_v0", {"num_players": 3, "memory": "recall"}),
    ("mampfos_v0", {"num_players": 5}),
]
GAMES_PER_CASE = 3
#: LOCO games between random bots can run very long; the cap keeps the test short.
MAX_DECISIONS = 3000


def slice_of(env, index: int) -> str:
    """The name of the slice holding observation entry ``index`` (for the failure message)."""
    module = importlib.import_module(type(env).__module__.rsplit(".", 1)[0] + ".observation")
    args = [env.num_players] + ([env.options["memory"]] if "memory" in env.options else [])
    for name, part in module.slices(*args).items():
        if part.start <= index < part.stop:
            return f"{name}[{index - part.start}]"
    return "?"


def outside(env, space, obs: np.ndarray) -> list[str]:
    bad = np.flatnonzero((obs < space.low) | (obs > space.high))
    return [f"{slice_of(env, i)}={obs[i]:g} not in [{space.low[i]:g}, {space.high[i]:g}]"
            for i in bad[:5]]


def play_and_check(env_id: str, options: dict, lineup: list[str], seed: int) -> int:
    env = loco_envs.make(env_id, wrapped=False, max_decisions=MAX_DECISIONS, **options)
    env.reset(seed=seed)
    bots = [agents.make(lineup[s % len(lineup)]) for s in range(env.num_players)]
    rngs = [np.random.default_rng([seed, s]) for s in range(env.num_players)]
    space = env.observation_space(env.possible_agents[0])["observation"]
    checked = 0
    while True:
        for agent in env.possible_agents:
            obs = env.observe(agent)["observation"]
            assert obs.dtype == np.float32 and obs.shape == space.shape
            problems = outside(env, space, obs)
            assert not problems, (f"{env_id} {options} seed {seed}, decision {env.decisions}, "
                                  f"{agent}: {problems}")
            checked += 1
        if env.over:
            return checked
        seat = env.seat(env.agent_selection)
        env.step(bots[seat].act(env.view(seat), env.game.legal_mask(), rngs[seat]))


@pytest.mark.parametrize(("env_id", "options"), CASES,
                         ids=[f"{e}-{'-'.join(f'{k}={v}' for k, v in o.items())}"
                              for e, o in CASES])
def test_observations_stay_inside_their_bounds(env_id, options):
    game = env_id.removesuffix("_v0")
    lineups = [["random"], [f"{game}/heuristic"], [f"{game}/heuristic", "random"]]
    checked = 0
    for g in range(GAMES_PER_CASE):
        checked += play_and_check(env_id, options, lineups[g % len(lineups)], seed=100 + g)
    assert checked > 0


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
def test_bounds_are_finite_and_tighter_than_a_byte(env_id):
    for n in (2, 3):
        space = loco_envs.make(env_id, num_players=n).observation_space("player_0")
        box = space["observation"]
        assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
        assert (box.low >= 0).all()
        assert (box.low < box.high).all()  # Gymnasium's checker warns about fixed entries
        assert box.high.max() < 255


def test_loco_pending_beyond_every_card_is_shown_as_every_card():
    """L-13: a draw hands over at most the 111 cards outside the top, so more is the same."""
    from loco_envs.loco import observation

    env = loco_envs.make("loco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    env.game.pending, env.game.pending_kind = 130, "+2"  # a long chain, recycled by reshuffles
    seat = env.seat(env.agent_selection)
    vector = env.observe(env.agent_selection)["observation"]
    entry = observation.slices(2)["pending"].start
    assert vector[entry] == observation.MAX_CARDS == 111
    assert np.array_equal(vector, observation.encode(env.view(seat)))
    assert env.observation_space(env.agent_selection)["observation"].contains(vector)


def test_solo_gymnasium_env_declares_the_same_bounds():
    import gymnasium

    solo = gymnasium.make("loco_envs/MomoSolo-v0").observation_space
    aec = loco_envs.make("momo_v0", num_players=1).observation_space("player_0")["observation"]
    assert np.array_equal(solo.low, aec.low) and np.array_equal(solo.high, aec.high)
    assert (solo.low < solo.high).all()
