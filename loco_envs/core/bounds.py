"""Per-entry observation bounds, built from a game's named slices.

Each game's ``observation.py`` states, for every named slice, the smallest and largest value an
entry of that slice can take *by the rules* (a count of cards cannot exceed the copies in the
deck, a one-hot entry is 0 or 1, ...), and the env declares them as the observation ``Box``'s
``low`` and ``high``. A learner that scales by the space's bounds then sees every entry in
[0, 1], and a test plays random and scripted games to check no observation leaves its box.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

#: A slice's bounds: one number for all its entries, or one number per entry.
Bound = float | Sequence[float] | np.ndarray


def slice_bounds(
    slices: Mapping[str, slice], table: Mapping[str, tuple[Bound, Bound]]
) -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 vectors from ``name -> (low, high)`` for every slice.

    ``ValueError`` names a slice without bounds, a bound for no slice, a per-entry bound of the
    wrong length, or a slice whose low exceeds its high: a table that drifts from the slice
    layout fails at env creation, not silently.
    """
    missing = [name for name in slices if name not in table]
    extra = [name for name in table if name not in slices]
    if missing or extra:
        raise ValueError(f"observation bounds: slices without bounds {missing}, "
                         f"bounds without a slice {extra}")
    size = max((s.stop for s in slices.values()), default=0)
    low = np.full(size, np.nan, np.float32)
    high = np.full(size, np.nan, np.float32)
    for name, part in slices.items():
        length = part.stop - part.start
        for target, value, which in ((low, table[name][0], "low"), (high, table[name][1], "high")):
            array = np.asarray(value, np.float32)
            if array.ndim and array.shape != (length,):
                raise ValueError(f"observation bounds: {which} of slice {name!r} has "
                                 f"{array.size} entries, the slice {length}")
            target[part] = array
        if np.any(low[part] > high[part]):
            raise ValueError(f"observation bounds: slice {name!r} has low > high")
    if np.isnan(low).any() or np.isnan(high).any():
        raise ValueError("observation bounds: the slices do not cover the whole vector")
    return low, high
