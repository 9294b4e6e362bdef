"""Malformed inputs (records, configs, action names, state dicts, command lines, baselines)
give one clear error, never a crash: each case is one the fuzzers of ``tests/fuzz`` found."""

from __future__ import annotations

import importlib
import io
import json
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

import loco_envs
from loco_envs.benchmarks import check
from loco_envs.benchmarks import tournament as T
from loco_envs.loco.actions import str_to_action as loco_action
from tests.cli.helpers import Script, console

play = importlib.import_module("loco_envs.play")


def test_a_record_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    path = env.save_record(tmp_path / "g.jsonl")
    path.write_bytes(path.read_bytes() + b"\x80{}\n")
    with pytest.raises(ValueError, match="record line 2: not UTF-8"):
        loco_envs.replay(path)


@pytest.mark.parametrize("result", ["r5", [1], 3, None])
def test_a_record_whose_result_is_no_object_names_its_line(tmp_path: Path, result) -> None:
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=3)
    while not env.over:
        env.step(int(np.flatnonzero(env.game.legal_mask())[0]))
    path = env.save_record(tmp_path / "g.jsonl")
    lines = path.read_text().splitlines()
    lines[-1] = json.dumps({"result": result})
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=f"record line {len(lines)}: 'result' must be a JSON"):
        loco_envs.replay(path)


def test_a_config_that_is_not_utf8_names_its_file(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from loco_envs.train.config import load_config
    from loco_envs.train.ppo import Args

    path = tmp_path / "c.yaml"
    path.write_bytes(b"env_id: moco_v0\nseed: \xed\xa0\x80\n")
    with pytest.raises(ValueError, match="c.yaml: not UTF-8"):
        load_config(path, Args)


@pytest.mark.parametrize("value", [None, 5, ["draw"], b"draw"])
def test_loco_action_names_must_be_strings(value) -> None:
    with pytest.raises(ValueError, match="must be a string"):
        loco_action(value)


def test_mampfos_state_with_a_pile_card_that_is_no_string_is_refused() -> None:
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3)
    env.reset(seed=0)
    state = env.state_dict()
    before = json.dumps(state)
    state["pile"]["A"] = [[[0]]]
    with pytest.raises(ValueError, match="'pile'"):
        env.reset(seed=1, options={"state": state})
    assert json.dumps(env.state_dict()) == before


@pytest.mark.parametrize(("field", "value", "message"), [
    ("round", 0, "'round'"), ("scores", 10**30, "'scores'"), ("rounds_won", 9, "'rounds_won'"),
    ("timeouts", -1, "'timeouts'"), ("slap_window_due", [0] * 5, "'slap_window_due'"),
    # the observation's swaps_left entry read -1 (L-20: at most the copies of one identity)
    ("swaps_left", -1, "'swaps_left': must be 0..1"), ("swaps_left", 2, "'swaps_left'"),
    ("rotations_left", -1, "'rotations_left': must be 0..4"),
    ("rotations_left", 5, "'rotations_left'"),
])
def test_loco_state_counters_beyond_a_match_are_refused(field, value, message) -> None:
    env = loco_envs.make("loco_v0", wrapped=False, num_players=3)
    env.reset(seed=4)
    state = env.state_dict()
    before = json.dumps(state)
    state[field] = [value] * 3 if isinstance(state[field], list) else value
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options={"state": state})
    assert json.dumps(env.state_dict()) == before


@pytest.mark.parametrize("typed", ["²", "9" * 5000, "٣"])
def test_play_reads_odd_numbers_as_no_move_not_a_crash(typed: str) -> None:
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    out, buffer = console()
    outcome = play.play_game(env, env.seat(env.agent_selection), {}, console=out,
                             input_fn=Script([typed, "quit"]), rng=np.random.default_rng(0))
    assert outcome == "quit"


@pytest.mark.parametrize(("argv", "message"), [
    (["--state", "list.json"], "a state is a JSON object"),
    (["--state", "binary.json"], "UnicodeDecodeError"),
    (["--delay", "-1"], "--delay -1.0"),
    (["--delay", "nan"], "--delay nan"),
])
def test_play_command_line_errors(tmp_path: Path, capsys, argv, message) -> None:
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "binary.json").write_bytes(b"\xff\xfe")
    argv = [a if not a.endswith(".json") else str(tmp_path / a) for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        play.main(["moco_v0", *argv], input_fn=Script([]),
                  console=Console(file=io.StringIO()))
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_from_records_of_a_missing_file_is_one_error(tmp_path: Path, capsys) -> None:
    assert T.main(["--from-records", str(tmp_path / "none.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_a_baseline_nested_too_deep_is_named(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="deep.json: unreadable"):
        check.load_baseline(path)
