"""Start a PPO run from saved weights: a behaviour-cloned actor (and its value network).

:mod:`train.imitation` writes the actor as a data-only policy (``<name>.npz`` + ``.json``,
:mod:`agents.ppo`) and the value network fitted to the games' outcomes as
``<name>.value.npz`` (:func:`save_value`); every training checkpoint writes the same two
(:mod:`train.checkpoints`), so a run can start from another run's checkpoint with its critic.
:func:`warm_start` copies both into a fresh ``MaskablePPO`` model built by the trainer, layer
by layer; the trainer's ``init_policy`` config key names the file. The
network must have the run's shape (``net_arch``, ``activation``) and the policy the run's game,
player count and ``obs_transform``: anything else is a ``ValueError`` naming what differs.
Without the value file only the actor is copied (PPO's first updates then fit the value
network against a fixed, already good policy, and the actor's gradients are noisy meanwhile:
keep the learning rate low).

``init_policy`` may also name an imitation config (``*.yaml``, :mod:`train.imitation`): the
trainer then makes the clone itself before it trains (:func:`ensure_clone`), into the config's
``out`` or ``<runs_dir>/imitation/<config name>``, unless a clone made from that very config is
already there, which it reuses. So ``python -m train configs/loco_quick.yaml`` is one command
although the run starts from a clone (why: ``train/README.md``, the quick LOCO config's stall).
"""

from __future__ import annotations

import dataclasses
import io
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.core.files import atomic_write_bytes
from loco_envs.policy import load_policy, policy_paths

__all__ = ["CLONE_CONFIG_SUFFIXES", "check_clone_config", "check_compatible", "clone_args",
           "clone_record", "critic_of", "ensure_clone", "is_clone_config", "policy_of",
           "save_value", "value_path", "warm_start"]

#: An ``init_policy`` with one of these suffixes is an imitation config, not a policy file.
CLONE_CONFIG_SUFFIXES = (".yaml", ".yml")


def value_path(path: str | Path) -> Path:
    """``<name>.value.npz`` beside the policy ``<name>.npz``."""
    npz, _ = policy_paths(path)
    return npz.with_name(npz.stem + ".value.npz")


def save_value(path: str | Path, value: Any) -> Path:
    """The value network ``value`` (a module whose ``Linear`` layers, in order, are the critic's:
    the cloner's, or :func:`critic_of` a PPO model) as ``<path>.value.npz`` (``hidden_<i>_*``,
    ``value_*``), what :func:`warm_start` reads. Written atomically: a run reading it meanwhile
    sees a whole file."""
    import torch.nn as nn

    from loco_envs.train.torch_policy import linear_arrays

    layers = [linear_arrays(m) for m in value.modules() if isinstance(m, nn.Linear)]
    arrays = {}
    for i, (weight, bias) in enumerate(layers[:-1]):
        arrays[f"hidden_{i}_weight"], arrays[f"hidden_{i}_bias"] = weight, bias
    arrays["value_weight"], arrays["value_bias"] = layers[-1]
    out = value_path(path)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(out, buffer.getvalue())
    return out


def critic_of(model: Any) -> Any:
    """A PPO model's value network as one module: its extractor's ``value_net`` (a folded first
    layer holds the full weight) and the ``value_net`` head."""
    import torch.nn as nn

    return nn.Sequential(model.policy.mlp_extractor.value_net, model.policy.value_net)


def check_compatible(path: str | Path, env_id: str, env_options: dict[str, Any],
                     net_arch: list[int], activation: str, obs_transform: str,
                     feature_shortcut: bool = False, action_scorer: int = 0) -> None:
    """``ValueError`` unless the policy at ``path`` fits a run of this game and network."""
    policy, doc = load_policy(path)
    got = {"env_id": doc["env_id"],
           "env_options.num_players": doc["env_options"].get("num_players"),
           "layer_sizes": policy.layer_sizes, "activation": policy.activation,
           "obs_transform": policy.obs_transform,
           "feature_shortcut": policy.feature_shortcut,
           "action_scorer": doc.get("action_scorer", 0)}
    _compare(path, got, env_id, env_options, net_arch, activation, obs_transform,
             feature_shortcut, action_scorer)


def _compare(source: str | Path, got: dict[str, Any], env_id: str, env_options: dict[str, Any],
             net_arch: list[int], activation: str, obs_transform: str,
             feature_shortcut: bool, action_scorer: int) -> None:
    wanted = {"env_id": env_id, "env_options.num_players": env_options.get("num_players"),
              "layer_sizes": list(net_arch), "activation": activation,
              "obs_transform": obs_transform, "feature_shortcut": feature_shortcut,
              "action_scorer": action_scorer}
    for key, value in wanted.items():
        if got[key] != value:
            raise ValueError(f"config key 'init_policy': {source} has {key} {got[key]!r}, the "
                             f"run {value!r}")


def is_clone_config(init_policy: str | Path) -> bool:
    """Whether ``init_policy`` names an imitation config rather than a policy file."""
    return str(init_policy).endswith(CLONE_CONFIG_SUFFIXES)


def clone_args(config: str | Path, runs_dir: str | Path) -> Any:
    """The imitation config at ``config`` (``BCArgs``, validated), its ``out`` filled in."""
    from loco_envs.train.config import load_config
    from loco_envs.train.imitation import BCArgs, output_path

    try:
        args = load_config(config, BCArgs)
        args.exp_name = args.exp_name or Path(config).stem
        args.out = args.out or str(Path(runs_dir) / "imitation" / args.exp_name)
        args.out = str(output_path(args))  # as train.imitation writes it
        args.validate()
    except ValueError as exc:
        raise ValueError(f"config key 'init_policy': {exc}") from None
    except OSError as exc:  # e.g. a name too long for the file system
        raise ValueError(f"config key 'init_policy': {config}: {exc.strerror or exc}") from None
    return args


def check_clone_config(config: str | Path, runs_dir: str | Path, env_id: str,
                       env_options: dict[str, Any], net_arch: list[int], activation: str,
                       obs_transform: str, feature_shortcut: bool = False,
                       action_scorer: int = 0) -> None:
    """``ValueError`` unless the clone the imitation config at ``config`` makes fits the run."""
    bc = clone_args(config, runs_dir)
    got = {"env_id": bc.env_id, "env_options.num_players": bc.num_players,
           "layer_sizes": list(bc.net_arch), "activation": bc.activation,
           "obs_transform": bc.obs_transform, "feature_shortcut": bc.feature_shortcut,
           "action_scorer": bc.action_scorer}
    _compare(config, got, env_id, env_options, net_arch, activation, obs_transform,
             feature_shortcut, action_scorer)


def policy_of(init_policy: str | Path, runs_dir: str | Path) -> Path:
    """The policy file a warm start from ``init_policy`` reads (a clone config's ``out``)."""
    if is_clone_config(init_policy):
        return Path(clone_args(init_policy, runs_dir).out)
    return Path(init_policy)


def ensure_clone(config: str | Path, runs_dir: str | Path, log: Any = print) -> Path:
    """The clone the imitation config at ``config`` makes: made now, unless one is there.

    A policy at the clone's path is reused only when its provenance records this config, key
    for key, and its value network is beside it; anything else there is overwritten. The clone
    has its config's own seed, so the runs of every PPO seed start from the same one; two runs
    that make it at the same moment write the same files (a clone is a function of its config).
    """
    from loco_envs.train.imitation import run

    bc = clone_args(config, runs_dir)
    out = Path(bc.out)
    if _made_by(out, dataclasses.asdict(bc)):
        made = time.strftime("%Y-%m-%d %H:%M", time.localtime(policy_paths(out)[1].stat().st_mtime))
        log(f"warm start: the clone at {out} (made by {config}, {made}; delete it to make it "
            f"again, e.g. after the game's features changed)")
        return out
    log(f"warm start: cloning {bc.teacher} by {config} into {out}")
    return run(bc, log=log)


def clone_record(path: str | Path) -> dict[str, Any]:
    """What a run started from the policy at ``path`` records of it: its file and its own
    provenance (config, seed, decisions), taken when the run starts, so that the recipe stays
    true after the clone is made again. The trainer adds ``critic``: whether the value network
    was copied too."""
    _, doc = load_policy(path)
    start = doc.get("provenance", {})
    return {"policy": str(path), "config": start.get("config"), "seed": start.get("seed"),
            "decisions": start.get("decisions")}


def _made_by(out: Path, config: dict[str, Any]) -> bool:
    """Whether the clone at ``out`` was made by ``config``; its place (``out``) is not compared:
    ``python -m train.imitation`` alone records where it wrote."""
    if not policy_paths(out)[1].is_file() or not value_path(out).is_file():
        return False
    try:
        _, doc = load_policy(out)
    except ValueError:
        return False
    recorded = doc.get("provenance", {}).get("config", {})
    from loco_envs.train.imitation import BCArgs

    # a key a clone does not record did not exist yet: it was made with the key's default
    defaults = json.loads(json.dumps(dataclasses.asdict(BCArgs())))
    return all(recorded.get(key, defaults.get(key)) == json.loads(json.dumps(value))
               for key, value in config.items() if key != "out")


def warm_start(model: Any, path: str | Path) -> bool:
    """Copy the actor at ``path`` (and its value network, if saved) into ``model.policy``.

    Returns whether the value network was copied too.
    """
    import torch

    from loco_envs.train.networks import copy_linears, load_actor

    policy, _ = load_policy(path)
    sb3 = model.policy
    extractor = sb3.mlp_extractor
    actor_layers = [m for m in extractor.policy_net if isinstance(m, torch.nn.Linear)]
    value_file = value_path(path)
    try:
        load_actor(policy, actor_layers, sb3.action_net, getattr(extractor, "scores", None),
                   getattr(extractor, "scorer", None))
        if value_file.is_file():  # the layers save_value wrote, in the same order
            critic = [m for m in critic_of(model).modules() if isinstance(m, torch.nn.Linear)]
            with np.load(value_file, allow_pickle=False) as data:
                hidden = [(data[f"hidden_{i}_weight"], data[f"hidden_{i}_bias"])
                          for i in range(len(critic) - 1)]
                copy_linears([*zip(critic, [*hidden, (data["value_weight"], data["value_bias"])],
                                   strict=True)])
    except ValueError as exc:
        raise ValueError(f"config key 'init_policy': {path} does not fit the run's network: "
                         f"{exc}") from None
    return value_file.is_file()
