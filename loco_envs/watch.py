"""Watch a recorded game move by move, checking the record as it goes.

    python -m loco_envs.watch game.jsonl            # every move with the table, to the end
    python -m loco_envs.watch game.jsonl --step     # Enter: next move, a: to the end, q: quit
    python -m loco_envs.watch game.jsonl --reveal   # draw every hand, not just the public table
    python -m loco_envs.watch game.jsonl --brief    # the moves only, the table at the end

Records are the JSON Lines written by ``env.save_record`` (``python -m loco_envs.play --record``,
the demo, the tournament runner). Each line is checked with the very functions behind
:func:`loco_envs.core.replay`: a malformed line, a move out of turn, an illegal or misnamed
action or a different result stops the replay with the record's line number and exit status 1.

The module is ``watch`` so that it does not shadow the package's replay *function*,
``loco_envs.replay(path)`` (:func:`loco_envs.core.records.replay`), which checks a record
without drawing it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from loco_envs.core.records import check_result, read_record, replay_move, start_replay

InputFn = Callable[[str], str]


def plain_input(console: Console) -> InputFn:
    """The console's line input, with the prompt printed as is (brackets are not markup)."""
    return lambda prompt: console.input(Text(prompt))


class Viewer:
    """Steps through one record on a console; ``input_fn`` answers the ``--step`` prompts."""

    def __init__(self, path: Path, *, console: Console, input_fn: InputFn, step: bool = False,
                 reveal: bool = False, brief: bool = False):
        self.path = path
        self.console = console
        self.input_fn = input_fn
        self.step = step
        self.reveal = reveal
        self.brief = brief

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style))

    def table(self, env: Any) -> None:
        self.console.print(Text.from_ansi(env.game.render_text(None, self.reveal)))

    def run(self) -> int:
        """Replay to the end (or a quit): 0; a bad or unreadable record: 1."""
        try:
            lines = read_record(self.path)
            number, header = lines[0]
            env = start_replay(number, header)
        except OSError as exc:
            self.say(f"error: cannot read {self.path}: {exc.strerror or exc}", "bold red")
            return 1
        except ValueError as exc:
            return self.fail(exc)
        moves = [line for _, line in lines[1:] if "result" not in line]
        self.intro(header, env, len(moves))
        if not self.brief or self.step:
            self.table(env)
        done, checked = 0, False
        for number, line in lines[1:]:
            try:
                if "result" in line:
                    check_result(env, number, line["result"])
                    checked = True
                    continue
                if self.step and not self.wait(done, len(moves)):
                    self.say(f"Stopped after {done} of {len(moves)} moves.", "bold")
                    return 0
                replay_move(env, number, line)
            except ValueError as exc:
                return self.fail(exc)
            done += 1
            self.show_move(env, done, len(moves), line)
        self.finish(env, done, checked)
        return 0

    def intro(self, header: dict, env: Any, moves: int) -> None:
        options = ", ".join(f"{k}={v}" for k, v in header["options"].items())
        start_note = ", from a given position" if header.get("state") else ""
        self.console.rule(Text(f"{header['env']} record {self.path.name}", style="bold"))
        self.say(f"{env.num_players} players, seed {header['seed']}{start_note}; "
                 f"{moves} moves; options {options or '-'}; "
                 f"version {header.get('version', '?')}")

    def wait(self, done: int, total: int) -> bool:
        """In ``--step`` mode: True to play the next move, False to stop."""
        while True:
            try:
                answer = self.input_fn(f"[move {done + 1}/{total}] Enter: next, a: to the end, "
                                       "q: quit > ")
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return False
            key = answer.strip().lower()
            if key == "":
                return True
            if key in ("a", "all", "end"):
                self.step = False
                return True
            if key in ("q", "quit", "exit"):
                return False
            self.say("Press Enter for the next move, 'a' to run to the end, 'q' to quit.",
                     "yellow")

    def show_move(self, env: Any, done: int, total: int, line: dict) -> None:
        name = env.action_to_str(line["action"])
        if self.brief and not self.step:
            self.say(f"{done:>4}  {line['agent']}: {name}")
            return
        self.console.rule(Text(f"move {done}/{total}: {line['agent']} {name}", style="bold"))
        self.table(env)

    def finish(self, env: Any, done: int, checked: bool) -> None:
        game = env.game
        if self.brief and not self.step:
            self.table(env)
        if env.truncated_game:
            verdict = ("the record's result matches" if checked
                       else "the record has no result line to compare")
            self.say(f"Replayed {done} moves: the game was truncated at max_decisions="
                     f"{env.options['max_decisions']} before it ended; {verdict}.", "bold")
            return
        if not game.terminal:
            self.say(f"The record ends after {done} moves, before the game does.", "bold")
            return
        scores, ranks = game.final_scores(), game.final_ranks()
        table = Table(title="Final scores")
        table.add_column("rank", justify="right")
        table.add_column("agent")
        table.add_column("score", justify="right")
        for seat in sorted(range(game.num_players), key=lambda s: (ranks[s], s)):
            table.add_row(f"#{ranks[seat] + 1}", env.possible_agents[seat], f"{scores[seat]:g}")
        self.console.print(table)
        verdict = ("the record's result matches the replay" if checked
                   else "the record has no result line to compare")
        self.say(f"Replayed {done} moves to the end; {verdict}.", "bold green")

    def fail(self, exc: ValueError) -> int:
        self.say(f"error: {self.path}: {exc}", "bold red")
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m loco_envs.watch",
        description="Step through a recorded game with the table drawn after every move, "
                    "checking the record as it goes.")
    parser.add_argument("record", type=Path, help="a game record (.jsonl)")
    parser.add_argument("--step", action="store_true",
                        help="wait for Enter before each move (a: to the end, q: quit)")
    parser.add_argument("--reveal", action="store_true", help="draw every hand")
    parser.add_argument("--brief", action="store_true",
                        help="one line per move, the table only at the end")
    return parser


def main(argv: Sequence[str] | None = None, *, input_fn: InputFn | None = None,
         console: Console | None = None) -> int:
    """Run the command line; returns the exit status (1 for a bad record)."""
    args = build_parser().parse_args(argv)
    console = console or Console()
    viewer = Viewer(args.record, console=console, input_fn=input_fn or plain_input(console),
                    step=args.step, reveal=args.reveal, brief=args.brief)
    return viewer.run()


if __name__ == "__main__":
    raise SystemExit(main())
