"""ISMCTS iterations on the compiled engines: the search tree as arrays, and a numba kernel.

:mod:`loco_envs.agents.ismcts` (the bot) keeps the part of an iteration that needs the Python
engine, the determinization (``game.resample(seat, rng)``, the one place that decides what a
seat may know), and writes each determinized game into a row of a compiled batch
(``<game>.compiled.state.write_game``). :func:`search` then runs, row after row, the rest of an
SO-ISMCTS iteration on that row inside numba: selection down the tree among the children legal
in the row, expansion of one untried action, the playout by a compiled bot (``bots.act``: the
random or the heuristic bot) up to ``depth`` decisions, the evaluation of where the playout
stopped (``<game>.compiled.search.evaluate``, the twin of ``loco_envs.<game>.search.evaluate``)
and the backup. A playout that took the Python engine 1 to 2 ms takes a few microseconds here,
so an iteration costs about what its determinization costs.

:func:`playouts` is the flat Monte-Carlo search's kernel (``<game>/flatmc``): no tree, each
row plays a given first move and then plays out, scored as the search's playouts are.

The tree (:class:`Tree`) is a set of arrays indexed by node, node 0 the root; a node's children
form a linked list (``first``, ``sibling``), each child holding the action that leads to it and
the seat that took it (its statistics are from that seat's point of view, so every seat plays
to its own ends). Several calls can grow one tree: the bot calls :func:`search` on a few rows
at a time while a time budget lasts.

Every random draw of the kernel (the untried action to expand, the random playout's moves)
comes from one ``uint64[6]`` generator state (:mod:`loco_envs.compiled.rng`) that the bot seeds
from the ``rng`` it is given, and chance inside a playout from the row's own generator (the
determinized game's): a search is reproducible under a seed.
"""

from __future__ import annotations

import importlib
import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from loco_envs.compiled import rng as R
from loco_envs.compiled.kernels import bot_act, legal_mask, play

__all__ = ["Tree", "evaluate", "grow", "new_tree", "playouts", "reset_tree", "search"]


class Tree(NamedTuple):
    """An ISMCTS tree of at most ``capacity`` nodes (node 0 the root, ``size[0]`` in use)."""

    first: np.ndarray  # (M,) int64: first child, -1 none
    sibling: np.ndarray  # (M,) int64: next child of the same parent, -1 none
    action: np.ndarray  # (M,) int64: the action that leads here (-1 at the root)
    seat: np.ndarray  # (M,) int64: the seat that took it
    visits: np.ndarray  # (M,) int64
    total: np.ndarray  # (M,) float64: sum of the rewards of ``seat`` over the visits
    avail: np.ndarray  # (M,) int64: visits of the parent in which this action was legal
    size: np.ndarray  # (1,) int64: nodes in use


def new_tree(capacity: int) -> Tree:
    """An empty tree (the root alone) with room for ``capacity`` nodes."""
    capacity = max(int(capacity), 1)
    tree = Tree(np.empty(capacity, np.int64), np.empty(capacity, np.int64),
                np.empty(capacity, np.int64), np.empty(capacity, np.int64),
                np.empty(capacity, np.int64), np.empty(capacity, np.float64),
                np.empty(capacity, np.int64), np.zeros(1, np.int64))
    reset_tree(tree)
    return tree


def reset_tree(tree: Tree) -> None:
    """Back to the root alone (the arrays are kept for the next decision)."""
    tree.size[0] = 1
    tree.first[0] = tree.sibling[0] = tree.action[0] = tree.seat[0] = -1
    tree.visits[0] = tree.avail[0] = 0
    tree.total[0] = 0.0


def grow(tree: Tree, capacity: int) -> Tree:
    """``tree`` with room for at least ``capacity`` nodes (itself if it has it already)."""
    size = tree.first.shape[0]
    if size >= capacity:
        return tree
    bigger = max(capacity, 2 * size)
    return Tree(*(np.concatenate([a, np.empty(bigger - size, a.dtype)]) for a in tree[:-1]),
                tree.size)


def root_children(tree: Tree) -> dict[int, tuple[int, float]]:
    """The root's children: action -> (visits, total reward of the seat that took it)."""
    out, child = {}, int(tree.first[0])
    while child >= 0:
        out[int(tree.action[child])] = (int(tree.visits[child]), float(tree.total[child]))
        child = int(tree.sibling[child])
    return out


# --- the game's evaluation, chosen by the state's type (as the kernels' calls) -------------------
def evaluate(s, cfg, i, out):
    """Rank rewards of row ``i`` as it stands, into ``out`` (compiled only: see the overload)."""
    raise NotImplementedError("compiled only")


@overload(evaluate, inline="always")
def _evaluate(s, cfg, i, out):
    package = s.instance_class.__module__.rsplit(".", 1)[0]
    fn = importlib.import_module(f"{package}.search").evaluate
    return lambda s, cfg, i, out: fn(s, cfg, i, out)


# --- the kernel ----------------------------------------------------------------------------------
@njit(cache=True)
def _add_child(tree, parent, action, seat):
    node = tree.size[0]
    tree.size[0] = node + 1
    tree.first[node] = -1
    tree.sibling[node] = tree.first[parent]
    tree.first[parent] = node
    tree.action[node] = action
    tree.seat[node] = seat
    tree.visits[node] = 0
    tree.total[node] = 0.0
    tree.avail[node] = 1
    return node


@njit(cache=True)
def _play_out(s, cfg, i, kind, depth, rng_state, mask, rewards):
    """Row ``i`` played on by the bot ``kind`` for at most ``depth`` decisions (-1: to the
    end), then every seat's rank reward as it stands into ``rewards``."""
    steps = 0
    while not s.terminal[i] and (depth < 0 or steps < depth):
        legal_mask(s, cfg, i, mask)
        play(s, cfg, i, bot_act(s, cfg, kind, i, mask, rng_state))
        steps += 1
    evaluate(s, cfg, i, rewards)


@njit(cache=True)
def _iterate(s, cfg, i, tree, c, kind, depth, rng_state, mask, child_of, path, rewards):
    """One iteration on row ``i`` (already a determinization): select, expand, play out,
    evaluate, back up. ``mask``, ``child_of`` (all -1), ``path`` and ``rewards`` are scratch."""
    num_actions = mask.shape[0]
    node = 0
    length = 0
    while not s.terminal[i]:  # selection and expansion
        legal_mask(s, cfg, i, mask)
        actor = np.int64(s.actor[i])
        child = tree.first[node]
        while child >= 0:
            child_of[tree.action[child]] = child
            child = tree.sibling[child]
        untried = 0
        for a in range(num_actions):
            if mask[a]:
                if child_of[a] >= 0:
                    tree.avail[child_of[a]] += 1
                else:
                    untried += 1
        chosen = -1
        if untried > 0:  # expand one untried legal action, uniformly
            pick = R.integers(rng_state, untried)
            for a in range(num_actions):
                if mask[a] and child_of[a] < 0:
                    if pick == 0:
                        chosen = _add_child(tree, node, a, actor)
                        break
                    pick -= 1
        else:  # UCB1 with availability counts, the first best in action order
            best = -math.inf
            for a in range(num_actions):
                if mask[a]:
                    k = child_of[a]
                    value = tree.total[k] / tree.visits[k] + c * math.sqrt(
                        math.log(tree.avail[k]) / tree.visits[k])
                    if value > best:
                        best, chosen = value, k
        child = tree.first[node]
        while child >= 0:
            child_of[tree.action[child]] = -1
            child = tree.sibling[child]
        play(s, cfg, i, tree.action[chosen])
        path[length] = chosen
        length += 1
        node = chosen
        if untried > 0:
            break
    _play_out(s, cfg, i, kind, depth, rng_state, mask, rewards)
    tree.visits[0] += 1
    for j in range(length):  # backup, each node for the seat that moved into it
        node = path[j]
        tree.visits[node] += 1
        tree.total[node] += rewards[tree.seat[node]]


@njit(cache=True)
def search(s, cfg, rows, tree, c, kind, depth, rng_state, num_actions):
    """One ISMCTS iteration on each of rows ``0..rows-1`` of ``s`` (determinizations of the
    searching seat's information set), in order, growing ``tree``, which needs room for
    ``rows`` more nodes. ``kind`` is the playout bot (``<game>.compiled.bots.KINDS``),
    ``depth`` the playout's length before it is evaluated as it stands (-1: to the end)."""
    mask = np.zeros(num_actions, np.int8)
    child_of = np.full(num_actions, -1, np.int64)
    path = np.empty(tree.size[0] + rows, np.int64)
    rewards = np.zeros(cfg.num_players, np.float64)
    for i in range(rows):
        _iterate(s, cfg, i, tree, c, kind, depth, rng_state, mask, child_of, path, rewards)


@njit(cache=True)
def playouts(s, cfg, rows, first, seat, kind, depth, rng_state, num_actions, out):
    """Flat Monte Carlo: row ``i`` of ``0..rows-1`` (a determinization) plays ``first[i]``,
    then the bot ``kind`` plays on for at most ``depth`` decisions (-1: to the end);
    ``out[i]`` is ``seat``'s rank reward where it stopped."""
    mask = np.zeros(num_actions, np.int8)
    rewards = np.zeros(cfg.num_players, np.float64)
    for i in range(rows):
        play(s, cfg, i, first[i])
        _play_out(s, cfg, i, kind, depth, rng_state, mask, rewards)
        out[i] = rewards[seat]
