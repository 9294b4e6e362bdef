"""Moco!'s compiled bots choose exactly the Python bots' moves (``moco/heuristic``, random)."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.agents import RandomBot
from loco_envs.agents.moco import MocoHeuristic
from loco_envs.compiled import rng as R
from loco_envs.moco.compiled import bots, engine, state
from loco_envs.moco.rules import MocoGame

OPTIONS = [{"num_players": n, "match": match} for n in (2, 3, 4, 5) for match in (False, True)]


def _bot_games(options: dict, seeds: range) -> int:
    """Whole games of the heuristic at every seat but the last (random there), Python and
    compiled side by side (one decision in 16 through ``act_batch``); returns the decisions
    compared."""
    cfg = state.config(options)
    n = cfg.num_players
    python_bots = [MocoHeuristic()] * (n - 1) + [RandomBot()]
    decisions = 0
    for seed in seeds:
        game = MocoGame(rng=np.random.default_rng(seed), **options)
        s = state.allocate(1, cfg)
        engine.new_game(s, cfg, 0, seed)
        bot_rng = np.random.default_rng([seed, 1])
        rng_states = np.zeros((1, R.STATE_WORDS), np.uint64)
        R.from_generator(bot_rng, rng_states[0])
        masks = np.zeros((1, MocoGame.NUM_ACTIONS), np.int8)
        rows, out = np.zeros(1, np.int64), np.zeros(1, np.int64)
        while not game.terminal:
            seat = game.current_seat
            kind = bots.KINDS["random" if seat == n - 1 else "moco/heuristic"]
            if decisions % 16 == 0:  # the batch forms now and then (a thread pool per call)
                engine.masks_batch(s, cfg, masks)
                bots.act_batch(s, cfg, kind, rows, masks, rng_states, out)
            else:
                engine.legal_mask(s, cfg, 0, masks[0])
                bot = bots.random if kind == bots.KINDS["random"] else bots.heuristic
                out[0] = bot(s, cfg, 0, masks[0], rng_states[0])
            action = int(python_bots[seat].act(game.view(seat), game.legal_mask(), bot_rng))
            assert int(out[0]) == action, (options, seed, decisions)
            words = np.zeros(R.STATE_WORDS, np.uint64)
            R.from_generator(bot_rng, words)
            assert words.tolist() == rng_states[0].tolist()
            game.apply(action)
            engine.play(s, cfg, 0, action)
            decisions += 1
        scores = np.zeros(n)
        engine.final_scores(s, cfg, 0, scores)
        assert scores.tolist() == game.final_scores()
    return decisions


@pytest.mark.parametrize("options", OPTIONS,
                         ids=lambda o: f"{o['num_players']}p{'-match' if o['match'] else ''}")
def test_bots_play_as_python(options):
    assert _bot_games(options, range(8)) > 100


@pytest.mark.slow
def test_bots_play_as_python_100k():
    """At least 100k bot decisions, every option."""
    total, start = 0, 10_000
    while total < 100_000:
        for options in OPTIONS:
            total += _bot_games(options, range(start, start + 5))
        start += 5


def test_heuristic_reads_only_the_view():
    """Another deal of the cards the seat cannot see (the others' hands, the removed cards)
    changes nothing in the heuristic's choices (hidden information)."""
    policy = np.random.default_rng(0)
    for n in (2, 3, 4, 5):
        cfg = state.config({"num_players": n})
        s = state.allocate(2, cfg)
        engine.new_game(s, cfg, 0, n)
        mask = np.zeros(MocoGame.NUM_ACTIONS, np.int8)
        rng_state = np.zeros(R.STATE_WORDS, np.uint64)
        while not s.terminal[0]:
            me = int(s.actor[0])
            hidden = [c for seat in range(n) if seat != me
                      for c in np.flatnonzero(s.hands[0, seat]).tolist()]
            hidden += s.removed[0, :s.removed_len[0]].tolist()
            for name in state.MocoState._fields:
                getattr(s, name)[1] = getattr(s, name)[0]
            policy.shuffle(hidden)
            for seat in range(n):
                if seat != me:
                    s.hands[1, seat] = 0
                    size = int(s.hand_sizes[0, seat])
                    s.hands[1, seat, hidden[:size]] = 1
                    hidden = hidden[size:]
            s.removed[1, :len(hidden)] = hidden
            engine.legal_mask(s, cfg, 0, mask)
            choice = bots.heuristic(s, cfg, 0, mask, rng_state)
            assert bots.heuristic(s, cfg, 1, mask, rng_state) == choice
            engine.play(s, cfg, 0, choice)


def test_random_bot_draws_as_numpy():
    """RandomBot: ``legal[rng.integers(legal.size)]``, the generator advanced as numpy's."""
    cfg = state.config({"num_players": 5})
    s = state.allocate(1, cfg)
    engine.new_game(s, cfg, 0, 4)
    rng = np.random.default_rng(9)
    words = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(rng, words)
    mask = np.zeros(MocoGame.NUM_ACTIONS, np.int8)
    for trial in range(500):
        mask[:] = 0
        mask[np.random.default_rng(trial).random(MocoGame.NUM_ACTIONS) < 0.3] = 1
        mask[trial % MocoGame.NUM_ACTIONS] = 1
        assert bots.random(s, cfg, 0, mask, words) == RandomBot().act(None, mask, rng)
    check = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(rng, check)
    assert check.tolist() == words.tolist()
    mask[:] = 0
    assert bots.random(s, cfg, 0, mask, words) == -1
