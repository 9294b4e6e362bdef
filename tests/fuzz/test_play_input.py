"""Fuzzing ``play``'s keyboard input: whatever a person types, the game goes on or ends cleanly.

A person at the terminal types move numbers, names, abbreviations, commands, or anything at
all. Each game here is driven by a typed script (good and bad lines mixed), then end of input;
the game must come back with ``"over"`` or ``"quit"`` and only ever play legal moves.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import strategies as st

import loco_envs
from loco_envs import agents
from tests.cli.helpers import Script, console
from tests.fuzz.fuzzing import UNICODE, bounded, budgets, count

play = importlib.import_module("loco_envs.play")

COMMANDS = ["help", "?", "table", "t", "quit", "q", "", " ", "1", "0", "-1", "01", "1.0", "99",
            "²", "١", "٣", "1 2", "9" * 30, "draw", "d", "play", "play r", "col", "colour",
            "chip", "no", "wheel", "PLAY R5", "slap", "loco", "contre", "pass", "x2", "\x1b[A",
            "\x04", "\x00", "🂡"]


def typed(data: st.DataObject, env) -> list[str]:
    names = [env.action_to_str(a) for a in range(env.game_class.NUM_ACTIONS)]
    line = st.one_of(st.sampled_from(COMMANDS), st.sampled_from(UNICODE), st.text(max_size=20),
                     st.sampled_from(names), st.sampled_from(names).map(lambda n: n[:3]),
                     st.integers(-3, 300).map(str))
    script = data.draw(st.lists(line, max_size=25), label="typed")
    return [s for s in script if s.strip().lower() not in ("q", "quit", "exit")] + ["quit"] \
        if data.draw(st.booleans(), label="quits at the end") else script


def input_property(env_id: str, data: st.DataObject) -> None:
    players = data.draw(st.sampled_from([2, 3]), label="players")
    env = loco_envs.make(env_id, wrapped=False, num_players=players)
    env.reset(seed=data.draw(st.integers(0, 50), label="deal"))
    seat = data.draw(st.integers(0, players - 1), label="seat")
    bots = {s: agents.make("random") for s in range(players) if s != seat}
    out, _ = console()
    script = Script(typed(data, env))  # then EOF: counts as a quit
    legal_seen = []
    original = env.step

    def checked_step(action):
        legal_seen.append(bool(env.game.legal_mask()[action]))
        original(action)

    env.step = checked_step
    with bounded(60):
        outcome = play.play_game(env, seat, bots, console=out, input_fn=script,
                                 rng=np.random.default_rng(0))
    assert outcome in ("over", "quit"), outcome
    assert all(legal_seen)
    count(f"play input {env_id}", outcome)


test_play_input, test_play_input_slow = (
    pytest.mark.parametrize("env_id", loco_envs.available_envs())(test)
    for test in budgets(input_property, data=st.data()))
