"""Shared fuzzing tools: mutations of valid inputs, a time and memory guard, example counts.

Every fuzz target is a property over inputs drawn by hypothesis, run twice: a few examples in
``make test`` (``FAST``) and many more in ``make test-slow`` (``SLOW``, or ``FUZZ_EXAMPLES``).
Inputs are valid ones mutated (:func:`mutated`): wrong types, missing and extra fields, NaN and
infinities, huge numbers and lengths, deep nesting, unicode, off-by-one numbers, shuffled and
duplicated list entries. Each example runs under :func:`bounded` (a hang or a runaway
allocation fails the example). With ``FUZZ_REPORT=<folder>`` every process writes how many
inputs each target tried, and with what outcome, to ``<folder>/<pid>.json``.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import os
import resource
import signal
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

FAST = int(os.environ.get("FUZZ_FAST_EXAMPLES", "25"))
SLOW = int(os.environ.get("FUZZ_EXAMPLES", "1000"))

COUNTS: dict[str, Counter] = defaultdict(Counter)


def budgets(prop: Callable, **strategies: st.SearchStrategy) -> tuple[Callable, Callable]:
    """``prop`` under ``given(**strategies)`` as two tests: ``FAST`` examples, and ``SLOW``
    ones marked ``slow`` (two separate wrappers, so each keeps its own settings)."""
    import pytest

    common = dict(deadline=None, database=None,  # no shrinking: examples cost up to seconds
                  phases=[Phase.explicit, Phase.reuse, Phase.generate],
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])

    def build(examples: int) -> Callable:
        @functools.wraps(prop)
        def test(*args: Any, **kwargs: Any) -> None:
            prop(*args, **kwargs)

        return settings(max_examples=examples, **common)(given(**strategies)(test))

    return build(FAST), pytest.mark.slow(build(SLOW))


def count(target: str, outcome: str) -> None:
    COUNTS[target][outcome] += 1


def write_report() -> None:
    folder = os.environ.get("FUZZ_REPORT")
    if folder and COUNTS:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{os.getpid()}.json"), "w") as handle:
            json.dump({k: dict(v) for k, v in COUNTS.items()}, handle, indent=1)


class Hang(BaseException):
    """An example ran past its time: not an ``Exception``, so no handler swallows it."""


def _vm_bytes() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


@contextmanager
def bounded(seconds: float = 20.0, memory: int = 1 << 30) -> Iterator[None]:
    """Fail with :class:`Hang` after ``seconds``, with ``MemoryError`` past ``memory`` more."""
    def on_alarm(signum, frame):
        raise Hang(f"no answer after {seconds} s")

    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    vm = _vm_bytes()
    if vm:
        limit = vm + memory
        resource.setrlimit(resource.RLIMIT_AS,
                           (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ---------------------------------------------------------------------------------------------
# Values and mutations
def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


UNICODE = ["", " ", "é", "\x00", "\u202e", "🂡", "r5\u0301", "Ⅻ", "²", "١٢", "\ud800", "ß",
           "ＰＬＡＹ", "\t\n", "None", "NaN", "-0", "1e400", "0x10", "'", '"', "\\"]

SMALL_NASTY: st.SearchStrategy = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([-1, 0, 1, 2, 2**31, 2**63, -(2**63), 10**30, 10**300]),
    st.floats(),
    st.sampled_from([math.nan, math.inf, -math.inf, -0.0, 1e308, 0.5, 1.0]),
    st.text(max_size=12),
    st.sampled_from(UNICODE),
    st.lists(st.integers(-3, 200), max_size=6),
    st.lists(st.text(max_size=3), max_size=4),
    st.dictionaries(st.text(max_size=6), st.integers(-2, 5), max_size=3),
    st.sampled_from([20, 150]).map(nested),
    st.sampled_from(["obj"]).map(lambda _: {"a": {"b": {"c": [1, {"d": None}]}}}),
)
#: ... and huge lengths (too slow to write as YAML, fine as JSON and Python values).
NASTY: st.SearchStrategy = st.one_of(
    SMALL_NASTY,
    st.sampled_from(["lots"]).map(lambda _: [0] * 200_000),
    st.sampled_from(["long"]).map(lambda _: "x" * 200_000),
)

OPERATIONS = ("replace", "delete", "add", "nudge", "duplicate", "shuffle", "retype", "empty")


def _children(value: Any) -> list:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return list(range(len(value)))
    return []


def mutate_once(data: st.DataObject, root: Any,
                values: st.SearchStrategy | None = None) -> tuple[Any, list]:
    """One mutation somewhere in ``root`` (a JSON value); returns it and the path mutated."""
    holder = [root]
    parent, key, path = holder, 0, []
    while True:
        keys = _children(parent[key])
        if not keys or not data.draw(st.booleans(), label="descend"):
            break
        child = data.draw(st.sampled_from(keys), label="child")
        parent, key = parent[key], child
        path.append(child)
    values = NASTY if values is None else values
    op = data.draw(st.sampled_from(OPERATIONS), label="operation")
    value = parent[key]
    if op == "replace" or (op in ("duplicate", "shuffle", "empty") and not _children(value)):
        parent[key] = data.draw(values, label="value")
    elif op == "delete" and parent is not holder:
        del parent[key]
    elif op == "add" and isinstance(value, dict):
        name = data.draw(st.one_of(st.text(max_size=8), st.sampled_from(_children(value) or
                                                                         ["x"])), label="key")
        value[name + ("_extra" if name in value else "")] = data.draw(values, label="value")
    elif op == "add" and isinstance(value, list):
        extra = (copy.deepcopy(value[data.draw(st.integers(0, len(value) - 1))]) if value
                 else data.draw(values))
        value.insert(data.draw(st.integers(0, len(value)), label="at"), extra)
    elif op == "nudge" and isinstance(value, int | float) and not isinstance(value, bool):
        parent[key] = value + data.draw(st.sampled_from([-1, 1, -2, 2, 100, -100]))
    elif op == "duplicate" and isinstance(value, list) and value:
        i = data.draw(st.integers(0, len(value) - 1), label="entry")
        value.append(copy.deepcopy(value[i]))
    elif op == "shuffle" and isinstance(value, list):
        parent[key] = data.draw(st.permutations(value), label="order")
    elif op == "retype":
        parent[key] = (str(value) if not isinstance(value, str)
                       else data.draw(st.sampled_from([[value], {"v": value}, 0])))
    elif op == "empty":
        parent[key] = type(value)()
    else:
        parent[key] = data.draw(values, label="value")
    return holder[0], path


def mutated(data: st.DataObject, valid: Any, most: int = 3,
            values: st.SearchStrategy | None = None) -> tuple[Any, list[list]]:
    """``valid`` with 1 to ``most`` mutations (a deep copy: ``valid`` is left alone)."""
    value, paths = copy.deepcopy(valid), []
    for _ in range(data.draw(st.integers(1, most), label="mutations")):
        value, path = mutate_once(data, value, values)
        paths.append(path)
    return value, paths


def field_names(value: Any) -> set[str]:
    """Every dict key anywhere in ``value``: the names an error message may cite."""
    names: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            names.update(str(k) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return names
