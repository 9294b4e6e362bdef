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
    bot = FlatMonteCarloBot(game_name, playouts=1, depth=0)
    rng, rng_state = np.random.default_rng(2), np.zeros(R.STATE_WORDS, np.uint64)
    for game in positions(env_id, n, opts, 12, seed=4, max_steps=200):
        if game.terminal:
            continue
        seat, legal = game.current_seat, np.flatnonzero(game.legal_mask())
        determinization = game.resample(seat, rng)
        state, cfg = bot._playout_batch(determinization, legal.size)
        bot.write_round(state, 0, legal.size, determinization)
        out = np.zeros(legal.size)
        K.playouts(state, cfg, legal.size, legal, seat, bot.kind, 0, rng_state,
                   game.NUM_ACTIONS, out)
        for move, reward in zip(legal, out, strict=True):
            after = copy.deepcopy(determinization)
            after.apply(int(move))
            assert reward == pytest.approx(search.evaluate(after)[seat])


def _recorded_searches(monkeypatch, bot, game):
    """``bot`` decides at ``game``; every call of the playout kernel is recorded: the rows as
    written (before the playouts move them on), the first moves and the rewards."""
    calls = []
    real = K.playouts

    def recording(state, cfg, rows, first, seat, *rest):
        written = [array[:rows].copy() for array in state]
        real(state, cfg, rows, first, seat, *rest)
        calls.append((written, first[:rows].copy(), rest[-1][:rows].copy(), seat))

    monkeypatch.setattr(K, "playouts", recording)
    mask = game.legal_mask()
    move = bot.act(game.view(game.current_seat), mask, np.random.default_rng(3))
    return move, calls


@pytest.mark.parametrize("env_id,n", [("moco_v0", 2), ("loco_v0", 3)])
def test_each_round_plays_every_legal_move_on_copies_of_one_determinization(
        monkeypatch, env_id, n):
    """What ``_search`` hands the kernel: per round, one determinization copied into a row per
    legal move, the moves in order; and the move played is a best one by the summed rewards."""
    env = loco_envs.make(env_id, wrapped=False, num_players=n)
    env.reset(seed=1)
    game = env.game
    while game.legal_mask().sum() < 2:
        game.apply(int(np.flatnonzero(game.legal_mask())[0]))
    legal = np.flatnonzero(game.legal_mask())
    bot = FlatMonteCarloBot(env_id[:-3], playouts=7, rollout="heuristic")
    move, calls = _recorded_searches(monkeypatch, bot, game)
    totals, rounds = np.zeros(legal.size), 0
    for written, first, rewards, seat in calls:
        assert seat == game.current_seat
        per_call = first.size // legal.size
        assert first.tolist() == np.tile(legal, per_call).tolist()
        for array in written:
            copies = array.reshape(per_call, legal.size, *array.shape[1:])
            assert (copies == copies[:, :1]).all()
        totals += rewards.reshape(per_call, legal.size).sum(axis=0)
        rounds += per_call
    assert rounds == bot.last_playouts == 7
    assert totals[list(legal).index(move)] == totals.max()


def test_flatmc_time_budget_starts_with_one_round(monkeypatch):
    """With ``time`` the first kernel call plays one round (so a short budget is not overrun
    by a whole batch), and the decision records the rounds it played."""
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    game = env.game
    moves = int(game.legal_mask().sum())
    timed = agents.make("momo/flatmc:time=0.02")
    move, calls = _recorded_searches(monkeypatch, timed, game)
    assert game.legal_mask()[move] and calls[0][1].size == moves
    assert timed.last_playouts == sum(call[1].size for call in calls) // moves


def test_flatmc_spec_is_listed_and_named():
    assert {f"{g}/flatmc" for g in ("loco", "moco", "momo", "mampfos")} <= set(
        agents.available_specs())
    assert agents.make("moco/flatmc:playouts=4").name == "moco/flatmc:playouts=4"
    assert agents.make("moco/flatmc").name == "moco/flatmc"
    with pytest.raises(ValueError, match="flatmc: unknown game 'chess'"):
        FlatMonteCarloBot("chess")
