"""Los Mampfos's compiled bots choose the Python bots' moves: ``random`` (``agents.RandomBot``)
and ``mampfos/heuristic`` (one bot object per seat and game, its recall memory included), side
by side in the differential harness and from positions written mid-game."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.agents import RandomBot
from loco_envs.agents.mampfos import MampfosHeuristic, expected_share
from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import BotPair, differential_play
from loco_envs.mampfos.compiled import bots as B
from loco_envs.mampfos.compiled import engine as E
from loco_envs.mampfos.compiled import state as S
from loco_envs.mampfos.rules import MampfosGame

OPTIONS = [{"num_players": n, "memory": memory}
           for n in range(2, 6) for memory in ("perfect", "recall")]
IDS = [f"{o['num_players']}p-{o['memory']}" for o in OPTIONS]


def _pairs(n: int, seed: int) -> list[BotPair]:
    """A fresh heuristic for most seats (one per seat, as the tournament runner has them), the
    random bot for the others."""
    pairs = [BotPair(MampfosHeuristic(), B.heuristic, [seat]) for seat in range(n)
             if (seat + seed) % 4]
    return [*pairs, BotPair(RandomBot(), B.random, range(n))]


def _bot_games(options: dict, seeds: range) -> int:
    return sum(differential_play("mampfos_v0", options, seed, policy_seed=seed,
                                 observers="actor", bots=_pairs(options["num_players"], seed))
               for seed in seeds)


@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_bots_side_by_side_sample(options):
    assert _bot_games(options, range(3)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=IDS)
def test_bots_side_by_side_100k(options):
    """At least 100k bot decisions over the 8 options (12.5k each)."""
    decisions, seed = 0, 5_000
    while decisions < 12_500:
        decisions += _bot_games(options, range(seed, seed + 1))
        seed += 1


def test_expected_share_is_bit_identical():
    rng = np.random.default_rng(3)
    for trial in range(3000):
        out = rng.integers(0, 21 if trial % 3 else 4, 5)
        for others in range(5):
            for colour in range(5):
                assert B.expected_share(out, colour, others) == \
                    expected_share(out, colour, others), (out, colour, others)


@pytest.mark.parametrize("memory", ["perfect", "recall"])
def test_heuristic_from_a_position_written_mid_game(memory):
    """Bots that join mid-game (recall: the memory does not add up, the bot restarts from what
    it saw since its last decision and spreads the rest) choose alike on both engines."""
    for seed in range(12):
        options = {"num_players": 2 + seed % 4, "memory": memory}
        cfg = S.config(options)
        s = S.allocate(3, cfg)
        game = MampfosGame(np.random.default_rng(seed), **options)
        policy = np.random.default_rng(seed)
        for _ in range(15 + 3 * seed):
            game.apply(int(policy.choice(np.flatnonzero(game.legal_mask()))))
        S.write_game(s, 1, game)
        bots = [MampfosHeuristic() for _ in range(game.num_players)]
        bot_rng = np.random.default_rng([seed, 1])
        state = np.zeros(R.STATE_WORDS, np.uint64)
        mask = np.zeros(E.NUM_ACTIONS, np.int8)
        while not game.terminal:
            seat = game.current_seat
            E.legal_mask(s, cfg, 1, mask)
            R.from_generator(bot_rng, state)
            action = bots[seat].act(game.view(seat), game.legal_mask(), bot_rng)
            assert B.heuristic(s, cfg, 1, mask, state) == action
            if seat == 0:  # the random bot moves the generator on
                R.from_generator(bot_rng, state)
                action = RandomBot().act(None, game.legal_mask(), bot_rng)
                assert B.random(s, cfg, 1, mask, state) == action
            game.apply(action)
            E.play(s, cfg, 1, action)
            assert S.state_dict(s, 1, cfg) == game.state_dict()
        if memory == "recall":
            assert bots[0].memory is not None
            assert s.bot_memory[1, 0].tolist() == bots[0].memory.tolist()


def test_act_batch_is_the_row_bots():
    cfg = S.config({"num_players": 3, "memory": "recall"})
    n = 24
    s, t = S.allocate(n, cfg), S.allocate(n, cfg)
    seeds = np.arange(n, dtype=np.uint64) + 77
    E.reset_batch(s, cfg, seeds)
    E.reset_batch(t, cfg, seeds)
    masks = np.zeros((n, E.NUM_ACTIONS), np.int8)
    rngs = np.zeros((n, R.STATE_WORDS), np.uint64)
    rngs_t = rngs.copy()
    for i in range(n):
        R.seed_state_pair(np.uint64(seeds[i]), np.uint64(1), rngs[i])
        rngs_t[i] = rngs[i]
    rows = np.arange(n)
    out = np.zeros(n, np.int64)
    for step in range(80):
        kinds = np.where((rows + step) % 3, B.HEURISTIC, B.RANDOM)
        E.masks_batch(s, cfg, masks)
        B.act_batch(s, cfg, kinds, rows, masks, rngs, out)
        for i in range(n):
            if s.terminal[i]:
                assert out[i] == -1  # an empty mask: no move
                continue
            if i % 2:
                assert B.act(t, cfg, kinds[i], i, masks[i], rngs_t[i]) == out[i]
            else:
                fn = B.heuristic if kinds[i] == B.HEURISTIC else B.random
                assert fn(t, cfg, i, masks[i], rngs_t[i]) == out[i]
            E.play(t, cfg, i, out[i])
        out[s.terminal] = -1
        E.play_batch(s, cfg, out)
    for name, a, b in zip(S.MampfosState._fields, s, t, strict=True):
        assert np.array_equal(a, b), name
