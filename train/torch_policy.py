"""The torch side of a policy: the one MLP builder and the one exporter to numpy.

Why one of each. The local trainer (SB3's ``MlpExtractor`` with :mod:`train.networks`), the
behaviour cloner (:mod:`train.imitation`) and the RLlib module (:mod:`train.rllib`) all train
the same actor: hidden ``Linear`` layers with one activation, then the action layer, optionally
with the per-action feature scores (:class:`train.networks.FeatureScores`). That is exactly the
layout of the data-only :class:`loco_envs.policy.NumpyPolicy`, so every trainer builds its
networks with :func:`mlp` and exports its actor with :func:`to_numpy_policy`: a policy file
holds the same arrays whoever wrote it, and a change to the layout is made once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from torch import nn

from loco_envs.policy import NumpyPolicy, expand_shortcut

__all__ = ["DEVICES", "from_sb3", "linear_arrays", "mlp", "resolve_device", "to_numpy_policy"]

#: The values of the trainers' ``device`` key.
DEVICES = ("auto", "cpu", "cuda")

#: The activation modules a policy file can name (subclasses too: ``train.networks.Tanh``).
_NAMES: dict[type[nn.Module], str] = {nn.Tanh: "tanh", nn.ReLU: "relu"}


def resolve_device(device: str) -> str:
    """The torch device a trainer's ``device`` key names: ``auto`` is ``cuda`` when torch sees a
    GPU, else ``cpu``. ``ValueError`` naming 'device' for another value, or for ``cuda`` where
    torch sees none (a run that asked for the GPU must not quietly take hours on the CPU).
    Whatever the device, the exported policy is numpy on the CPU (:func:`linear_arrays`)."""
    if device not in DEVICES:
        raise ValueError(f"config key 'device' must be one of {list(DEVICES)}, got {device!r}")
    if device == "cpu":
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise ValueError("config key 'device' is 'cuda', but torch sees no GPU "
                         "(torch.cuda.is_available() is False): use 'auto' or 'cpu'")
    return "cpu"


def mlp(widths: Sequence[int], activation: type[nn.Module]) -> nn.Sequential:
    """``Linear(widths[0], widths[1])``, ``activation()``, ... for each hidden layer: the body of
    an actor or a critic (its output layer is the caller's)."""
    layers: list[nn.Module] = []
    for fan_in, fan_out in zip(widths, widths[1:], strict=False):
        layers += [nn.Linear(fan_in, fan_out), activation()]
    return nn.Sequential(*layers)


def linear_arrays(layer: nn.Linear) -> tuple[np.ndarray, np.ndarray]:
    """A ``Linear`` layer's weight and bias as float32 numpy copies."""
    return tuple(t.detach().cpu().numpy().astype(np.float32).copy()
                 for t in (layer.weight, layer.bias))


def to_numpy_policy(body: Iterable[nn.Module], head: nn.Linear, obs_transform: str,
                    scores: Any = None, scorer: Any = None) -> NumpyPolicy:
    """The actor ``head(body(x))`` (plus ``scores``, the per-action feature weights of
    :class:`train.networks.FeatureScores`, or ``scorer``, a
    :class:`train.networks.ActionScorer`, when given) as a :class:`NumpyPolicy` with the same
    logits; ``ValueError`` for a layer the format cannot hold or mixed activations."""
    hidden: list[tuple[np.ndarray, np.ndarray]] = []
    activation = None
    for module in body:
        name = next((n for kind, n in _NAMES.items() if isinstance(module, kind)), None)
        if isinstance(module, nn.Linear):
            hidden.append(linear_arrays(module))
        elif name is not None:
            if activation not in (None, name):
                raise ValueError("mixed activations are not supported")
            activation = name
        else:
            raise ValueError(f"unsupported layer in the policy network: {module}")
    weight, bias = linear_arrays(head)
    if scores is not None:
        weight = np.concatenate([weight, expand_shortcut(scores.effective())], axis=1)
    return NumpyPolicy(hidden, (weight, bias), activation or "tanh", obs_transform,
                       scores is not None, None if scorer is None else scorer.arrays())


def from_sb3(policy: Any, obs_transform: str) -> NumpyPolicy:
    """The actor of a ``MaskableActorCriticPolicy`` with an MLP extractor (the trainer's)."""
    from stable_baselines3.common.torch_layers import FlattenExtractor

    extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
    if not isinstance(extractor, FlattenExtractor):
        raise ValueError(f"only flat observations are supported, got {type(extractor)}")
    return to_numpy_policy(policy.mlp_extractor.policy_net, policy.action_net, obs_transform,
                           getattr(policy.mlp_extractor, "scores", None),
                           getattr(policy.mlp_extractor, "scorer", None))

