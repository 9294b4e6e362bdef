"""``python -m loco_envs.compiled [ENV_ID ...]``: compile every compiled engine now.

numba compiles a function at its first call and keeps the machine code on disk
(``loco_envs.compiled._cache_dir``), so only the first process after an install or a change of
the engines' sources pays the compile time. This runs each engine's kernels once (a vector env
with every compiled bot, a step, its per-action features, two tournament games played whole)
and prints the seconds each took: the compile time, or the time to load it from the cache;
then one tiny decision of each search bot
(``<game>/ismcts`` and ``<game>/flatmc``, :mod:`loco_envs.compiled.ismcts`), whose kernels are
compiled per game (their playouts run that game's engine and bots), and prints their seconds
apart; then the trainer's kernels (:mod:`loco_envs.policy.folding`,
:mod:`loco_envs.policy.masked_softmax`). ``make test`` runs it
before the test workers start, so that they (and ``benchmarks.check`` after them) load the
engines and the search kernels instead of all compiling them at once.
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
    from loco_envs.policy import ACTION_FEATURES, transform_observation

    for features in ACTION_FEATURES.values():
        if features.env_id == env_id:  # into an array of their own, and into a network's input
            features.compute(vec.obs)
            transform_observation(vec.obs, f"none+{features.name}")
    from loco_envs.benchmarks import tournament as T  # whole games in one call (play_out)

    game_name = env_id.removesuffix("_v0")
    T.play(T.Tournament(env_id, 2, ("random", f"{game_name}/heuristic"), 2, 0), progress=False)
    return time.perf_counter() - start


def warm_search(env_id: str) -> float:
    """One decision of each search bot in ``env_id``, ISMCTS at two iterations and flat Monte
    Carlo at one round (their kernels compiled or loaded); the seconds it took."""
    start = time.perf_counter()
    game_name = env_id.removesuffix("_v0")
    for spec in (f"{game_name}/ismcts:iterations=2", f"{game_name}/flatmc:playouts=1"):
        _search_once(env_id, agents.make(spec))
    return time.perf_counter() - start


def _search_once(env_id: str, bot: agents.Bot) -> None:
    """``bot`` decides once, at the first decision of a game with two legal actions or more."""
    env = loco_envs.make(env_id, wrapped=False)
    env.reset(seed=0)
    game, rng = env.game, np.random.default_rng(0)
    while game.legal_mask().sum() < 2:  # a decision with one legal action is not searched
        game.apply(int(np.flatnonzero(game.legal_mask())[0]))
    seat = game.current_seat
    bot.act(game.view(seat), game.legal_mask(), rng)


def warm_folding() -> float:
    """The input folding's kernels (:mod:`loco_envs.policy.folding`: the trainer's folded first
    layers) on a tiny input; the seconds it took."""
    from loco_envs.policy.folding import find_folding

    start = time.perf_counter()
    inputs = np.repeat(np.eye(3, dtype=np.float32), 2, axis=1)  # columns in pairs
    folding = find_folding([inputs])
    folded, bias = folding.fold_weight(np.ones((2, 6), np.float32))
    folding.spread_gradient(folded, bias)
    folding.fold_rows(inputs)
    return time.perf_counter() - start


def warm_masked_softmax() -> float:
    """The trainer's masked softmax kernels (:mod:`loco_envs.policy.masked_softmax`) on a
    tiny batch; the seconds it took."""
    from loco_envs.policy.masked_softmax import masked_log_softmax, masked_log_softmax_grad

    start = time.perf_counter()
    logits, legal = np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32)
    log_probs, probs, entropy = masked_log_softmax(logits, legal)
    masked_log_softmax_grad(log_probs, None, entropy, probs, legal, log_probs, entropy)
    masked_log_softmax_grad(None, probs, None, probs, legal, log_probs, entropy)
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
        engine = warm(env_id)
        print(f"{env_id}: {engine:.1f} s, searches {warm_search(env_id):.1f} s", flush=True)
    print(f"input folding: {warm_folding():.1f} s, masked softmax: "
          f"{warm_masked_softmax():.1f} s", flush=True)


if __name__ == "__main__":
    main()
