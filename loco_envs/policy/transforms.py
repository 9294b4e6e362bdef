"""Observation transforms: the network's input from a raw observation vector.

An ``obs_transform`` names an elementwise scale (``"none"``, ``"log1p"``: counts such as a draw
pile of 100 cards would swamp the 0/1 entries), optionally followed by ``+<features>``: a set
of per-action features appended after the scaled observation (:mod:`loco_envs.core.features`;
one set per game, defined in ``loco_envs/<game>/features.py``). A policy file records its
transform, so whoever plays it computes the same input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from loco_envs.core.features import ActionFeatures
from loco_envs.loco.features import FEATURES as LOCO_FEATURES
from loco_envs.mampfos.features import FEATURES as MAMPFOS_FEATURES
from loco_envs.moco.features import FEATURES as MOCO_FEATURES
from loco_envs.momo.features import FEATURES as MOMO_FEATURES

__all__ = ["ACTION_FEATURES", "OBS_TRANSFORMS", "check_action_scorer", "check_feature_shortcut",
           "check_transform", "transform_bounds", "transform_extra_size", "transform_observation"]

#: Feature sets by the name used after ``+`` in an ``obs_transform``.
ACTION_FEATURES: dict[str, ActionFeatures] = {
    f.name: f for f in (MOCO_FEATURES, MOMO_FEATURES, LOCO_FEATURES, MAMPFOS_FEATURES)}

#: Elementwise observation transforms (counts such as a draw pile of 100 cards would swamp the
#: 0/1 entries).
_SCALES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "none": lambda x: x,
    "log1p": np.log1p,
}
#: Every ``obs_transform``: an elementwise one, optionally followed by ``+<features>``, a set of
#: per-action features appended to the network's input (:data:`ACTION_FEATURES`, one game each).
OBS_TRANSFORMS: tuple[str, ...] = (*_SCALES, *(f"{scale}+{name}" for scale in _SCALES
                                                for name in ACTION_FEATURES))

def transform_observation(obs: np.ndarray, transform: str) -> np.ndarray:
    """The network's input for a raw observation vector, or a batch ``[N, D]`` (float32).

    With action features the input is wider than the observation by
    :func:`transform_extra_size`: the features of the raw observation come after it.
    """
    scale, _, features = transform.partition("+")
    obs = np.asarray(obs, np.float32)
    if not features:
        return _SCALES[scale](obs).astype(np.float32, copy=False)
    action_features = ACTION_FEATURES[features]
    rows = obs.reshape(-1, obs.shape[-1])
    width = rows.shape[1]
    # each part written in place: a concatenation copied LOCO's 1,024 x 3,174 inputs once more
    inputs = np.empty((rows.shape[0], width + action_features.size), np.float32)
    inputs[:, :width] = _SCALES[scale](rows)
    action_features.compute(rows, out=inputs[:, width:])
    return inputs.reshape(*obs.shape[:-1], -1)


def transform_extra_size(transform: str) -> int:
    """How many entries ``transform`` appends to the observation (its action features)."""
    features = transform.partition("+")[2]
    return ACTION_FEATURES[features].size if features else 0


def transform_bounds(transform: str, low: np.ndarray,
                     high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-entry bounds of the network's input, from the raw observation's ``low``/``high``."""
    scale, _, features = transform.partition("+")
    low = transform_observation(np.asarray(low, np.float32), scale)
    high = transform_observation(np.asarray(high, np.float32), scale)
    if not features:
        return low, high
    extra = ACTION_FEATURES[features]
    return (np.concatenate([low, np.full(extra.size, -extra.limit, np.float32)]),
            np.concatenate([high, np.full(extra.size, extra.limit, np.float32)]))


def check_transform(transform: Any, env_id: str) -> None:
    """``ValueError`` unless ``transform`` is an ``obs_transform`` the game ``env_id`` takes."""
    if not isinstance(transform, str) or transform not in OBS_TRANSFORMS:
        raise ValueError(f"must be one of {list(OBS_TRANSFORMS)}, got {_short(transform)}")
    features = transform.partition("+")[2]
    if features and ACTION_FEATURES[features].env_id != env_id:
        raise ValueError(f"{transform!r}: the features {features!r} are for "
                         f"{ACTION_FEATURES[features].env_id}, not {_short(env_id)}")


def check_feature_shortcut(shortcut: Any, transform: str) -> None:
    """``ValueError`` unless ``shortcut`` is a bool, true only with action features."""
    if not isinstance(shortcut, bool):
        raise ValueError(f"must be true or false, got {_short(shortcut)}")
    if shortcut and not transform_extra_size(transform):
        raise ValueError(f"needs action features, and obs_transform {transform!r} has none")


#: The widest action scorer: its activations are A x width numbers a decision (LOCO at 256:
#: 62k, a quarter of a MB), where a hidden layer's are its width alone; a policy file may not
#: ask a player for more memory a decision than that.
MAX_SCORER_WIDTH = 256


def check_action_scorer(width: Any, transform: str) -> None:
    """``ValueError`` unless ``width`` (an action scorer's hidden width, 0: none) is an integer
    in 0..:data:`MAX_SCORER_WIDTH`, positive only with action features."""
    if isinstance(width, bool) or not isinstance(width, int) or \
            not 0 <= width <= MAX_SCORER_WIDTH:
        raise ValueError(f"must be an integer width in 0..{MAX_SCORER_WIDTH} (0: none), got "
                         f"{_short(width)}")
    if width and not transform_extra_size(transform):
        raise ValueError(f"needs action features, and obs_transform {transform!r} has none")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
