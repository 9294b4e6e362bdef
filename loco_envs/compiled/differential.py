"""The differential harness: a game's Python and compiled engines played side by side.

The contract between the two engines (:mod:`loco_envs.compiled`) is checked here at every
decision: the state dicts (hidden cards, piles and the generator's state included), the masks,
the observation rows, the per-action features, and at the end the ranks and scores. Actions come
from a seeded policy (uniform over the legal actions) or from a pair of bots, the Python one and
its compiled twin, whose choices must agree too. A mismatch raises ``AssertionError`` naming the
seed, the decision and the first field that differs.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from loco_envs.compiled import rng as R
from loco_envs.core.registry import raw_env_class

__all__ = ["BotPair", "CompiledModules", "compiled_modules", "differential_play"]


@dataclass(frozen=True)
class CompiledModules:
    """A game's compiled engine: its ``state``, ``engine`` and (when written) ``encode`` and
    ``bots`` modules."""

    state: ModuleType
    engine: ModuleType
    encode: ModuleType | None = None
    bots: ModuleType | None = None


def compiled_modules(env_id: str) -> CompiledModules:
    """The compiled modules of ``env_id`` (``loco_v0`` -> ``loco_envs.loco.compiled``)."""
    package = f"loco_envs.{env_id.split('_v')[0]}.compiled"

    def optional(name: str) -> ModuleType | None:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            return None

    return CompiledModules(importlib.import_module(f"{package}.state"),
                           importlib.import_module(f"{package}.engine"),
                           optional("encode"), optional("bots"))


@dataclass
class BotPair:
    """A Python bot and its compiled twin (``fn(s, cfg, i, mask, rng_state) -> action``); the
    harness asks both at every decision of the seats they play and requires the same action."""

    python: Any
    compiled: Callable[..., int]
    seats: Sequence[int] = field(default_factory=lambda: range(10))


def _first_difference(expected: Any, got: Any, path: str = "") -> str:
    if isinstance(expected, dict) and isinstance(got, dict):
        for key in expected.keys() | got.keys():
            if expected.get(key, "<missing>") != got.get(key, "<missing>"):
                return _first_difference(expected.get(key, "<missing>"),
                                         got.get(key, "<missing>"), f"{path}.{key}")
    return f"{path or 'value'}: python {expected!r}, compiled {got!r}"


def differential_play(env_id: str, options: dict[str, Any], seed: int, *, policy_seed: int = 0,
                      max_steps: int = 100_000, observers: str = "actor",
                      features: str | None = None, bots: Sequence[BotPair] = (),
                      modules: CompiledModules | None = None) -> int:
    """Play one game of ``env_id`` on both engines from ``seed``; return the decisions compared.

    ``observers``: ``"actor"`` compares the observation of the seat to act, ``"all"`` every
    seat's, ``"none"`` none. ``features``: a name of ``loco_envs.policy.ACTION_FEATURES`` to
    compare for the observed rows (needs ``encode.features``). ``bots``: bot pairs that choose
    the actions of their seats; other seats play uniformly at random from ``policy_seed``.
    """
    mods = modules or compiled_modules(env_id)
    env = raw_env_class(env_id)(**options)
    env.reset(seed=seed)
    game = env.game
    cfg = mods.state.config(options)
    s = mods.state.allocate(1, cfg)
    mods.engine.new_game(s, cfg, 0, seed)
    n = game.num_players
    mask = np.zeros(game.NUM_ACTIONS, np.int8)
    obs = np.zeros((1, env.observation_size()), np.float32)
    compute_features = None
    if features is not None:
        from loco_envs.policy import ACTION_FEATURES

        compute_features = ACTION_FEATURES[features]
        feats = np.zeros((1, compute_features.size), np.float32)
    policy = np.random.default_rng(policy_seed)
    bot_rng = np.random.default_rng([seed, 1])
    bot_state = np.zeros(R.STATE_WORDS, np.uint64)
    py_rng_state = np.zeros(R.STATE_WORDS, np.uint64)

    def fail(step: int, what: str) -> AssertionError:
        return AssertionError(f"{env_id} {options} seed {seed} policy {policy_seed}, "
                              f"decision {step}: {what}")

    for step in range(max_steps + 1):
        expected, got = game.state_dict(), mods.state.state_dict(s, 0, cfg)
        if expected != got:
            raise fail(step, "state dicts differ: " + _first_difference(expected, got))
        R.from_generator(game.rng, py_rng_state)
        if not np.array_equal(py_rng_state, s.rng[0]):
            raise fail(step, "generator states differ")
        if game.terminal:
            ranks, scores = np.zeros(n, np.int64), np.zeros(n, np.float64)
            mods.engine.final_ranks(s, cfg, 0, ranks)
            mods.engine.final_scores(s, cfg, 0, scores)
            if ranks.tolist() != list(game.final_ranks()):
                raise fail(step, f"ranks {game.final_ranks()} != {ranks.tolist()}")
            if scores.tolist() != [float(x) for x in game.final_scores()]:
                raise fail(step, f"scores {game.final_scores()} != {scores.tolist()}")
            return step
        if step == max_steps:
            return step
        mods.engine.legal_mask(s, cfg, 0, mask)
        if not np.array_equal(mask, game.legal_mask()):
            diff = np.flatnonzero(mask != game.legal_mask()).tolist()
            raise fail(step, f"masks differ at actions {diff}")
        seat = game.current_seat
        seen = {"actor": [seat], "all": range(n), "none": []}[observers]
        for viewer in seen:
            mods.encode.encode(s, cfg, 0, viewer, obs[0])
            if not np.array_equal(obs[0], env.encode(viewer)):
                diff = np.flatnonzero(obs[0] != env.encode(viewer)).tolist()
                raise fail(step, f"observations of seat {viewer} differ at {diff[:10]}")
            if compute_features is not None:
                mods.encode.features(obs, n, feats)
                if not np.array_equal(feats, compute_features.python(obs)):
                    raise fail(step, f"features of seat {viewer} differ")
        action = None
        for pair in bots:
            if seat in pair.seats:
                R.from_generator(bot_rng, bot_state)
                action = int(pair.python.act(game.view(seat), game.legal_mask(), bot_rng))
                twin = int(pair.compiled(s, cfg, 0, mask, bot_state))
                if twin != action:
                    raise fail(step, f"bot {pair.python.name}: python {action}, compiled {twin}")
                R.from_generator(bot_rng, py_rng_state)
                if not np.array_equal(py_rng_state, bot_state):
                    raise fail(step, f"bot {pair.python.name}: generator states differ")
                break
        if action is None:
            action = int(policy.choice(np.flatnonzero(mask)))
        game.apply(action)
        mods.engine.play(s, cfg, 0, action)
    return max_steps
