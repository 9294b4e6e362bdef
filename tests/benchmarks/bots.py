"""A trivial bot for testing the tournament runner without the heuristics."""

from __future__ import annotations

from typing import Any

import numpy as np


class FirstLegal:
    """Always the lowest legal action index (deterministic, ignores the view)."""

    name = "moco/first"

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        return int(np.flatnonzero(action_mask)[0])
