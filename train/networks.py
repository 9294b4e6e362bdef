"""Torch networks with a *feature shortcut*: each move's logit reads that move's own features.

Why. With per-action features (:mod:`loco_envs.core.features`, K numbers for each of A actions) a
move's logit should depend first on what the move does. Through hidden layers alone, a network
must carry every action's facts across one bottleneck of 128 units (behaviour cloning of
``momo/heuristic`` then agrees with it on 89% of moves after 8 epochs, and a dense layer from
all A x K features to the logits learns no faster). The shortcut adds to each logit a learned
weighting of that action's own K features:

    logit[a] = (action layer of the last hidden layer)[a] + sum_k W[a, k] * features[a, k]

with ``W`` of shape (A, K), zero at the start. In the data-only policy
(:class:`loco_envs.policy.NumpyPolicy` with ``feature_shortcut``) it is the action layer's weight
over the features, block-diagonal (:func:`loco_envs.policy.expand_shortcut`), so numpy computes the
same logits.

- :class:`MaskedMlpPolicy`: sb3-contrib's ``MlpPolicy`` with a faster masked distribution
  (below); the trainer's policy without the shortcut.
- :class:`ShortcutPolicy`: :class:`MaskedMlpPolicy` with the shortcut
  (``policy_kwargs={"features_extractor_class": ActionFeatureLayout,
  "features_extractor_kwargs": {"features": A * K}}``), built through SB3's public members.
- :class:`ActionScorer` (``features_extractor_kwargs={"features": A * K, "action_scorer": h,
  "shortcut": bool}``): a network of width ``h`` shared by every action scores each move from
  its own K features and the state's embedding (beside the shortcut's per-action weights when
  ``shortcut``), and the hidden layers and the critic read the observation alone. LOCO's
  flat input is 3,174 wide, 2,904 of it action features; with a scorer of width 8 a decision
  costs a fifth of the multiply-adds (below).
- :func:`build_actor`: the same actor for behaviour cloning (:mod:`train.imitation`);
  :func:`actor_of`: a data-only policy back as that torch actor (frozen opponents on a GPU).
- :class:`Tanh`: ``nn.Tanh``, computed by numpy on the CPU (the trainer's and the cloner's
  ``tanh``).
- :class:`MaskedRolloutBuffer`: sb3-contrib's rollout buffer, giving the same minibatches
  without copying the rollout game-major or a minibatch a second time (the trainer's).

The input is the transformed observation with the features last, as the self-play env and the
cloning data give it, so the features are its last A x K entries, action-major.

The masked distribution (:class:`MaskedCategorical`). sb3-contrib sets an illegal action's
logit to -1e8, and torch's ``exp`` of a number below about -88 takes a slow path: 2.9 ms
against 0.2 ms for 512 x 242 logits here. With most of LOCO's 242 actions illegal at any
decision, the exponentials took a quarter of the PPO update's time; computed on the legal
logits only, the update of ``loco_quick`` takes 0.38 s a rollout instead of 0.51 s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor
from torch import nn
from torch.autograd.function import once_differentiable
from torch.distributions.utils import lazy_property

from loco_envs.policy import NumpyPolicy, shortcut_scores, transform_extra_size
from loco_envs.policy.folding import InputFolding, folding_for
from loco_envs.policy.masked_softmax import (
    ILLEGAL_LOG_PROB,
    masked_log_softmax,
    masked_log_softmax_grad,
)
from loco_envs.train.torch_policy import mlp

__all__ = ["ActionFeatureLayout", "ActionScorer", "ActionScoresExtractor", "FeatureScores",
           "FoldedExtractor", "FoldedLinear", "FoldedRows", "fold_first_layers", "fold_policy",
           "MaskedCategorical", "MaskedCategoricalDistribution", "MaskedMlpPolicy",
           "MaskedRolloutBuffer", "ObservationOnly", "ScoredActionLayer", "ShortcutActor",
           "ShortcutPolicy", "Tanh", "actor_of", "build_actor", "copy_linears", "load_actor",
           "rollout_folding"]



class _NumpyTanh(torch.autograd.Function):
    """``tanh`` of a CPU float tensor by numpy; the gradient is torch's (from the output)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        out = torch.from_numpy(np.tanh(x.detach().numpy()))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        (out,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, out)


class Tanh(nn.Tanh):
    """``nn.Tanh`` whose forward pass numpy computes for CPU float tensors.

    Why. torch 2.13's CPU ``tanh`` is not vectorised: 199 µs for 512 x 128 here, against 30 µs
    for numpy's SIMD one (and 34 µs for torch's own ``sigmoid``). A ``loco_quick`` rollout makes
    130 of them (4 a forward pass: two networks of two hidden layers), about 16 ms of its
    0.36 s. The values agree with ``torch.tanh`` to float32 rounding (a few units in the last
    place), the gradient is torch's ``tanh_backward`` of the output, as ``nn.Tanh``'s. Other
    devices and dtypes take ``torch.tanh``. A subclass, so ``isinstance(m, nn.Tanh)`` holds.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type != "cpu" or x.dtype not in (torch.float32, torch.float64):
            return torch.tanh(x)
        return _NumpyTanh.apply(x)


def _legal_masks(masks: Any, like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The legal-action masks as a bool tensor and a 0/1 tensor of ``like``'s dtype, shaped
    as ``like``. numpy makes both: torch's bool-to-float cast takes 85 µs for 512 x 242 here,
    numpy's 13 µs."""
    if isinstance(masks, torch.Tensor):
        masks = masks.detach().cpu().numpy()
    array = np.asarray(masks).reshape(like.shape)
    legal = array if array.dtype == np.bool_ else array != 0
    weights = legal.astype(torch.empty((), dtype=like.dtype).numpy().dtype)
    return (torch.from_numpy(legal).to(like.device),
            torch.from_numpy(weights).to(like.device))


def _compiled(*tensors: torch.Tensor) -> bool:
    """Whether the compiled kernels take these (CPU float32 tensors)."""
    return all(t.device.type == "cpu" and t.dtype == torch.float32 for t in tensors)


class _MaskedLogSoftmax(torch.autograd.Function):
    """``(log-probabilities, probabilities, entropy)`` of logits over the legal actions only.

    ``legal`` is 0/1 in the logits' dtype: every operation is float arithmetic, as torch's
    operations with a bool operand (``where``, ``masked_fill``, a product with a bool mask)
    are not vectorised on the CPU (120-210 µs for 512 x 242 against 15-25 µs). The gradient is
    written out (autograd took some 20 operations of 512 x 242 for it), the entropy's in closed
    form, ``dH/dz_k = -p_k (log p_k + H)``, and the work is done in place wherever a value is
    not needed again: a 512 x 242 tensor is half a MB, and a fresh one per operation cost
    more here than the arithmetic. An illegal action has probability exactly 0,
    log-probability :data:`ILLEGAL_LOG_PROB` and no gradient.

    CPU float32 tensors take the compiled kernels instead
    (:mod:`loco_envs.policy.masked_softmax`: one pass a row, where each torch operation above
    is a pass over the batch and, on two threads, a wake-up of torch's sleeping threads); the
    torch operations serve other devices and dtypes.
    """

    @staticmethod
    def forward(ctx: Any, logits: torch.Tensor,
                legal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        ctx.set_materialize_grads(False)
        if _compiled(logits, legal):
            log_probs, probs, entropy = map(torch.from_numpy, masked_log_softmax(
                logits.detach().numpy(), legal.numpy(), torch.get_num_threads()))
            ctx.save_for_backward(probs, legal, log_probs, entropy)
            return log_probs, probs, entropy
        illegal = legal.sub(1.0).mul_(-ILLEGAL_LOG_PROB)  # 0 where legal, ILLEGAL where not
        top = torch.addcmul(illegal, logits, legal).amax(dim=-1, keepdim=True)
        shifted = logits.sub(top).mul_(legal)  # <= 0 where legal, 0 where not: exp's fast path
        probs = shifted.exp().mul_(legal)
        total = probs.sum(dim=-1, keepdim=True)  # >= 1: the top legal action weighs 1
        probs.div_(total)
        log_probs = shifted.sub_(total.log_()).mul_(legal).add_(illegal)
        entropy = torch.linalg.vecdot(probs, log_probs).neg_()  # illegal terms 0 * ILLEGAL
        ctx.save_for_backward(probs, legal, log_probs, entropy)
        return log_probs, probs, entropy

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_log_probs: torch.Tensor | None, grad_probs: torch.Tensor | None,
                 grad_entropy: torch.Tensor | None) -> tuple[torch.Tensor | None, None]:
        probs, legal, log_probs, entropy = ctx.saved_tensors
        if grad_log_probs is None and grad_probs is None and grad_entropy is None:
            return None, None
        if _compiled(probs, legal):
            grads = (None if g is None else g.numpy()
                     for g in (grad_log_probs, grad_probs, grad_entropy))
            return torch.from_numpy(masked_log_softmax_grad(
                *grads, probs.numpy(), legal.numpy(), log_probs.numpy(), entropy.numpy(),
                torch.get_num_threads())), None
        parts = []
        if grad_log_probs is not None:  # d log p_i / d z_k = legal_i (delta_ik - p_k)
            part = grad_log_probs * legal
            parts.append(part.addcmul_(probs, part.sum(dim=-1, keepdim=True), value=-1.0))
        if grad_probs is not None:  # d p_i / d z_k = p_i (delta_ik - p_k)
            part = grad_probs * probs
            parts.append(part.addcmul_(probs, part.sum(dim=-1, keepdim=True), value=-1.0))
        if grad_entropy is not None:  # dH / d z_k = -p_k (log p_k + H)
            part = log_probs + entropy.unsqueeze(-1)
            parts.append(part.mul_(probs).mul_(grad_entropy.neg().unsqueeze(-1)))
        grad = parts[0]
        for part in parts[1:]:
            grad.add_(part)
        return grad, None


class MaskedCategorical(torch.distributions.Distribution):
    """sb3-contrib's ``MaskableCategorical`` (same probabilities, same interface: ``logits``,
    ``probs``, ``log_prob``, ``entropy``, ``sample``, ``apply_masking``), computed over the legal
    logits only, and sampled by inverse CDF. A distribution of its own (torch's public
    ``Distribution`` base), not a subclass of sb3-contrib's or torch's categorical, whose
    internals it would have to set.

    Masking (:class:`_MaskedLogSoftmax`): the legal logits are shifted by their maximum and the
    illegal ones replaced by 0 *before* ``exp`` and weighted 0 after it. sb3-contrib gives an
    illegal action the logit -1e8, whose ``exp`` takes torch's slow path (2.9 ms against 0.2 ms
    for 512 x 242 logits here), normalises twice (before and after masking) and leaves the
    gradient to autograd over bool masks. Here the masked distribution and its gradient take a
    handful of float operations. The first change took a ``loco_quick`` update from 0.51 s a
    rollout to 0.38 s (an earlier, slower host); the second, with :class:`Tanh`, to 0.79-0.86
    of the time before it (interleaved A/B of ``MaskablePPO.train`` on one rollout). The values
    agree with sb3-contrib's to float32 rounding; the gradients too, except that an illegal
    action's logit gets exactly none here, where sb3-contrib's first normalisation leaks
    rounding noise of about 1e-8 into it.

    :meth:`sample` draws one uniform number a row from torch's generator and takes the first
    action whose cumulative probability exceeds it, where ``torch.multinomial`` (sb3-contrib's
    draw) makes one exponential variate per action, one at a time: 0.85 ms for 128 x 242 here,
    against 0.08 ms. The same distribution, other draws: a seed gives another run than under
    sb3-contrib's distribution, as reproducible.

    Made from logits only (``MaskedCategorical(logits, masks)``), and without argument
    validation, which sb3-contrib's runs on every distribution: a NaN logit gives NaN
    probabilities (``sample`` then raises; a loss becomes NaN), and ``log_prob`` of an action
    outside the support is not caught. A row without any legal action has no distribution
    (NaN probabilities; sb3-contrib's is uniform over all actions); the games never ask a seat
    to act without one.
    """

    arg_constraints = {"logits": torch.distributions.constraints.real_vector}  # for repr only

    def __init__(self, logits: torch.Tensor, masks: Any = None):
        self.raw_logits = logits
        self.masks: torch.Tensor | None = None
        super().__init__(logits.shape[:-1], validate_args=False)
        if masks is not None:
            self.apply_masking(masks)

    @lazy_property
    def logits(self) -> torch.Tensor:
        """Unmasked: normalised only when read (the policy masks every distribution it makes
        right after making it)."""
        return self.raw_logits - self.raw_logits.logsumexp(dim=-1, keepdim=True)

    @lazy_property
    def probs(self) -> torch.Tensor:
        """Unmasked: the softmax of the logits, computed when read."""
        return torch.softmax(self.logits, dim=-1)

    def apply_masking(self, masks: Any) -> None:
        if masks is None:
            self.masks = None
            self.__dict__.pop("logits", None)  # back to the lazy unmasked ones
            self.__dict__.pop("probs", None)
            return
        self.masks, legal = _legal_masks(masks, self.raw_logits)
        self.logits, self.probs, self.masked_entropy = _MaskedLogSoftmax.apply(
            self.raw_logits, legal)

    def log_prob(self, value: torch.Tensor) -> torch.Tensor:
        """The log-probability of each row's action (``value`` broadcast against the batch)."""
        value, log_probs = torch.broadcast_tensors(value.long().unsqueeze(-1), self.logits)
        return log_probs.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """sb3-contrib's masked entropy (over the legal actions), computed with the
        probabilities."""
        if self.masks is None:  # torch's categorical entropy: a -inf logit weighs nothing
            logits = self.logits.clamp(min=torch.finfo(self.logits.dtype).min)
            return -(self.probs * logits).sum(dim=-1)
        return self.masked_entropy

    def sample(self, sample_shape: torch.Size = torch.Size()) -> torch.Tensor:  # noqa: B008
        """One action a row (by inverse CDF, see the class docstring); only an action of
        positive probability is drawn. A ``sample_shape`` takes ``torch.multinomial``."""
        sample_shape = torch.Size(sample_shape)
        if sample_shape != torch.Size():
            probs = self.probs.detach().reshape(-1, self.probs.shape[-1])
            draws = torch.multinomial(probs, sample_shape.numel(), replacement=True).t()
            return draws.reshape(sample_shape + self.batch_shape)
        with torch.no_grad():
            cdf = self.probs.cumsum(dim=-1)
            total = cdf[..., -1:]
            u = torch.rand(total.shape, dtype=cdf.dtype, device=cdf.device) * total
            u = torch.minimum(u, total.nextafter(torch.zeros_like(total)))  # below the top
            return torch.searchsorted(cdf, u, right=True).squeeze(-1)


class MaskedRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` giving the same minibatches with fewer copies.

    Why. Each copy of the rollout left out is time an update no longer spends:

    - SB3 stores the rollout step-major (``[steps, games, ...]``) and, before the first
      minibatch, copies every array game-major (``swap_and_flatten``). Here each array is
      only viewed flat, and the shuffled game-major positions are mapped to the step-major
      rows that hold them: the minibatches are the same, row for row. For LOCO's 1,024 x 8
      rollout the observations alone are 105 MB, copied once an update (a tenth of
      ``loco_quick``'s learning time under the profiler).
    - A minibatch's arrays are already fresh copies (``observations[batch_indices]``), and
      SB3 copies each once more with ``torch.tensor(array)``, whose conversion path is slow:
      1.3 ms for 512 x 3,174 observations in isolation against 0.18 ms for a plain copy. The
      tensors share the minibatch's own arrays instead, which nothing else holds.
    - With :meth:`fold_observations` (the trainer's, when its policy reads the input only
      through folded first layers: :func:`rollout_folding`) each observation is stored
      folded (:meth:`InputFolding.fold_rows`: LOCO's 602 distinct varying columns of 3,174),
      so a minibatch gathers a fifth of the bytes and the update folds nothing. A row that
      breaks the folding (a state the probes of random play never reached) is kept whole
      beside it; before the update the folding is refined by those rows
      (:meth:`InputFolding.refined`), the rollout stored again in the refined folding and the
      policy told (``on_refold``), so every minibatch is given folded and the rows that broke
      the folding once no longer do. Why: at 4 LOCO players about one row in 1,500 broke it,
      three minibatches of 2,048 in four held one, and giving them whole (expanded, then
      folded again by the policy) took half of the league run's time.
    """

    FIELDS = ("observations", "actions", "values", "log_probs", "advantages", "returns",
              "action_masks")
    folding: InputFolding | None = None
    on_refold: Callable[[InputFolding], None] | None = None

    def fold_observations(self, folding: InputFolding,
                          on_refold: Callable[[InputFolding], None] | None = None) -> None:
        """Store each observation folded by ``folding`` from the next rollout on (the buffer
        is emptied); the policy must take folded rows (:class:`FoldedLinear`), and
        ``on_refold`` (:func:`refold_policy`) makes it take those of a refined folding."""
        if self.device.type != "cpu":
            raise ValueError(f"a rollout is stored folded on the CPU only, not {self.device}")
        if self.obs_shape != (folding.width,):
            raise ValueError(f"a folding of {folding.width}-wide inputs for observations "
                             f"shaped {self.obs_shape}")
        self.folding, self.on_refold = folding, on_refold
        self.obs_shape = (folding.folded_width,)
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.whole_rows: dict[int, np.ndarray] = {}  # flat row -> the observation, whole

    def add(self, obs: np.ndarray, *args: Any, **kwargs: Any) -> None:
        if self.folding is not None:
            part, off = self.folding.fold_rows(np.asarray(obs, np.float32).reshape(
                self.n_envs, self.folding.width), torch.get_num_threads())
            for game in off:
                self.whole_rows[self.pos * self.n_envs + int(game)] = np.array(obs[game])
            obs = part
        super().add(obs, *args, **kwargs)

    def _refine_folding(self) -> None:
        """The rollout stored again in the folding refined by its whole rows; the policy
        told (``on_refold``)."""
        refined = self.folding.refined(np.stack(list(self.whole_rows.values())))
        full = self.folding.expand(self.observations.reshape(-1, self.folding.folded_width))
        full[list(self.whole_rows)] = list(self.whole_rows.values())
        part, off = refined.fold_rows(full, torch.get_num_threads())
        assert not off.size, "a refined folding stands for the rows it was refined by"
        self.observations = part.reshape(self.buffer_size, self.n_envs, -1)
        self.folding, self.obs_shape, self.whole_rows = refined, (refined.folded_width,), {}
        self.on_refold(refined)

    def get(self, batch_size: int | None = None) -> Iterator[Any]:
        assert self.full, "the rollout is not complete"
        total = self.buffer_size * self.n_envs
        order = np.random.permutation(total)  # sb3-contrib's draw: game-major positions
        if not self.generator_ready and self.whole_rows and self.on_refold is not None:
            self._refine_folding()
        if not self.generator_ready:
            for name in self.FIELDS:
                array = self.__dict__[name]
                self.__dict__[name] = array.reshape(total, *(array.shape[2:] or (1,)))
            self.generator_ready = True
        game, step = np.divmod(order, self.buffer_size)
        rows = step * self.n_envs + game
        size = batch_size or total
        whole = np.zeros(total, np.bool_)
        whole[list(self.whole_rows)] = True
        for start in range(0, total, size):
            batch = rows[start:start + size]
            samples = self._get_samples(batch)
            kept_whole = np.flatnonzero(whole[batch])
            if kept_whole.size:  # a row the folding does not stand for: the batch whole
                observations = self.folding.expand(samples.observations.numpy())
                for i in kept_whole:
                    observations[i] = self.whole_rows[int(batch[i])]
                samples = samples._replace(observations=torch.from_numpy(observations))
            yield samples

    def to_torch(self, array: np.ndarray, copy: bool = True) -> torch.Tensor:
        return super().to_torch(array, copy=False)


class MaskedCategoricalDistribution(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical distribution over :class:`MaskedCategorical`."""

    def proba_distribution(self, action_logits: torch.Tensor) -> MaskedCategoricalDistribution:
        self.distribution = MaskedCategorical(action_logits.view(-1, self.action_dim))
        return self


class MaskedMlpPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's ``MlpPolicy`` (the same networks) with :class:`MaskedCategorical` for its
    action distribution.

    The distribution is swapped once sb3-contrib's constructor is done: its action layer is
    made by the distribution's ``proba_distribution_net``, which the subclass inherits
    unchanged, so the layer, its initialisation and the optimiser are sb3-contrib's own, and
    no private build step is overridden.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.action_dist = MaskedCategoricalDistribution(int(self.action_space.n))


class _FoldWeight(torch.autograd.Function):
    """``(folded weight, bias term)`` of a CPU float32 weight by
    :meth:`InputFolding.fold_weight`, the gradient by its adjoint
    (:meth:`InputFolding.spread_gradient`): one compiled pass each way, where torch's column
    gathers, scatters and zero fills took a quarter of a folded minibatch's time."""

    @staticmethod
    def forward(ctx: Any, weight: torch.Tensor, folding: InputFolding
                ) -> tuple[torch.Tensor, torch.Tensor]:
        ctx.folding = folding
        folded, bias = folding.fold_weight(weight.detach().numpy())
        return torch.from_numpy(folded), torch.from_numpy(bias)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_folded: torch.Tensor | None, grad_bias: torch.Tensor | None
                 ) -> tuple[torch.Tensor, None]:
        folding = ctx.folding
        rows = grad_folded.shape[0] if grad_folded is not None else grad_bias.shape[0]
        if grad_folded is None:
            grad_folded = torch.zeros(rows, folding.folded_width)
        if grad_bias is None:
            grad_bias = torch.zeros(rows)
        return torch.from_numpy(folding.spread_gradient(grad_folded.numpy(),
                                                        grad_bias.numpy())), None


class FoldedLinear(nn.Linear):
    """``nn.Linear`` over an input with repeated and fixed columns, computed folded
    (:mod:`loco_envs.policy.folding`): the product reads each group of equal columns once and
    the fixed columns enter as a bias. The parameters are the full layer's, and so are the
    values (float32 rounding aside) and the gradients of the weight and bias: a group's
    columns each get the group's gradient, as in the full product. Each row is checked, and a
    row that breaks the folding adds its difference times the full weight, so any input gives
    the full layer's result. An input that needs a gradient of its own (an input no trainer
    here gives) takes the full product.

    Why. LOCO's 3,174-wide input at 2 players has 602 distinct varying columns; the first
    layers of the actor and critic made most of a PPO update's multiply-adds.
    """

    @classmethod
    def adopting(cls, layer: nn.Linear, folding: InputFolding) -> FoldedLinear:
        """The folded layer with ``layer``'s own weight and bias (the same parameters: what
        the optimiser holds), made without drawing from torch's generator."""
        weight = layer.weight
        folded = nn.utils.skip_init(cls, layer.in_features, layer.out_features,
                                    bias=layer.bias is not None, device=weight.device)
        folded.weight, folded.bias = weight, layer.bias
        folded.refold(folding)
        return folded

    def refold(self, folding: InputFolding) -> None:
        """Fold by ``folding`` from now on (one of the same width: a refined one,
        :meth:`MaskedRolloutBuffer.fold_observations`); the parameters are untouched."""
        if folding.width != self.in_features:
            raise ValueError(f"a folding of {folding.width}-wide inputs for a layer reading "
                             f"{self.in_features}")
        self.folding = folding
        device = self.weight.device
        for name, array in (("keep", folding.keep), ("varying", folding.varying),
                            ("group", folding.source[folding.varying]),
                            ("source", folding.source),
                            ("fixed", folding.fixed)):
            self.register_buffer(name, torch.as_tensor(array, device=device), persistent=False)
        self.register_buffer("values", torch.as_tensor(folding.values, dtype=self.weight.dtype,
                                                       device=device), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.apply_folded(x, self.fold(x))

    def fold(self, x: torch.Tensor) -> FoldedRows | None:
        """The folded rows of ``x`` (``None`` for an input that needs a gradient of its own,
        an input no trainer here gives: the full product then gives it one); one call serves
        every folded layer of the same folding that reads ``x`` (:class:`FoldedExtractor`).
        An ``x`` of ``folded_width`` columns is taken as folded rows already (a rollout stored
        folded: :class:`MaskedRolloutBuffer`)."""
        rows = x.reshape(-1, x.shape[-1])
        if rows.shape[1] == self.folding.folded_width:  # folded already (the rollout's)
            if x.requires_grad:
                raise ValueError("folded rows cannot take a gradient of their own: give the "
                                 f"{self.folding.width}-wide input")
            return FoldedRows(rows, rows, torch.empty(0, dtype=torch.long, device=x.device))
        if rows.shape[1] != self.folding.width:
            raise ValueError(f"an input {rows.shape[1]} wide for a layer folded from "
                             f"{self.folding.width} columns to {self.folding.folded_width}")
        if x.requires_grad:
            return None
        if rows.device.type == "cpu" and rows.dtype == torch.float32:
            part, off = self.folding.fold_rows(rows.numpy(), torch.get_num_threads())
            return FoldedRows(rows, torch.from_numpy(part), torch.from_numpy(off))
        part = rows.index_select(1, self.keep)
        off = (rows != self._expand(part)).any(dim=-1).nonzero().squeeze(-1)
        return FoldedRows(rows, part, off)

    def _expand(self, part: torch.Tensor) -> torch.Tensor:
        """The full rows that folded rows stand for (:meth:`InputFolding.expand`, in torch)."""
        fixed = self.values.expand(part.shape[0], self.values.numel())
        return torch.cat([part, fixed], dim=-1).index_select(1, self.source)

    def apply_folded(self, x: torch.Tensor, folded: FoldedRows | None) -> torch.Tensor:
        """The layer's output for ``x`` from :meth:`fold`'s result for it."""
        if folded is None:
            return super().forward(x)
        rows, part, off = folded
        weight = self.weight
        if weight.device.type == "cpu" and weight.dtype == torch.float32:
            folded_weight, bias = _FoldWeight.apply(weight, self.folding)
        else:
            folded_weight = weight.new_zeros(weight.shape[0], self.keep.numel()).index_add(
                1, self.group, weight.index_select(1, self.varying))
            bias = weight.index_select(1, self.fixed) @ self.values
        if self.bias is not None:
            bias = bias + self.bias
        out = nn.functional.linear(part, folded_weight, bias)
        if off.numel():  # rows no probe foresaw: add what the folding left out
            rest = rows[off] - self._expand(part[off])
            out = out.index_add(0, off, nn.functional.linear(rest, weight))
        return out.reshape(*x.shape[:-1], out.shape[-1])


class FoldedRows(NamedTuple):
    """An input's rows (``[N, width]``, or ``[N, folded_width]`` when given folded), their
    folded columns and the rows that break the folding: what :meth:`FoldedLinear.fold`
    passes to :meth:`FoldedLinear.apply_folded`."""

    rows: torch.Tensor
    part: torch.Tensor
    off: torch.Tensor


class FoldedExtractor(nn.Module):
    """SB3's ``MlpExtractor`` (the same ``policy_net`` and ``value_net``, the same parameter
    names) whose actor and critic start with folded layers of one folding: a forward pass of
    both folds their input once, where each layer alone would read it once more (a pass over
    the whole input: about 1 ms for 512 LOCO rows on one thread here)."""

    def __init__(self, extractor: MlpExtractor):
        super().__init__()
        self.policy_net, self.value_net = extractor.policy_net, extractor.value_net
        self.latent_dim_pi, self.latent_dim_vf = extractor.latent_dim_pi, extractor.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        folded = self.policy_net[0].fold(features)
        return (self.policy_net[1:](self.policy_net[0].apply_folded(features, folded)),
                self.value_net[1:](self.value_net[0].apply_folded(features, folded)))

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


def fold_first_layers(nets: Sequence[nn.Sequential], obs_transform: str, width: int) -> int:
    """Make the first layer of each of ``nets`` that reads the whole ``width``-wide input of
    ``obs_transform`` a :class:`FoldedLinear` (the trainer's actor and critic:
    ``policy.mlp_extractor.policy_net`` and ``value_net``; the cloner's). Returns the folded
    width, or 0 where nothing was folded: no layer reads the whole input (an action scorer's
    read the observation alone), or the transform has no folding that pays
    (:func:`~loco_envs.policy.folding.folding_for`)."""
    firsts = [i for i, net in enumerate(nets) if len(net) and type(net[0]) is nn.Linear
              and net[0].in_features == width]
    folding = folding_for(obs_transform, width) if firsts else None
    if folding is None:
        return 0
    for i in firsts:
        nets[i][0] = FoldedLinear.adopting(nets[i][0], folding)
    return folding.folded_width


def fold_policy(policy: Any, obs_transform: str) -> int:
    """:func:`fold_first_layers` on an SB3 policy's actor and critic; where both read the
    whole input through SB3's own ``MlpExtractor``, it becomes a :class:`FoldedExtractor`,
    which folds an input once for both. Returns the folded width (0: nothing folded)."""
    extractor = policy.mlp_extractor
    width = fold_first_layers((extractor.policy_net, extractor.value_net), obs_transform,
                              int(policy.features_dim))
    if width and type(extractor) is MlpExtractor and all(
            isinstance(net[0], FoldedLinear) for net in (extractor.policy_net,
                                                        extractor.value_net)):
        policy.mlp_extractor = FoldedExtractor(extractor)
    return width


def refold_policy(policy: Any, folding: InputFolding) -> None:
    """Make the folded actor and critic of ``policy`` (:func:`rollout_folding`'s) fold by
    ``folding``: a refined folding of the same inputs
    (:meth:`MaskedRolloutBuffer.fold_observations`)."""
    extractor = policy.mlp_extractor
    for net in (extractor.policy_net, extractor.value_net):
        net[0].refold(folding)


def rollout_folding(policy: Any) -> InputFolding | None:
    """The folding a rollout may be stored in for ``policy``
    (:meth:`MaskedRolloutBuffer.fold_observations`): the one of its folded actor and critic,
    where they are all that read the input (SB3's flattening aside); else ``None``."""
    extractor = policy.mlp_extractor
    if type(policy.features_extractor) is not FlattenExtractor or \
            type(extractor) is not FoldedExtractor:
        return None
    return extractor.policy_net[0].folding


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
        """One batched product per action (``bmm`` over A of ``[N, K] @ [K, 1]``): the same
        sums as an elementwise product and a sum over K, in less than half the time with
        its gradient (2.1 ms against 4.7 ms for 512 LOCO inputs on one thread)."""
        num_actions, k = self.weight.shape
        features = inputs[:, inputs.shape[1] - num_actions * k:].reshape(-1, num_actions, k)
        scores = torch.bmm(features.transpose(0, 1), self.weight.unsqueeze(-1))
        return scores.squeeze(-1).t() * self.GAIN

    def effective(self) -> Any:
        """The ``[A, K]`` weights the logits use (numpy)."""
        return (self.weight.detach().cpu() * self.GAIN).numpy().astype("float32")

    def set_effective(self, scores: Any) -> None:
        with torch.no_grad():
            self.weight.copy_(torch.as_tensor(scores, dtype=torch.float32) / self.GAIN)


class ActionScorer(nn.Module):
    """``(N, A)``: each action's score ``out . relu(Wf f_a + Ws s + b)`` by one small network
    shared by all A actions, from the action's own K features ``f_a`` and the state embedding
    ``s`` (the actor's last hidden layer).

    Why. A first layer over every action's features (LOCO: 2,904 of 3,174 inputs, times 128
    units, in the actor and again in the critic) costs most of a decision's multiply-adds. Here
    a move's features go through ``h`` units once per action, and the state enters through one
    ``H x h`` product: LOCO's actor and critic with ``net_arch`` [128, 128] take 0.16M
    multiply-adds a sample with ``h`` 8 against 0.88M flat. Keep ``h`` small: the per-action
    activations (N x A x h) are elementwise work that the multiply-adds do not count, and at
    ``h`` 32 a LOCO minibatch's forward and backward passes took longer than the flat
    network's (28 ms against 21 ms for 512 samples on one thread; 11 ms at ``h`` 8).
    :func:`loco_envs.policy.scorer_scores` computes the same scores in numpy.

    The weights are parameters of their own, not ``nn.Linear`` layers: SB3 initialises every
    ``Linear`` of a policy's extractor orthogonally, which would give ``out`` random weights
    and a run from scratch a far-from-uniform first policy. Here ``out`` starts at zero (a
    fresh scorer adds nothing to the logits until it has learned) and the other two as
    ``nn.Linear``'s default would, in the trainer and the cloner alike.
    """

    def __init__(self, num_actions: int, width: int, state_size: int, hidden: int):
        super().__init__()
        if width % num_actions:
            raise ValueError(f"action_scorer: {width} features are not K per each of "
                             f"{num_actions} actions")
        self.num_actions = num_actions
        k = width // num_actions
        self.feature_weight = nn.Parameter(_uniform((hidden, k), k))
        self.feature_bias = nn.Parameter(_uniform((hidden,), k))
        self.state_weight = nn.Parameter(_uniform((hidden, state_size), state_size))
        self.out = nn.Parameter(torch.zeros(hidden))

    def forward(self, features: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        per_action = features.reshape(features.shape[0], self.num_actions, -1)
        hidden = nn.functional.linear(per_action, self.feature_weight, self.feature_bias)
        hidden = hidden + nn.functional.linear(state, self.state_weight).unsqueeze(1)
        return torch.relu(hidden) @ self.out

    def _tensors(self) -> tuple[torch.Tensor, ...]:
        return self.feature_weight, self.state_weight, self.feature_bias, self.out

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The scorer as :attr:`loco_envs.policy.NumpyPolicy.scorer` holds it (float32 copies)."""
        return tuple(t.detach().cpu().numpy().astype(np.float32).copy() for t in self._tensors())

    def set_arrays(self, arrays: Sequence[np.ndarray]) -> None:
        """Load :meth:`arrays`' layout; ``ValueError`` for another shape."""
        with torch.no_grad():
            for target, array in zip(self._tensors(), arrays, strict=True):
                if tuple(target.shape) != np.shape(array):
                    raise ValueError(f"action scorer array of shape {np.shape(array)}, the "
                                     f"network's is {tuple(target.shape)}")
                target.copy_(torch.as_tensor(np.asarray(array, np.float32)))


def _uniform(shape: tuple[int, ...], fan_in: int) -> torch.Tensor:
    """``nn.Linear``'s default initialisation: uniform in +-1/sqrt(fan_in)."""
    bound = 1.0 / np.sqrt(fan_in)
    return torch.empty(shape).uniform_(-bound, bound)


class ObservationOnly(nn.Module):
    """The input without its last ``width`` entries (the action features): the cloner's critic
    with an action scorer reads what :class:`ActionScoresExtractor`'s critic reads."""

    def __init__(self, width: int):
        super().__init__()
        self.width = width

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return inputs[:, :inputs.shape[1] - self.width]


class ActionFeatureLayout(FlattenExtractor):
    """SB3's flatten extractor (the input unchanged) that says where the action features are
    and what reads them: the last ``features`` inputs, read by the feature shortcut
    (``shortcut``), and by an :class:`ActionScorer` of hidden width ``action_scorer`` (0: none).

    It is how :class:`ShortcutPolicy` learns its layout: given through SB3's public
    ``features_extractor_class`` and ``features_extractor_kwargs``, it is recorded with the
    policy's other constructor arguments, so SB3's save and load (``--resume``) rebuild the same
    network.
    """

    def __init__(self, observation_space: Any, features: int, action_scorer: int = 0,
                 shortcut: bool = True):
        super().__init__(observation_space)
        for name, value in (("features", features), ("action_scorer", action_scorer)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        if not isinstance(shortcut, (bool, np.bool_)):
            raise ValueError(f"shortcut must be true or false, got {shortcut!r}")
        widest = self.features_dim - 1 if action_scorer else self.features_dim
        if not 0 < features <= widest:
            raise ValueError(f"features must be a width in 1..{widest} (the input is "
                             f"{self.features_dim} wide), got {features}")
        if not action_scorer and not shortcut:
            raise ValueError("an action feature layout without an action scorer is the feature "
                             "shortcut: shortcut=False needs action_scorer > 0")
        self.features, self.action_scorer, self.shortcut = features, action_scorer, shortcut


class ActionScoresExtractor(nn.Module):
    """SB3's actor and critic MLPs (an ``MlpExtractor``'s ``policy_net`` and ``value_net``)
    whose actor latent is the last hidden layer, then the A action scores: the
    :class:`ActionScorer`'s from ``scorer``, plus the feature shortcut's from ``scores``.
    With a scorer the MLPs read the input without its last ``cut`` entries (the features).
    :class:`ScoredActionLayer` reads this latent."""

    def __init__(self, extractor: MlpExtractor, scores: FeatureScores | None,
                 scorer: ActionScorer | None = None, cut: int = 0):
        super().__init__()
        self.policy_net, self.value_net = extractor.policy_net, extractor.value_net
        self.latent_dim_pi, self.latent_dim_vf = extractor.latent_dim_pi, extractor.latent_dim_vf
        self.scorer, self.scores, self.cut = scorer, scores, cut

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        split = features.shape[1] - self.cut
        state = self.policy_net(features[:, :split])
        if self.scorer is None:
            return torch.cat([state, self.scores(features)], dim=1)
        scores = self.scorer(features[:, split:], state)
        if self.scores is not None:
            scores = scores + self.scores(features)
        return torch.cat([state, scores], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, :features.shape[1] - self.cut])


class ScoredActionLayer(nn.Linear):
    """The action layer over the latent's first ``in_features`` entries (the last hidden
    layer), plus the A action scores :class:`ActionScoresExtractor` appends after them."""

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return super().forward(latent[:, :self.in_features]) + latent[:, self.in_features:]

    @classmethod
    def adopting(cls, layer: nn.Linear) -> ScoredActionLayer:
        """The layer with ``layer``'s own weight and bias (the same parameters: what the
        optimiser and the initialisation saw)."""
        adopted = nn.utils.skip_init(cls, layer.in_features, layer.out_features,
                                     device=layer.weight.device)
        adopted.weight, adopted.bias = layer.weight, layer.bias
        return adopted


class ShortcutPolicy(MaskedMlpPolicy):
    """:class:`MaskedMlpPolicy` whose logits add a per-action score to the action layer's: the
    feature shortcut, or an :class:`ActionScorer` (plus the shortcut when asked), as its
    ``features_extractor_class=ActionFeatureLayout`` says (``features_extractor_kwargs``:
    ``features``, ``action_scorer``, ``shortcut``).

    Built through public members only: sb3-contrib's constructor makes the plain network, then
    the actor's latent gains the scores (:class:`ActionScoresExtractor`, around the MLPs
    already made and initialised, or around new ones over the observation alone for a scorer,
    initialised as SB3 does) and the action layer reads them (:class:`ScoredActionLayer`,
    with the same weights); the optimiser is made again over the parameters, as the
    constructor made it. With the feature shortcut alone the random draws are the plain
    constructor's, so a seed builds the network it built before this layout existed.
    """

    def __init__(self, observation_space: Any, action_space: Any, lr_schedule: Any,
                 **kwargs: Any):
        if "feature_shortcut" in kwargs:
            raise ValueError("feature_shortcut is no longer an argument of ShortcutPolicy: give "
                             "the layout as features_extractor_kwargs of ActionFeatureLayout (a "
                             "checkpoint saved with it cannot be resumed)")
        extractor = kwargs.get("features_extractor_class")
        if not (isinstance(extractor, type) and issubclass(extractor, ActionFeatureLayout)):
            raise ValueError("ShortcutPolicy needs features_extractor_class=ActionFeatureLayout "
                             "with the action features' layout in features_extractor_kwargs")
        num_actions = int(action_space.n)
        features = kwargs.get("features_extractor_kwargs", {}).get("features")
        if isinstance(features, int) and features % num_actions:
            raise ValueError(f"features: {features} are not K per each of {num_actions} actions")
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)
        layout = self.features_extractor
        scores = FeatureScores(num_actions, layout.features) if layout.shortcut else None
        if layout.action_scorer:
            mlps = MlpExtractor(self.features_dim - layout.features, self.net_arch,
                                self.activation_fn, self.device)
            if self.ortho_init:
                mlps.apply(partial(self.init_weights, gain=np.sqrt(2)))
            scorer = ActionScorer(num_actions, layout.features, mlps.latent_dim_pi,
                                  layout.action_scorer)
            self.mlp_extractor = ActionScoresExtractor(mlps, scores, scorer, layout.features)
        else:
            self.mlp_extractor = ActionScoresExtractor(self.mlp_extractor, scores)
        self.action_net = ScoredActionLayer.adopting(self.action_net)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)


class ShortcutActor(nn.Module):
    """Hidden layers and an action layer, plus the feature scores when ``scores`` is given, or
    the action scorer's when ``scorer`` is (the hidden layers then read the input without its
    last ``width`` entries, the features)."""

    def __init__(self, body: nn.Sequential, head: nn.Linear, scores: FeatureScores | None,
                 scorer: ActionScorer | None = None, width: int = 0):
        super().__init__()
        self.body, self.head, self.scores, self.scorer = body, head, scores, scorer
        self.width = width

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        if self.scorer is not None:
            split = inputs.shape[1] - self.width
            state = self.body(inputs[:, :split])
            logits = self.head(state) + self.scorer(inputs[:, split:], state)
        else:
            logits = self.head(self.body(inputs))
        return logits if self.scores is None else logits + self.scores(inputs)


def build_actor(input_size: int, num_actions: int, net_arch: Sequence[int],
                activation: type[nn.Module], shortcut: int = 0, scorer: int = 0,
                features: int = 0) -> ShortcutActor:
    """The actor :class:`ShortcutPolicy` builds (SB3's plain one with ``shortcut=0``): with a
    feature shortcut over the last ``shortcut`` inputs, and with an :class:`ActionScorer` of
    hidden width ``scorer`` over the last ``features`` inputs (``shortcut`` when 0), the
    hidden layers then reading the rest."""
    features = features or shortcut
    scores = FeatureScores(num_actions, shortcut) if shortcut else None
    if scorer:
        widths = [input_size - features, *net_arch]
        return ShortcutActor(mlp(widths, activation), nn.Linear(widths[-1], num_actions), scores,
                             ActionScorer(num_actions, features, widths[-1], scorer), features)
    widths = [input_size, *net_arch]
    return ShortcutActor(mlp(widths, activation), nn.Linear(widths[-1], num_actions), scores)


def copy_linears(pairs: Sequence[tuple[nn.Linear, tuple[np.ndarray, np.ndarray]]]) -> None:
    """Copy each ``(weight, bias)`` into its ``Linear``; ``ValueError`` for another shape."""
    with torch.no_grad():
        for module, (weight, bias) in pairs:
            if tuple(module.weight.shape) != np.shape(weight) or \
                    tuple(module.bias.shape) != np.shape(bias):
                raise ValueError(f"layer of shape {np.shape(weight)}, the network has "
                                 f"{tuple(module.weight.shape)}")
            module.weight.copy_(torch.from_numpy(np.asarray(weight, np.float32)))
            module.bias.copy_(torch.from_numpy(np.asarray(bias, np.float32)))


def load_actor(policy: NumpyPolicy, layers: Sequence[nn.Linear], head: nn.Linear,
               scores: FeatureScores | None, scorer: ActionScorer | None) -> None:
    """Copy ``policy``'s actor into torch modules: its hidden layers into ``layers``, its action
    layer's part over the last hidden layer into ``head``, the feature shortcut's per-action
    weights into ``scores`` and its action scorer into ``scorer`` (the warm start into SB3's
    networks, :func:`actor_of` into the cloner's); ``ValueError`` naming a part that does not
    fit."""
    if len(layers) != len(policy.hidden):
        raise ValueError(f"{len(policy.hidden)} hidden layers, the network has {len(layers)}")
    weight, bias = policy.action
    if policy.feature_shortcut:  # the hidden part to the action layer, the rest per action
        if scores is None:
            raise ValueError("a feature shortcut, the network has none")
        scores.set_effective(shortcut_scores(weight[:, head.in_features:]))
        weight = weight[:, :head.in_features]
    if policy.scorer is not None:
        if scorer is None:
            raise ValueError("an action scorer, the network has none")
        scorer.set_arrays(policy.scorer)  # ValueError for another width
    copy_linears([*zip(layers, policy.hidden, strict=True), (head, (weight, bias))])


def actor_of(policy: NumpyPolicy) -> ShortcutActor:
    """The torch actor whose logits are ``policy``'s (:meth:`NumpyPolicy.logits_of_inputs`):
    the inverse of the exporter, for playing a frozen policy where torch runs faster than
    numpy (its forward passes on a GPU, :class:`train.selfplay.SelfPlayVecEnv`)."""
    extra = transform_extra_size(policy.obs_transform)
    activation = {"tanh": Tanh, "relu": nn.ReLU}[policy.activation]
    width = 0 if policy.scorer is None else int(policy.scorer[2].shape[0])
    actor = build_actor(policy.input_size, policy.num_actions, policy.layer_sizes, activation,
                        shortcut=extra if policy.feature_shortcut else 0, scorer=width,
                        features=extra)
    layers = [m for m in actor.body if isinstance(m, nn.Linear)]
    load_actor(policy, layers, actor.head, actor.scores, actor.scorer)
    return actor.eval()
