"""Declared environment options, validated once so a typo never passes silently."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    """One creation argument: its default, and either a closed set of values or a check.

    ``check`` returns the normalised value or raises ``ValueError``; ``choices`` is used when
    there is no check.
    """

    default: Any
    doc: str
    choices: Sequence[Any] | None = None
    check: Callable[[Any], Any] | None = field(default=None, compare=False)

    def validate(self, name: str, value: Any) -> Any:
        if self.check is not None:
            try:
                return self.check(value)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"option {name!r}: {exc}") from None
        if self.choices is not None and value not in self.choices:
            raise ValueError(
                f"option {name!r} must be one of {list(self.choices)}, got {value!r}"
            )
        return value


def int_range(low: int, high: int) -> Callable[[Any], int]:
    """A check accepting integers in ``[low, high]``."""

    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"must be an integer from {low} to {high}, got {value!r}")
        return value

    return check


def probability(value: Any) -> float:
    """A check accepting a number in ``[0, 1]``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise ValueError(f"must be a number from 0 to 1, got {value!r}")
    return float(value)


def positive_int_or_none(value: Any) -> int | None:
    """A check accepting ``None`` or an integer >= 1."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"must be a positive integer or None, got {value!r}")
    return value


COMMON_OPTIONS: dict[str, Option] = {
    "render_mode": Option(None, "None, 'ansi' (render returns text), 'human' (printed) or "
                          "'rgb_array' (render returns an (H, W, 3) uint8 image)",
                          choices=(None, "ansi", "human", "rgb_array")),
    "reward": Option("rank", "'rank' (+1 beat everyone … -1) or 'score' (own points minus the "
                     "others' mean)", choices=("rank", "score")),
    "max_decisions": Option(None, "None (no cap) or a positive integer: after that many "
                            "decisions every agent is truncated (RulesAECEnv docstring)",
                            check=positive_int_or_none),
}

#: The options the environment handles itself; the rest go to the rules engine.
ENV_OPTIONS = ("render_mode", "reward", "max_decisions")


def validate_options(declared: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Fill defaults and check every given option; unknown names raise ``ValueError``."""
    known = {**COMMON_OPTIONS, **declared}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown}; allowed options: {sorted(known)}")
    return {name: opt.validate(name, given.get(name, opt.default)) for name, opt in known.items()}
