"""Torch networks with a *feature shortcut*: each move's logit reads that move's own features.

Why. With per-action features (:mod:`agents.features`, K numbers for each of A actions) a
move's logit should depend first on what the move does. Through hidden layers alone, a network
must carry every action's facts across one bottleneck of 128 units (behaviour cloning of
``momo/heuristic`` then agrees with it on 89% of moves after 8 epochs, and a dense layer from
all A x K features to the logits learns no faster). The shortcut adds to each logit a learned
weighting of that action's own K features:

    logit[a] = (action layer of the last hidden layer)[a] + sum_k W[a, k] * features[a, k]

with ``W`` of shape (A, K), zero at the start. In the data-only policy
(:class:`agents.ppo.NumpyPolicy` with ``feature_shortcut``) it is the action layer's weight
over the features, block-diagonal (:func:`agents.ppo.expand_shortcut`), so numpy computes the
same logits.

- :class:`ShortcutPolicy`: sb3-contrib's ``MaskableActorCriticPolicy`` with the shortcut
  (``policy_kwargs={"feature_shortcut": A * K}``).
- :func:`build_actor`: the same actor for behaviour cloning (:mod:`train.imitation`).

The input is the transformed observation with the features last, as the self-play env and the
cloning data give it, so the features are its last A x K entries, action-major.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

__all__ = ["FeatureScores", "ShortcutActor", "ShortcutExtractor", "ShortcutPolicy",
           "build_actor"]


class FeatureScores(nn.Module):
    """``(N, A)``: each action's K features weighted by its own K weights (zero at first).

    The weights are stored divided by :data:`GAIN`: Adam moves a parameter by about the
    learning rate a step whatever its gradient, and features of size 0.1 need weights near 10
    to decide a move, which 1e-3 a step would take thousands of steps to reach.
    """

    GAIN = 20.0

    def __init__(self, num_actions: int, width: int):
        super().__init__()
        if width % num_actions:
            raise ValueError(f"feature_shortcut: {width} features are not K per each of "
                             f"{num_actions} actions")
        self.weight = nn.Parameter(torch.zeros(num_actions, width // num_actions))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        num_actions, k = self.weight.shape
        features = inputs[:, inputs.shape[1] - num_actions * k:]
        return (features.reshape(-1, num_actions, k) * self.weight).sum(dim=2) * self.GAIN

    def effective(self) -> Any:
        """The ``[A, K]`` weights the logits use (numpy)."""
        return (self.weight.detach().cpu() * self.GAIN).numpy().astype("float32")

    def set_effective(self, scores: Any) -> None:
        with torch.no_grad():
            self.weight.copy_(torch.as_tensor(scores, dtype=torch.float32) / self.GAIN)


class ShortcutExtractor(MlpExtractor):
    """SB3's ``MlpExtractor`` whose actor latent is the last hidden layer, then the A feature
    scores (``latent_dim_pi`` stays the hidden width: the action layer reads only that part)."""

    def __init__(self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module],
                 device: Any, num_actions: int, shortcut: int):
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.scores = FeatureScores(num_actions, shortcut).to(device)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features), self.scores(features)], dim=1)


class ShortcutPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the feature shortcut (saved and loaded by SB3 with
    its ``feature_shortcut``, so ``--resume`` rebuilds the same network)."""

    def __init__(self, *args: Any, feature_shortcut: int, **kwargs: Any):
        if feature_shortcut < 1:
            raise ValueError(f"feature_shortcut must be a positive width, got {feature_shortcut}")
        self.feature_shortcut = feature_shortcut
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ShortcutExtractor(self.features_dim, self.net_arch,
                                               self.activation_fn, self.device,
                                               int(self.action_space.n), self.feature_shortcut)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> Any:
        hidden = self.action_net.in_features
        logits = self.action_net(latent_pi[:, :hidden]) + latent_pi[:, hidden:]
        return self.action_dist.proba_distribution(action_logits=logits)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(),
                "feature_shortcut": self.feature_shortcut}


class ShortcutActor(nn.Module):
    """Hidden layers and an action layer, plus the feature scores when ``scores`` is given."""

    def __init__(self, body: nn.Sequential, head: nn.Linear, scores: FeatureScores | None):
        super().__init__()
        self.body, self.head, self.scores = body, head, scores

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        logits = self.head(self.body(inputs))
        return logits if self.scores is None else logits + self.scores(inputs)


def build_actor(input_size: int, num_actions: int, net_arch: Sequence[int],
                activation: type[nn.Module], shortcut: int = 0) -> ShortcutActor:
    """The actor :class:`ShortcutPolicy` builds (SB3's plain one with ``shortcut=0``)."""
    layers: list[nn.Module] = []
    width = input_size
    for size in net_arch:
        layers += [nn.Linear(width, size), activation()]
        width = size
    scores = FeatureScores(num_actions, shortcut) if shortcut else None
    return ShortcutActor(nn.Sequential(*layers), nn.Linear(width, num_actions), scores)
