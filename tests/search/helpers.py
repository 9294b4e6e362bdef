"""Random positions of every game, for the search tests."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

import loco_envs

#: (env id, player counts, extra options) covered by the tests.
CASES = [
    ("loco_v0", n, {}) for n in (2, 3, 4, 6, 10)
] + [("moco_v0", n, {}) for n in (2, 3, 4, 5)] + [
    ("moco_v0", 3, {"match": True}), ("momo_v0", 1, {}), ("momo_v0", 2, {}),
    ("momo_v0", 4, {"expansion_a": True, "expansion_b": True}),
] + [("mampfos_v0", n, {"memory": m}) for n in (2, 3, 5) for m in ("perfect", "recall")]


def case_id(case: tuple) -> str:
    env_id, n, opts = case
    return f"{env_id}-{n}p" + "".join(f"-{k}={v}" for k, v in opts.items())


def positions(env_id: str, n: int, opts: dict, count: int, seed: int = 0,
              max_steps: int = 300) -> Iterator:
    """``count`` games of a random playout (the same object, moved on between yields)."""
    env = loco_envs.make(env_id, wrapped=False, num_players=n, **opts)
    rng = np.random.default_rng(seed)
    episode, done = 0, 0
    while done < count:
        env.reset(seed=seed * 1000 + episode)
        episode += 1
        game, steps = env.game, 0
        while not game.terminal and steps < max_steps and done < count:
            yield game
            done += 1
            legal = np.flatnonzero(game.legal_mask())
            game.apply(int(legal[rng.integers(legal.size)]))
            steps += 1
