"""Trained policies as data: the numpy actor, its observation transforms and its file format.

A policy trained by any of the suite's trainers is saved as a data-only pair of files
(``<name>.npz`` + ``<name>.json``) that loads with numpy alone and never unpickles anything;
``agents.make("ppo:<name>")`` plays it. This package is where that format lives, next to the
library's other loaders (``loco_envs.replay``), so that bots, tournaments and trainers all read
and write policies the same way:

===============================  ==============================================================
module                           its one job
===============================  ==============================================================
:mod:`loco_envs.policy.files`    the file format: :func:`save_policy`, :func:`load_policy`
                                 (every field and array checked), :func:`policy_paths`
:mod:`loco_envs.policy.network`  :class:`NumpyPolicy`: the actor as matrix products, sampling
                                 at a temperature (Gumbel-max), batched decisions
:mod:`loco_envs.policy           ``obs_transform``: the network's input from an observation,
.transforms`                     per-action features appended (:data:`ACTION_FEATURES`)
:mod:`loco_envs.policy.folding`  which input columns repeat or stay fixed, found from random
                                 play: the trainers' first layers multiply each once
===============================  ==============================================================
"""

from __future__ import annotations

from loco_envs.policy.files import FORMAT, FORMAT_VERSION, load_policy, policy_paths, save_policy
from loco_envs.policy.network import (
    NumpyPolicy,
    check_temperature,
    expand_shortcut,
    gumbel_noise,
    scorer_scores,
    shortcut_scores,
)
from loco_envs.policy.transforms import (
    ACTION_FEATURES,
    OBS_TRANSFORMS,
    check_action_scorer,
    check_feature_shortcut,
    check_transform,
    transform_bounds,
    transform_extra_size,
    transform_observation,
)

__all__ = [
    "ACTION_FEATURES",
    "FORMAT",
    "FORMAT_VERSION",
    "OBS_TRANSFORMS",
    "NumpyPolicy",
    "check_action_scorer",
    "check_feature_shortcut",
    "check_temperature",
    "check_transform",
    "expand_shortcut",
    "gumbel_noise",
    "load_policy",
    "policy_paths",
    "save_policy",
    "scorer_scores",
    "shortcut_scores",
    "transform_bounds",
    "transform_extra_size",
    "transform_observation",
]
