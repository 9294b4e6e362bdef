"""``agents.make("<game>/flatmc")``: the flat Monte-Carlo bot's own tests (its compiled kernel,
its budgets, its spec); what it shares with ISMCTS (legal, seeded, better than random, bad
options) is tested with it in ``test_ismcts.py``."""

from __future__ import annotations

import copy
import importlib

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.agents.ismcts import FlatMonteCarloBot
from loco_envs.compiled import ismcts as K
from loco_envs.compiled import rng as R
from tests.search.helpers import CASES, case_id, positions


@pytest.mark.parametrize("case", CASES[::3], ids=case_id)
def test_a_playout_of_depth_0_scores_the_move_alone(case):
    """With ``depth=0`` the kernel plays each row's first move and scores the row as it then
    stands: every copy of a determinization gets what the Python engine's ``search.evaluate``
    gives after that move, for the searching seat (so the copies are the determinization, each
    plays its own move, and the seat's reward is the one read)."""
    env_id, n, opts = case
    game_name = env_id[:-3]
    search = importlib.import_module(f"loco_envs.{game_name}.search")
    state_module = importlib.import_module(f"loco_envs.{game_name}.compiled.state")
    bot = FlatMonteCarloBot(game_name, playouts=1, depth=0)
    rng, rng_state = np.random.default_rng(2), np.zeros(R.STATE_WORDS, np.uint64)
    for game in positions(env_id, n, opts, 12, seed=4, max_steps=200):
        if game.terminal:
            continue
        seat, legal = game.current_seat, np.flatnonzero(game.legal_mask())
        determinization = game.resample(seat, rng)
        state, cfg = bot._playout_batch(determinization, legal.size)
        state_module.write_game(state, 0, determinization)
        for array in state:
            array[1:legal.size] = array[0]
        out = np.zeros(legal.size)
        K.playouts(state, cfg, legal.size, legal, seat, bot.kind, 0, rng_state,
                   game.NUM_ACTIONS, out)
        for move, reward in zip(legal, out, strict=True):
            after = copy.deepcopy(determinization)
            after.apply(int(move))
            assert reward == pytest.approx(search.evaluate(after)[seat])


def test_flatmc_time_budget_and_the_rounds_it_played():
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    g = env.game
    timed, counted = agents.make("momo/flatmc:time=0.02"), agents.make("momo/flatmc:playouts=5")
    for bot in (timed, counted):
        assert g.legal_mask()[bot.act(g.view(g.current_seat), g.legal_mask(),
                                      np.random.default_rng(0))]
    assert timed.last_playouts >= 1 and counted.last_playouts == 5


def test_flatmc_spec_is_listed_and_named():
    assert {f"{g}/flatmc" for g in ("loco", "moco", "momo", "mampfos")} <= set(
        agents.available_specs())
    assert agents.make("moco/flatmc:playouts=4").name == "moco/flatmc:playouts=4"
    assert agents.make("moco/flatmc").name == "moco/flatmc"
