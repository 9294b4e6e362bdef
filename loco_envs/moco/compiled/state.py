"""The state of N Moco! games as a struct of arrays, and its moves to and from ``MocoGame``.

Layout (``N`` games, ``P`` seats; row ``i`` of every array is game ``i``). Card ids are those of
:mod:`loco_envs.moco.cards` (0..40, the Aces 0..5 never in play), suits are indices 0..5 in suit
order, phases the index in :data:`loco_envs.moco.rules.PHASES`; ``-1`` is "none" wherever the
Python engine has ``None`` or ``-1``. This state is separate from the Python engine's own batch
arrays (``MocoBatchArrays``, ``move_to``), which mirror the observation, not the rules.

================  ==============  ==========================================================
field             shape, dtype    Python engine (``MocoGame``)
================  ==============  ==========================================================
rng               (N, 6) uint64   ``rng`` (PCG64, :mod:`loco_envs.compiled.rng`)
hands             (N, P, 41) i8   ``_hands`` (1 where card id is in the seat's set)
hand_sizes        (N, P) i8       ``len(_hands[seat])``
cards_in_hands    (N,) i16        ``_cards_in_hands``
removed           (N, 2) i8       ``_removed[:removed_len]``, in deal order
removed_len       (N,) i8         ``len(_removed)``
piles             (N, 6, 6) i8    ``_piles[suit][:heights[suit]]``, bottom first
heights           (N, 6) i8       ``len(_piles[suit])``
chips             (N, P, 6) i8    ``_chips``
supply            (N, 6) i8       ``_supply``
phase             (N,) i8         ``phase`` (0 play, 1 chip, 2 over)
actor             (N,) i8         ``current_seat`` (-1 over)
played_pile       (N,) i8         ``played_pile`` (-1 outside the chip phase)
dealer            (N,) i8         ``dealer``
game              (N,) i8         ``game`` (index of the game in the match, M-30)
match_scores      (N, P) i32      ``match_scores``
terminal          (N,) bool       ``terminal``
deck_order        (N, 35) i8      none: the deal's shuffled deck (scratch, so that a deal
                                  inside ``play`` allocates nothing)
================  ==============  ==========================================================

The options of a batch (the same for all its games) are a :class:`MocoConfig`. Both are
namedtuples, which numba takes as they are into compiled functions.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.moco.cards import (
    CODES,
    DECK_WITH_EXCUSE,
    FIRST_PLAYABLE,
    NUM_CARDS,
    NUM_SUITS,
    SUITS,
)
from loco_envs.moco.rules import PHASES, PILE_LIMIT, MocoGame

__all__ = ["MocoConfig", "MocoState", "allocate", "config", "read_game", "state_dict",
           "write_game", "MAX_REMOVED"]

#: M-03: at most two cards are removed unseen.
MAX_REMOVED = 2


class MocoState(NamedTuple):
    """N games' state (see the module docstring for each field)."""

    rng: np.ndarray
    hands: np.ndarray
    hand_sizes: np.ndarray
    cards_in_hands: np.ndarray
    removed: np.ndarray
    removed_len: np.ndarray
    piles: np.ndarray
    heights: np.ndarray
    chips: np.ndarray
    supply: np.ndarray
    phase: np.ndarray
    actor: np.ndarray
    played_pile: np.ndarray
    dealer: np.ndarray
    game: np.ndarray
    match_scores: np.ndarray
    terminal: np.ndarray
    deck_order: np.ndarray


class MocoConfig(NamedTuple):
    """A batch's options: ``num_players`` (M-01), ``match`` (M-30) and the number of games it
    makes (``num_players`` with a match, else 1)."""

    num_players: int
    match: bool
    num_games: int


def _layout(n: int, p: int) -> dict[str, tuple[tuple[int, ...], Any]]:
    i8, i16, i32 = np.int8, np.int16, np.int32
    return {
        "rng": ((n, R.STATE_WORDS), np.uint64), "hands": ((n, p, NUM_CARDS), i8),
        "hand_sizes": ((n, p), i8), "cards_in_hands": ((n,), i16),
        "removed": ((n, MAX_REMOVED), i8), "removed_len": ((n,), i8),
        "piles": ((n, NUM_SUITS, PILE_LIMIT), i8), "heights": ((n, NUM_SUITS), i8),
        "chips": ((n, p, NUM_SUITS), i8), "supply": ((n, NUM_SUITS), i8),
        "phase": ((n,), i8), "actor": ((n,), i8), "played_pile": ((n,), i8),
        "dealer": ((n,), i8), "game": ((n,), i8), "match_scores": ((n, p), i32),
        "terminal": ((n,), np.bool_), "deck_order": ((n, len(DECK_WITH_EXCUSE)), i8),
    }


def allocate(num_games: int, cfg: MocoConfig) -> MocoState:
    """Zeroed arrays for ``num_games`` games of ``cfg.num_players`` seats (deal them first)."""
    return MocoState(**{name: np.zeros(shape, dtype) for name, (shape, dtype)
                        in _layout(num_games, cfg.num_players).items()})


def config(options: dict[str, Any]) -> MocoConfig:
    """The :class:`MocoConfig` of ``MocoGame`` options (defaults filled in); ``ValueError``
    names a bad option, as the Python engine does."""
    from loco_envs.core.options import validate_options

    opts = validate_options(MocoGame.OPTIONS, dict(options))
    n, match = int(opts["num_players"]), bool(opts["match"])
    return MocoConfig(n, match, n if match else 1)


def write_game(state: MocoState, i: int, game: MocoGame) -> None:
    """Row ``i`` of ``state`` becomes ``game`` (its generator's state included)."""
    s, n = state, game.num_players
    if s.hands.shape[1] != n:
        raise ValueError(f"a {n}-player game cannot go into a {s.hands.shape[1]}-player batch")
    R.from_generator(game.rng, s.rng[i])
    s.hands[i] = 0
    for seat, hand in enumerate(game._hands):
        s.hands[i, seat, list(hand)] = 1
        s.hand_sizes[i, seat] = len(hand)
    s.cards_in_hands[i] = game._cards_in_hands
    s.removed[i] = -1
    s.removed_len[i] = len(game._removed)
    s.removed[i, :len(game._removed)] = game._removed
    s.piles[i] = -1
    for suit, pile in enumerate(game._piles):
        s.heights[i, suit] = len(pile)
        s.piles[i, suit, :len(pile)] = pile
    s.chips[i] = game._chips
    s.supply[i] = game._supply
    s.phase[i], s.actor[i], s.played_pile[i] = game.phase, game.current_seat, game.played_pile
    s.dealer[i], s.game[i] = game.dealer, game.game
    s.match_scores[i] = game.match_scores
    s.terminal[i] = game.terminal


def state_dict(state: MocoState, i: int, cfg: MocoConfig) -> dict:
    """Game ``i``'s ``state_dict`` (``MocoGame.state_dict``'s schema)."""
    s, n = state, cfg.num_players
    played = int(s.played_pile[i])
    return {
        "num_players": n,
        "match": cfg.match,
        "game": int(s.game[i]),
        "dealer": int(s.dealer[i]),
        "match_scores": s.match_scores[i].tolist(),
        "phase": PHASES[s.phase[i]],
        "current_seat": int(s.actor[i]),
        "played_pile": SUITS[played] if played >= 0 else None,
        "hands": [[CODES[FIRST_PLAYABLE + c] for c in np.flatnonzero(
            s.hands[i, seat, FIRST_PLAYABLE:]).tolist()] for seat in range(n)],
        "removed": [CODES[c] for c in s.removed[i, :s.removed_len[i]].tolist()],
        "piles": [[CODES[c] for c in s.piles[i, suit, :s.heights[i, suit]].tolist()]
                  for suit in range(NUM_SUITS)],
        "chips": s.chips[i].tolist(),
        "supply": s.supply[i].tolist(),
    }


def read_game(state: MocoState, i: int, options: dict[str, Any]) -> MocoGame:
    """Game ``i`` as a Python ``MocoGame`` (generator included), to go on with either engine.

    ``options`` are the batch's game options (``num_players``, ``match``).
    """
    return MocoGame.from_state_dict(state_dict(state, i, config(options)),
                                    R.to_generator(state.rng[i]), dict(options))
