"""LOCO's per-action features (``loco_actions``): what each play, slap, draw or call would do.

Computed from the mover's raw observation alone (:mod:`loco_envs.core.features` says why); a
policy with ``obs_transform`` ``"<scale>+loco_actions"`` reads them after the observation.

K = 12 per action; 2-10 players (L-01). A slap (112-223) is the play of the same cards out of
turn (L-43), so it has the play's features. "Next" is the playing seat
that moves after the move, by the direction of play; unseen cards are the deck less my hand and
the discard pile (the draw pile and the other hands); "follows" means matches by L-10 (colour,
kind or a wild), or for a penalty answers it (L-32, L-33; the default ``stacking="any"``, which
the observation does not encode). Hand sizes are before the move.

======  ================================================  ======================================
index   a play/slap of k cards of identity c (0-223)      the other actions
======  ================================================  ======================================
0       1 if it empties my hand (k = my hand size, L-70;  0
        then every entry but 0 and 2 is 0)
1       1 if it leaves me one card (a LOCO! call, L-50)   ``target``: the hand I would get has
                                                          one card; ``loco``/``silent``: I hold
                                                          one card
2       points leaving my hand / 100 (c's points x k)     0
3       0                                                 cards I would draw / 20: ``draw`` the
                                                          pending penalty or 1, as far as the
                                                          piles reach (L-13, L-32); ``silent``
                                                          2 if anyone shouts, ``contre`` 1 if
                                                          the caller announced (L-52)
4       a +2/+4: the penalty the next seat then faces     ``contre``: 2 / 20 if the caller
        (pending + 2k or 4k, L-20) / 20, capped at 1      stayed silent (L-52)
5       cards left in my hand that follow it (a wild:     ``colour c``: my cards that follow the
        in its best colour) / 10, capped at 1             wild in colour c / 10, capped at 1
6       1 if the turn comes straight back to me: k        0
        Skips move it k + 1 seats (L-30), a Reverse
        is a Skip with two playing (L-31)
7       1 / (1 + the next mover's hand size); 0 if the    ``draw``, ``pass``, ``colour``:
        turn comes back to me                             1 / (1 + the next seat's hand size);
                                                          ``target``: 1 / (1 + the target's)
8       chance that the next mover holds a card that      ``colour c``: chance that the next
        follows (a stacker: an answer), a hand of its     seat holds a card that follows in c
        size drawn from the unseen cards; 0 if the
        turn comes back to me
9       Swap (L-35) / Rotation (L-36): (my hand after -   ``target``: (my hand - the target's)
        the hand I get) / 10, clipped to [-1, 1]: a       / 10, clipped to [-1, 1]
        Swap takes the smallest other hand, k Rotations
        bring the hand k playing seats back
10      +2s and +4s left in my hand / 4, capped at 1      ``draw``: those I hold / 4
11      1 if a copy of c is unseen (a rival may slap it   0
        back, L-40)
======  ================================================  ======================================
"""

from __future__ import annotations

import numpy as np

from loco_envs.core.features import ActionFeatures, player_count
from loco_envs.loco import actions as loco_codec
from loco_envs.loco import cards as loco_cards
from loco_envs.loco import observation as loco_observation

__all__ = ["FEATURES", "LOCO_K", "loco_actions"]

LOCO_K = 12
_LOCO_SIZES = {loco_observation.observation_size(n): n for n in range(2, 11)}  # L-01
_L_IDENTS, _L_PLAYS = loco_cards.NUM_IDENTITIES, loco_codec.NUM_PLAYS
_L_KIND = np.array(loco_cards.KIND)
_L_COLOUR = np.array(loco_cards.COLOUR)
_L_IDENT = loco_codec.PLAY_IDENT  # the 112 plays (and slaps): identity, copies
_L_COUNT = loco_codec.PLAY_COUNT.astype(np.float32)
_L_PLAY_KIND = _L_KIND[_L_IDENT]
_L_STACKER = np.isin(_L_PLAY_KIND, ("+2", "+4"))
_L_STACKER_IDS = np.flatnonzero(np.isin(_L_KIND, ("+2", "+4")))
_L_POINTS = loco_cards.POINTS.astype(np.float32)
#: [top identity, colour, card identity]: does the card match that top in that colour (L-10)?
_L_MATCH = np.array([[[loco_cards.matches(card, top, col) for card in range(_L_IDENTS)]
                      for col in range(len(loco_cards.COLOURS))]
                     for top in range(_L_IDENTS)], np.float32)
#: [play, colour, identity]: what follows a play on the next turn, by the colour then in force:
#: a coloured card's own colour, a wild's chosen colour (one column each).
_L_FOLLOW = _L_MATCH[_L_IDENT].copy()
_coloured = _L_COLOUR[_L_IDENT] >= 0
_L_FOLLOW[_coloured] = _L_FOLLOW[_coloured, _L_COLOUR[_L_IDENT][_coloured]][:, None]
#: [play, colour, identity]: what the next seat can answer with: a stacker's answers (L-32,
#: L-33, ``stacking="any"``), else what follows the play.
_L_ANSWER = _L_FOLLOW.copy()
_L_ANSWER[_L_PLAY_KIND == "+2"] = np.isin(_L_KIND, "+2")
_L_ANSWER[_L_PLAY_KIND == "+4"] = _L_KIND == "+4"


#: log(n!) for the hypergeometric chances of :func:`_p_holds`.
_L_LOG_FACTORIAL = np.concatenate([[0.0],
                                   np.cumsum(np.log(np.arange(1, loco_cards.DECK_SIZE + 1)))])
_L_SWAPS = np.isin(_L_PLAY_KIND, ("X", "O"))
_L_SKIPS, _L_REVERSES, _L_SWAP = (_L_PLAY_KIND == "S"), (_L_PLAY_KIND == "R"), _L_PLAY_KIND == "X"
_L_PENALTY = np.where(_L_PLAY_KIND == "+4", 4, 2) * _L_COUNT  # cards a stacker play adds (L-20)
# the tables as matrices over the unseen cards or the hand, and a play's own cards in them
_L_ANSWER_BY_CARD = np.ascontiguousarray(_L_ANSWER.reshape(-1, _L_IDENTS).T)
_L_FOLLOW_BY_CARD = np.ascontiguousarray(_L_FOLLOW.reshape(-1, _L_IDENTS).T)
_L_FOLLOW_OWN = _L_COUNT[:, None] * _L_FOLLOW[np.arange(_L_PLAYS), :, _L_IDENT]


def _p_holds(hits: np.ndarray, total: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """Chance that ``hand`` cards drawn from ``total`` unseen ones include one of ``hits``:
    1 - C(total - hits, hand) / C(total, hand), from a table of log factorials."""
    hits, total = hits.astype(np.int64), total.astype(np.int64)
    hand = np.minimum(hand.astype(np.int64), total)
    rest = total - hits
    fact = _L_LOG_FACTORIAL
    log_none = (fact[rest] + fact[total - hand] - fact[np.maximum(rest - hand, 0)]
                - fact[total])
    none = np.where(rest >= hand, np.exp(log_none), 0)
    return np.where(hits > 0, 1 - none, 0).astype(np.float32)


def _ring(sizes: np.ndarray, playing: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Hand sizes of the playing opponents in ``order`` (relative seats), the rest padded 0."""
    play = np.take_along_axis(playing, order, axis=1)
    size = np.take_along_axis(sizes, order, axis=1) * play
    first = np.argsort(~play, axis=1, kind="stable")
    return np.take_along_axis(size, first, axis=1)


def loco_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 242 * 12)`` float32: the LOCO table above for each row of raw observations."""
    obs = np.asarray(obs, np.float32)
    n = player_count(obs, _LOCO_SIZES, "loco_actions", "LOCO", "2-10 players, L-01")
    sl = loco_observation.slices(n)
    rows = obs.shape[0]
    hand = obs[:, sl["hand"]]
    size = hand.sum(axis=1, keepdims=True)  # (rows, 1)
    unseen = np.maximum(loco_cards.FULL_DECK_COUNTS - hand - obs[:, sl["discard"]], 0)
    total = unseen.sum(axis=1, keepdims=True)
    pending = obs[:, sl["pending"].start][:, None]
    seats = obs[:, sl["seats"]].reshape(rows, n, loco_observation.PER_SEAT)
    sizes, playing = seats[..., 0], (seats[..., 5] > 0) & (seats[..., 6] > 0)
    forward = np.arange(1, n)[None].repeat(rows, axis=0)
    forward[obs[:, sl["direction"].start] < 0.5] = forward[0, ::-1]
    ahead = _ring(sizes, playing, forward)  # [:, j - 1]: the j-th seat to play after me
    behind = _ring(sizes, playing, forward[:, ::-1])
    others = playing[:, 1:].sum(axis=1, keepdims=True)
    out = np.zeros((rows, loco_codec.NUM_ACTIONS, LOCO_K), np.float32)

    # plays; a slap is the same play out of turn (L-43)
    k = _L_COUNT[None]
    left = size - k
    going_out = left == 0
    # who moves next, as the j-th playing seat after me (0: me again): k Skips move the turn
    # k + 1 seats (L-30); Reverses are Skips with two playing (L-31), else the turn goes back
    # the other way after an odd number
    steps = np.where(_L_SKIPS, (k + 1) % (others + 1), 1)
    reverse = np.where(others == 1, (k + 1) % 2, np.where(k % 2 == 1, others, 1))
    steps = np.where(_L_REVERSES, reverse, steps).astype(np.int64)
    again = (steps == 0) & ~going_out
    next_size = np.take_along_axis(ahead, np.maximum(steps - 1, 0), axis=1)
    hits = (unseen @ _L_ANSWER_BY_CARD).reshape(rows, _L_PLAYS, -1)
    p_next = _p_holds(hits.min(axis=2), total, next_size)  # a wild: its best colour
    follow = (hand @ _L_FOLLOW_BY_CARD).reshape(rows, _L_PLAYS, -1)
    follow = (follow - _L_FOLLOW_OWN).max(axis=2)
    smallest = np.where(ahead > 0, ahead, np.inf).min(axis=1, keepdims=True)
    giver = np.take_along_axis(behind, np.maximum(_L_COUNT.astype(np.int64)[None]
                                                  % (others + 1) - 1, 0), axis=1)
    received = np.where(_L_SWAP, smallest,
                        np.where(_L_COUNT % (others + 1) == 0, left, giver))
    stackers_left = hand[:, _L_STACKER_IDS].sum(axis=1, keepdims=True) - k * _L_STACKER
    on = ~going_out  # L-70: the last card has no effect
    plays = np.zeros((rows, _L_PLAYS, LOCO_K), np.float32)
    plays[..., 0] = going_out
    plays[..., 1] = left == 1
    plays[..., 2] = _L_POINTS[_L_IDENT] * k / 100
    victims = np.minimum(pending + _L_PENALTY, 20) / 20
    plays[..., 4] = np.where(_L_STACKER & on, victims, 0)
    plays[..., 5] = np.minimum(follow, 10) / 10 * on
    plays[..., 6] = again
    plays[..., 7] = np.where(on & ~again, 1 / (1 + next_size), 0)
    plays[..., 8] = np.where(on & ~again, p_next, 0)
    swaps = _L_SWAPS & on
    plays[..., 9] = np.where(swaps, np.clip((left - received) / 10, -1, 1), 0)
    plays[..., 10] = np.minimum(stackers_left, 4) / 4 * on
    plays[..., 11] = (unseen[:, _L_IDENT] > 0) & on
    out[:, :_L_PLAYS] = plays
    out[:, loco_codec.SLAP0:loco_codec.DRAW] = plays

    next_close = 1 / (1 + ahead[:, :1])  # the seat after me, when my turn ends
    # draw: the penalty or one card, as far as the piles reach (L-13, L-32)
    reach = obs[:, sl["draw_pile"]] + obs[:, sl["discard"]].sum(axis=1, keepdims=True) - 1
    drawn = np.minimum(np.where(pending > 0, pending, 1), np.maximum(reach, 0))
    out[:, loco_codec.DRAW, 3] = np.minimum(drawn[:, 0], 20) / 20
    out[:, loco_codec.DRAW, 7] = next_close[:, 0]
    out[:, loco_codec.DRAW, 10] = np.minimum(hand[:, _L_STACKER_IDS].sum(axis=1), 4) / 4
    out[:, loco_codec.PASS, 7] = next_close[:, 0]
    # colours after a wild: what I and the next seat can play on it (L-12)
    top = obs[:, sl["top"]].argmax(axis=1)
    colours = out[:, loco_codec.COLOUR0:loco_codec.TARGET0]
    match = _L_MATCH[top]  # (rows, colour, identity)
    colours[..., 5] = np.minimum(np.einsum("ni,nci->nc", hand, match), 10) / 10
    colours[..., 7] = next_close
    colours[..., 8] = _p_holds(np.einsum("ni,nci->nc", unseen, match), total, ahead[:, :1])
    # Swap targets (L-35): the hand I would get, by relative seat
    targets = out[:, loco_codec.TARGET0:loco_codec.LOCO]
    width = min(n - 1, loco_codec.MAX_TARGET)
    target_size = sizes[:, 1:1 + width]
    targets[:, :width, 1] = target_size == 1
    targets[:, :width, 7] = 1 / (1 + target_size)
    targets[:, :width, 9] = np.clip((size - target_size) / 10, -1, 1)
    # calls (L-50..L-52): staying silent costs 2 cards if anyone shouts; a shout costs the
    # shouter 1 card after an announcement, the silent caller 2 otherwise
    announced = obs[:, sl["contre_announced"].start]
    out[:, loco_codec.LOCO, 1] = size[:, 0] == 1
    out[:, loco_codec.SILENT, 1] = size[:, 0] == 1
    out[:, loco_codec.SILENT, 3] = 2 / 20
    out[:, loco_codec.CONTRE, 3] = announced / 20
    out[:, loco_codec.CONTRE, 4] = (1 - announced) * 2 / 20
    return out.reshape(rows, -1)


#: The largest entry is the points shed, four +4s: 200 / 100.
FEATURES = ActionFeatures("loco_actions", "loco_v0", loco_codec.NUM_ACTIONS * LOCO_K, 2.0,
                          loco_actions, _LOCO_SIZES)
