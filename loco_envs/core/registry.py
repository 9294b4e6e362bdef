"""Which games exist, and how to build them (``make``, PettingZoo registration)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

from pettingzoo.utils import wrappers

#: env id -> (package holding the game, name of the game in PettingZoo's "loco/<name>-v0").
GAMES: dict[str, tuple[str, str]] = {
    "loco_v0": ("loco_envs.loco", "loco"),
    "moco_v0": ("loco_envs.moco", "moco"),
    "momo_v0": ("loco_envs.momo", "momo"),
    "mampfos_v0": ("loco_envs.mampfos", "mampfos"),
}

#: Reward given to an agent that makes an illegal move through the wrapped env.
ILLEGAL_MOVE_REWARD = -1.0


def available_envs() -> list[str]:
    """Ids of the games that exist in this installation, in the suite's order."""
    return [env_id for env_id, (package, _) in GAMES.items() if _exists(package + ".env")]


def _exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def raw_env_class(env_id: str) -> type:
    """The unwrapped environment class of ``env_id``."""
    if env_id not in available_envs():
        raise ValueError(f"unknown env id {env_id!r}; available: {available_envs()}")
    package, _ = GAMES[env_id]
    return importlib.import_module(package + ".env").raw_env


def wrap(raw: Any) -> Any:
    """PettingZoo's standard wrappers for turn-based games with action masks."""
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_MOVE_REWARD)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def make(env_id: str, wrapped: bool = True, **options: Any) -> Any:
    """Build a game: the wrapped AEC env, or the raw one with ``wrapped=False``."""
    raw = raw_env_class(env_id)(**options)
    return wrap(raw) if wrapped else raw


def pettingzoo_id(env_id: str) -> str:
    """``"loco_v0"`` -> ``"loco/loco-v0"``."""
    return f"loco/{GAMES[env_id][1]}-v0"


def register_with_pettingzoo() -> None:
    """Make ``pettingzoo.make("aec", "loco/<game>-v0")`` work, where PettingZoo has a registry."""
    try:
        from pettingzoo import register
    except ImportError:  # PettingZoo before its registry
        return
    for env_id in available_envs():
        package, _ = GAMES[env_id]
        register("aec", pettingzoo_id(env_id), entry_point=f"{package}.env:env")
