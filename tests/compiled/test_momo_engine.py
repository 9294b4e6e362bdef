"""Loco Momo's compiled engine is its Python engine, decision for decision (K-01 … K-40).

The differential harness compares the state dicts (bag order, forest, pictures, pending and
discarded tokens, the generator), the masks, every seat's observation, the ``momo_actions``
features and the bots' choices at every decision, and the ranks and scores at the end, over
every player count (1 is the solo game, K-40) and both expansions (K-30, K-31).
"""

from __future__ import annotations

import gymnasium
import numba
import numpy as np
import pytest

import loco_envs  # noqa: F401 (registers loco_envs/MomoSolo-v0)
from loco_envs.agents import RandomBot
from loco_envs.agents.momo import MomoHeuristic
from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import BotPair, differential_play
from loco_envs.momo.compiled import bots, encode, engine, state
from loco_envs.momo.env import raw_env
from loco_envs.momo.observation import observation_size
from loco_envs.momo.rules import MomoGame

OPTIONS = [{"num_players": n, "expansion_a": a, "expansion_b": b}
           for n in (1, 2, 3, 4) for a in (False, True) for b in (False, True)
           if n > 1 or not (a or b)]


def _ids(options: dict) -> str:
    return (f"{options['num_players']}p{'-A' if options['expansion_a'] else ''}"
            f"{'-B' if options['expansion_b'] else ''}")


def _pairs(seed: int, n: int) -> list[BotPair]:
    """The heuristic at seat 0 (at every seat for one game in four), the random bot at seat 1;
    the harness's seeded uniform policy plays the rest (and every seat one game in four)."""
    if seed % 4 == 3:
        return [BotPair(MomoHeuristic(), bots.heuristic, range(n))]
    if seed % 4 == 2:
        return []
    return [BotPair(MomoHeuristic(), bots.heuristic, [0]), BotPair(RandomBot(), bots.random, [1])]


def _differential(options: dict, seeds: range) -> int:
    n = options["num_players"]
    return sum(differential_play("momo_v0", options, seed, policy_seed=seed + 1,
                                 observers="all", features="momo_actions",
                                 bots=_pairs(seed, n)) for seed in seeds)


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_differential_sample(options):
    """K-01 … K-40 on both engines: a few games per option (several thousand decisions in
    all), every seat observed, features and bots compared."""
    decisions = _differential(options, range(6))
    assert decisions > 100


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_differential_million(options, chunk):
    """At least 1M decisions over the 13 options x 4 chunks (>= 19,300 each), every seat
    observed with its features; the heuristic plays over a third of them."""
    seeds_per_chunk = 10_000
    decisions, seed = 0, 1000 + chunk * seeds_per_chunk
    while decisions < 19_300:
        decisions += _differential(options, range(seed, seed + 1))
        seed += 1
    assert seed < 1000 + (chunk + 1) * seeds_per_chunk


def _rng_words(rng: np.random.Generator) -> list[int]:
    words = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(rng, words)
    return words.tolist()


def test_bag_is_numpys_permutation():
    """K-01: the bag is ``rng.permutation(np.repeat(np.arange(15), 7))``: Generator.permutation
    of a 1-d array is its shuffle (numpy's random_interval Fisher-Yates), draw for draw."""
    for seed in (0, 1, 99, 2**40 + 3):
        rng = np.random.default_rng(seed)
        expected = rng.permutation(np.repeat(np.arange(15), 7))
        st = np.zeros(R.STATE_WORDS, np.uint64)
        R.seed_state(np.uint64(seed), st)
        bag = np.repeat(np.arange(15), 7).astype(np.int8)
        R.shuffle(st, bag, bag.size)
        assert bag.tolist() == expected.tolist()
        assert st.tolist() == _rng_words(rng)


def test_new_game_deals_as_python():
    """K-01, K-04, K-05, K-30, K-31: the bag, forest, first player and expansion tiles of many
    seeds, every option."""
    for options in OPTIONS:
        cfg = state.config(options)
        s = state.allocate(40, cfg)
        seeds = np.arange(40, dtype=np.int64) * 7919 + cfg.num_players
        engine.reset_batch(s, cfg, seeds)
        for i, seed in enumerate(seeds.tolist()):
            game = MomoGame(rng=np.random.default_rng(seed), **options)
            assert state.state_dict(s, i, cfg) == game.state_dict()
            assert s.rng[i].tolist() == _rng_words(game.rng)
    cfg = state.config({})
    big = state.allocate(1, cfg)
    engine.new_game(big, cfg, 0, 2**63 - 1)
    assert state.state_dict(big, 0, cfg) == MomoGame(np.random.default_rng(2**63 - 1)).state_dict()


def test_solo_gymnasium_env_is_the_one_player_batch():
    """K-40: ``loco_envs/MomoSolo-v0`` deals ``MomoGame(num_players=1)`` from its reset seed
    (gymnasium's ``np_random`` is ``default_rng``): same game, observations, final score."""
    cfg = state.config({"num_players": 1})
    s = state.allocate(1, cfg)
    obs = np.zeros(observation_size(1), np.float32)
    mask = np.zeros(MomoGame.NUM_ACTIONS, np.int8)
    env = gymnasium.make("loco_envs/MomoSolo-v0").unwrapped
    for seed in range(5):
        expected, info = env.reset(seed=seed)
        engine.new_game(s, cfg, 0, seed)
        policy = np.random.default_rng(seed)
        while True:
            assert state.state_dict(s, 0, cfg) == env.state_dict()
            encode.encode(s, cfg, 0, 0, obs)
            assert np.array_equal(obs, expected)
            engine.legal_mask(s, cfg, 0, mask)
            assert np.array_equal(mask, info["action_mask"])
            if s.terminal[0]:
                break
            action = int(policy.choice(np.flatnonzero(mask)))
            expected, reward, terminated, _, info = env.step(action)
            engine.play(s, cfg, 0, action)
        scores = np.zeros(1)
        engine.final_scores(s, cfg, 0, scores)
        assert terminated and scores[0] == reward == info["score"]


def test_config_checks_options_as_the_engine():
    assert state.config({}) == state.MomoConfig(2, False, False)
    assert state.config({"num_players": 4, "expansion_a": True, "reward": "score"}) == \
        state.MomoConfig(4, True, False)
    for bad, name in (({"num_players": 5}, "num_players"), ({"num_players": 0}, "num_players"),
                      ({"expansion_a": "yes"}, "expansion_a"), ({"colours": 3}, "colours"),
                      ({"num_players": 1, "expansion_b": True}, "expansion_b")):
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
        game = MomoGame(rng=np.random.default_rng(seed), **options)
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
        assert _rng_words(back.rng) == _rng_words(game.rng)
        again = state.allocate(3, cfg)
        state.write_game(again, 1, back)
        for name in state.MomoState._fields:
            assert np.array_equal(getattr(s, name)[1], getattr(again, name)[1]), name
        mask = np.zeros(MomoGame.NUM_ACTIONS, np.int8)
        while not game.terminal:
            engine.legal_mask(s, cfg, 1, mask)
            assert np.array_equal(mask, game.legal_mask())
            action = int(policy.choice(np.flatnonzero(mask)))
            game.apply(action)
            engine.play(s, cfg, 1, action)
            assert state.state_dict(s, 1, cfg) == game.state_dict()
        assert bool(s.terminal[1])
        ranks, scores = np.zeros(cfg.num_players, np.int64), np.zeros(cfg.num_players)
        engine.final_ranks(s, cfg, 1, ranks)
        engine.final_scores(s, cfg, 1, scores)
        assert ranks.tolist() == game.final_ranks()
        assert scores.tolist() == game.final_scores()


def test_write_game_checks_the_player_count():
    s = state.allocate(1, state.config({"num_players": 3}))
    with pytest.raises(ValueError, match="2-player game"):
        state.write_game(s, 0, MomoGame(np.random.default_rng(0)))


@pytest.mark.parametrize("options", OPTIONS[:3], ids=_ids)
def test_is_legal_is_the_mask(options):
    cfg = state.config(options)
    s = state.allocate(1, cfg)
    engine.new_game(s, cfg, 0, 11)
    policy = np.random.default_rng(0)
    mask = np.zeros(MomoGame.NUM_ACTIONS, np.int8)
    while True:
        engine.legal_mask(s, cfg, 0, mask)
        legal = [engine.is_legal(s, cfg, 0, a) for a in range(-2, MomoGame.NUM_ACTIONS + 2)]
        assert legal == [False, False] + [bool(m) for m in mask] + [False, False]
        if s.terminal[0]:
            assert not mask.any()
            break
        engine.play(s, cfg, 0, int(policy.choice(np.flatnonzero(mask))))


def _run_batch(options: dict, threads: int, num_games: int = 64) -> tuple[state.MomoState, float]:
    """Games for every row to the end with the batch forms on ``threads`` threads (the
    heuristic and the random bot by turns); a digest of every observation and feature row."""
    cfg = state.config(options)
    s = state.allocate(num_games, cfg)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        engine.reset_batch(s, cfg, np.arange(num_games, dtype=np.uint64) + 100)
        masks = np.zeros((num_games, MomoGame.NUM_ACTIONS), np.int8)
        rng_states = np.zeros((num_games, R.STATE_WORDS), np.uint64)
        for i in range(num_games):
            R.seed_state_pair(np.uint64(i), np.uint64(1), rng_states[i])
        rows = np.arange(num_games, dtype=np.int64)
        kinds = np.zeros(num_games, np.int64)
        actions = np.zeros(num_games, np.int64)
        obs = np.zeros((num_games, observation_size(cfg.num_players)), np.float32)
        feats = np.zeros((num_games, encode.FEATURES_K * MomoGame.NUM_ACTIONS), np.float32)
        digest = 0.0
        while not s.terminal.all():
            engine.masks_batch(s, cfg, masks)
            kinds[:] = np.where(s.actor % 2 == 0, bots.HEURISTIC, bots.RANDOM)
            bots.act_batch(s, cfg, kinds, rows, masks, rng_states, actions)
            actions[s.terminal] = -1
            encode.encode_batch(s, cfg, rows, np.maximum(s.actor, 0).astype(np.int64), obs)
            encode.features_batch(obs, cfg.num_players, feats)
            digest += float(obs.astype(np.float64).sum()) + float(feats.astype(np.float64).sum())
            engine.play_batch(s, cfg, actions)
    finally:
        numba.set_num_threads(before)
    return s, digest


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("options", [OPTIONS[0], OPTIONS[4], OPTIONS[-1]], ids=_ids)
def test_results_do_not_depend_on_threads(options):
    (one, d1), (two, d2) = _run_batch(options, 1), _run_batch(options, 2)
    for name in state.MomoState._fields:
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert d1 == d2
    assert one.terminal.all()
