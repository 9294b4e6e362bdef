"""Per-action features: what each legal move would do, computed from the mover's observation.

Why. A multilayer perceptron on a flat observation has to *learn* what a move does before it
can judge it: in Moco! a play's worth is a product of entries far apart in the vector (the
card's value minus the pile's, times the chips each player holds in that suit). Behaviour
cloning of ``moco/heuristic`` from the observation alone agrees with it on 57% of held-out
moves after six epochs; with these features appended, 76% (1,500 games of the heuristic,
``configs/moco_bc.yaml``'s network, measured once while writing this). The features are
arithmetic on the observation and nothing else, so a policy using them still acts on its own
observation and the mask; they are the game's facts (pile values after the move, whether it
ends the game, who leads then), not any bot's choice.

A policy opts in through its ``obs_transform`` (``"log1p+moco_actions"``, :mod:`agents.ppo`):
the network's input is the transformed observation with ``NUM_ACTIONS x K`` feature entries
appended, and the policy file records the transform, so a ``ppo:`` agent computes the same
features when it plays.

Moco! (``moco_actions``, K = 6 per action, zeros for actions of the other phase too):

======  ======================================================  ============================
index   a play of card c on pile p (actions 0-71)               a chip of suit s (72-77)
======  ======================================================  ============================
0       (my chips in p - the others' mean) x (v(c) - value(p))  expected value of a chip of s
        / 10: how much the move gains me against the table      (value now plus half the
                                                                rise my best card of s
                                                                could still bring, M-21) / 10
1       (v(c) - value(p)) / 10                                  value(s) now / 10
2       1 if the card ends the game (sixth card, M-20)          my chips of s / 5
3       if it ends the game: my lead over the best other        (my chips - the others'
        score then / 20, clipped to [-1, 1]; else 0             mean) in s / 5
4       my chips in p / 5                                       height of pile s / 6
5       the others' mean chips in p / 5                         supply of s left / 5
======  ======================================================  ============================

The "no chip" action (78) has zeros. Values are those of :func:`loco_envs.moco.rules.pile_values`
(read from the observation's ``pile_values`` entries).

Loco Momo (``momo_actions``, K = 5 per action; zeros for illegal actions, for the other phase
and when the observer is not the one to move).
A pick's worth depends on where its tokens land, which takes a simulation (K-10..K-13): the
features place the taken tokens greedily on a copy of the mover's picture, best single step
first, as :func:`agents.momo.greedy_placement` does, and value pictures as
:func:`agents.momo.picture_value` does (points now plus a potential for open one-colour lines
and stacked pairs, weighted by the turns left):

======  =================================================  ===================================
index   a pick of identity t in area a (actions 0-59)       a place of t on row r (60-134)
======  =================================================  ===================================
0       (picture value after the greedy placement - now)    (picture value after - now) / 10
        / 10
1       (K-20..K-24 points after - now) / 10                (points after - now) / 10
2       tokens taken / 5 (K-11)                             (potential after - now) / 5
3       tokens that find no room / 5 (K-13)                 1 if it fills the row
4       1 (a legal pick)                                    1 (a legal place)
======  =================================================  ===================================

Unlike Moco!'s arithmetic, these cost a few milliseconds a pick (the simulation, cached).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from loco_envs.agents.momo import (
    greedy_placement,
    hope_for,
    picture_value,
    place,
    potential,
    taken_tokens,
)
from loco_envs.moco import actions as moco_codec
from loco_envs.moco.cards import CARDS, FIRST_PLAYABLE, NUM_PLAYABLE, NUM_SUITS, VALUES
from loco_envs.moco.observation import SLICES as MOCO_SLICES
from loco_envs.moco.rules import PILE_LIMIT
from loco_envs.momo import actions as momo_codec
from loco_envs.momo.observation import CELL_FEATURES
from loco_envs.momo.observation import SLICES as MOMO_SLICES
from loco_envs.momo.rules import board_points

__all__ = ["ACTION_FEATURES", "ActionFeatures", "moco_actions", "momo_actions"]

MOCO_K = 6
_PLAY_CARD = np.array(moco_codec.PLAY_CARD)
_PLAY_PILE = np.array(moco_codec.PLAY_PILE)
_PLAY_VALUE = np.array(VALUES, np.float32)[_PLAY_CARD]
#: [playable card, suit] -> the card's value if it has that suit, else 0.
_VALUE_IN_SUIT = np.zeros((NUM_PLAYABLE, NUM_SUITS), np.float32)
for _c in range(NUM_PLAYABLE):
    for _s in CARDS[FIRST_PLAYABLE + _c].suits:
        _VALUE_IN_SUIT[_c, _s] = VALUES[FIRST_PLAYABLE + _c]
_MOCO_SIZES = {MOCO_SLICES[n]["match_scores"].stop: n for n in MOCO_SLICES}


def moco_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 79 * 6)`` float32: the table above for each row of raw Moco! observations."""
    obs = np.asarray(obs, np.float32)
    rows = obs.shape[0]
    n = _MOCO_SIZES.get(obs.shape[1])
    if n is None:
        raise ValueError(f"moco_actions: observations of size {obs.shape[1]}, Moco! observes "
                         f"{sorted(_MOCO_SIZES)} numbers (2-5 players)")
    sl = MOCO_SLICES[n]
    values = obs[:, sl["pile_values"]]
    heights = obs[:, sl["pile_heights"]]
    chips = obs[:, sl["chips"]].reshape(rows, n, NUM_SUITS)  # relative seats: me first
    mine, theirs = chips[:, 0], chips[:, 1:].mean(axis=1)
    out = np.zeros((rows, moco_codec.NUM_ACTIONS, MOCO_K), np.float32)

    plays = out[:, :moco_codec.NUM_PLAYS]
    delta = _PLAY_VALUE[None] - values[:, _PLAY_PILE]
    ends = heights[:, _PLAY_PILE] + 1 >= PILE_LIMIT
    scores = (chips * values[:, None, :]).sum(axis=2)  # (rows, n) if the game ended now
    after = scores[:, :, None] + chips[:, :, _PLAY_PILE] * delta[:, None, :]
    lead = after[:, 0] - after[:, 1:].max(axis=1)
    plays[..., 0] = (mine - theirs)[:, _PLAY_PILE] * delta / 10
    plays[..., 1] = delta / 10
    plays[..., 2] = ends
    plays[..., 3] = np.where(ends, np.clip(lead / 20, -1, 1), 0)
    plays[..., 4] = mine[:, _PLAY_PILE] / 5
    plays[..., 5] = theirs[:, _PLAY_PILE] / 5

    chip = out[:, moco_codec.FIRST_CHIP:moco_codec.FIRST_CHIP + NUM_SUITS]
    hand = obs[:, sl["hand"]]
    best = (hand[:, :, None] * _VALUE_IN_SUIT[None]).max(axis=1)
    hope = np.maximum(0, best - values) * 0.5 * (1 - heights / PILE_LIMIT)
    chip[..., 0] = (values + hope) / 10
    chip[..., 1] = values / 10
    chip[..., 2] = mine / 5
    chip[..., 3] = (mine - theirs) / 5
    chip[..., 4] = heights / PILE_LIMIT
    chip[..., 5] = obs[:, sl["supply"]] / 5
    return out.reshape(rows, -1)


MOMO_K = 5
_MOMO_SIZES = {MOMO_SLICES[n]["boards"].stop: n for n in MOMO_SLICES}


def momo_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 135 * 5)`` float32: the Loco Momo table above for each row of raw observations."""
    obs = np.asarray(obs, np.float32)
    n = _MOMO_SIZES.get(obs.shape[1])
    if n is None:
        raise ValueError(f"momo_actions: observations of size {obs.shape[1]}, Loco Momo "
                         f"observes {sorted(_MOMO_SIZES)} numbers (1-4 players)")
    sl = MOMO_SLICES[n]
    out = np.zeros((obs.shape[0], momo_codec.NUM_ACTIONS, MOMO_K), np.float32)
    for row, features in zip(obs, out, strict=True):
        phase = row[sl["phase"]]
        if phase.any() and row[sl["to_act"].start]:  # the observer is to move
            cells = _own_picture(row[sl["boards"]])
            hope = hope_for(int(row[sl["turns_left"]][0]))
            if phase[0]:
                forest = tuple(tuple(int(k) for k in area)
                               for area in row[sl["forest"]].reshape(momo_codec.NUM_AREAS, -1))
                _pick_features(cells, forest, hope, features)
            else:
                _place_features(cells, row[sl["pending"]], hope, features)
    return out.reshape(obs.shape[0], -1)


def _own_picture(boards: np.ndarray) -> tuple[int, ...]:
    """The observer's 25 cells (identity or -1) from its one-hot cells (relative seat 0)."""
    own = boards[:momo_codec.CELLS * CELL_FEATURES].reshape(momo_codec.CELLS, CELL_FEATURES)
    species = own[:, :momo_codec.NUM_SPECIES].argmax(axis=1)
    colour = own[:, momo_codec.NUM_SPECIES:].argmax(axis=1)
    tokens = np.where(own.any(axis=1), species * momo_codec.NUM_COLOURS + colour, -1)
    return tuple(int(t) for t in tokens)


def _pick_features(cells, forest, hope: float, out: np.ndarray) -> None:
    value, points = picture_value(cells, hope), board_points(cells)
    for area, counts in enumerate(forest):
        for token in np.flatnonzero(counts):
            taken = taken_tokens(forest, area, int(token))
            board, lost = greedy_placement(cells, taken, hope)
            out[momo_codec.pick_action(area, int(token))] = (
                (picture_value(board, hope) - value) / 10, (board_points(board) - points) / 10,
                len(taken) / 5, lost / 5, 1.0)


def _place_features(cells, pending: np.ndarray, hope: float, out: np.ndarray) -> None:
    value, points, open_now = picture_value(cells, hope), board_points(cells), potential(cells)
    for token in np.flatnonzero(pending):
        for row in range(momo_codec.ROWS):
            after = place(cells, int(token), row)
            if after is not None:
                full = min(after[row * momo_codec.COLS:(row + 1) * momo_codec.COLS]) >= 0
                out[momo_codec.place_action(int(token), row)] = (
                    (picture_value(after, hope) - value) / 10,
                    (board_points(after) - points) / 10,
                    (potential(after) - open_now) / 5, float(full), 1.0)


class ActionFeatures:
    """A feature set: its game, its width, its range and the function of raw observations."""

    def __init__(self, env_id: str, size: int, limit: float,
                 compute: Callable[[np.ndarray], np.ndarray]):
        self.env_id = env_id
        self.size = size
        self.limit = limit  # every feature lies in [-limit, limit]
        self.compute = compute


#: Feature sets by the name used after ``+`` in an ``obs_transform``. Moco!'s largest entry is
#: the gain: at most 5 chips of a suit times a change of at most 10, over 10.
ACTION_FEATURES: dict[str, ActionFeatures] = {
    "moco_actions": ActionFeatures("moco_v0", moco_codec.NUM_ACTIONS * MOCO_K, 5.0,
                                   moco_actions),
    # Loco Momo: a change of picture value is at most the most points a picture can hold
    # (113, observation.MAX_POINTS) plus its potential, over 10.
    "momo_actions": ActionFeatures("momo_v0", momo_codec.NUM_ACTIONS * MOMO_K, 13.0,
                                   momo_actions),
}
