"""Los Mampfos's compiled engine is the Python engine: the differential harness at every
decision (state dicts with the generator, masks, every seat's observation, ranks, scores), the
moves to and from ``MampfosGame`` mid-game, the batch forms and the thread count."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import differential_play
from loco_envs.mampfos.compiled import encode as X
from loco_envs.mampfos.compiled import engine as E
from loco_envs.mampfos.compiled import state as S
from loco_envs.mampfos.observation import encode as py_encode
from loco_envs.mampfos.rules import MampfosGame

OPTIONS = [{"num_players": n, "memory": memory}
           for n in range(2, 6) for memory in ("perfect", "recall")]
IDS = [f"{o['num_players']}p-{o['memory']}" for o in OPTIONS]


@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_differential_sample(options):
    """A few games per option: every decision equal on both engines, every seat's view."""
    decisions = 0
    for seed in range(4):
        decisions += differential_play("mampfos_v0", options, seed, policy_seed=1000 + seed,
                                       observers="all")
    assert decisions > 200


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_differential_one_million(options):
    """At least 1M decisions over the 8 options (125k each), every seat's observation."""
    decisions, seed = 0, 10_000
    while decisions < 125_000:
        decisions += differential_play("mampfos_v0", options, seed, policy_seed=seed + 7,
                                       observers="all")
        seed += 1


def test_config_rejects_bad_options_as_the_python_engine():
    assert S.config({}) == S.MampfosConfig(3, False)
    assert S.config({"num_players": 5, "memory": "recall"}) == S.MampfosConfig(5, True)
    for bad, name in (({"num_players": 6}, "num_players"), ({"num_players": 1}, "num_players"),
                      ({"memory": "total"}, "memory"), ({"colours": 4}, "colours")):
        with pytest.raises(ValueError, match=name):
            S.config(bad)
    with pytest.raises(ValueError, match="player"):
        S.write_game(S.allocate(1, S.config({"num_players": 2})), 0,
                     MampfosGame(np.random.default_rng(0), num_players=3))


def _compare(game: MampfosGame, s, cfg, i: int, where: str) -> None:
    assert S.state_dict(s, i, cfg) == game.state_dict(), where
    st = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(game.rng, st)
    assert st.tolist() == s.rng[i].tolist(), where
    mask = np.zeros(E.NUM_ACTIONS, np.int8)
    E.legal_mask(s, cfg, i, mask)
    assert mask.tolist() == game.legal_mask().tolist(), where
    for action in range(-1, E.NUM_ACTIONS + 1):
        legal = 0 <= action < E.NUM_ACTIONS and bool(mask[action])
        assert E.is_legal(s, cfg, i, action) == legal, (where, action)
    obs = np.zeros(X.observation_size(cfg.num_players, cfg.recall), np.float32)
    for seat in range(cfg.num_players):
        X.encode(s, cfg, i, seat, obs)
        assert np.array_equal(obs, py_encode(game.view(seat))), (where, seat)


def _play_both(game: MampfosGame, s, cfg, i: int, policy: np.random.Generator) -> int:
    """Play ``game`` and row ``i`` to the end with the same random actions; return the count."""
    steps = 0
    while not game.terminal:
        _compare(game, s, cfg, i, f"decision {steps}")
        action = int(policy.choice(np.flatnonzero(game.legal_mask())))
        game.apply(action)
        E.play(s, cfg, i, action)
        steps += 1
    _compare(game, s, cfg, i, "end")
    assert bool(s.terminal[i]) and s.actor[i] == -1
    ranks, scores = np.zeros(cfg.num_players, np.int64), np.zeros(cfg.num_players)
    E.final_ranks(s, cfg, i, ranks)
    E.final_scores(s, cfg, i, scores)
    assert ranks.tolist() == game.final_ranks()
    assert scores.tolist() == game.final_scores()
    return steps


@pytest.mark.parametrize("options", OPTIONS[::3], ids=IDS[::3])
def test_state_dict_round_trip_mid_game(options):
    """Python -> compiled row (write_game) and compiled row -> Python (read_game) mid-game,
    in the middle of a droppings too (secret wheels set); both go on as one game."""
    cfg = S.config(options)
    s = S.allocate(4, cfg)
    for seed in range(6):
        policy = np.random.default_rng(seed)
        game = MampfosGame(np.random.default_rng(seed), **options)
        for _ in range(20 + 5 * seed):  # Python engine to mid-game
            game.apply(int(policy.choice(np.flatnonzero(game.legal_mask()))))
        while seed % 2 and not (game.phase == 2 and 0 < game.wheel_count or game.terminal):
            game.apply(int(policy.choice(np.flatnonzero(game.legal_mask()))))
        S.write_game(s, 2, game)
        _compare(game, s, cfg, 2, "written")
        back = S.read_game(s, 2, options)
        assert back.state_dict() == game.state_dict()
        assert back.rng.bit_generator.state == game.rng.bit_generator.state
        # compiled from a seed to mid-game, then read back
        E.new_game(s, cfg, 1, seed + 50)
        moves = np.random.default_rng(seed + 50)
        mask = np.zeros(E.NUM_ACTIONS, np.int8)
        for _ in range(40):
            E.legal_mask(s, cfg, 1, mask)
            E.play(s, cfg, 1, int(moves.choice(np.flatnonzero(mask))))
        game2 = S.read_game(s, 1, options)
        _compare(game2, s, cfg, 1, "read back")
        _play_both(game, s, cfg, 2, np.random.default_rng(seed + 1))
        _play_both(game2, s, cfg, 1, np.random.default_rng(seed + 2))


def test_P11_shortage_feeds_all_without_a_decision():
    """A supply of k or fewer biscuits is fed whole without a decision (P-11), from a state
    dict only (a dealt game never runs that low: 50 biscuits are fed at most)."""
    options = {"num_players": 3, "memory": "recall"}
    cfg = S.config(options)
    s = S.allocate(1, cfg)
    checked = 0
    for seed in range(40):
        game = MampfosGame(np.random.default_rng(seed), **options)
        policy = np.random.default_rng(seed)
        for step in range(200):  # to a decision outside feeding, after a few cards
            if step >= 4 * (seed % 5) and game.phase != 1:
                break
            game.apply(int(policy.choice(np.flatnonzero(game.legal_mask()))))
        data = game.state_dict()
        keep = [1, 0, 1, 0, 0] if seed % 2 else [0, 0, 0, 1, 0]  # 2 or 1 left
        for c in range(5):  # the rest of the supply to seat 0
            data["collected"][0][c] += data["supply"][c] - keep[c]
            data["supply"][c] = keep[c]
        game = MampfosGame.from_state_dict(data, np.random.default_rng(seed), options)
        S.write_game(s, 0, game)
        checked += _play_both(game, s, cfg, 0, np.random.default_rng(seed + 9))
        assert game.supply == [0] * 5  # fed whole by a later feed card
    assert checked > 100


def _random_batch(s, cfg, seeds: np.ndarray, steps: int, threads: int) -> int:
    from loco_envs.mampfos.compiled import bots as B

    numba.set_num_threads(threads)
    n = seeds.shape[0]
    E.reset_batch(s, cfg, seeds)
    masks = np.zeros((n, E.NUM_ACTIONS), np.int8)
    actions = np.zeros(n, np.int64)
    rows = np.arange(n)
    rngs = np.zeros((n, R.STATE_WORDS), np.uint64)
    for i in range(n):
        R.seed_state_pair(np.uint64(seeds[i]), np.uint64(1), rngs[i])
    finished = 0
    for step in range(steps):
        E.masks_batch(s, cfg, masks)
        kinds = (rows + step) % 2  # RANDOM and HEURISTIC mixed
        B.act_batch(s, cfg, kinds, rows, masks, rngs, actions)
        actions[s.terminal] = -1
        E.play_batch(s, cfg, actions)
        for i in np.flatnonzero(s.terminal)[::2]:  # half the finished games start anew
            finished += 1
            E.new_game(s, cfg, i, np.uint64(finished + 10**6))
    return finished


def test_results_do_not_depend_on_the_thread_count():
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    cfg = S.config({"num_players": 4, "memory": "recall"})
    seeds = np.arange(300, 300 + 64, dtype=np.uint64)
    one, two = S.allocate(64, cfg), S.allocate(64, cfg)
    try:
        finished = _random_batch(one, cfg, seeds, 300, 1)
        assert _random_batch(two, cfg, seeds, 300, threads) == finished > 20
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for name, a, b in zip(S.MampfosState._fields, one, two, strict=True):
        assert np.array_equal(a, b), name


def test_batch_forms_are_the_row_forms():
    cfg = S.config({"num_players": 5, "memory": "perfect"})
    n = 16
    s = S.allocate(n, cfg)
    seeds = np.arange(n, dtype=np.uint64) * 7 + 3
    _random_batch(s, cfg, seeds, 60, 1)
    for i in range(n):  # reset_batch is new_game per row
        game = MampfosGame(np.random.default_rng(int(seeds[i])), **{"num_players": 5})
        t = S.allocate(1, cfg)
        E.new_game(t, cfg, 0, seeds[i])
        assert S.state_dict(t, 0, cfg) == game.state_dict()
    masks = np.zeros((n, E.NUM_ACTIONS), np.int8)
    E.masks_batch(s, cfg, masks)
    rows = np.arange(n)[::-1].copy()
    seats = (np.arange(n) % 5).astype(np.int64)
    obs = X.new_buffer(n, 5, False)
    X.encode_batch(s, cfg, rows, seats, obs)
    mask, row = np.zeros(E.NUM_ACTIONS, np.int8), np.zeros(obs.shape[1], np.float32)
    for k in range(n):
        E.legal_mask(s, cfg, k, mask)
        assert np.array_equal(mask, masks[k])
        X.encode(s, cfg, rows[k], seats[k], row)
        assert np.array_equal(row, obs[k])
        game = S.read_game(s, rows[k], {"num_players": 5})
        assert np.array_equal(row, py_encode(game.view(int(seats[k]))))
