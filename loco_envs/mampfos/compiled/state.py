"""The state of N Los Mampfos games as a struct of arrays, and its moves to and from
``MampfosGame``.

Layout (``N`` games, ``P`` seats; row ``i`` of every array is game ``i``). Codes are those of
:mod:`loco_envs.mampfos.components` (card ids of ``CARD_CODES``, ``PHASES``) and
:mod:`loco_envs.mampfos.actions` (colours 0..4 orange..yellow, donkeys 0..2 white, grey,
brown); ``-1`` is "none" wherever the Python engine has ``None`` or ``-1``.

=================  ==============  ========================================================
field              shape, dtype    Python engine (``MampfosGame``)
=================  ==============  ========================================================
rng                (N, 6) uint64   ``rng`` (PCG64, :mod:`loco_envs.compiled.rng`)
positions          (N, 3) i8       ``positions``
supply             (N, 5) i8       ``supply``
bellies            (N, 3, 5) i8    ``bellies``
collected          (N, P, 5) i8    ``collected``
pile               (N, 8, 5) i8    ``pile[letter][:pile_len]`` (card ids, sorted as in Python)
pile_len           (N, 8) i8
active             (N,) i8         ``active``
phase              (N,) i8         ``phase`` (``PHASES`` index)
actor              (N,) i8         ``current_seat`` (-1 over)
card               (N,) i8         ``card`` (-1 none)
donkey             (N,) i8         ``donkey`` (-1 none)
feed_left          (N,) i8         ``feed_left``
card_fed           (N, 5) i8       ``card_fed``
end_left           (N, 3) i8       ``end_left[:end_len]`` (in the Python list's order)
end_len            (N,) i8
wheels             (N, P) i8       ``wheels`` (-1 not set; secret until the share-out)
wheel_count        (N,) i8         ``wheel_count``
fed_since          (N, P, 15) i8   ``fed_since`` (per seat, flat donkey * 5 + colour)
share_new          (N, P) bool     ``share_new``
has_share          (N,) bool       ``last_share is not None``
share_donkey       (N,) i8         ``last_share.donkey``
share_out          (N, 5) i8       ``last_share.out``
share_wheels       (N, P) i8       ``last_share.wheels``
share_gains        (N, P) i8       ``last_share.gains``
share_back         (N, 5) i8       ``last_share.back``
terminal           (N,) bool       ``terminal``
bot_memory         (N, P, 3, 5)    not the game's: the ``mampfos/heuristic`` bot of each seat,
                   i16             its remembered bellies (``MampfosHeuristic.memory``; zeros
                                   for ``None``) in ``memory="recall"``; zeroed by a new game
                                   and by :func:`write_game`
=================  ==============  ========================================================

The options of a batch (the same for all its games) are a :class:`MampfosConfig`. Both are
namedtuples, which numba takes as they are into compiled functions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.mampfos.actions import COLOURS, DONKEYS, NUM_COLOURS, NUM_DONKEYS
from loco_envs.mampfos.components import CARD_CODES, LETTERS, PHASES
from loco_envs.mampfos.rules import MampfosGame

__all__ = ["MampfosConfig", "MampfosState", "allocate", "config", "read_game", "state_dict",
           "write_game", "STACK_SIZE"]

#: The most cards one letter's stack holds (P-04).
STACK_SIZE = 5


class MampfosState(NamedTuple):
    """N games' state (see the module docstring for each field)."""

    rng: np.ndarray
    positions: np.ndarray
    supply: np.ndarray
    bellies: np.ndarray
    collected: np.ndarray
    pile: np.ndarray
    pile_len: np.ndarray
    active: np.ndarray
    phase: np.ndarray
    actor: np.ndarray
    card: np.ndarray
    donkey: np.ndarray
    feed_left: np.ndarray
    card_fed: np.ndarray
    end_left: np.ndarray
    end_len: np.ndarray
    wheels: np.ndarray
    wheel_count: np.ndarray
    fed_since: np.ndarray
    share_new: np.ndarray
    has_share: np.ndarray
    share_donkey: np.ndarray
    share_out: np.ndarray
    share_wheels: np.ndarray
    share_gains: np.ndarray
    share_back: np.ndarray
    terminal: np.ndarray
    bot_memory: np.ndarray


class MampfosConfig(NamedTuple):
    """A batch's options: ``num_players`` (P-01) and ``recall`` (``memory="recall"``, P-31;
    false for ``"perfect"``, P-30)."""

    num_players: int
    recall: bool


def _layout(n: int, p: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    i8, b = np.int8, np.bool_
    c, d, letters = NUM_COLOURS, NUM_DONKEYS, len(LETTERS)
    return {
        "rng": ((n, R.STATE_WORDS), np.uint64), "positions": ((n, d), i8),
        "supply": ((n, c), i8), "bellies": ((n, d, c), i8), "collected": ((n, p, c), i8),
        "pile": ((n, letters, STACK_SIZE), i8), "pile_len": ((n, letters), i8),
        "active": ((n,), i8), "phase": ((n,), i8), "actor": ((n,), i8), "card": ((n,), i8),
        "donkey": ((n,), i8), "feed_left": ((n,), i8), "card_fed": ((n, c), i8),
        "end_left": ((n, d), i8), "end_len": ((n,), i8), "wheels": ((n, p), i8),
        "wheel_count": ((n,), i8), "fed_since": ((n, p, d * c), i8),
        "share_new": ((n, p), b), "has_share": ((n,), b), "share_donkey": ((n,), i8),
        "share_out": ((n, c), i8), "share_wheels": ((n, p), i8), "share_gains": ((n, p), i8),
        "share_back": ((n, c), i8), "terminal": ((n,), b),
        "bot_memory": ((n, p, d, c), np.int16),
    }


def allocate(num_games: int, cfg: MampfosConfig) -> MampfosState:
    """Zeroed arrays for ``num_games`` games of ``cfg.num_players`` seats (deal them first)."""
    return MampfosState(**{name: np.zeros(shape, dtype) for name, (shape, dtype)
                           in _layout(num_games, cfg.num_players).items()})


def config(options: dict[str, Any]) -> MampfosConfig:
    """The :class:`MampfosConfig` of ``MampfosGame`` options (defaults filled in);
    ``ValueError`` names a bad option, as the Python engine does."""
    from loco_envs.core.options import validate_options

    opts = validate_options(MampfosGame.OPTIONS, dict(options))
    return MampfosConfig(int(opts["num_players"]), opts["memory"] == "recall")


def write_game(state: MampfosState, i: int, game: MampfosGame) -> None:
    """Row ``i`` of ``state`` becomes ``game`` (its generator's state included; the heuristic
    bots' memory of row ``i`` starts afresh)."""
    s, n = state, game.num_players
    if s.collected.shape[1] != n:
        raise ValueError(f"a {n}-player game cannot go into a "
                         f"{s.collected.shape[1]}-player batch")
    R.from_generator(game.rng, s.rng[i])
    s.positions[i] = game.positions
    s.supply[i] = game.supply
    s.bellies[i] = game.bellies
    s.collected[i] = game.collected
    s.pile[i] = 0
    for letter, stack in enumerate(game.pile):
        s.pile_len[i, letter] = len(stack)
        s.pile[i, letter, :len(stack)] = stack
    s.active[i], s.phase[i], s.actor[i] = game.active, game.phase, game.current_seat
    s.card[i], s.donkey[i], s.feed_left[i] = game.card, game.donkey, game.feed_left
    s.card_fed[i] = game.card_fed
    s.end_left[i] = -1
    s.end_len[i] = len(game.end_left)
    s.end_left[i, :len(game.end_left)] = game.end_left
    s.wheels[i], s.wheel_count[i] = game.wheels, game.wheel_count
    s.fed_since[i] = game.fed_since
    s.share_new[i] = game.share_new
    share = game.last_share
    s.has_share[i] = share is not None
    if share is None:
        s.share_donkey[i], s.share_out[i], s.share_wheels[i] = -1, 0, -1
        s.share_gains[i], s.share_back[i] = 0, 0
    else:
        s.share_donkey[i], s.share_out[i], s.share_wheels[i] = (share.donkey, share.out,
                                                                share.wheels)
        s.share_gains[i], s.share_back[i] = share.gains, share.back
    s.terminal[i] = game.terminal
    s.bot_memory[i] = 0


def state_dict(state: MampfosState, i: int, cfg: MampfosConfig) -> dict:
    """Game ``i``'s ``state_dict`` (``MampfosGame.state_dict``'s schema)."""
    s = state
    card, donkey = int(s.card[i]), int(s.donkey[i])
    return {
        "num_players": cfg.num_players,
        "positions": s.positions[i].tolist(),
        "supply": s.supply[i].tolist(),
        "bellies": s.bellies[i].tolist(),
        "collected": s.collected[i].tolist(),
        "pile": {letter: [CARD_CODES[c] for c in s.pile[i, k, :s.pile_len[i, k]].tolist()]
                 for k, letter in enumerate(LETTERS)},
        "active": int(s.active[i]),
        "phase": PHASES[s.phase[i]],
        "card": None if card < 0 else CARD_CODES[card],
        "donkey": None if donkey < 0 else DONKEYS[donkey],
        "feed_left": int(s.feed_left[i]),
        "card_fed": s.card_fed[i].tolist(),
        "end_left": [DONKEYS[d] for d in s.end_left[i, :s.end_len[i]].tolist()],
        "wheels": [None if w < 0 else COLOURS[w] for w in s.wheels[i].tolist()],
        "fed_since": s.fed_since[i].reshape(-1, NUM_DONKEYS, NUM_COLOURS).tolist(),
        "share_new": s.share_new[i].tolist(),
        "last_share": None if not s.has_share[i] else {
            "donkey": DONKEYS[s.share_donkey[i]],
            "out": s.share_out[i].tolist(),
            "wheels": [COLOURS[w] for w in s.share_wheels[i].tolist()],
            "gains": s.share_gains[i].tolist(),
            "back": s.share_back[i].tolist(),
        },
    }


def read_game(state: MampfosState, i: int, options: dict[str, Any]) -> MampfosGame:
    """Game ``i`` as a Python ``MampfosGame`` (generator included), to go on with either engine.

    ``options`` are the batch's game options (``num_players``, ``memory``).
    """
    return MampfosGame.from_state_dict(state_dict(state, i, config(options)),
                                       R.to_generator(state.rng[i]), dict(options))
