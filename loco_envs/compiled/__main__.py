"""``python -m loco_envs.compiled [ENV_ID ...]``: compile every compiled engine now.

numba compiles a function at its first call and keeps the machine code on disk
(``loco_envs.compiled._cache_dir``), so only the first process after an install or a change of
the engines' sources pays the compile time. This runs each engine's kernels once (a vector env
with every compiled bot, a step, its per-action features) and prints the seconds each took:
the compile time, or the time to load it from the cache. ``make test`` runs it before the test
workers start, so that they load the engines instead of all compiling them at once.
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

import loco_envs
from loco_envs import agents
from loco_envs.compiled import ENGINES
from loco_envs.compiled import rng as R


def warm(env_id: str) -> float:
    """Run every kernel of ``env_id``'s compiled engine once; the seconds it took."""
    start = time.perf_counter()
    package = ENGINES[env_id]
    kinds = importlib.import_module(f"{package}.bots").KINDS
    bots = [agents.make(spec) for spec in kinds]
    vec = loco_envs.make_vec(env_id, 2, engine="compiled", bots=bots)
    vec.reset(seed=0)
    for k in range(len(bots)):
        vec.step(np.full(2, -1), np.full(2, k))
        states = np.zeros((2, R.STATE_WORDS), np.uint64)
        for row in states:
            R.from_generator(np.random.default_rng(k), row)
        vec.bot_actions(bots[k], np.arange(2), states)
    vec.step(np.array([np.flatnonzero(m)[0] for m in vec.masks]))
    from loco_envs.policy import ACTION_FEATURES

    for features in ACTION_FEATURES.values():
        if features.env_id == env_id:
            features.compute(vec.obs)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("envs", nargs="*", default=list(ENGINES),
                        help=f"env ids (default: all with a compiled engine: {list(ENGINES)})")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.envs) - set(ENGINES))
    if unknown:
        parser.error(f"no compiled engine for {unknown}; compiled: {list(ENGINES)}")
    for env_id in args.envs:
        print(f"{env_id}: {warm(env_id):.1f} s", flush=True)


if __name__ == "__main__":
    main()
