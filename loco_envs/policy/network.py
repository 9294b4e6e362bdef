"""The actor of a masked PPO policy as plain numpy arrays, and how it picks a move.

:class:`NumpyPolicy` is a few matrix products: hidden layers with one activation, then the
action layer (plus, with a feature shortcut, a per-action weighting of each move's own
features, or, with an action scorer, a small network shared by every action that scores each
move from its own features and the state's embedding). It is what a data-only policy file
holds (:mod:`loco_envs.policy.files`) and what ``ppo:`` bots, tournaments and the self-play
opponents run; nothing here imports torch. :meth:`NumpyPolicy.act_batch` decides for many
games in one forward pass, drawing the same numbers as one call per game would.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from loco_envs.policy.transforms import transform_extra_size, transform_observation

__all__ = ["ACTIVATIONS", "NumpyPolicy", "check_temperature", "expand_shortcut",
           "gumbel_noise", "perturbed", "scorer_scores", "shortcut_scores"]

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


@dataclass
class NumpyPolicy:
    """The actor of a masked PPO policy as plain arrays: hidden layers, then the action layer."""

    hidden: list[tuple[np.ndarray, np.ndarray]]  # (weight [out, in], bias [out]) per layer
    action: tuple[np.ndarray, np.ndarray]
    activation: str = "tanh"
    obs_transform: str = "log1p"
    #: The action layer also reads the action features themselves, after the last hidden
    #: layer (its weight is then [A, hidden + A * K]; the trainers' shortcut makes that part
    #: block-diagonal, :func:`expand_shortcut`): a move's logit weighs its own features
    #: directly instead of routing every action's facts through the hidden layers.
    feature_shortcut: bool = False
    #: The action scorer, a network shared by every action (:func:`scorer_scores`): its
    #: arrays ``(feature weight [h, K], state weight [h, H], bias [h], out [h])``, or ``None``.
    #: With it the hidden layers read the scaled observation only (not the A x K features),
    #: and each logit is the action layer's plus the scorer's score of that move, from its own
    #: K features and the last hidden layer: far fewer weights a decision than a first layer
    #: over every action's features (LOCO: 242 x 12 features, 2,904 of the 3,174 inputs).
    scorer: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def input_size(self) -> int:
        """Width of the network's input: the observation, then any action features."""
        extra = transform_extra_size(self.obs_transform)
        first = self.hidden[0][0] if self.hidden else self.action[0]
        width = int(first.shape[1])
        if not self.hidden and self.feature_shortcut:  # the action layer reads them twice
            width -= extra
        if self.scorer is not None:  # the layers read the observation, the scorer the rest
            width += extra
        return width

    @property
    def observation_size(self) -> int:
        """Length of the raw observation the policy takes."""
        return self.input_size - transform_extra_size(self.obs_transform)

    @property
    def num_actions(self) -> int:
        return int(self.action[0].shape[0])

    @property
    def layer_sizes(self) -> list[int]:
        return [int(w.shape[0]) for w, _ in self.hidden]

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one raw observation (or a batch of them, ``[N, D]``)."""
        return self.logits_of_inputs(transform_observation(obs, self.obs_transform))

    def logits_of_inputs(self, inputs: np.ndarray) -> np.ndarray:
        """:meth:`logits` from the network's input, ``transform_observation(obs,
        self.obs_transform)``: a caller deciding for several policies with one transform (the
        self-play env's snapshots) computes it once, which pays with action features."""
        extra = transform_extra_size(self.obs_transform)
        x = inputs if self.scorer is None else inputs[..., :inputs.shape[-1] - extra]
        act = ACTIVATIONS[self.activation]
        for weight, bias in self.hidden:
            x = act(x @ weight.T + bias)
        state, features = x, inputs[..., inputs.shape[-1] - extra:]
        if self.feature_shortcut:
            x = np.concatenate([x, features], axis=-1)
        weight, bias = self.action
        logits = x @ weight.T + bias
        if self.scorer is not None:  # a flat policy (the opponents' hot path) adds nothing
            logits += scorer_scores(self.scorer, features, state)
        return logits

    def act_observation(self, obs: np.ndarray, action_mask: np.ndarray,
                        rng: np.random.Generator | None, temperature: float = 0.0) -> int:
        """The best legal action (``temperature`` 0, the default; ``rng`` unused), or one
        sampled with ``rng`` from the masked softmax of the logits over ``temperature`` (1: the
        policy PPO optimised; below 1: sharper)."""
        legal = np.asarray(action_mask, bool)
        if not legal.any():
            raise ValueError("the action mask has no legal action")
        logits = np.where(legal, self.logits(obs).astype(np.float64), -np.inf)
        return int(np.argmax(perturbed(logits, rng, temperature)))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  temperature: float = 1.0, inputs: np.ndarray | None = None,
                  logits: np.ndarray | None = None) -> np.ndarray:
        """One action per row of ``obs`` ``[N, D]`` / ``masks`` ``[N, A]``, in one forward pass.

        Sampling draws ``rng.random((N, A))``: the same numbers, in the same order, as N calls
        of :meth:`act_observation` with that ``rng``, so batching a game's opponents does not
        change which moves they make. ``inputs``, when given, are the rows of ``obs`` already
        transformed (:meth:`logits_of_inputs`); ``logits``, when given, the rows' unmasked
        logits already computed (by a torch copy of this network on a GPU: the self-play env).
        """
        obs = np.asarray(obs, np.float32)
        legal = np.asarray(masks, bool)
        if obs.ndim != 2 or legal.ndim != 2 or obs.shape[0] != legal.shape[0]:
            raise ValueError(f"act_batch: obs {obs.shape} and masks {legal.shape} must be "
                             "[N, D] and [N, A] with the same N")
        if obs.shape[1] != self.observation_size or legal.shape[1] != self.num_actions:
            raise ValueError(f"act_batch: rows of size {obs.shape[1]} / {legal.shape[1]}, the "
                             f"policy takes {self.observation_size} / {self.num_actions}")
        empty = np.flatnonzero(~legal.any(axis=1))
        if empty.size:
            raise ValueError(f"act_batch: the action mask of row {int(empty[0])} has no legal "
                             "action")
        if inputs is not None and (inputs.ndim != 2 or inputs.shape[0] != obs.shape[0]
                                   or inputs.shape[1] != self.input_size):
            raise ValueError(f"act_batch: inputs {inputs.shape}, the policy takes "
                             f"[{obs.shape[0]}, {self.input_size}] (the rows of obs transformed)")
        if logits is not None and np.shape(logits) != legal.shape:
            raise ValueError(f"act_batch: logits {np.shape(logits)}, the masks are "
                             f"{legal.shape}")
        if logits is None:
            logits = self.logits(obs) if inputs is None else self.logits_of_inputs(inputs)
        masked = np.where(legal, np.asarray(logits).astype(np.float64), -np.inf)
        return np.argmax(perturbed(masked, rng, temperature), axis=1).astype(np.int64)


def check_temperature(temperature: Any) -> float:
    """A sampling temperature: a finite number >= 0 (0: greedy); else ``ValueError``."""
    if isinstance(temperature, bool) or not isinstance(temperature, int | float) \
            or not 0 <= temperature < float("inf"):
        raise ValueError(f"temperature must be a finite number >= 0 (0: greedy), got "
                         f"{temperature!r}")
    return float(temperature)


def perturbed(logits: np.ndarray, rng: np.random.Generator | None,
               temperature: float) -> np.ndarray:
    """Logits whose argmax is the move: with Gumbel noise added to ``logits / temperature``
    it is a draw from that softmax over the legal actions (Gumbel-max); greedy play
    (temperature 0) adds nothing and draws nothing from ``rng``."""
    if check_temperature(temperature) == 0:
        return logits
    return logits / temperature + gumbel_noise(rng.random(logits.shape))


def gumbel_noise(uniform: np.ndarray) -> np.ndarray:
    """Standard Gumbel noise from uniform draws in [0, 1) (the tournament's batched path draws
    each row from its own seat's generator, then calls this)."""
    return -np.log(-np.log(uniform + 1e-300) + 1e-300)


def scorer_scores(scorer: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
                  features: np.ndarray, state: np.ndarray) -> np.ndarray:
    """``[..., A]``: each action's score by the shared scorer, ``out . relu(Wf f_a + Ws s + b)``,
    from its own K features ``f_a`` (``features`` ``[..., A * K]``, action-major) and the state
    embedding ``s`` (``state`` ``[..., H]``, the last hidden layer)."""
    feature_weight, state_weight, bias, out = scorer
    k = feature_weight.shape[1]
    per_action = features.reshape(*features.shape[:-1], features.shape[-1] // k, k)
    hidden = per_action @ feature_weight.T + (state @ state_weight.T + bias)[..., None, :]
    return np.maximum(hidden, 0.0) @ out


def expand_shortcut(scores: np.ndarray) -> np.ndarray:
    """``[A, K]`` per-action feature weights -> the ``[A, A * K]`` block of the action layer
    over the features (action ``a``'s row reads only its own K features)."""
    num_actions, k = scores.shape
    out = np.zeros((num_actions, num_actions, k), np.float32)
    out[np.arange(num_actions), np.arange(num_actions)] = scores
    return out.reshape(num_actions, num_actions * k)


def shortcut_scores(block: np.ndarray) -> np.ndarray:
    """Inverse of :func:`expand_shortcut`; ``ValueError`` when a row reads another action's
    features (a layer no trainer here makes)."""
    num_actions = block.shape[0]
    cube = block.reshape(num_actions, num_actions, -1)
    scores = cube[np.arange(num_actions), np.arange(num_actions)].copy()
    if not np.array_equal(expand_shortcut(scores), block):
        raise ValueError("the action layer's feature weights are not per action (block-diagonal)")
    return scores
