"""Start a PPO run from saved weights: a behaviour-cloned actor (and its value network).

:mod:`train.imitation` writes the actor as a data-only policy (``<name>.npz`` + ``.json``,
:mod:`agents.ppo`) and the value network fitted to the games' outcomes as
``<name>.value.npz``. :func:`warm_start` copies both into a fresh ``MaskablePPO`` model built
by the trainer, layer by layer; the trainer's ``init_policy`` config key names the file. The
network must have the run's shape (``net_arch``, ``activation``) and the policy the run's game,
player count and ``obs_transform``: anything else is a ``ValueError`` naming what differs.
Without the value file only the actor is copied (PPO's first updates then fit the value
network against a fixed, already good policy, and the actor's gradients are noisy meanwhile:
keep the learning rate low).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.agents.ppo import load_policy, policy_paths, shortcut_scores

__all__ = ["check_compatible", "value_path", "warm_start"]


def value_path(path: str | Path) -> Path:
    """``<name>.value.npz`` beside the policy ``<name>.npz``."""
    npz, _ = policy_paths(path)
    return npz.with_name(npz.stem + ".value.npz")


def check_compatible(path: str | Path, env_id: str, env_options: dict[str, Any],
                     net_arch: list[int], activation: str, obs_transform: str,
                     feature_shortcut: bool = False) -> None:
    """``ValueError`` unless the policy at ``path`` fits a run of this game and network."""
    policy, doc = load_policy(path)
    wanted = {"env_id": env_id, "env_options.num_players": env_options.get("num_players"),
              "layer_sizes": list(net_arch), "activation": activation,
              "obs_transform": obs_transform, "feature_shortcut": feature_shortcut}
    got = {"env_id": doc["env_id"],
           "env_options.num_players": doc["env_options"].get("num_players"),
           "layer_sizes": policy.layer_sizes, "activation": policy.activation,
           "obs_transform": policy.obs_transform,
           "feature_shortcut": policy.feature_shortcut}
    for key, value in wanted.items():
        if got[key] != value:
            raise ValueError(f"config key 'init_policy': {path} has {key} {got[key]!r}, the run "
                             f"{value!r}")


def warm_start(model: Any, path: str | Path) -> bool:
    """Copy the actor at ``path`` (and its value network, if saved) into ``model.policy``.

    Returns whether the value network was copied too.
    """
    import torch

    policy, _ = load_policy(path)
    sb3 = model.policy
    actor_layers = [m for m in sb3.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    weight, bias = policy.action
    if policy.feature_shortcut:  # the hidden part to the action layer, the rest per action
        hidden = sb3.action_net.in_features
        sb3.mlp_extractor.scores.set_effective(shortcut_scores(weight[:, hidden:]))
        weight = weight[:, :hidden]
    pairs = list(zip(actor_layers, policy.hidden, strict=False)) + [(sb3.action_net,
                                                                     (weight, bias))]
    if len(actor_layers) != len(policy.hidden):
        raise ValueError(f"config key 'init_policy': {path} has {len(policy.hidden)} hidden "
                         f"layers, the run's network {len(actor_layers)}")
    value_file = value_path(path)
    if value_file.is_file():
        with np.load(value_file, allow_pickle=False) as data:
            value_layers = [m for m in sb3.mlp_extractor.value_net
                            if isinstance(m, torch.nn.Linear)]
            n = len(value_layers)
            hidden = [(data[f"hidden_{i}_weight"], data[f"hidden_{i}_bias"]) for i in range(n)]
            pairs += list(zip(value_layers, hidden, strict=True))
            pairs.append((sb3.value_net, (data["value_weight"], data["value_bias"])))
    with torch.no_grad():
        for module, (weight, bias) in pairs:
            if tuple(module.weight.shape) != weight.shape or tuple(module.bias.shape) != \
                    bias.shape:
                raise ValueError(f"config key 'init_policy': layer of shape {weight.shape} in "
                                 f"{path}, the run's network has {tuple(module.weight.shape)}")
            module.weight.copy_(torch.from_numpy(np.asarray(weight, np.float32)))
            module.bias.copy_(torch.from_numpy(np.asarray(bias, np.float32)))
    return value_file.is_file()
