"""Per-action features: what each legal move would do, computed from the mover's observation.

Why. A multilayer perceptron on a flat observation has to *learn* what a move does before it
can judge it: in Moco! a play's worth is a product of entries far apart in the vector (the
card's value minus the pile's, times the chips each player holds in that suit). Behaviour
cloning of ``moco/heuristic`` from the observation alone agrees with it on 57% of held-out
moves after six epochs; with these features appended, 76% (1,500 games of the heuristic,
``configs/moco_bc.yaml``'s network, measured once while writing this). The features are
arithmetic on the observation and nothing else, so a policy using them still acts on its own
observation and the mask; they are the game's facts (pile values after the move, whether it
ends the game, who leads then), not any bot's choice, and no features module imports a bot.

Each game with features defines them next to its rules, in ``loco_envs/<game>/features.py``
(a table of every entry in its docstring) as one :class:`ActionFeatures`, ``FEATURES``:
``loco_actions``, ``moco_actions``, ``momo_actions`` and ``mampfos_actions``. A policy opts
in through its ``obs_transform`` (``"log1p+moco_actions"``, :mod:`loco_envs.policy`): the
network's input is the transformed observation with ``NUM_ACTIONS x K`` feature entries
appended, and the policy file records the transform, so a ``ppo:`` agent computes the same
features when it plays.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

__all__ = ["ActionFeatures", "player_count"]


def player_count(obs: np.ndarray, sizes: dict[int, int], name: str, game: str,
                 counts: str) -> int:
    """The player count whose observations have ``obs``'s width; ``ValueError`` otherwise."""
    n = sizes.get(obs.shape[1])
    if n is None:
        raise ValueError(f"{name}: observations of size {obs.shape[1]}, {game} observes "
                         f"{sorted(sizes)} numbers ({counts})")
    return n


class ActionFeatures:
    """A feature set: its name, game, width, range and the function of raw observations.

    ``python`` is the game's numpy function, the reference. Where the game has a compiled
    engine whose ``encode.features_batch`` writes the same arrays (bit for bit, held equal by
    ``tests/compiled``), :meth:`compute` runs that instead, its rows on numba's threads;
    ``compiled=False`` says the engine has none (a few numpy operations a batch, as Los
    Mampfos' are, need none).
    """

    def __init__(self, name: str, env_id: str, size: int, limit: float,
                 python: Callable[[np.ndarray], np.ndarray], sizes: dict[int, int],
                 compiled: bool = True):
        self.name = name  # what follows "+" in an obs_transform
        self.env_id = env_id
        self.size = size
        self.limit = limit  # every feature lies in [-limit, limit]
        self.python = python
        self.sizes = sizes  # observation width -> player count
        self.compiled = compiled

    def compute(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``(N, size)`` float32 features of ``(N, D)`` raw observations, written into ``out``
        when given (an ``(N, size)`` float32 array or view: the columns of a wider input,
        :func:`loco_envs.policy.transform_observation`'s) and returned."""
        from loco_envs.compiled import ENGINES

        obs = np.asarray(obs, np.float32)
        if out is not None and (out.dtype != np.float32 or out.ndim != 2
                                or out.shape != (len(obs), self.size)):
            raise ValueError(f"{self.name} features of {len(obs)} observations go into a "
                             f"({len(obs)}, {self.size}) float32 array, not {out.dtype} "
                             f"{out.shape}")
        package = ENGINES.get(self.env_id) if self.compiled else None
        if package is None or obs.ndim != 2 or obs.shape[1] not in self.sizes:
            features = self.python(obs)  # its checks name what is wrong
            if out is None:
                return features
            out[...] = features
            return out
        encode = importlib.import_module(f"{package}.encode")
        if out is None:
            out = np.empty((obs.shape[0], self.size), np.float32)
        encode.features_batch(np.ascontiguousarray(obs), self.sizes[obs.shape[1]], out)
        return out
