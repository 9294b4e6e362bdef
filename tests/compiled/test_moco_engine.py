"""Moco!'s compiled engine is its Python engine, decision for decision (M-01 … M-30).

The differential harness compares the state dicts (hands, removed cards, piles, chips, the
generator), the masks, every seat's observation, the ``moco_actions`` features and the bots'
choices at every decision, and the ranks and scores at the end.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from loco_envs.agents import RandomBot
from loco_envs.agents.moco import MocoHeuristic
from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import BotPair, differential_play
from loco_envs.moco.compiled import bots, encode, engine, state
from loco_envs.moco.env import raw_env
from loco_envs.moco.observation import observation_size, slices
from loco_envs.moco.rules import MocoGame

OPTIONS = [{"num_players": n, "match": match} for n in (2, 3, 4, 5) for match in (False, True)]


def _ids(options: dict) -> str:
    return f"{options['num_players']}p{'-match' if options['match'] else ''}"


def _pairs(seed: int, n: int) -> list[BotPair]:
    """The heuristic at seat 0 (at every seat for one game in four), the random bot at seat 1;
    the harness's seeded uniform policy plays the rest."""
    if seed % 4 == 3:
        return [BotPair(MocoHeuristic(), bots.heuristic, range(n))]
    return [BotPair(MocoHeuristic(), bots.heuristic, [0]), BotPair(RandomBot(), bots.random, [1])]


def _differential(options: dict, seeds: range) -> int:
    n = options["num_players"]
    return sum(differential_play("moco_v0", options, seed, policy_seed=seed + 1,
                                 observers="all", features="moco_actions",
                                 bots=_pairs(seed, n)) for seed in seeds)


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_differential_sample(options):
    """M-01 … M-30 on both engines: a few games per option (several thousand decisions in
    all), every seat observed, features and bots compared."""
    decisions = _differential(options, range(6))
    assert decisions > 100


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_differential_million(options, chunk):
    """At least 1M decisions over the 8 options x 4 chunks (>= 31,250 each), every seat
    observed with its features; the heuristic plays over a quarter of them (>= 250k)."""
    seeds_per_chunk = 10_000
    decisions, seed = 0, 1000 + chunk * seeds_per_chunk
    while decisions < 31_250:
        decisions += _differential(options, range(seed, seed + 1))
        seed += 1
    assert seed < 1000 + (chunk + 1) * seeds_per_chunk


def test_new_game_deals_as_python():
    """M-03, M-05: the dealer and the deal of many seeds, every player count."""
    for n in (2, 3, 4, 5):
        cfg = state.config({"num_players": n})
        s = state.allocate(50, cfg)
        seeds = np.arange(50, dtype=np.int64) * 7919 + n
        engine.reset_batch(s, cfg, seeds)
        for i, seed in enumerate(seeds.tolist()):
            game = MocoGame(rng=np.random.default_rng(seed), num_players=n)
            assert state.state_dict(s, i, cfg) == game.state_dict()
            assert s.rng[i].tolist() == _rng_words(game.rng)
    big = state.allocate(1, state.config({}))
    engine.new_game(big, state.config({}), 0, 2**63 - 1)
    game = MocoGame(rng=np.random.default_rng(2**63 - 1))
    assert state.state_dict(big, 0, state.config({})) == game.state_dict()


def _rng_words(rng: np.random.Generator) -> list[int]:
    words = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(rng, words)
    return words.tolist()


def test_config_checks_options_as_the_engine():
    assert state.config({}) == state.MocoConfig(4, False, 1)
    assert state.config({"num_players": 3, "match": True}) == state.MocoConfig(3, True, 3)
    for bad, name in (({"num_players": 6}, "num_players"), ({"num_players": 1}, "num_players"),
                      ({"match": "yes"}, "match"), ({"rounds": 3}, "rounds")):
        with pytest.raises(ValueError, match=name):
            state.config(bad)
        with pytest.raises(ValueError, match=name):
            raw_env(**bad)


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_state_round_trip_mid_game(options):
    """A Python game mid-play goes into a row (write_game), reads back (state_dict,
    read_game), and both engines go on from there identically to the end."""
    cfg = state.config(options)
    policy = np.random.default_rng(3)
    for seed in range(4):
        game = MocoGame(rng=np.random.default_rng(seed), **options)
        for _ in range(int(policy.integers(1, 40))):
            game.apply(int(policy.choice(np.flatnonzero(game.legal_mask()))))
            if game.terminal:
                break
        s = state.allocate(3, cfg)
        state.write_game(s, 1, game)
        assert state.state_dict(s, 1, cfg) == game.state_dict()
        assert s.rng[1].tolist() == _rng_words(game.rng)
        back = state.read_game(s, 1, options)
        assert back.state_dict() == game.state_dict()
        again = state.allocate(3, cfg)
        state.write_game(again, 1, back)
        for name in state.MocoState._fields:
            assert np.array_equal(getattr(s, name)[1], getattr(again, name)[1]), name
        mask = np.zeros(MocoGame.NUM_ACTIONS, np.int8)
        while not game.terminal:
            engine.legal_mask(s, cfg, 1, mask)
            assert np.array_equal(mask, game.legal_mask())
            action = int(policy.choice(np.flatnonzero(mask)))
            game.apply(action)
            engine.play(s, cfg, 1, action)
            assert state.state_dict(s, 1, cfg) == game.state_dict()
            assert s.rng[1].tolist() == _rng_words(game.rng)
        assert bool(s.terminal[1])
        ranks, scores = np.zeros(cfg.num_players, np.int64), np.zeros(cfg.num_players)
        engine.final_ranks(s, cfg, 1, ranks)
        engine.final_scores(s, cfg, 1, scores)
        assert ranks.tolist() == game.final_ranks()
        assert scores.tolist() == game.final_scores()


def test_write_game_checks_the_player_count():
    s = state.allocate(1, state.config({"num_players": 3}))
    with pytest.raises(ValueError, match="4-player game"):
        state.write_game(s, 0, MocoGame(np.random.default_rng(0)))


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_is_legal_is_the_mask(options):
    cfg = state.config(options)
    s = state.allocate(1, cfg)
    engine.new_game(s, cfg, 0, 11)
    policy = np.random.default_rng(0)
    mask = np.zeros(MocoGame.NUM_ACTIONS, np.int8)
    while True:
        engine.legal_mask(s, cfg, 0, mask)
        legal = [engine.is_legal(s, cfg, 0, a) for a in range(-2, MocoGame.NUM_ACTIONS + 2)]
        assert legal == [False, False] + [bool(m) for m in mask] + [False, False]
        if s.terminal[0]:
            assert not mask.any()
            break
        engine.play(s, cfg, 0, int(policy.choice(np.flatnonzero(mask))))


def _run_batch(options: dict, threads: int, num_games: int = 64) -> state.MocoState:
    """Random games for every row to the end with the batch forms on ``threads`` threads; the
    last decisions' observations and features are folded into the returned arrays' check."""
    cfg = state.config(options)
    s = state.allocate(num_games, cfg)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        engine.reset_batch(s, cfg, np.arange(num_games, dtype=np.int64) + 100)
        masks = np.zeros((num_games, MocoGame.NUM_ACTIONS), np.int8)
        rng_states = np.zeros((num_games, R.STATE_WORDS), np.uint64)
        for i in range(num_games):
            R.seed_state_pair(np.uint64(i), np.uint64(1), rng_states[i])
        rows = np.arange(num_games, dtype=np.int64)
        actions = np.zeros(num_games, np.int64)
        size = observation_size(cfg.num_players)
        obs = np.zeros((num_games, size), np.float32)
        feats = np.zeros((num_games, 474), np.float32)
        digest = 0.0
        while not s.terminal.all():
            engine.masks_batch(s, cfg, masks)
            kind = bots.KINDS["random" if int(s.actor.max()) % 2 else "moco/heuristic"]
            bots.act_batch(s, cfg, kind, rows, masks, rng_states, actions)
            actions[s.terminal] = -1
            encode.encode_batch(s, cfg, rows, np.maximum(s.actor, 0).astype(np.int64), obs)
            encode.features_batch(obs, cfg.num_players, feats)
            digest += float(obs.sum()) + float(feats.sum())
            engine.play_batch(s, cfg, actions)
    finally:
        numba.set_num_threads(before)
    s.match_scores[0, 0] += int(digest) % 1000  # any difference in obs/features shows here
    return s


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("options", [OPTIONS[1], OPTIONS[6]], ids=_ids)
def test_results_do_not_depend_on_threads(options):
    one, two = _run_batch(options, 1), _run_batch(options, 2)
    for name in state.MocoState._fields:
        assert np.array_equal(getattr(one, name), getattr(two, name)), name


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_batch_forms_match_single_forms(n):
    """encode_batch / features_batch / masks_batch row by row, and the observation layout."""
    cfg = state.config({"num_players": n, "match": True})
    assert encode.observation_size(n) == observation_size(n)
    assert slices(n)["chips"].start == encode._CHIPS
    s = state.allocate(8, cfg)
    engine.reset_batch(s, cfg, np.arange(8, dtype=np.int64))
    policy = np.random.default_rng(n)
    masks = np.zeros((8, MocoGame.NUM_ACTIONS), np.int8)
    for _ in range(30):
        engine.masks_batch(s, cfg, masks)
        actions = np.array([policy.choice(np.flatnonzero(m)) for m in masks], np.int64)
        engine.play_batch(s, cfg, actions)
    rows = np.array([7, 0, 3, 3], np.int64)
    seats = np.array([0, n - 1, 1, 0], np.int64)
    obs = np.zeros((4, observation_size(n)), np.float32)
    encode.encode_batch(s, cfg, rows, seats, obs)
    feats = np.zeros((4, 474), np.float32)
    encode.features_batch(obs, n, feats)
    one = np.zeros((1, observation_size(n)), np.float32)
    one_feats = np.zeros((1, 474), np.float32)
    for k in range(4):
        encode.encode(s, cfg, rows[k], seats[k], one[0])
        assert np.array_equal(one[0], obs[k])
        encode.features(one, n, one_feats)
        assert np.array_equal(one_feats[0], feats[k])
    engine.masks_batch(s, cfg, masks)
    single = np.zeros(MocoGame.NUM_ACTIONS, np.int8)
    for i in range(8):
        engine.legal_mask(s, cfg, i, single)
        assert np.array_equal(single, masks[i])
