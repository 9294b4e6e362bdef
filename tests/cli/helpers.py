"""Scripted people and consoles for driving the terminal tools in tests."""

from __future__ import annotations

import io
from collections.abc import Iterable

import numpy as np
from rich.console import Console


def console() -> tuple[Console, io.StringIO]:
    """A plain-text console writing to a buffer (no colour, wide enough not to wrap moves)."""
    buffer = io.StringIO()
    return Console(file=buffer, width=120, force_terminal=False, color_system=None,
                   no_color=True), buffer


class Script:
    """An ``input_fn`` that answers prompts from a list, then ``then`` forever (or EOF)."""

    def __init__(self, answers: Iterable[str], then: str | None = None):
        self.answers = list(answers)
        self.then = then
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.answers:
            return self.answers.pop(0)
        if self.then is None:
            raise EOFError
        return self.then


class ScriptedBot:
    """Plays the first legal action among ``prefer`` (action names), else the first legal one."""

    name = "scripted"

    def __init__(self, env, *prefer: str):
        self.env = env
        self.prefer = prefer

    def act(self, view, action_mask, rng) -> int:
        for name in self.prefer:
            action = self.env.str_to_action(name)
            if action_mask[action]:
                return action
        return int(np.flatnonzero(action_mask)[0])
