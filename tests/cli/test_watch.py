"""``python -m loco_envs.watch``: watching and checking game records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import loco_envs
import loco_envs.watch as replay_cli
from loco_envs import agents
from tests.cli.helpers import Script, console


def record_game(path: Path, env_id: str = "loco_v0", seed: int = 3, spec: str = "random",
                **options) -> Path:
    """A bot game saved as a record."""
    env = loco_envs.make(env_id, wrapped=False, **options)
    env.reset(seed=seed)
    bot, rng = agents.make(spec), np.random.default_rng(seed)
    while not env.game.terminal:
        agent = env.agent_selection
        env.step(bot.act(env.view(agent), env.observe(agent)["action_mask"], rng))
    return env.save_record(path)


def run(argv: list[str], script: Script | None = None) -> tuple[int, str]:
    con, buffer = console()
    status = replay_cli.main(argv, input_fn=script or Script([]), console=con)
    return status, buffer.getvalue()


def moves_in(path: Path) -> list[dict]:
    return [line for line in map(json.loads, path.read_text().splitlines())
            if "action" in line]


@pytest.fixture(scope="module")
def loco_record(tmp_path_factory) -> Path:
    # Heuristic bots finish a LOCO game in tens of moves (random ones take hundreds).
    path = record_game(tmp_path_factory.mktemp("rec") / "loco.jsonl", spec="loco/heuristic",
                       num_players=3)
    assert 10 < len(moves_in(path)) < 300
    return path


def test_runs_to_the_end_with_every_move_and_the_table(loco_record):
    moves = moves_in(loco_record)
    status, out = run([str(loco_record)])
    assert status == 0
    total = len(moves)
    assert f"{total} moves" in out
    for i in (1, total // 2, total):
        move = moves[i - 1]
        assert f"move {i}/{total}: {move['agent']} {move['action_str']}" in out
    assert out.count("LOCO  round") == total + 1  # the start and after every move
    assert "hand:" not in out  # the public view
    assert f"Replayed {total} moves to the end; the record's result matches the replay." in out
    assert "Final scores" in out


def test_reveal_draws_every_hand(loco_record):
    status, out = run([str(loco_record), "--reveal", "--brief"])
    assert status == 0
    assert out.count("hand:") == 3  # --brief: the table once, at the end, with all three hands
    assert "   1  player_" in out


def test_step_mode_waits_for_enter_and_quits_on_q(loco_record):
    script = Script(["", "", "what?", "q"])
    status, out = run([str(loco_record), "--step"], script)
    assert status == 0
    total = len(moves_in(loco_record))
    assert script.prompts[0].startswith(f"[move 1/{total}] Enter: next")
    assert len(script.prompts) == 4
    assert f"move 2/{total}" in out and f"move 3/{total}" not in out
    assert "Press Enter for the next move, 'a' to run to the end, 'q' to quit." in out
    assert f"Stopped after 2 of {total} moves." in out


def test_step_mode_can_run_on_to_the_end(loco_record):
    script = Script(["", "a"])
    status, out = run([str(loco_record), "--step"], script)
    assert status == 0 and len(script.prompts) == 2
    assert "Replayed" in out and "result matches" in out


def test_end_of_input_in_step_mode_stops_quietly(loco_record):
    status, out = run([str(loco_record), "--step"], Script([]))
    assert status == 0 and "Stopped after 0 of" in out


@pytest.mark.parametrize("env_id", ["moco_v0", "momo_v0", "mampfos_v0"])
def test_the_other_games_replay_too(env_id, tmp_path):
    path = record_game(tmp_path / "g.jsonl", env_id, seed=1)
    status, out = run([str(path), "--brief"])
    assert status == 0
    assert "result matches" in out


def test_a_tampered_move_stops_with_its_line_number(loco_record, tmp_path):
    lines = loco_record.read_text().splitlines()
    header = json.loads(lines[0])
    env = loco_envs.make(header["env"], wrapped=False, **header["options"])
    env.reset(seed=header["seed"])
    for line in lines[1:5]:
        env.step(json.loads(line)["action"])
    illegal = int(np.flatnonzero(env.game.legal_mask() == 0)[0])
    move = json.loads(lines[5])
    move["action"], move["action_str"] = illegal, env.action_to_str(illegal)
    lines[5] = json.dumps(move)  # the fifth move, on line 6, becomes an illegal one
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    status, out = run([str(bad)])
    assert status == 1
    assert "error:" in out and "record line 6:" in out
    assert "move 4/" in out  # the moves before the bad line were shown
    with pytest.raises(ValueError, match="record line 6"):  # the same verdict as the library
        loco_envs.core.replay(bad)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda lines: lines[:3] + ["{not json"] + lines[4:], "record line 4: not JSON"),
    (lambda lines: [json.dumps({"env": "loco_v0"})] + lines[1:], "record line 1: header lacks"),
    (lambda lines: lines[:2] + lines[3:], "record line 3:"),  # a move missing: out of turn
    (lambda lines: lines[:-1] + [json.dumps({"result": {"ranks": [9], "scores": [0]}})],
     "replay ends with ranks"),
])
def test_bad_records_exit_1_with_the_line_number(loco_record, tmp_path, edit, message):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(loco_record.read_text().splitlines())) + "\n")
    status, out = run([str(bad)])
    assert status == 1
    assert message in " ".join(out.split())


def test_a_missing_file_exits_1(tmp_path):
    status, out = run([str(tmp_path / "nothing.jsonl")])
    assert status == 1 and "cannot read" in out


def test_an_unfinished_record_replays_to_where_it_stops(tmp_path):
    env = loco_envs.make("moco_v0", wrapped=False, num_players=3)
    env.reset(seed=2)
    for _ in range(5):
        env.step(env.game.legal_actions()[0])
    path = env.save_record(tmp_path / "part.jsonl")
    status, out = run([str(path)])
    assert status == 0
    assert "The record ends after 5 moves, before the game does." in out


def test_a_record_from_the_play_cli_replays(tmp_path):
    from loco_envs import play

    path = tmp_path / "mine.jsonl"
    con, _ = console()
    play.main(["moco_v0", "--seed", "9", "--players", "3", "--record", str(path)],
              input_fn=Script([], then="1"), console=con)
    status, out = run([str(path), "--brief"])
    assert status == 0 and "result matches" in out


def test_the_package_function_is_not_shadowed_by_the_watch_module(loco_record):
    # the command line is ``loco_envs.watch``, so ``loco_envs.replay`` stays the function
    assert loco_envs.replay is loco_envs.core.records.replay
    assert not isinstance(loco_envs.replay, type(replay_cli))
    env = loco_envs.replay(loco_record)
    assert env.game.terminal
    assert loco_envs.core.replay is loco_envs.core.records.replay


def test_python_dash_m_exit_codes(loco_record, tmp_path):
    good = subprocess.run([sys.executable, "-m", "loco_envs.watch", str(loco_record), "--brief"],
                          capture_output=True, text=True, timeout=60)
    assert good.returncode == 0, good.stderr
    assert "result matches" in good.stdout
    lines = loco_record.read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:2] + ["[1, 2]"] + lines[3:]) + "\n")
    done = subprocess.run([sys.executable, "-m", "loco_envs.watch", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "record line 3: expected a JSON object" in done.stdout
    assert "Traceback" not in done.stderr


def test_the_default_prompt_is_printed_as_is(loco_record, monkeypatch):
    con, buffer = console()
    monkeypatch.setattr("builtins.input", lambda *args: "q")
    assert replay_cli.main([str(loco_record), "--step"], console=con) == 0
    assert "[move 1/" in buffer.getvalue()  # not swallowed as console markup
