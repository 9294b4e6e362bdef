"""Moco!'s per-action features (``moco_actions``): what each play or chip would do.

Computed from the mover's raw observation alone (:mod:`loco_envs.core.features` says why); a
policy with ``obs_transform`` ``"<scale>+moco_actions"`` reads them after the observation.

K = 6 per action, zeros for actions of the other phase too:

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
"""

from __future__ import annotations

import numpy as np

from loco_envs.core.features import ActionFeatures, player_count
from loco_envs.moco import actions as moco_codec
from loco_envs.moco.cards import CARDS, FIRST_PLAYABLE, NUM_PLAYABLE, NUM_SUITS, VALUES
from loco_envs.moco.observation import SLICES as MOCO_SLICES
from loco_envs.moco.rules import PILE_LIMIT

__all__ = ["FEATURES", "MOCO_K", "moco_actions"]

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
    n = player_count(obs, _MOCO_SIZES, "moco_actions", "Moco!", "2-5 players")
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




#: Moco!'s largest entry is the gain: at most 5 chips of a suit times a change of at most 10,
#: over 10.
FEATURES = ActionFeatures("moco_actions", "moco_v0", moco_codec.NUM_ACTIONS * MOCO_K, 5.0,
                          moco_actions, _MOCO_SIZES)
