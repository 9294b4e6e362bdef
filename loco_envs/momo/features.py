"""Loco Momo's per-action features (``momo_actions``): what each pick or place would do.

Computed from the mover's raw observation alone (:mod:`loco_envs.core.features` says why); a
policy with ``obs_transform`` ``"<scale>+momo_actions"`` reads them after the observation.

K = 5 per action; zeros for illegal actions, for the other phase and when the observer is not
the one to move. A pick's worth depends on where its tokens land, which takes a simulation
(K-10..K-13): the
features place the taken tokens greedily on a copy of the mover's picture, best single step
first, as :func:`loco_envs.momo.picture.greedy_placement` does, and value pictures as
:func:`loco_envs.momo.picture.picture_value` does (points now plus a potential for open
one-colour lines and stacked pairs, weighted by the turns left):

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

import numpy as np

from loco_envs.core.features import ActionFeatures, player_count
from loco_envs.momo import actions as momo_codec
from loco_envs.momo.observation import CELL_FEATURES
from loco_envs.momo.observation import SLICES as MOMO_SLICES
from loco_envs.momo.picture import (
    greedy_placement,
    hope_for,
    picture_value,
    place,
    points_and_potential,
    taken_tokens,
)

__all__ = ["FEATURES", "MOMO_K", "momo_actions"]

MOMO_K = 5
_MOMO_SIZES = {MOMO_SLICES[n]["boards"].stop: n for n in MOMO_SLICES}


def momo_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 135 * 5)`` float32: the Loco Momo table above for each row of raw observations."""
    obs = np.asarray(obs, np.float32)
    n = player_count(obs, _MOMO_SIZES, "momo_actions", "Loco Momo", "1-4 players")
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
    value, points = picture_value(cells, hope), points_and_potential(cells)[0]
    for area, counts in enumerate(forest):
        for token in np.flatnonzero(counts):
            taken = tuple(taken_tokens(forest, area, int(token)))
            board, lost = greedy_placement(cells, taken, hope)
            out[momo_codec.pick_action(area, int(token))] = (
                (picture_value(board, hope) - value) / 10,
                (points_and_potential(board)[0] - points) / 10, len(taken) / 5, lost / 5, 1.0)


def _place_features(cells, pending: np.ndarray, hope: float, out: np.ndarray) -> None:
    value = picture_value(cells, hope)
    points, open_now = points_and_potential(cells)
    for token in np.flatnonzero(pending):
        for row in range(momo_codec.ROWS):
            after = place(cells, int(token), row)
            if after is not None:
                full = min(after[row * momo_codec.COLS:(row + 1) * momo_codec.COLS]) >= 0
                points_after, open_after = points_and_potential(after)
                out[momo_codec.place_action(int(token), row)] = (
                    (picture_value(after, hope) - value) / 10,
                    (points_after - points) / 10, (open_after - open_now) / 5, float(full), 1.0)


#: A change of picture value is at most the most points a picture can hold (113,
#: ``observation.MAX_POINTS``) plus its potential, over 10.
FEATURES = ActionFeatures("momo_actions", "momo_v0", momo_codec.NUM_ACTIONS * MOMO_K, 13.0,
                          momo_actions, _MOMO_SIZES)
