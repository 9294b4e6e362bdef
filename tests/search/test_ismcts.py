"""``agents.make("<game>/ismcts")``, and what the flat Monte-Carlo bot shares with it: legal,
reproducible, better than random, bad options and views refused by name."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.agents.ismcts import ISMCTSBot
from loco_envs.benchmarks import tournament as T
from tests.search.helpers import CASES, case_id, positions

GAMES = [("loco_v0", 3), ("moco_v0", 2), ("momo_v0", 2), ("mampfos_v0", 3)]


@pytest.mark.parametrize("search", ["ismcts:iterations=8", "flatmc:playouts=3"])
@pytest.mark.parametrize("env_id,n", GAMES)
def test_search_plays_legal_moves_from_the_view(env_id, n, search):
    bot = agents.make(f"{env_id[:-3]}/{search}")
    rng = np.random.default_rng(0)
    for game in positions(env_id, n, {}, 25):
        seat = game.current_seat
        mask = game.legal_mask()
        assert mask[bot.act(game.view(seat), mask, rng)] == 1


@pytest.mark.parametrize("search", ["ismcts:iterations=6", "flatmc:playouts=2,rollout=heuristic"])
@pytest.mark.parametrize("env_id,n", GAMES)
def test_search_is_reproducible_under_a_seed(env_id, n, search):
    spec = f"{env_id[:-3]}/{search}"
    records = [T.play_game(env_id, [spec] + ["random"] * (n - 1), seed=3, max_decisions=150)
               for _ in range(2)]
    assert records[0] == records[1]


def test_ismcts_with_the_game_set_uses_its_knowledge():
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    bot = ISMCTSBot("moco", iterations=5, rollout="heuristic")
    bot.game = env.game
    mask = env.game.legal_mask()
    assert mask[bot.act(env.game.view(env.game.current_seat), mask,
                        np.random.default_rng(0))] == 1


@pytest.mark.parametrize("spec", ["moco/ismcts:iterations=20", "moco/flatmc:playouts=8"])
def test_search_beats_random_in_a_short_match(spec):
    t = T.Tournament("moco_v0", 2, (spec, "random"), 6, 0)
    records = [T.play_game(t.env_id, seats, seed, g) for g, seed, seats in T.schedule(t)]
    assert sum(r["ranks"][r["seats"].index(spec)] == 0 for r in records) >= 5


def test_ismcts_time_budget():
    bot = agents.make("momo/ismcts:time=0.02")
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    g = env.game
    assert g.legal_mask()[bot.act(g.view(g.current_seat), g.legal_mask(),
                                  np.random.default_rng(0))]
    assert bot.last_iterations >= 1


@pytest.mark.parametrize("spec,word", [
    ("loco/ismcts:foo=1", "foo"), ("loco/ismcts:iterations=0", "iterations"),
    ("loco/ismcts:iterations=x", "iterations"), ("moco/ismcts:rollout=greedy", "rollout"),
    ("momo/ismcts:c=-1", "'c'"), ("momo/ismcts:time=0", "time"),
    ("mampfos/ismcts:depth", "depth"), ("chess/ismcts", "chess"),
    ("moco/flatmc:playouts=0", "playouts"), ("moco/flatmc:playouts=x", "playouts"),
    ("momo/flatmc:iterations=5", "iterations"), ("loco/flatmc:c=1", "'c'"),
    ("mampfos/flatmc:rollout=greedy", "rollout"), ("moco/flatmc:time=-1", "time"),
    ("moco/flatmc:rollout=heuristic-strong", "rollout"),
    ("loco/flatmc:depth=-2", "depth"), ("chess/flatmc", "chess"),
])
def test_search_bad_options_are_value_errors_naming_them(spec, word):
    with pytest.raises(ValueError, match=word):
        agents.make(spec)


@pytest.mark.parametrize("search", ["ismcts:iterations=4", "flatmc:playouts=2"])
def test_loco_searches_play_out_with_heuristic_strong(search):
    """``rollout=heuristic-strong`` (LOCO only) plays out with loco/heuristic-strong's
    compiled twin and picks a legal move."""
    from loco_envs.loco.compiled import bots as loco_bots

    bot = agents.make(f"loco/{search},rollout=heuristic-strong")
    assert bot.kind == loco_bots.STRONG
    for game in positions("loco_v0", 4, {}, 12, seed=3):
        mask = game.legal_mask()
        assert mask[bot.act(game.view(game.current_seat), mask, np.random.default_rng(1))]


@pytest.mark.parametrize("env_id,n,opts", [("loco_v0", 4, {}), ("moco_v0", 3, {"match": True}),
                                           ("momo_v0", 2, {"expansion_a": True}),
                                           ("mampfos_v0", 3, {"memory": "recall"})])
def test_from_view_builds_a_game_with_the_same_view(env_id, n, opts):
    """What the bot searches from: a whole game rebuilt from one seat's view alone."""
    import importlib

    search = importlib.import_module(f"loco_envs.{env_id[:-3]}.search")
    rng = np.random.default_rng(5)
    for game in positions(env_id, n, opts, 20):
        for seat in range(n):
            view = game.view(seat)
            assert search.from_view(view, rng).view(seat) == view


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_compiled_evaluation_is_the_python_one(case):
    """The compiled playout's evaluation (``<game>.compiled.search.evaluate``) gives the rank
    rewards of ``loco_envs.<game>.search.evaluate`` at random positions."""
    env_id, n, opts = case
    game_name = env_id[:-3]
    search = importlib.import_module(f"loco_envs.{game_name}.search")
    state_module = importlib.import_module(f"loco_envs.{game_name}.compiled.state")
    compiled = importlib.import_module(f"loco_envs.{game_name}.compiled.search")
    batch, cfg = None, None
    out = np.zeros(n, np.float64)
    for game in positions(env_id, n, opts, 60, seed=5, max_steps=400):
        if batch is None:
            cfg = state_module.config(search.engine_options(game))
            batch = state_module.allocate(1, cfg)
        state_module.write_game(batch, 0, game)
        compiled.evaluate(batch, cfg, 0, out)
        assert out.tolist() == pytest.approx(search.evaluate(game))


def _decision(env_id: str, n: int):
    """A game at its first decision with two or more legal actions."""
    env = loco_envs.make(env_id, wrapped=False, num_players=n)
    env.reset(seed=0)
    game = env.game
    while game.legal_mask().sum() < 2:
        game.apply(int(np.flatnonzero(game.legal_mask())[0]))
    return game


@pytest.mark.parametrize("search", ["ismcts:iterations=2", "flatmc:playouts=1"])
@pytest.mark.parametrize("env_id,n", GAMES)
@pytest.mark.parametrize("with_game", [False, True], ids=["from-view", "game-set"])
def test_search_view_of_a_seat_out_of_range_is_a_value_error(env_id, n, with_game, search):
    """A view whose seat is not one of the game's is refused, naming the seat, whether the bot
    rebuilds the game from the view or was handed the game."""
    import dataclasses

    game = _decision(env_id, n)
    bot = agents.make(f"{env_id[:-3]}/{search}")
    if with_game:
        bot.game = game
    for seat in (n, -1):
        view = dataclasses.replace(game.view(game.current_seat), seat=seat)
        with pytest.raises(ValueError, match=f"seat {seat}"):
            bot.act(view, game.legal_mask(), np.random.default_rng(0))


@pytest.mark.parametrize("env_id", ["loco_v0", "mampfos_v0"])
def test_warm_search_runs_one_search_of_each_bot(env_id, monkeypatch):
    """``python -m loco_envs.compiled`` warms each game's search kernels, ISMCTS's and flat
    Monte Carlo's, with one searched decision of each bot."""
    from loco_envs.compiled import __main__ as warming

    made = []
    real_make = warming.agents.make
    monkeypatch.setattr(warming.agents, "make", lambda spec: made.append(real_make(spec))
                        or made[-1])
    assert warming.warm_search(env_id) >= 0.0
    ismcts, flatmc = made
    assert ismcts.last_iterations == 2 and flatmc.last_playouts == 1
