"""Fuzzing the command lines: tournament, train.evaluate, train, play, replay, check.

Each ``main(argv)`` is handed argument lists drawn from its own flags and a pool of good and
bad values (numbers out of range, unicode, files with garbage in them). It must end with an
argparse error (``SystemExit(2)``), a return code, or reach the expensive part (playing,
training, which is replaced here by raising :class:`Reached`), never with another exception.
Everything runs in a temporary folder, so no value can write into the repository.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import strategies as st

import loco_envs
from tests.fuzz.fuzzing import UNICODE, bounded, budgets, count

NUMBERS = ["0", "1", "2", "3", "5", "-1", "1e9", "nan", "inf", "-0", "99999999999999999999",
           "0x10", "2.5", "", " 2"]
WORDS = [*loco_envs.available_envs(), "chess_v0", "random", "loco/heuristic", "moco/heuristic",
         "momo/heuristic", "mampfos/heuristic", "ppo:nope", "ppo:", "heuristic", "rounds=3",
         "rounds=x", "=", "num_players=3", "memory=recall", "max_decisions=-5", "a=b=c", "--",
         "-", "ray", "local", "random,random", ",", "recall"]
FILES = ["garbage.json", "list.json", "deep.json", "binary.bin", "empty.jsonl", "missing.json",
         "folder", "state.json", "record.jsonl"]


class Reached(BaseException):
    """The command line accepted its arguments and went on to the real work."""


def write_files(folder: Path) -> None:
    (folder / "garbage.json").write_text("{not json")
    (folder / "list.json").write_text("[1, 2, 3]")
    (folder / "deep.json").write_text("[" * 50_000 + "]" * 50_000)
    (folder / "binary.bin").write_bytes(b"\xff\xfe\x00\x80" * 10)
    (folder / "empty.jsonl").write_text("")
    (folder / "folder").mkdir()
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    import json

    (folder / "state.json").write_text(json.dumps(env.state_dict()))
    env.save_record(folder / "record.jsonl")


def tools():
    import importlib

    from loco_envs.benchmarks import check, tournament

    play = importlib.import_module("loco_envs.play")
    replay = importlib.import_module("loco_envs.watch")

    yield "tournament", tournament.main, tournament.build_parser, [
        mock.patch.object(tournament, "run", side_effect=Reached)]
    yield "play", lambda argv: play.main(argv, input_fn=_eof, console=_console()), \
        play.build_parser, []
    yield "replay", lambda argv: replay.main(argv, input_fn=_eof, console=_console()), \
        replay.build_parser, []
    yield "check", check.main, check.build_parser, [
        mock.patch.object(check, "rerun", side_effect=Reached)]
    try:
        from loco_envs.train import evaluate, ppo
    except ImportError:
        return
    yield "train.evaluate", evaluate.main, None, [
        mock.patch.object(tournament, "play", side_effect=Reached)]
    yield "train", ppo.main, None, [mock.patch.object(ppo, "train", side_effect=Reached)]


def _eof(prompt: str) -> str:
    raise EOFError


def _console():
    from rich.console import Console

    return Console(file=io.StringIO(), width=100, color_system=None)


TOOLS = {name: (main, parser, patches) for name, main, parser, patches in tools()}


def flags_of(name: str) -> list[str]:
    main, parser, _ = TOOLS[name]
    if parser is not None:
        return [s for action in parser()._actions for s in action.option_strings]
    if name == "train":
        import dataclasses

        from loco_envs.train.ppo import Args

        return ["--" + f.name.replace("_", "-") for f in dataclasses.fields(Args)] + ["--help"]
    from loco_envs.benchmarks.tournament import build_parser

    return [s for action in build_parser()._actions for s in action.option_strings]


def argv_of(data: st.DataObject, name: str) -> list[str]:
    flags = flags_of(name)
    values = st.one_of(st.sampled_from(NUMBERS), st.sampled_from(WORDS), st.sampled_from(FILES),
                       st.sampled_from(UNICODE), st.text(max_size=8))
    pair = st.tuples(st.sampled_from(flags), st.lists(values, max_size=2))
    argv = [token for flag, given in data.draw(st.lists(pair, max_size=5), label="argv")
            for token in (flag, *given)]
    if data.draw(st.booleans(), label="starts with a game"):
        argv.insert(0, data.draw(st.sampled_from([*loco_envs.available_envs(), "configs/x.yaml",
                                                  "record.jsonl", "state.json"])))
    return [a for a in argv if "\x00" not in a]  # a NUL cannot be in a real argv


def cli_property(name: str, data: st.DataObject) -> None:
    argv = argv_of(data, name)
    main, _, patches = TOOLS[name]
    old = os.getcwd()
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        write_files(Path(folder))
        os.chdir(folder)
        stack.callback(os.chdir, old)
        for patch in patches:
            stack.enter_context(patch)
        stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
        err = stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        with bounded(60):
            try:
                code = main(argv)
            except SystemExit as exc:
                assert exc.code in (0, 2), (argv, exc.code, err.getvalue()[-500:])
                count(f"cli {name}", f"exit {exc.code}")
                return
            except Reached:
                count(f"cli {name}", "accepted")
                return
    assert code in (0, 1, 2), (argv, code)
    count(f"cli {name}", f"returned {code}")


test_cli, test_cli_slow = (
    pytest.mark.parametrize("name", sorted(TOOLS))(test)
    for test in budgets(cli_property, data=st.data()))
