"""The state of N Loco Momo games as a struct of arrays, and its moves to and from ``MomoGame``.

Layout (``N`` games, ``P`` seats; row ``i`` of every array is game ``i``). Tokens are the
identities ``0..14`` of :mod:`loco_envs.momo.actions` (``species * 3 + colour``); ``-1`` is an
empty cell, "none" or "over" wherever the Python engine has ``-1``.

=================  ==============  ========================================================
field              shape, dtype    Python engine (``MomoGame``)
=================  ==============  ========================================================
rng                (N, 6) uint64   ``rng`` (PCG64, :mod:`loco_envs.compiled.rng`)
bag                (N, 105) i8     ``bag[:bag_len]`` (drawn from its end, as ``bag.pop()``)
bag_len            (N,) i16        ``len(bag)``
bag_counts         (N, 15) i8      ``bag_counts``
forest             (N, 4, 15) i8   ``forest`` (count per identity in areas A..D)
area_size          (N, 4) i8       ``area_size``
boards             (N, P, 25) i8   ``boards`` (cells row-major, -1 empty)
row_fill           (N, P, 5) i8    ``row_fill``
board_fill         (N, P) i8       ``board_fill``
pending            (N, 15) i8      ``pending``
pending_total      (N,) i8         ``pending_total``
discarded          (N, 15) i8      ``discarded``
first_player       (N,) i8         ``first_player``
turn               (N,) i16        ``turn``
actor              (N,) i8         ``current_seat`` (-1 once over)
expansion_a        (N,) i8         ``expansion_a`` (-1 off, else a ``HEXAGONS`` index)
expansion_b        (N,) i8         ``expansion_b`` (-1 off, else a species)
terminal           (N,) bool       ``terminal``
=================  ==============  ========================================================

``total_turns`` (``6 * num_players``) and ``phase`` are derived, as in the Python engine; the
points cache ``_points`` is not kept (points are computed when asked for).

The options of a batch (the same for all its games) are a :class:`MomoConfig`. Both are
namedtuples, which numba takes as they are into compiled functions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.momo import actions as A
from loco_envs.momo.rules import MomoGame, _check_options
from loco_envs.momo.scoring import HEXAGONS

__all__ = ["MomoConfig", "MomoState", "allocate", "config", "read_game", "state_dict",
           "write_game"]


class MomoState(NamedTuple):
    """N games' state (see the module docstring for each field)."""

    rng: np.ndarray
    bag: np.ndarray
    bag_len: np.ndarray
    bag_counts: np.ndarray
    forest: np.ndarray
    area_size: np.ndarray
    boards: np.ndarray
    row_fill: np.ndarray
    board_fill: np.ndarray
    pending: np.ndarray
    pending_total: np.ndarray
    discarded: np.ndarray
    first_player: np.ndarray
    turn: np.ndarray
    actor: np.ndarray
    expansion_a: np.ndarray
    expansion_b: np.ndarray
    terminal: np.ndarray


class MomoConfig(NamedTuple):
    """A batch's options: ``num_players`` (1..4; 1 is solo, K-40), ``expansion_a`` (K-30) and
    ``expansion_b`` (K-31)."""

    num_players: int
    expansion_a: bool
    expansion_b: bool


def _layout(n: int, p: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    i8, i16 = np.int8, np.int16
    k = A.NUM_TOKEN_TYPES
    return {
        "rng": ((n, R.STATE_WORDS), np.uint64), "bag": ((n, A.NUM_TOKENS), i8),
        "bag_len": ((n,), i16), "bag_counts": ((n, k), i8),
        "forest": ((n, A.NUM_AREAS, k), i8), "area_size": ((n, A.NUM_AREAS), i8),
        "boards": ((n, p, A.CELLS), i8), "row_fill": ((n, p, A.ROWS), i8),
        "board_fill": ((n, p), i8), "pending": ((n, k), i8), "pending_total": ((n,), i8),
        "discarded": ((n, k), i8), "first_player": ((n,), i8), "turn": ((n,), i16),
        "actor": ((n,), i8), "expansion_a": ((n,), i8), "expansion_b": ((n,), i8),
        "terminal": ((n,), np.bool_),
    }


def allocate(num_games: int, cfg: MomoConfig) -> MomoState:
    """Zeroed arrays for ``num_games`` games of ``cfg.num_players`` seats (deal them first)."""
    return MomoState(**{name: np.zeros(shape, dtype) for name, (shape, dtype)
                        in _layout(num_games, cfg.num_players).items()})


def config(options: dict[str, Any]) -> MomoConfig:
    """The :class:`MomoConfig` of ``MomoGame`` options (defaults filled in; the env's own
    options ``reward``, ``render_mode``, ``max_decisions`` are accepted and ignored);
    ``ValueError`` names a bad option, as the Python engine does."""
    from loco_envs.core.options import validate_options

    opts = validate_options(MomoGame.OPTIONS, dict(options))
    _check_options(opts["num_players"], opts["expansion_a"], opts["expansion_b"])
    return MomoConfig(int(opts["num_players"]), bool(opts["expansion_a"]),
                      bool(opts["expansion_b"]))


def write_game(state: MomoState, i: int, game: MomoGame) -> None:
    """Row ``i`` of ``state`` becomes ``game`` (its generator's state included)."""
    s, n = state, game.num_players
    if s.boards.shape[1] != n:
        raise ValueError(f"a {n}-player game cannot go into a {s.boards.shape[1]}-player batch")
    R.from_generator(game.rng, s.rng[i])
    s.bag[i] = 0
    s.bag_len[i] = len(game.bag)
    s.bag[i, :len(game.bag)] = game.bag
    s.bag_counts[i] = game.bag_counts
    s.forest[i] = game.forest
    s.area_size[i] = game.area_size
    s.boards[i] = game.boards
    s.row_fill[i] = game.row_fill
    s.board_fill[i] = game.board_fill
    s.pending[i], s.pending_total[i] = game.pending, game.pending_total
    s.discarded[i] = game.discarded
    s.first_player[i], s.turn[i] = game.first_player, game.turn
    s.actor[i] = game.current_seat
    s.expansion_a[i], s.expansion_b[i] = game.expansion_a, game.expansion_b
    s.terminal[i] = game.terminal


def _codes(counts: np.ndarray) -> list[str]:
    return [A.TOKEN_CODES[t] for t in range(A.NUM_TOKEN_TYPES) for _ in range(int(counts[t]))]


def state_dict(state: MomoState, i: int, cfg: MomoConfig) -> dict:
    """Game ``i``'s ``state_dict`` (``MomoGame.state_dict``'s schema and values)."""
    s, codes = state, A.TOKEN_CODES
    n = s.boards.shape[1]
    phase = "over" if s.terminal[i] else ("place" if s.pending_total[i] else "pick")
    ea, eb = int(s.expansion_a[i]), int(s.expansion_b[i])
    boards = s.boards[i].tolist()
    return {
        "num_players": n,
        "expansion_a": HEXAGONS[ea] if ea >= 0 else None,
        "expansion_b": A.SPECIES[eb] if eb >= 0 else None,
        "first_player": int(s.first_player[i]),
        "turn": int(s.turn[i]),
        "phase": phase,
        "current_seat": int(s.actor[i]),
        "bag": [codes[t] for t in reversed(s.bag[i, :s.bag_len[i]].tolist())],
        "forest": [_codes(area) for area in s.forest[i]],
        "boards": [[[codes[t] for t in board[r * A.COLS:(r + 1) * A.COLS] if t >= 0]
                    for r in range(A.ROWS)] for board in boards],
        "pending": _codes(s.pending[i]),
        "discarded": _codes(s.discarded[i]),
    }


def read_game(state: MomoState, i: int, options: dict[str, Any]) -> MomoGame:
    """Game ``i`` as a Python ``MomoGame`` (generator included), to go on with either engine.

    ``options`` are the batch's game options (``num_players``, ``expansion_a``, ...).
    """
    return MomoGame.from_state_dict(state_dict(state, i, config(options)),
                                    R.to_generator(state.rng[i]), dict(options))
