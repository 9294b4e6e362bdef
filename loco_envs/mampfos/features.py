"""Los Mampfos' per-action features (``mampfos_actions``): what each millwheel colour, each
biscuit fed and each donkey chosen stands to bring, and where the mover stands.

Computed from the mover's raw observation alone (:mod:`loco_envs.core.features` says why); a
policy with ``obs_transform`` ``"<scale>+mampfos_actions"`` reads them after the observation.
They read the bellies, so they exist for ``memory="perfect"`` (P-30) only.

Why these. A share-out (P-12) gives each colour's heap to whoever set that colour, split
between all who did: players who set the same colour gain alike, and the largest heap is worth
most unless shared. Which colour is the largest, by how much, and whether the mover leads
decides a millwheel; a network on the flat observation must first learn to pick the emptying
donkey's row out of the three bellies.

K = 6 per action. Entries 0-2 are the action's own (a colour's are zeros outside its phase; a
donkey's are filled in every phase); 3-5 are the mover's standing, the same for every action:

=====  =========================================  ================================================
index  a colour c (feed 3-7, millwheel 8-12)      a donkey d (0-2)
=====  =========================================  ================================================
0      biscuits of c in the donkey being fed or   biscuits of d's largest colour / 10
       emptied / 10
1      1 if c is a largest colour there (and      biscuits of d's second colour / 10
       the donkey holds any)
2      (c's biscuits - the most of any other      biscuits in d / 10
       colour) / 10
3      my biscuits - the most any other player holds, / 10, clipped to [-2, 2] (P-20)
4      1 if every other player has collected the same biscuits colour by colour (players who
       choose alike, e.g. copies of one bot; 1 at 2 players)
5      cards not yet turned over / 40 (P-04; the cards under END are never turned)
=====  ===============================================================================
"""

from __future__ import annotations

import numpy as np

from loco_envs.core.features import ActionFeatures, player_count
from loco_envs.mampfos import actions as mampfos_codec
from loco_envs.mampfos.components import DECK, PH_FEED, PH_WHEEL
from loco_envs.mampfos.observation import observation_size, slices

__all__ = ["FEATURES", "MAMPFOS_K", "mampfos_actions"]

MAMPFOS_K = 6
_NC, _ND = mampfos_codec.NUM_COLOURS, mampfos_codec.NUM_DONKEYS
_SIZES = {observation_size(n): n for n in range(2, 6)}
_SLICES = {n: slices(n) for n in range(2, 6)}
_FEED = slice(mampfos_codec.FEED_BASE, mampfos_codec.FEED_BASE + _NC)
_WHEEL = slice(mampfos_codec.WHEEL_BASE, mampfos_codec.WHEEL_BASE + _NC)
_DONKEYS = slice(mampfos_codec.DONKEY_BASE, mampfos_codec.DONKEY_BASE + _ND)
_CARDS = sum(len(cards) for cards in DECK.values())  # P-04: 40


def mampfos_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 13 * 6)`` float32: the table above for each row of raw Los Mampfos observations
    (``memory="perfect"``)."""
    obs = np.asarray(obs, np.float32)
    rows = obs.shape[0]
    n = player_count(obs, _SIZES, "mampfos_actions", "Los Mampfos with memory='perfect'",
                     "2-5 players")
    sl = _SLICES[n]
    out = np.zeros((rows, mampfos_codec.NUM_ACTIONS, MAMPFOS_K), np.float32)

    bellies = obs[:, sl["bellies"]].reshape(rows, _ND, _NC)
    donkey = obs[:, sl["donkey"]]
    belly = (bellies * donkey[:, :, None]).sum(axis=1)  # the donkey fed or emptied now
    largest_other = _largest_other(belly)
    colour = np.stack([belly / 10, (belly == belly.max(axis=1, keepdims=True)) & (belly > 0),
                       (belly - largest_other) / 10], axis=2)
    phase = obs[:, sl["phase"]]
    out[:, _FEED, :3] = colour * phase[:, PH_FEED, None, None]  # the phase one-hot's order
    out[:, _WHEEL, :3] = colour * phase[:, PH_WHEEL, None, None]

    ranked = -np.sort(-bellies, axis=2)
    out[:, _DONKEYS, 0] = ranked[:, :, 0] / 10
    out[:, _DONKEYS, 1] = ranked[:, :, 1] / 10
    out[:, _DONKEYS, 2] = bellies.sum(axis=2) / 10

    collected = obs[:, sl["collected"]].reshape(rows, n, _NC)  # relative seats: me first
    totals = collected.sum(axis=2)
    out[:, :, 3] = np.clip((totals[:, 0] - totals[:, 1:].max(axis=1)) / 10, -2, 2)[:, None]
    others = collected[:, 1:]
    out[:, :, 4] = (others == others[:, :1]).all(axis=(1, 2))[:, None]
    out[:, :, 5] = (obs[:, sl["cards_left"]].sum(axis=1) / _CARDS)[:, None]
    return out.reshape(rows, -1)


def _largest_other(belly: np.ndarray) -> np.ndarray:
    """``[N, 5]``: for each colour, the most of any *other* colour in the row."""
    ranked = -np.sort(-belly, axis=1)
    first, second = ranked[:, :1], ranked[:, 1:2]
    # the largest colour's rival is the second heap; every other colour's is the largest
    return np.where(belly == first, second, first)


#: A colour of one donkey holds at most the 20 there are (P-02): 2 after / 10; a donkey at most
#: the 50 biscuits of every feed card (the default deck): 5.
FEATURES = ActionFeatures("mampfos_actions", "mampfos_v0", mampfos_codec.NUM_ACTIONS * MAMPFOS_K,
                          5.0, mampfos_actions, _SIZES, compiled=False)
