"""Play a game of the suite in the terminal against bots or trained agents.

    python -m loco_envs.play loco_v0 --players 3 --seat 0 --opponents loco/heuristic,random
    python -m loco_envs.play moco_v0 --players 4 --opponents moco/heuristic --seed 7
    python -m loco_envs.play momo_v0 --players 1                      # solo Loco Momo
    python -m loco_envs.play loco_v0 --opponents loco/ppo             # the shipped trained agent
    python -m loco_envs.play loco_v0 --rounds 3 --option photo_finish=seat --record me.jsonl
    python -m loco_envs.play loco_v0 --option stacking=identical     # +2 only on the same +2

On each of your decisions the table is drawn from your seat, with your legal moves numbered.
Type a number or a move's name (case and spaces do not matter, and a unique abbreviation is
enough: ``g5`` for ``play g5``, ``col b`` for ``colour b``), ``help``, ``table`` or ``quit``.
The bots' moves are printed as they happen. Choices the rules keep hidden until everyone has
made theirs (LOCO's slap and Contre-LOCO windows, the Mampfos millwheels) are shown only once
the window closes; who may slap at all is never shown, since that would reveal who holds the
card.

Everything that reads or writes the terminal goes through a ``rich`` console and an
``input_fn`` that :func:`main` and :func:`play_game` take, so tests drive a game with scripted
input and read the output back.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

import loco_envs
from loco_envs import agents
from loco_envs.core.narration import Narrator
from loco_envs.core.registry import GAMES, raw_env_class
from loco_envs.loco.narration import LocoNarrator
from loco_envs.mampfos.narration import MampfosNarrator
from loco_envs.moco.narration import MocoNarrator
from loco_envs.momo.narration import MomoNarrator

InputFn = Callable[[str], str]

QUIT_WORDS = ("quit", "q", "exit")
HELP_WORDS = ("help", "h", "?")
TABLE_WORDS = ("table", "t", "board")


# --------------------------------------------------------------------------------------------
# What each game tells the person (each game's narrator lives beside its renderer)
# --------------------------------------------------------------------------------------------
NARRATORS: dict[str, type[Narrator]] = {
    "loco_v0": LocoNarrator, "moco_v0": MocoNarrator, "momo_v0": MomoNarrator,
    "mampfos_v0": MampfosNarrator,
}


# --------------------------------------------------------------------------------------------
# Reading the person's input
# --------------------------------------------------------------------------------------------
def plain_input(console: Console) -> InputFn:
    """The console's line input, with the prompt printed as is (brackets are not markup)."""
    return lambda prompt: console.input(Text(prompt))


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def match_move(text: str, names: Sequence[str]) -> tuple[int | None, str | None]:
    """Which of ``names`` the input means: ``(index, None)`` or ``(None, why not)``.

    Accepted: the move's number (1-based), its full name, its name without the verb (``g5``
    for ``play g5``), or a unique abbreviation of either, word by word (``col b`` for
    ``colour b``, ``dr`` for ``draw``); case and spacing are ignored.
    """
    key = _norm(text)
    if key.isdecimal():  # not isdigit: "²" is a digit that int() refuses
        number = int(key) if len(key) < 10 else 0  # int() refuses 4,300 digits and more
        if 1 <= number <= len(names):
            return number - 1, None
        return None, f"there is no move number {key[:12]}: choose 1 to {len(names)}."
    full = [_norm(name) for name in names]
    args = [name.split(" ", 1)[1] if " " in name else name for name in full]
    for candidates in (full, args):
        if key in candidates:
            return candidates.index(key), None
    words = key.split(" ")
    for candidates in (full, args):
        hits = [i for i, c in enumerate(candidates) if _word_prefix(words, c.split(" "))]
        if len(hits) == 1:
            return hits[0], None
        if len(hits) > 1:
            shown = ", ".join(names[i] for i in hits[:6]) + (", ..." if len(hits) > 6 else "")
            return None, f"{text.strip()!r} could be {shown}: type more of the name, or a number."
    return None, None


def _word_prefix(words: list[str], name: list[str]) -> bool:
    """Does each typed word begin the name's word in the same place (``col b``: ``colour b``)?"""
    if len(words) > len(name):
        return False
    return all(n.startswith(w) for w, n in zip(words, name[: len(words)], strict=True))


class TerminalGame:
    """One game between a person and bots on a prepared (reset) raw env."""

    def __init__(self, env: Any, seat: int, bots: dict[int, Any], *, console: Console,
                 input_fn: InputFn, rng: np.random.Generator, names: dict[int, str] | None = None,
                 delay: float = 0.0, sleep: Callable[[float], None] = time.sleep):
        self.env = env
        self.seat = seat
        self.bots = bots
        self.console = console
        self.input_fn = input_fn
        self.rng = rng
        self.delay = delay
        self.sleep = sleep
        self.narrator = NARRATORS.get(env.env_id, Narrator)(env)
        self.names = names or {s: getattr(bot, "name", "bot") for s, bot in bots.items()}

    # --- output helpers ------------------------------------------------------------------
    def say(self, text: str, style: str | None = None) -> None:
        self.console.print(Text(text, style=style or ""))

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.narrator.label(seat)

    def draw_table(self, reveal_all: bool = False) -> None:
        self.console.print(Text.from_ansi(self.env.game.render_text(self.seat, reveal_all)))

    # --- the loop --------------------------------------------------------------------------
    def run(self) -> str:
        """Play until the end (``"over"``), a quit (``"quit"``) or a failing bot (``"error"``)."""
        env, game = self.env, self.env.game
        hidden_choices: list[tuple[int, int]] = []
        window_start: Any = None
        while not game.terminal:
            agent = env.agent_selection
            seat = env.seat(agent)
            hidden = self.narrator.hidden()
            if hidden and not hidden_choices:
                window_start = self.narrator.snapshot()
            if seat == self.seat:
                action = self.ask()
                if action is None:
                    return "quit"
            else:
                action = self.bot_move(seat, agent)
                if action is None:
                    return "error"
            name = env.action_to_str(action)
            before = self.narrator.snapshot_events()
            note = self.narrator.announce_hidden(seat) if hidden else None
            env.step(action)
            if hidden:
                hidden_choices.append((seat, action))
                if seat == self.seat:
                    self.say(f"you: {name} (kept hidden until everyone has chosen)", "bold")
                elif note:
                    self.say(note, "dim")
                if not self.narrator.window_open():
                    for line in self.narrator.reveal(self.seat, window_start, hidden_choices):
                        self.say(line, "bold magenta")
                    hidden_choices = []
            elif seat == self.seat:
                self.say(f"you: {name}{self.narrator.detail(before, seat, action)}", "bold")
            else:
                self.say(f"{self.who(seat)} ({self.names[seat]}): {name}"
                         f"{self.narrator.detail(before, seat, action)}", "cyan")
                if self.delay:
                    self.sleep(self.delay)
            for line in self.narrator.events(before):
                self.say(line, "bold yellow")
        self.show_result()
        return "over"

    def bot_move(self, seat: int, agent: str) -> int | None:
        env = self.env
        mask = env.observe(agent)["action_mask"]
        try:
            action = int(self.bots[seat].act(env.view(agent), mask, self.rng))
        except Exception as exc:  # a bot's failure ends the game, not the program
            self.say(f"{self.who(seat)} ({self.names[seat]}) failed: {exc}", "bold red")
            return None
        if not (0 <= action < len(mask) and mask[action]):
            self.say(f"{self.who(seat)} ({self.names[seat]}) chose an illegal move ({action}); "
                     "the game stops.", "bold red")
            return None
        return action

    # --- the person's decisions ----------------------------------------------------------
    def show_moves(self, legal: list[int], names: list[str]) -> None:
        cells = []
        for i, (action, name) in enumerate(zip(legal, names, strict=True), start=1):
            cell = Text(f"{i:>2} ", style="bold green")
            cell.append(name)
            hint = self.narrator.hint(self.seat, action)
            if hint:
                cell.append(f" ({hint})", style="dim")
            cells.append(cell)
        self.console.print(Columns(cells, padding=(0, 3)))

    def show_decision(self, legal: list[int], names: list[str]) -> None:
        label = self.narrator.label(self.seat)
        self.console.rule(Text(f"your move ({label})", style="bold"))
        self.draw_table()
        situation = self.narrator.situation(self.seat)
        if situation:
            self.say(situation, "bold yellow")
        self.show_moves(legal, names)

    def ask(self) -> int | None:
        """The person's action, or ``None`` if they quit. Bad input is explained and asked again."""
        legal = self.env.game.legal_actions()
        names = [self.env.action_to_str(a) for a in legal]
        self.show_decision(legal, names)
        while True:
            try:
                text = self.input_fn(f"{self.narrator.label(self.seat)}> ")
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return self.quit()
            key = _norm(text)
            if not key:
                self.say(f"Type a move number (1-{len(names)}) or its name; 'help' for more.",
                         "yellow")
                continue
            if key in QUIT_WORDS:
                return self.quit()
            if key in HELP_WORDS:
                self.show_help(names)
                continue
            if key in TABLE_WORDS:
                self.show_decision(legal, names)
                continue
            index, why = match_move(text, names)
            if index is not None:
                return legal[index]
            self.say(why or self.explain_unknown(text, len(names)), "yellow")

    def explain_unknown(self, text: str, count: int) -> str:
        """Why ``text`` is no legal move: the rule it breaks, or that it is no move at all."""
        key = _norm(text)
        size = self.env.game_class.NUM_ACTIONS
        action = {_norm(self.env.action_to_str(a)): a for a in range(size)}.get(key)
        if action is None:
            return (f"{text.strip()!r} is not a move. Type a number from 1 to {count}, a move "
                    "name from the list, 'help' or 'quit'.")
        reason = "it is not legal now"
        game = copy.deepcopy(self.env.game)  # ask the rules why, without touching the game
        try:
            game.apply(action)
        except ValueError as exc:
            reason = str(exc)
        return (f"{self.env.action_to_str(action)!r} is not one of your legal moves ({reason}). "
                f"Choose 1 to {count} from the list.")

    def show_help(self, names: list[str]) -> None:
        example = names[0] if names else "draw"
        short = example.split(" ", 1)[1] if " " in example else example
        self.say("Type the number of a move or its name, e.g. "
                 f"'1', '{example}' or just '{short}' (case and spaces do not matter, and a "
                 "unique abbreviation is enough).\n'table' draws the table again, 'quit' leaves "
                 "the game.\nMoves of the other players are printed as they happen; secret "
                 "choices are shown once everyone has made theirs.", "green")

    def quit(self) -> None:
        """Say goodbye; returns ``None``, the "no action" of :meth:`ask`."""
        self.say("You left the game.", "bold")
        return None

    # --- the end ---------------------------------------------------------------------------
    def show_result(self) -> None:
        game = self.env.game
        self.console.rule(Text("game over", style="bold"))
        self.draw_table(reveal_all=True)
        scores, ranks = game.final_scores(), game.final_ranks()
        table = Table(title="Final scores")
        for column in ("rank", "seat", "player", "score"):
            table.add_column(column, justify="right" if column in ("rank", "score") else "left")
        for s in sorted(range(game.num_players), key=lambda s: (ranks[s], s)):
            who = "you" if s == self.seat else self.names[s]
            style = "bold" if s == self.seat else ""
            table.add_row(f"#{ranks[s] + 1}", self.narrator.label(s), who, f"{scores[s]:g}",
                          style=style)
        self.console.print(table)
        mine = ranks[self.seat]
        tied = sum(r == mine for r in ranks) > 1
        if game.num_players == 1:
            self.say(f"You scored {scores[self.seat]:g}.", "bold")
        elif mine == 0:
            self.say("You share the win!" if tied else "You win!", "bold green")
        else:
            place = f"#{mine + 1} of {game.num_players}" + (" (tied)" if tied else "")
            self.say(f"You finish {place}.", "bold")


def play_game(env: Any, seat: int, bots: dict[int, Any], *, console: Console | None = None,
              input_fn: InputFn | None = None, rng: np.random.Generator | None = None,
              delay: float = 0.0) -> str:
    """Play a reset raw env from ``seat`` against ``bots`` (seat -> bot); returns the outcome.

    The outcome is ``"over"``, ``"quit"`` or ``"error"`` (a bot failed). ``input_fn(prompt)``
    reads one line (default: the console's input); raising ``EOFError`` counts as a quit.
    """
    console = console or Console()
    return TerminalGame(env, seat, bots, console=console,
                        input_fn=input_fn or plain_input(console),
                        rng=rng if rng is not None else np.random.default_rng(),
                        delay=delay).run()


# --------------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------------
def parse_value(text: str) -> Any:
    """An option value from the command line: JSON (``3``, ``0.5``, ``true``, ``[0, 0.2]``) or
    else the plain string (``seat``); Python's ``True``/``False``/``None`` are accepted too."""
    aliases = {"True": True, "False": False, "None": None}
    if text in aliases:
        return aliases[text]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m loco_envs.play",
        description="Play a game of the suite in the terminal against bots or trained agents.",
        epilog="Agent specs: " + ", ".join(agents.available_specs()) + ", ppo:<checkpoint>.",
    )
    parser.add_argument("env_id", choices=loco_envs.available_envs(), help="the game")
    parser.add_argument("--players", type=int, default=None,
                        help="number of players (default: the game's default)")
    parser.add_argument("--seat", type=int, default=0, help="your seat, from 0 (default 0)")
    parser.add_argument("--opponents", default=None,
                        help="comma-separated agent specs cycled over the other seats "
                             "(default: the game's heuristic bot)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal (default: new)")
    parser.add_argument("--rounds", type=int, default=None, help="LOCO match length: 1, 3, 5, 7")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="any other env option, e.g. photo_finish=seat or memory=recall")
    parser.add_argument("--state", type=Path, default=None,
                        help="start from a JSON state dict (the game's state_dict schema)")
    parser.add_argument("--record", type=Path, default=None,
                        help="save the game record (JSON Lines) here, for loco_envs.watch")
    parser.add_argument("--delay", type=float, default=0.0,
                        help="seconds to pause after each bot move (default 0)")
    return parser


def _options(args: argparse.Namespace, parser: argparse.ArgumentParser,
             state: dict | None) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            parser.error(f"--option {item!r}: expected KEY=VALUE, e.g. photo_finish=seat")
        options[key.strip()] = parse_value(value.strip())
    if args.rounds is not None:
        options["rounds"] = args.rounds
    game_class = raw_env_class(args.env_id).game_class
    players = args.players
    if players is None and state is not None and isinstance(state.get("num_players"), int):
        players = state["num_players"]
    if players is not None:
        declared = game_class.OPTIONS.get("num_players")
        if declared is None:
            parser.error(f"--players: {args.env_id} has no player-count option")
        valid = [n for n in range(1, 17) if _accepts(declared, n)]
        if players not in valid:
            parser.error(f"--players {players}: {args.env_id} takes {valid[0]} to {valid[-1]} "
                         "players")
        options["num_players"] = players
    return options


def _accepts(option: Any, value: int) -> bool:
    try:
        option.validate("num_players", value)
    except ValueError:
        return False
    return True


def _make_bots(specs_text: str | None, env_id: str, num_players: int, seat: int,
               parser: argparse.ArgumentParser) -> dict[int, Any]:
    game = GAMES[env_id][1]
    if specs_text is None:
        default = f"{game}/heuristic"
        specs_text = default if default in agents.available_specs() else "random"
    specs = [spec.strip() for spec in specs_text.split(",")]
    if not all(specs):
        parser.error(f"--opponents {specs_text!r}: an empty agent spec")
    for spec in specs:
        prefix = spec.split("/", 1)[0] if "/" in spec and not spec.startswith("ppo:") else None
        if prefix is not None and prefix in {name for _, name in GAMES.values()} and prefix != game:
            parser.error(f"--opponents: {spec!r} is a bot for {prefix}, not for {env_id}")
    others = [s for s in range(num_players) if s != seat]
    bots: dict[int, Any] = {}
    built: dict[str, Any] = {}
    for i, s in enumerate(others):
        spec = specs[i % len(specs)]
        if spec not in built:
            try:
                built[spec] = agents.make(spec)
            except (ValueError, ImportError, OSError, RuntimeError) as exc:  # e.g. a checkpoint
                parser.error(f"--opponents: {exc}")
        bots[s] = built[spec]
    trained = [bot for bot in built.values() if hasattr(bot, "policy")]
    if trained:  # a trained policy plays the player count it was trained for, and no other
        probe = loco_envs.make(env_id, wrapped=False, num_players=num_players)
        size = probe.observation_space(probe.possible_agents[0])["observation"].shape[0]
        for bot in trained:
            if bot.policy.observation_size != size:
                parser.error(f"--opponents: {bot.name} was trained for another number of "
                             f"players than {num_players}")
    return bots


def main(argv: Sequence[str] | None = None, *, input_fn: InputFn | None = None,
         console: Console | None = None) -> int:
    """Run the command line; returns the exit status (0 after a game or a quit)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    console = console or Console()
    state = None
    if not (math.isfinite(args.delay) and args.delay >= 0):
        parser.error(f"--delay {args.delay}: give a number of seconds, 0 or more")
    if args.state is not None:
        try:
            state = json.loads(args.state.read_bytes().decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:  # ValueError: JSON or UTF-8
            parser.error(f"--state {args.state}: {exc.__class__.__name__}: {exc}")
        if not isinstance(state, dict):
            parser.error(f"--state {args.state}: a state is a JSON object (the game's "
                         f"state_dict), got {type(state).__name__}")
    options = _options(args, parser, state)
    try:
        env = loco_envs.make(args.env_id, wrapped=False, **options)
    except ValueError as exc:
        parser.error(str(exc))
    if not 0 <= args.seat < env.num_players:
        parser.error(f"--seat {args.seat}: choose a seat from 0 to {env.num_players - 1}")
    bots = _make_bots(args.opponents, args.env_id, env.num_players, args.seat, parser)
    seed = args.seed
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    try:
        env.reset(seed=seed, options={"state": state})
    except ValueError as exc:
        parser.error(f"--state {args.state}: {exc}")
    if env.game.terminal:
        parser.error(f"--state {args.state}: the game in it is already over")

    narrator = NARRATORS.get(args.env_id, Narrator)(env)
    console.rule(Text(f"{args.env_id}, {env.num_players} players, seed {seed}", style="bold"))
    for s in range(env.num_players):
        who = "you" if s == args.seat else bots[s].name
        console.print(Text(f"{narrator.label(s)}: {who}"))
    if args.seed is None:
        console.print(Text(f"(play this deal again with --seed {seed})", style="dim"))

    try:
        outcome = play_game(env, args.seat, bots, console=console, input_fn=input_fn,
                            rng=np.random.default_rng([seed, 1]), delay=args.delay)
    except KeyboardInterrupt:
        console.print(Text("\nYou left the game.", style="bold"))
        outcome = "quit"
    if args.record is not None:
        path = env.save_record(args.record)
        console.print(Text(f"Game record written to {path}; watch it with "
                           f"python -m loco_envs.watch {path}", style="dim"))
    return 1 if outcome == "error" else 0


if __name__ == "__main__":
    raise SystemExit(main())
