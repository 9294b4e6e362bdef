"""Torch networks with a *feature shortcut*: the action layer reads the action features too.

Why. With per-action features (:mod:`agents.features`) a move's logit should depend first on
its own few numbers (what the move does). Through hidden layers alone, a network must carry
every action's facts across one bottleneck of 128 units; the shortcut concatenates the raw
features to the last hidden layer, so the action layer can weigh them directly (a logit is
then a learned mix of the hidden state and of every action's features). The data-only policy
(:class:`agents.ppo.NumpyPolicy` with ``feature_shortcut``) computes the same, in numpy.

- :class:`ShortcutPolicy`: sb3-contrib's ``MaskableActorCriticPolicy`` with the shortcut in
  its actor (``policy_kwargs={"feature_shortcut": K}``, K the features' width).
- :func:`build_actor`: the same actor for behaviour cloning (:mod:`train.imitation`).

The input is the transformed observation with the features last, as the self-play env and the
cloning data give it, so the features are its last K entries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

__all__ = ["ShortcutActor", "ShortcutExtractor", "ShortcutPolicy", "build_actor"]


def _with_features(hidden: torch.Tensor, inputs: torch.Tensor, width: int) -> torch.Tensor:
    if not width:
        return hidden
    return torch.cat([hidden, inputs[:, inputs.shape[1] - width:]], dim=1)


class ShortcutExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent ends with the last ``shortcut`` inputs."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module],
                 device: Any, shortcut: int):
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.shortcut = shortcut
        self.latent_dim_pi += shortcut

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return _with_features(self.policy_net(features), features, self.shortcut)


class ShortcutPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`ShortcutExtractor` (saved and loaded by SB3
    with its ``feature_shortcut``, so ``--resume`` rebuilds the same network)."""

    def __init__(self, *args: Any, feature_shortcut: int, **kwargs: Any):
        if feature_shortcut < 1:
            raise ValueError(f"feature_shortcut must be a positive width, got {feature_shortcut}")
        self.feature_shortcut = feature_shortcut
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ShortcutExtractor(self.features_dim, self.net_arch,
                                               self.activation_fn, self.device,
                                               self.feature_shortcut)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(),
                "feature_shortcut": self.feature_shortcut}


class ShortcutActor(nn.Module):
    """Hidden layers, then an action layer over them and the last ``shortcut`` inputs."""

    def __init__(self, body: nn.Sequential, head: nn.Linear, shortcut: int):
        super().__init__()
        self.body, self.head, self.shortcut = body, head, shortcut

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.head(_with_features(self.body(inputs), inputs, self.shortcut))


def build_actor(input_size: int, num_actions: int, net_arch: Sequence[int],
                activation: type[nn.Module], shortcut: int = 0) -> ShortcutActor:
    """The actor :class:`ShortcutPolicy` builds (or SB3's plain one, with ``shortcut=0``)."""
    layers: list[nn.Module] = []
    width = input_size
    for size in net_arch:
        layers += [nn.Linear(width, size), activation()]
        width = size
    return ShortcutActor(nn.Sequential(*layers), nn.Linear(width + shortcut, num_actions),
                         shortcut)
