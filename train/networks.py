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

- :class:`MaskedMlpPolicy`: sb3-contrib's ``MlpPolicy`` with a faster masked distribution
  (below); the trainer's policy without the shortcut.
- :class:`ShortcutPolicy`: :class:`MaskedMlpPolicy` with the shortcut
  (``policy_kwargs={"feature_shortcut": A * K}``).
- :func:`build_actor`: the same actor for behaviour cloning (:mod:`train.imitation`).

The input is the transformed observation with the features last, as the self-play env and the
cloning data give it, so the features are its last A x K entries, action-major.

The masked distribution (:class:`MaskedCategorical`). sb3-contrib sets an illegal action's
logit to -1e8, and torch's ``exp`` of a number below about -88 takes a slow path: 2.9 ms
against 0.2 ms for 512 x 242 logits here. With most of LOCO's 242 actions illegal at any
decision, the exponentials took a quarter of the PPO update's time; computed on the legal
logits only, the update of ``loco_quick`` takes 0.38 s a rollout instead of 0.51 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from sb3_contrib.common.maskable.distributions import (
    MaskableCategorical,
    MaskableCategoricalDistribution,
)
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn
from torch.distributions.utils import lazy_property

__all__ = ["FeatureScores", "MaskedCategorical", "MaskedCategoricalDistribution",
           "MaskedMlpPolicy", "ShortcutActor", "ShortcutExtractor", "ShortcutPolicy",
           "build_actor"]

#: The log-probability an illegal action is given (sb3-contrib's masked logit).
ILLEGAL_LOG_PROB = -1e8


class MaskedCategorical(MaskableCategorical):
    """sb3-contrib's ``MaskableCategorical`` (same probabilities, same interface, sampled
    by ``torch.multinomial`` as there), computed without exponentials of masked logits.

    The legal logits are shifted by their maximum, the illegal ones replaced by 0 *before*
    ``exp`` and the results multiplied by the mask, so every exponential takes torch's fast path
    and an illegal action's probability is exactly 0. sb3-contrib normalises the logits twice
    (before and after masking) and exponentiates the masked ones three times per evaluation
    (log-sum-exp, its gradient, the softmax). The values agree with it to float32 rounding;
    the gradients too, except that an illegal action's logit gets exactly none here, where
    sb3-contrib's first normalisation leaks rounding noise of about 1e-8 into it. So a run is
    not bit for bit the run sb3-contrib's distribution gives, only within rounding of it: the
    sampled actions, drawn from the same generator, are the same ones nearly always.

    Made from logits only (``MaskedCategorical(logits, masks)``), and without argument
    validation, which sb3-contrib's runs on every distribution: a NaN logit gives NaN
    probabilities (``sample`` then raises; a loss becomes NaN), and ``log_prob`` of an action
    outside the support is not caught. A row without any legal action has no distribution
    (NaN probabilities; sb3-contrib's is uniform over all actions); the games never ask a seat
    to act without one.
    """

    def __init__(self, logits: torch.Tensor, masks: Any = None):
        self.masks = None
        self._original_logits = logits
        self._param = logits
        self._num_events = logits.size(-1)
        torch.distributions.Distribution.__init__(self, logits.shape[:-1], validate_args=False)
        if masks is not None:
            self.apply_masking(masks)

    @lazy_property
    def logits(self) -> torch.Tensor:
        """Unmasked: normalised only when read (the policy masks every distribution it makes
        right after making it)."""
        return self._original_logits - self._original_logits.logsumexp(dim=-1, keepdim=True)

    def apply_masking(self, masks: Any) -> None:
        logits = self._original_logits
        if masks is None:
            self.masks = None
            self.__dict__.pop("logits", None)  # back to the lazy unmasked ones
            self.__dict__.pop("probs", None)
            return
        legal = torch.as_tensor(masks, dtype=torch.bool, device=logits.device)
        self.masks = legal = legal.reshape(logits.shape)
        with torch.no_grad():  # a constant shift: it cancels out of the probabilities
            top = logits.masked_fill(~legal, float("-inf")).amax(dim=-1, keepdim=True)
        shifted = torch.where(legal, logits - top, 0.0)
        weights = shifted.exp() * legal
        total = weights.sum(dim=-1, keepdim=True)
        self.probs = weights / total
        self.logits = torch.where(legal, shifted - total.log(), ILLEGAL_LOG_PROB)


class MaskedCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution over :class:`MaskedCategorical`."""

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedCategoricalDistribution:
        self.distribution = MaskedCategorical(action_logits.view(-1, self.action_dim))
        return self


class MaskedMlpPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's ``MlpPolicy`` (the same networks) with :class:`MaskedCategorical` for its
    action distribution."""

    def _build(self, lr_schedule: Any) -> None:
        self.action_dist = MaskedCategoricalDistribution(int(self.action_space.n))
        super()._build(lr_schedule)


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


class ShortcutPolicy(MaskedMlpPolicy):
    """:class:`MaskedMlpPolicy` with the feature shortcut (saved and loaded by SB3 with
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
