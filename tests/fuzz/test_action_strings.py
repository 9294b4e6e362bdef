"""Fuzzing every game's ``str_to_action`` with edited action names, unicode and non-strings.

Typed or read from a file, an action string either names an action (an index in range) or is
refused with a ``ValueError`` that quotes it.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import strategies as st

import loco_envs
from tests.fuzz.fuzzing import NASTY, UNICODE, bounded, budgets, count


@functools.cache
def codec(env_id: str):
    env = loco_envs.make(env_id, wrapped=False)
    cls = env.game_class
    return cls, [cls.action_to_str(a) for a in range(cls.NUM_ACTIONS)]


def edited(data: st.DataObject, name: str) -> str:
    how = data.draw(st.sampled_from(["delete", "insert", "replace", "upper", "spaces",
                                     "repeat", "join"]), label="edit")
    i = data.draw(st.integers(0, len(name)), label="at")
    char = data.draw(st.one_of(st.characters(), st.sampled_from(UNICODE)), label="char")
    if how == "delete":
        return name[:i] + name[i + 1:]
    if how == "insert":
        return name[:i] + char + name[i:]
    if how == "replace":
        return name[:i] + char + name[i + 1:]
    if how == "upper":
        return name.upper()
    if how == "spaces":
        return "  " + name.replace(" ", " \t ") + " \n"
    if how == "repeat":
        return name * data.draw(st.sampled_from([2, 3, 10_000]))
    return name + " " + data.draw(st.sampled_from(["x1", "x2", "x0", "x-1", "x99", "x"]))


def action_property(env_id: str, data: st.DataObject) -> None:
    cls, names = codec(env_id)
    kind = data.draw(st.sampled_from(["edited", "text", "nasty"]), label="kind")
    if kind == "edited":
        text = edited(data, data.draw(st.sampled_from(names), label="name"))
    elif kind == "text":
        text = data.draw(st.text(max_size=30), label="text")
    else:
        text = data.draw(NASTY, label="value")
    with bounded():
        try:
            action = cls.str_to_action(text)
        except ValueError:
            count(f"action string {env_id}", "ValueError")
            return
    count(f"action string {env_id}", "an action")
    assert isinstance(action, int) and 0 <= action < cls.NUM_ACTIONS


test_action_strings, test_action_strings_slow = (
    pytest.mark.parametrize("env_id", loco_envs.available_envs())(test)
    for test in budgets(action_property, data=st.data()))
