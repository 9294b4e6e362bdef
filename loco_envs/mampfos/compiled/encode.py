"""Los Mampfos's observation over the batch state, compiled: exactly
``observation.encode(game.view(seat))``.

The slices are written in the order of :data:`loco_envs.mampfos.observation.FIELDS` (the
``bellies`` slice only without ``cfg.recall``, P-30/P-31), seat-indexed ones relative to the
observer. Secrecy is the view's: of the millwheels being set only ``wheels_set`` (who has set
one) and the observer's own colour show (P-12); in ``memory="recall"`` the last share-out shows
only while it is news to the observer (P-31). Los Mampfos has no per-action features.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from loco_envs.compiled import no_refcount_inline
from loco_envs.mampfos.compiled.engine import (
    CARD_DONKEY,
    CARD_KIND,
    CARD_NUMBER,
    END_CARD,
    NC,
    ND,
    NUM_LETTERS,
    PATH_LENGTH,
    PH_OVER,
    PH_WHEEL,
)

__all__ = ["encode", "encode_batch", "observation_size"]


@njit(cache=True)
def observation_size(num_players, recall):
    """``observation.observation_size(num_players, memory)``."""
    return 107 + 14 * num_players + (0 if recall else ND * NC)


@no_refcount_inline
def encode(s, cfg, i, seat, out):
    """``out`` (``float32``, the observation's size) becomes seat ``seat``'s observation of
    game ``i``."""
    n = cfg.num_players
    out[:] = 0
    phase = s.phase[i]
    over = phase == PH_OVER
    in_wheel = phase == PH_WHEEL
    p = 0
    out[p + phase] = 1  # phase
    p += 4
    if s.actor[i] >= 0:  # to_act
        out[p + (s.actor[i] - seat) % n] = 1
    p += n
    out[p + (s.active[i] - seat) % n] = 1  # active
    p += n
    card = s.card[i]
    if card >= 0:  # card_kind, card_donkey, card_number
        out[p + CARD_KIND[card]] = 1
        if CARD_DONKEY[card] >= 0:
            out[p + 3 + CARD_DONKEY[card]] = 1
        out[p + 7] = CARD_NUMBER[card]
    p += 8
    if s.donkey[i] >= 0:  # donkey
        out[p + s.donkey[i]] = 1
    p += ND
    out[p] = s.feed_left[i]  # feed_left
    p += 1
    for c in range(NC):  # card_fed
        out[p + c] = s.card_fed[i, c]
    p += NC
    if card == END_CARD and not over:  # end_left
        for k in range(s.end_len[i]):
            out[p + s.end_left[i, k]] = 1
    p += ND
    if in_wheel:  # wheels_set: who has set a wheel, never its colour (P-12)
        for other in range(n):
            if s.wheels[i, other] >= 0:
                out[p + (other - seat) % n] = 1
    p += n
    if in_wheel and s.wheels[i, seat] >= 0:  # own_wheel
        out[p + s.wheels[i, seat]] = 1
    p += NC
    for d in range(ND):  # positions
        out[p + d * PATH_LENGTH + s.positions[i, d]] = 1
    p += ND * PATH_LENGTH
    for c in range(NC):  # supply
        out[p + c] = s.supply[i, c]
    p += NC
    if not cfg.recall:  # bellies (P-30; absent in recall, P-31)
        for d in range(ND):
            for c in range(NC):
                out[p + d * NC + c] = s.bellies[i, d, c]
        p += ND * NC
    for other in range(n):  # collected
        base = p + NC * ((other - seat) % n)
        for c in range(NC):
            out[base + c] = s.collected[i, other, c]
    p += NC * n
    for letter in range(NUM_LETTERS):  # cards_left
        out[p + letter] = s.pile_len[i, letter]
    p += NUM_LETTERS
    for k in range(ND * NC):  # fed_since
        out[p + k] = s.fed_since[i, seat, k]
    p += ND * NC
    news = s.share_new[i, seat]
    out[p] = 1 if news else 0  # share_new
    p += 1
    if s.has_share[i] and (not cfg.recall or news):  # the last share-out (P-31)
        out[p + s.share_donkey[i]] = 1
        for c in range(NC):
            out[p + ND + c] = s.share_out[i, c]
            out[p + ND + NC + c] = s.share_back[i, c]
        wheels = p + ND + 2 * NC
        gains = wheels + NC * n
        for other in range(n):
            rel = (other - seat) % n
            out[wheels + NC * rel + s.share_wheels[i, other]] = 1
            out[gains + rel] = s.share_gains[i, other]


@njit(parallel=True, cache=True)
def encode_batch(s, cfg, rows, seats, out):
    """``out[k]`` becomes seat ``seats[k]``'s observation of game ``rows[k]``."""
    for k in prange(rows.shape[0]):
        encode(s, cfg, rows[k], seats[k], out[k])


def new_buffer(num_rows: int, num_players: int, recall: bool) -> np.ndarray:
    """A ``float32`` buffer for ``num_rows`` observations."""
    return np.zeros((num_rows, int(observation_size(num_players, recall))), np.float32)
