"""Shared checks for trainer tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from loco_envs.policy import load_policy, transform_observation


def assert_export_is_the_sb3_policy(model: Any, checkpoint: Path, obs: np.ndarray,
                                    transform: str) -> None:
    """The data-only policy exported beside ``checkpoint`` gives ``model``'s (SB3, unmasked)
    log-probabilities on ``obs``."""
    import torch

    exported, _ = load_policy(checkpoint.with_suffix(".npz"))
    with torch.no_grad():
        dist = model.policy.get_distribution(
            torch.from_numpy(transform_observation(obs, transform)))
    mine = torch.log_softmax(torch.from_numpy(exported.logits(obs)), dim=1).numpy()
    np.testing.assert_allclose(mine, dist.distribution.logits.numpy(), atol=1e-4)
