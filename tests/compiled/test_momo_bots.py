"""Loco Momo's compiled bots are the Python bots, move for move (``momo/heuristic``, ``random``).

The heuristic values pictures in floats and breaks ties by the lowest action, so its helpers
must be the Python ones bit for bit: points and potential summed in the same order, and the
greedy placement trying the taken tokens in the order Python iterates ``set(todo)``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from loco_envs.agents import RandomBot
from loco_envs.agents.momo import MomoHeuristic
from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import BotPair, differential_play
from loco_envs.momo import MomoView
from loco_envs.momo import picture as py
from loco_envs.momo.compiled import bots, engine, state
from loco_envs.momo.rules import MomoGame
from loco_envs.momo.scoring import board_points

OPTIONS = [{"num_players": n, "expansion_a": n > 2, "expansion_b": n == 4} for n in (1, 2, 3, 4)]


def _pictures(count: int, seed: int) -> list[tuple[int, ...]]:
    """Pictures filled from the left of each row (as K-12 fills them), mostly of few colours
    and species so that pairs, groups and one-colour lines occur."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        tokens = rng.choice(15, size=int(rng.integers(2, 6)), replace=False)
        cells = [-1] * 25
        for row in range(5):
            for col in range(int(rng.integers(0, 6))):
                cells[row * 5 + col] = int(rng.choice(tokens))
        out.append(tuple(cells))
    return out


def test_set_order_is_cpythons():
    """``set(todo)`` iteration order for every set of up to five identities (duplicates
    included, in increasing order as the bot's ``todo`` lists them)."""
    order, table = np.zeros(5, np.int64), np.zeros(8, np.int64)
    for k in range(1, 6):
        for values in itertools.combinations(range(15), k):
            todo = np.zeros(15, np.int64)
            todo[list(values)] = 2
            count = bots._set_order(todo, order, table)
            assert order[:count].tolist() == list(set(v for v in values for _ in range(2)))


def test_picture_helpers_are_the_bots():
    hopes = (0.0, 0.5, 1.0)
    board = np.zeros(25, np.int64)
    for cells in _pictures(400, 1):
        arr = np.array(cells, np.int64)
        assert bots.points_and_potential(arr) == py.points_and_potential(cells)
        assert engine.board_points(arr) == board_points(cells)
        for hope in hopes:
            assert bots.picture_value(arr, hope) == py.picture_value(cells, hope)
    rng = np.random.default_rng(2)
    for cells in _pictures(300, 3):
        colour = int(rng.integers(3))
        taken = tuple(sorted(int(t) * 3 + colour for t in rng.choice(5, int(rng.integers(1, 6)))))
        counts = np.bincount(np.array(taken), minlength=15).astype(np.int64)
        hope = hopes[int(rng.integers(3))]
        expected, lost = py.greedy_placement(cells, taken, hope)
        assert bots.greedy_placement(np.array(cells, np.int64), counts, hope, board) == lost
        assert tuple(board.tolist()) == expected


def test_turns_left_and_hope_are_the_views():
    for n in (1, 2, 3, 4):
        for first in range(n):
            for turn in range(6 * n + 1):
                view = MomoView(0, n, 1, turn, first, 0, "pick", (), (), (), (), (), -1, -1, ())
                for seat in range(n):
                    left = view.turns_left(seat)
                    assert bots.turns_left(turn, first, n, seat) == left
                    assert bots.hope_for(left) == py.hope_for(left)


def _heuristic_everywhere(options: dict, seeds: range) -> int:
    n = options["num_players"]
    return sum(differential_play("momo_v0", options, seed, policy_seed=seed, observers="none",
                                 bots=[BotPair(MomoHeuristic(), bots.heuristic, range(n))])
               for seed in seeds)


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"{o['num_players']}p")
def test_heuristic_side_by_side(options):
    """The heuristic plays every seat of whole games on both engines."""
    assert _heuristic_everywhere(options, range(8)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"{o['num_players']}p")
def test_heuristic_side_by_side_100k(options):
    """>= 100k heuristic decisions in all (25k per player count)."""
    decisions, seed = 0, 5000
    while decisions < 25_000:
        decisions += _heuristic_everywhere(options, range(seed, seed + 1))
        seed += 1


def test_act_batch_plays_the_python_bots():
    """A batch where the heuristic plays even seats and the random bot odd ones (act_batch,
    play_batch) ends every game as the Python bots end it from the same seeds."""
    options = {"num_players": 3, "expansion_a": True}
    cfg = state.config(options)
    num_games = 12
    s = state.allocate(num_games, cfg)
    seeds = np.arange(num_games, dtype=np.uint64) + 40
    engine.reset_batch(s, cfg, seeds)
    masks = np.zeros((num_games, MomoGame.NUM_ACTIONS), np.int8)
    rng_states = np.zeros((num_games, R.STATE_WORDS), np.uint64)
    for i in range(num_games):
        R.seed_state_pair(np.uint64(seeds[i]), np.uint64(1), rng_states[i])
    actions = np.zeros(num_games, np.int64)
    while not s.terminal.all():
        engine.masks_batch(s, cfg, masks)
        rows = np.flatnonzero(~s.terminal).astype(np.int64)  # the games that wait for a move
        kinds = np.where(s.actor[rows] % 2 == 0, bots.HEURISTIC, bots.RANDOM).astype(np.int64)
        moves, states = np.zeros(rows.size, np.int64), rng_states[rows]
        bots.act_batch(s, cfg, kinds, rows, masks[rows], states, moves)
        rng_states[rows] = states
        actions[:] = -1
        actions[rows] = moves
        engine.play_batch(s, cfg, actions)
    players = (MomoHeuristic(), RandomBot())
    for i in range(num_games):
        game = MomoGame(np.random.default_rng(int(seeds[i])), **options)
        rng = np.random.default_rng([int(seeds[i]), 1])
        while not game.terminal:
            seat = game.current_seat
            game.apply(players[seat % 2].act(game.view(seat), game.legal_mask(), rng))
        assert state.state_dict(s, i, cfg) == game.state_dict()
        words = np.zeros(R.STATE_WORDS, np.uint64)
        R.from_generator(rng, words)
        assert rng_states[i].tolist() == words.tolist()
