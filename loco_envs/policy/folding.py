"""Input folding: a first layer that multiplies each distinct input column once.

Why. A network with action features reads an input far wider than what varies in it. LOCO's,
at 2 players, is 3,174 wide, but a slap's 12 features are its play's, a draw's "next seat"
feature is a pass's, a play's points are a constant, and most plays have no Swap or stacker
feature at all (``loco_envs/loco/features.py``): over 65,536 inputs of random play, 1,310
columns always hold one value (most of them 0) and the other 1,864 fall into 602 groups of
equal columns. A first layer ``y = x W^T + b`` over such an input equals

    y = x[:, keep] (W folded)^T + (b + W[:, fixed] @ values)

where ``W folded`` sums the weights of each group's columns into its first column's, and
``fixed`` are the columns that hold one value: the same products over a fraction of the
columns. The weights stay the full matrix (the exported policy, the optimiser's state and the
gradients are the flat layer's: the gradient of every column of a group is the group's), so
training with folding is the flat network's arithmetic in another order, not another network.

Which columns are equal is found, not assumed (:func:`find_folding`): from the inputs of
random legal play of the game at that player count (:func:`probe_inputs`). A state that no
probe reached may still tell two columns apart; every row is checked against what its folded
columns stand for (:meth:`InputFolding.fold_rows`), and a row that differs adds the product of
its difference with the full weights, so the result is exact for every input (float32
rounding apart: the sums are taken in another order).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

import numba
import numpy as np

import loco_envs.compiled  # noqa: F401  (numba's cache folder, before the first njit)
from loco_envs.policy.transforms import ACTION_FEATURES, transform_observation

__all__ = ["PAYS_BELOW", "PROBE_DECISIONS", "InputFolding", "find_folding", "folding_for",
           "probe_inputs"]

#: Decisions of random play whose inputs decide a game's folding (:func:`folding_for`).
PROBE_DECISIONS = 65_536
_PROBE_GAMES = 512
#: The largest share of the columns a folding may keep and still be used (:func:`folding_for`).
PAYS_BELOW = 0.5


@dataclass(frozen=True)
class InputFolding:
    """Which columns of a ``width``-wide input the folded layer multiplies.

    ``keep``: the first column of each group of equal, varying columns (ascending);
    ``source[j]``: where column ``j``'s value comes from in ``[x[:, keep], values]`` (the folded
    input, then the fixed values); ``fixed``: the columns that held one value in every probe, and
    ``values`` those values.
    """

    width: int
    keep: np.ndarray
    source: np.ndarray
    fixed: np.ndarray
    values: np.ndarray

    @property
    def folded_width(self) -> int:
        """How many columns the folded layer multiplies."""
        return int(self.keep.size)

    def fold_weight(self, weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(folded weight [out, folded_width], bias term [out])`` of a ``[out, width]``
        weight: each group's weights summed into its kept column, the fixed columns' products
        with their values as a bias."""
        weight = np.ascontiguousarray(weight, np.float32)
        folded = np.empty((weight.shape[0], self.folded_width), np.float32)
        bias = np.empty(weight.shape[0], np.float32)
        _fold_weight(weight, self.source, self.values, folded, bias)
        return folded, bias

    def spread_gradient(self, folded: np.ndarray, bias: np.ndarray) -> np.ndarray:
        """The gradient of the full ``[out, width]`` weight from those of :meth:`fold_weight`'s
        two results (its adjoint): a column gets its group's gradient, a fixed column its
        value times the bias term's."""
        weight = np.empty((folded.shape[0], self.width), np.float32)
        _spread_gradient(np.ascontiguousarray(folded, np.float32),
                         np.ascontiguousarray(bias, np.float32), self.source, self.values, weight)
        return weight

    def expand(self, folded: np.ndarray) -> np.ndarray:
        """The full ``[N, width]`` rows that ``[N, folded_width]`` folded rows stand for."""
        fixed = np.broadcast_to(self.values, (folded.shape[0], self.values.size))
        return np.concatenate([folded, fixed], axis=1)[:, self.source]

    def fold_rows(self, x: np.ndarray, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(x[:, keep], the rows of x that break the folding)`` of ``[N, width]`` float32
        rows, in one pass (compiled) on ``threads`` of numba's threads (the caller's share of
        the cores: the trainer passes torch's count): each row's folded columns are gathered
        and the row is compared with what they stand for."""
        x = np.ascontiguousarray(x, np.float32)
        part = np.empty((x.shape[0], self.folded_width), np.float32)
        copies, originals = self.copies
        previous = numba.get_num_threads()
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
        try:
            off = _fold_rows(x, self.keep, copies, originals, self.fixed, self.values, part)
        finally:
            numba.set_num_threads(previous)
        return part, np.flatnonzero(off)

    def refined(self, rows: np.ndarray) -> InputFolding:
        """This folding split where ``rows`` (``[N, width]``, rows that break it) tell its
        columns apart: a group's columns that differ in a row part, a fixed column that moves
        varies. Two stand-in rows hold this folding's groups and fixed values (a group's
        columns 0 in the first row and its own number in the second), so the result is the
        folding of every input this one was found from, and of ``rows``."""
        numbers = np.arange(1, self.folded_width + 1, dtype=np.float32)
        stand_in = self.expand(np.stack([np.zeros_like(numbers), numbers]))
        return find_folding([stand_in, np.asarray(rows, np.float32).reshape(-1, self.width)])

    @functools.cached_property
    def varying(self) -> np.ndarray:
        """The columns that are not fixed (each in a group of equal columns), ascending."""
        return np.flatnonzero(self.source < self.folded_width)

    @functools.cached_property
    def copies(self) -> tuple[np.ndarray, np.ndarray]:
        """``(copies, originals)``: the varying columns that are not kept, and the kept
        column each one equals."""
        varying = self.varying
        originals = self.keep[self.source[varying]]
        copy = originals != varying
        return varying[copy], originals[copy]

    def linear(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
               folded: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """``x @ weight.T + bias``, computed folded (``folded``: :meth:`fold_weight`'s result,
        when the caller keeps it); exact for every row, also those that break the folding."""
        folded_weight, bias_term = self.fold_weight(weight) if folded is None else folded
        part, off = self.fold_rows(x)
        out = part @ folded_weight.T + (bias + bias_term)
        if off.size:
            out[off] += (x[off] - self.expand(part[off])) @ weight.T
        return out


@numba.njit(cache=True, parallel=True, nogil=True)
def _fold_rows(x: np.ndarray, keep: np.ndarray, copies: np.ndarray, originals: np.ndarray,
               fixed: np.ndarray, values: np.ndarray, part: np.ndarray) -> np.ndarray:
    """:meth:`InputFolding.fold_rows`: ``part`` written, a row's flag set where it differs
    (every column compared, without a branch: faster here than stopping at the first)."""
    off = np.zeros(x.shape[0], np.bool_)
    for i in numba.prange(x.shape[0]):
        row, out = x[i], part[i]
        for c in range(keep.size):
            out[c] = row[keep[c]]
        differ = 0
        for t in range(copies.size):
            differ += row[copies[t]] != row[originals[t]]
        for t in range(fixed.size):
            differ += row[fixed[t]] != values[t]
        off[i] = differ > 0
    return off


@numba.njit(cache=True, nogil=True)
def _fold_weight(weight: np.ndarray, source: np.ndarray, values: np.ndarray, folded: np.ndarray,
                 bias: np.ndarray) -> None:
    """:meth:`InputFolding.fold_weight` into ``folded`` and ``bias``."""
    width = folded.shape[1]
    for o in range(weight.shape[0]):
        folded[o, :] = 0.0
        total = 0.0
        for j in range(weight.shape[1]):
            s = source[j]
            if s < width:
                folded[o, s] += weight[o, j]
            else:
                total += weight[o, j] * values[s - width]
        bias[o] = total


@numba.njit(cache=True, nogil=True)
def _spread_gradient(folded: np.ndarray, bias: np.ndarray, source: np.ndarray,
                     values: np.ndarray, weight: np.ndarray) -> None:
    """:meth:`InputFolding.spread_gradient` into ``weight``."""
    width = folded.shape[1]
    for o in range(weight.shape[0]):
        for j in range(weight.shape[1]):
            s = source[j]
            weight[o, j] = folded[o, s] if s < width else bias[o] * values[s - width]


def find_folding(batches: Iterable[np.ndarray]) -> InputFolding:
    """The folding of the inputs in ``batches`` (arrays ``[rows, width]``): columns equal in
    every row are one group, columns that hold one value in every row are fixed. Exact: the
    columns are compared as bytes, batch after batch, each batch splitting the groups."""
    labels = first = constant = None
    for batch in batches:
        batch = np.ascontiguousarray(batch, np.float32)
        if not batch.shape[0]:
            raise ValueError("find_folding: a batch without rows")
        if first is None:
            first, constant = batch[0].copy(), np.ones(batch.shape[1], bool)
            labels = np.zeros(batch.shape[1], np.int64)
        elif batch.shape[1] != first.size:
            raise ValueError(f"probe batches of widths {first.size} and {batch.shape[1]}")
        constant &= (batch == first).all(axis=0)
        labels = _split_groups(labels, batch)
    if first is None:
        raise ValueError("find_folding needs at least one batch of inputs")
    fixed = np.flatnonzero(constant)
    varying = np.flatnonzero(~constant)
    _, first_of, group = np.unique(labels[varying], return_index=True, return_inverse=True)
    keep = varying[first_of]
    order = np.argsort(keep)  # groups by their first column
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    source = np.empty(first.size, np.int64)
    source[varying] = rank[group.ravel()]
    source[fixed] = keep.size + np.arange(fixed.size)
    return InputFolding(int(first.size), keep[order], source, fixed,
                        first[fixed].astype(np.float32))


def _split_groups(labels: np.ndarray, batch: np.ndarray) -> np.ndarray:
    """``labels`` (dense group numbers of the columns) split by the columns' bytes in ``batch``.

    A column equal, byte for byte, to its group's first column stays in the group; only the
    others are sorted by their bytes (within their old groups). After the first batches few
    columns move, so a batch costs one comparison more than sorting all of them did."""
    bits = batch.view(np.uint32)
    _, head = np.unique(labels, return_index=True)
    moves = (bits != bits.take(head[labels], axis=1)).any(axis=0)
    if not moves.any():
        return labels
    moved = np.ascontiguousarray(bits[:, moves].T)  # a row a moved column
    as_bytes = moved.view(np.dtype((np.void, moved.shape[1] * 4)))[:, 0]
    split = np.zeros(labels.size, np.int64)  # 0: stays with its group's first column
    split[moves] = 1 + np.unique(as_bytes, return_inverse=True)[1].ravel()
    return np.unique(labels * (split.max() + 1) + split, return_inverse=True)[1].ravel()


def probe_inputs(env_id: str, num_players: int, obs_transform: str,
                 decisions: int = PROBE_DECISIONS, seed: int = 0) -> Iterable[np.ndarray]:
    """Batches of network inputs (``obs_transform`` of every seat's observation) from about
    ``decisions`` decisions of uniformly random legal play, seeded: the probes of
    :func:`folding_for`."""
    from loco_envs.agents import RandomBot
    from loco_envs.vector import make_vec

    vec = make_vec(env_id, _PROBE_GAMES, num_players=num_players, bots=[RandomBot()])
    every_game, by_the_bot = np.full(_PROBE_GAMES, -1), np.zeros(_PROBE_GAMES, np.int64)
    try:
        obs, _ = vec.reset(seed=seed)
        for _ in range(-(-decisions // _PROBE_GAMES)):
            yield transform_observation(obs, obs_transform)
            obs, *_ = vec.step(every_game, by_the_bot)  # the env's own random bot chooses
    finally:
        vec.close()


@functools.lru_cache(maxsize=32)
def folding_for(obs_transform: str, width: int) -> InputFolding | None:
    """The folding of ``width``-wide inputs of ``obs_transform``, from its game's probes (once a
    process), or ``None`` where folding does not pay: a transform without action features
    (each column of an observation is its own fact), or a folding that keeps more than
    :data:`PAYS_BELOW` of the columns (Loco Momo's features repeat little: 1,120 of 1,210 at
    2 players, where the check of every row costs more than the columns saved)."""
    features = obs_transform.partition("+")[2]
    if not features:
        return None
    feature_set = ACTION_FEATURES[features]
    players = feature_set.sizes.get(width - feature_set.size)
    if players is None:
        raise ValueError(f"input width {width} is no observation of {feature_set.env_id} plus "
                         f"its {feature_set.size} {features} features")
    folding = find_folding(probe_inputs(feature_set.env_id, players, obs_transform))
    return folding if folding.folded_width <= PAYS_BELOW * width else None
