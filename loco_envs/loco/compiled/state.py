"""The state of N LOCO games as a struct of arrays, and its moves to and from ``LocoGame``.

Layout (``N`` games, ``P`` seats; row ``i`` of every array is game ``i``). Codes are those of
:mod:`loco_envs.loco.rules` (``PHASES``, ``CALL_STATES``) and :mod:`loco_envs.loco.cards`
(identities 0..54); ``-1`` is "none" wherever the Python engine has ``None`` or ``-1``.

=================  ==============  ========================================================
field              shape, dtype    Python engine (``LocoGame``)
=================  ==============  ========================================================
rng                (N, 6) uint64   ``rng`` (PCG64, :mod:`loco_envs.compiled.rng`)
hands              (N, P, 55) i8   ``hands`` (count per identity)
hand_sizes         (N, P) i16      ``hand_sizes``
draw_pile          (N, 112) i8     ``draw_pile[:draw_len]``, bottom to top (top drawn next)
draw_len           (N,) i16
discard            (N, 112) i8     ``discard[:discard_len]``, bottom to top
discard_len        (N,) i16
discard_counts     (N, 55) i8      ``discard_counts``
colour             (N,) i8         ``colour`` 0..3
direction          (N,) i8         1 | -1
pending            (N,) i32        ``pending``
pending_kind       (N,) i8         0 none, 2 "+2", 4 "+4"
phase              (N,) i8         ``phase`` (``rules.PHASES`` index)
actor              (N,) i8         ``current_seat`` (-1 over)
turn_seat          (N,) i8
lander             (N,) i8         -1 at a deal
drawn              (N,) i8         -1 for ``None``
swaps_left         (N,) i8
rotations_left     (N,) i8
calls              (N, P) i8       ``calls`` (``rules.CALL_STATES`` index)
call_queue         (N, P) i8       ``call_queue[:call_len]``
call_len           (N,) i8
contre_queue       (N, 2P, 2) i8   ``contre_queue[:contre_len]`` as (seat, announced)
contre_len         (N,) i8
window_kind        (N,) i8         0 ``None``, 1 "contre", 2 "slap"
window_to_decide   (N, P) i8       ``window_to_decide[:window_len]``
window_len         (N,) i8
window_choices     (N, P) i8       ``window_choices[seat]``, -1 for a seat not in the dict
slap_window_due    (N,) bool
active             (N, P) bool
in_round           (N, P) bool
scores             (N, P) i32
rounds_won         (N, P) i32
leftover           (N, P) i32
timeouts           (N, P) i32
round              (N,) i16
decider            (N,) bool
terminal           (N,) bool
=================  ==============  ========================================================

The options of a batch (the same for all its games) are a :class:`LocoConfig`. Both are
namedtuples, which numba takes as they are into compiled functions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.loco import cards as C
from loco_envs.loco.rules import CALL_STATES, PHASES, LocoGame

__all__ = ["LocoConfig", "LocoState", "allocate", "config", "read_game", "write_game",
           "WINDOW_KINDS", "PENDING_KINDS"]

#: ``window_kind`` codes.
WINDOW_KINDS = (None, "contre", "slap")
#: ``pending_kind`` codes: the kind's penalty per card is its code.
PENDING_KINDS = {None: 0, "+2": 2, "+4": 4}


class LocoState(NamedTuple):
    """N games' state (see the module docstring for each field)."""

    rng: np.ndarray
    hands: np.ndarray
    hand_sizes: np.ndarray
    draw_pile: np.ndarray
    draw_len: np.ndarray
    discard: np.ndarray
    discard_len: np.ndarray
    discard_counts: np.ndarray
    colour: np.ndarray
    direction: np.ndarray
    pending: np.ndarray
    pending_kind: np.ndarray
    phase: np.ndarray
    actor: np.ndarray
    turn_seat: np.ndarray
    lander: np.ndarray
    drawn: np.ndarray
    swaps_left: np.ndarray
    rotations_left: np.ndarray
    calls: np.ndarray
    call_queue: np.ndarray
    call_len: np.ndarray
    contre_queue: np.ndarray
    contre_len: np.ndarray
    window_kind: np.ndarray
    window_to_decide: np.ndarray
    window_len: np.ndarray
    window_choices: np.ndarray
    slap_window_due: np.ndarray
    active: np.ndarray
    in_round: np.ndarray
    scores: np.ndarray
    rounds_won: np.ndarray
    leftover: np.ndarray
    timeouts: np.ndarray
    round: np.ndarray
    decider: np.ndarray
    terminal: np.ndarray


class LocoConfig(NamedTuple):
    """A batch's options: ``rounds`` (L-72), ``photo_finish_seat`` (L-42: ``"seat"``),
    ``stacking_identical`` (L-32: ``"identical"``), ``timeout_rates`` (L-62, one per seat)."""

    num_players: int
    rounds: int
    photo_finish_seat: bool
    stacking_identical: bool
    timeout_rates: np.ndarray


def _layout(n: int, p: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    ids, deck = C.NUM_IDENTITIES, C.DECK_SIZE
    i8, i16, i32, b = np.int8, np.int16, np.int32, np.bool_
    return {
        "rng": ((n, R.STATE_WORDS), np.uint64), "hands": ((n, p, ids), i8),
        "hand_sizes": ((n, p), i16), "draw_pile": ((n, deck), i8), "draw_len": ((n,), i16),
        "discard": ((n, deck), i8), "discard_len": ((n,), i16),
        "discard_counts": ((n, ids), i8), "colour": ((n,), i8), "direction": ((n,), i8),
        "pending": ((n,), i32), "pending_kind": ((n,), i8), "phase": ((n,), i8),
        "actor": ((n,), i8), "turn_seat": ((n,), i8), "lander": ((n,), i8),
        "drawn": ((n,), i8), "swaps_left": ((n,), i8), "rotations_left": ((n,), i8),
        "calls": ((n, p), i8), "call_queue": ((n, p), i8), "call_len": ((n,), i8),
        "contre_queue": ((n, 2 * p, 2), i8), "contre_len": ((n,), i8),
        "window_kind": ((n,), i8), "window_to_decide": ((n, p), i8), "window_len": ((n,), i8),
        "window_choices": ((n, p), i8), "slap_window_due": ((n,), b),
        "active": ((n, p), b), "in_round": ((n, p), b), "scores": ((n, p), i32),
        "rounds_won": ((n, p), i32), "leftover": ((n, p), i32), "timeouts": ((n, p), i32),
        "round": ((n,), i16), "decider": ((n,), b), "terminal": ((n,), b),
    }


def allocate(num_games: int, cfg: LocoConfig) -> LocoState:
    """Zeroed arrays for ``num_games`` games of ``cfg.num_players`` seats (deal them first)."""
    return LocoState(**{name: np.zeros(shape, dtype) for name, (shape, dtype)
                        in _layout(num_games, cfg.num_players).items()})


def config(options: dict[str, Any]) -> LocoConfig:
    """The :class:`LocoConfig` of ``LocoGame`` options (defaults filled in); ``ValueError``
    names a bad option, as the Python engine does."""
    from loco_envs.core.options import validate_options

    opts = validate_options(LocoGame.OPTIONS, dict(options))
    n = opts["num_players"]
    rates = opts["timeout_rate"]
    rates = list(rates) if isinstance(rates, (list, tuple)) else [rates] * n
    if len(rates) != n:
        raise ValueError(f"option 'timeout_rate': expected {n} rates, got {len(rates)}")
    return LocoConfig(n, int(opts["rounds"]), opts["photo_finish"] == "seat",
                      opts["stacking"] == "identical", np.array(rates, np.float64))


def write_game(state: LocoState, i: int, game: LocoGame) -> None:
    """Row ``i`` of ``state`` becomes ``game`` (its generator's state included)."""
    s, n = state, game.num_players
    if s.hands.shape[1] != n:
        raise ValueError(f"a {n}-player game cannot go into a {s.hands.shape[1]}-player batch")
    R.from_generator(game.rng, s.rng[i])
    for seat in range(n):
        s.hands[i, seat] = game.hands[seat]
    s.hand_sizes[i] = game.hand_sizes
    s.draw_len[i] = len(game.draw_pile)
    s.draw_pile[i, :len(game.draw_pile)] = game.draw_pile
    s.discard_len[i] = len(game.discard)
    s.discard[i, :len(game.discard)] = game.discard
    s.discard_counts[i] = game.discard_counts
    s.colour[i], s.direction[i] = game.colour, game.direction
    s.pending[i], s.pending_kind[i] = game.pending, PENDING_KINDS[game.pending_kind]
    s.phase[i], s.actor[i] = game.phase, game.current_seat
    s.turn_seat[i], s.lander[i] = game.turn_seat, game.lander
    s.drawn[i] = -1 if game.drawn is None else game.drawn
    s.swaps_left[i], s.rotations_left[i] = game.swaps_left, game.rotations_left
    s.calls[i] = game.calls
    s.call_len[i] = len(game.call_queue)
    s.call_queue[i, :len(game.call_queue)] = game.call_queue
    s.contre_len[i] = len(game.contre_queue)
    for k, (seat, announced) in enumerate(game.contre_queue):
        s.contre_queue[i, k] = (seat, int(announced))
    s.window_kind[i] = WINDOW_KINDS.index(game.window_kind)
    s.window_len[i] = len(game.window_to_decide)
    s.window_to_decide[i, :len(game.window_to_decide)] = game.window_to_decide
    s.window_choices[i] = -1
    for seat, count in game.window_choices.items():
        s.window_choices[i, seat] = count
    s.slap_window_due[i] = game.slap_window_due
    s.active[i], s.in_round[i] = game.active, game.in_round
    s.scores[i], s.rounds_won[i] = game.scores, game.rounds_won
    s.leftover[i], s.timeouts[i] = game.leftover, game.timeouts
    s.round[i], s.decider[i], s.terminal[i] = game.round, game.decider, game.terminal


def state_dict(state: LocoState, i: int, cfg: LocoConfig) -> dict:
    """Game ``i``'s ``state_dict`` (``LocoGame.state_dict``'s schema)."""
    s, codes = state, C.CODES
    n = s.hands.shape[1]
    hands = [[codes[ident] for ident in np.repeat(np.arange(C.NUM_IDENTITIES), s.hands[i, seat])]
             for seat in range(n)]
    phase = int(s.phase[i])
    choices = {str(seat): int(k) for seat, k in enumerate(s.window_choices[i].tolist())
               if k >= 0}
    kind = {v: k for k, v in PENDING_KINDS.items()}[int(s.pending_kind[i])]
    return {
        "num_players": n, "rounds": cfg.rounds, "round": int(s.round[i]),
        "decider": bool(s.decider[i]), "hands": hands,
        "draw_pile": [codes[c] for c in s.draw_pile[i, :s.draw_len[i]].tolist()],
        "discard": [codes[c] for c in s.discard[i, :s.discard_len[i]].tolist()],
        "colour": C.COLOURS[s.colour[i]], "direction": int(s.direction[i]),
        "pending": int(s.pending[i]), "pending_kind": kind, "phase": PHASES[phase],
        "actor": int(s.actor[i]), "turn_seat": int(s.turn_seat[i]),
        "lander": int(s.lander[i]),
        "drawn": None if s.drawn[i] < 0 else codes[s.drawn[i]],
        "swaps_left": int(s.swaps_left[i]), "rotations_left": int(s.rotations_left[i]),
        "calls": [CALL_STATES[c] for c in s.calls[i].tolist()],
        "call_queue": s.call_queue[i, :s.call_len[i]].tolist(),
        "contre_queue": [[int(seat), bool(a)]
                         for seat, a in s.contre_queue[i, :s.contre_len[i]].tolist()],
        "window": {"kind": WINDOW_KINDS[s.window_kind[i]],
                   "to_decide": s.window_to_decide[i, :s.window_len[i]].tolist(),
                   "choices": choices},
        "slap_window_due": bool(s.slap_window_due[i]),
        "active": s.active[i].tolist(), "in_round": s.in_round[i].tolist(),
        "scores": s.scores[i].tolist(), "rounds_won": s.rounds_won[i].tolist(),
        "leftover": s.leftover[i].tolist(), "timeouts": s.timeouts[i].tolist(),
    }


def read_game(state: LocoState, i: int, options: dict[str, Any]) -> LocoGame:
    """Game ``i`` as a Python ``LocoGame`` (generator included), to go on with either engine.

    ``options`` are the batch's game options (``num_players``, ``rounds``, ...).
    """
    return LocoGame.from_state_dict(state_dict(state, i, config(options)),
                                    R.to_generator(state.rng[i]), dict(options))
