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

LOCO (``loco_actions``, K = 12 per action; 2-10 players, L-01). A slap (112-223) is the play of
the same cards out of turn (L-43), so it has the play's features. "Next" is the playing seat
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
    points_and_potential,
    taken_tokens,
)
from loco_envs.loco import actions as loco_codec
from loco_envs.loco import cards as loco_cards
from loco_envs.loco import observation as loco_observation
from loco_envs.moco import actions as moco_codec
from loco_envs.moco.cards import CARDS, FIRST_PLAYABLE, NUM_PLAYABLE, NUM_SUITS, VALUES
from loco_envs.moco.observation import SLICES as MOCO_SLICES
from loco_envs.moco.rules import PILE_LIMIT
from loco_envs.momo import actions as momo_codec
from loco_envs.momo.observation import CELL_FEATURES
from loco_envs.momo.observation import SLICES as MOMO_SLICES

__all__ = ["ACTION_FEATURES", "ActionFeatures", "loco_actions", "moco_actions", "momo_actions"]

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


def _player_count(obs: np.ndarray, sizes: dict[int, int], name: str, game: str,
                  counts: str) -> int:
    """The player count whose observations have ``obs``'s width; ``ValueError`` otherwise."""
    n = sizes.get(obs.shape[1])
    if n is None:
        raise ValueError(f"{name}: observations of size {obs.shape[1]}, {game} observes "
                         f"{sorted(sizes)} numbers ({counts})")
    return n


def moco_actions(obs: np.ndarray) -> np.ndarray:
    """``(N, 79 * 6)`` float32: the table above for each row of raw Moco! observations."""
    obs = np.asarray(obs, np.float32)
    rows = obs.shape[0]
    n = _player_count(obs, _MOCO_SIZES, "moco_actions", "Moco!", "2-5 players")
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
    n = _player_count(obs, _MOMO_SIZES, "momo_actions", "Loco Momo", "1-4 players")
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
    n = _player_count(obs, _LOCO_SIZES, "loco_actions", "LOCO", "2-10 players, L-01")
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


class ActionFeatures:
    """A feature set: its game, its width, its range and the function of raw observations.

    ``python`` is the numpy function above, the reference. Where the game has a compiled
    engine whose ``encode.features_batch`` writes the same arrays (bit for bit, held equal by
    ``tests/compiled``), :meth:`compute` runs that instead, its rows on numba's threads.
    """

    def __init__(self, env_id: str, size: int, limit: float,
                 python: Callable[[np.ndarray], np.ndarray], sizes: dict[int, int]):
        self.env_id = env_id
        self.size = size
        self.limit = limit  # every feature lies in [-limit, limit]
        self.python = python
        self.sizes = sizes  # observation width -> player count

    def compute(self, obs: np.ndarray) -> np.ndarray:
        """``(N, size)`` float32 features of ``(N, D)`` raw observations."""
        from loco_envs.compiled import ENGINES

        obs = np.asarray(obs, np.float32)
        package = ENGINES.get(self.env_id)
        if package is None or obs.ndim != 2 or obs.shape[1] not in self.sizes:
            return self.python(obs)  # its checks name what is wrong
        import importlib

        encode = importlib.import_module(f"{package}.encode")
        out = np.empty((obs.shape[0], self.size), np.float32)
        encode.features_batch(np.ascontiguousarray(obs), self.sizes[obs.shape[1]], out)
        return out


#: Feature sets by the name used after ``+`` in an ``obs_transform``. Moco!'s largest entry is
#: the gain: at most 5 chips of a suit times a change of at most 10, over 10.
ACTION_FEATURES: dict[str, ActionFeatures] = {
    "moco_actions": ActionFeatures("moco_v0", moco_codec.NUM_ACTIONS * MOCO_K, 5.0,
                                   moco_actions, _MOCO_SIZES),
    # Loco Momo: a change of picture value is at most the most points a picture can hold
    # (113, observation.MAX_POINTS) plus its potential, over 10.
    "momo_actions": ActionFeatures("momo_v0", momo_codec.NUM_ACTIONS * MOMO_K, 13.0,
                                   momo_actions, _MOMO_SIZES),
    # LOCO: the largest entry is the points shed, four +4s: 200 / 100.
    "loco_actions": ActionFeatures("loco_v0", loco_codec.NUM_ACTIONS * LOCO_K, 2.0,
                                   loco_actions, _LOCO_SIZES),
}
