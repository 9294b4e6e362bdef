"""The agents the pages' commands name exist, and a shipped agent is asked to play its own count.

A first-time user copies these commands; a shipped policy plays only the player count it was
trained for, so ``loco_envs.play loco_v0 --players 3 --opponents loco/ppo`` stops with an
error before the first move (the README showed that command once).
"""

from __future__ import annotations

import re
import shlex

import pytest

import loco_envs
from loco_envs import agents
from loco_envs.policy import load_policy
from tests.docs.test_links import FENCE, PAGES, ROOT

#: Commands that seat agents, and the option that lists them.
SEATING = {"loco_envs.play": "--opponents", "benchmarks.tournament": "--agents",
           "train.evaluate": "--agents"}
COMMAND = re.compile(r"python3? -m (" + "|".join(map(re.escape, SEATING)) + r") ")


def commands(text: str) -> list[str]:
    """Every seating command of a page: a line of a code block (continuations joined), or an
    inline code span (which may wrap over lines)."""
    pieces = []
    for block in FENCE.finditer(text):  # the opening line names the language, not a command
        pieces += re.sub(r"\\\n\s*", " ", block.group(0)).splitlines()[1:]
    pieces += [span.replace("\n", " ") for span in re.findall(r"`([^`]+)`", FENCE.sub("", text))]
    return [piece[match.start():].strip() for piece in pieces
            if (match := COMMAND.search(piece))]


def seated(command: str) -> tuple[int | None, list[str]]:
    """The player count of a command and the agent specs it seats; None for a placeholder
    count such as ``<n>``. Without ``--players``: the game's default for ``loco_envs.play``,
    2 for the others (their ``--players`` default)."""
    words = [part for word in shlex.split(command.replace("...", ""), comments=True)
             for part in (word.split("=", 1) if word.startswith("--") else [word])]
    option = SEATING[words[2]]
    if "--players" in words:
        count = words[words.index("--players") + 1]
        players = int(count) if count.isdigit() else None
    elif words[2] == "loco_envs.play":
        players = len(loco_envs.make(words[3], wrapped=False).possible_agents)
    else:
        players = 2
    specs: list[str] = []
    if option in words:
        for word in words[words.index(option) + 1:]:
            if word.startswith("--"):
                break
            specs.extend(word.split(",") if option == "--opponents" else [word])
    return players, specs


def shipped_players(spec: str) -> int:
    _, doc = load_policy(agents.PRETRAINED_DIR / agents.PRETRAINED[spec])
    return doc["env_options"]["num_players"]


ALL = [(page.relative_to(ROOT).as_posix(), command)
       for page in PAGES for command in commands(page.read_text())]


def test_the_pages_have_seating_commands():
    assert len(ALL) >= 20
    assert any(c.startswith("python -m loco_envs.play") for _, c in ALL)


@pytest.mark.parametrize("page, command", ALL, ids=[f"{p}:{i}" for i, (p, _) in enumerate(ALL)])
def test_a_command_seats_agents_that_exist_at_its_player_count(page, command):
    players, specs = seated(command)
    for spec in specs:
        if "<" in spec or spec.startswith("ppo:"):  # a placeholder or a user's own file
            continue
        agents.make(spec)  # ValueError for a spec that does not exist
        if spec in agents.PRETRAINED and players is not None:
            assert shipped_players(spec) == players, f"{page}: {command}"


def test_the_check_finds_the_readme_command_it_was_written_for():
    players, specs = seated("python -m loco_envs.play loco_v0 --players 3 "
                            "--opponents loco/ppo,random --record me.jsonl")
    assert (players, specs) == (3, ["loco/ppo", "random"])
    assert seated("python -m benchmarks.tournament moco_v0 --players=4 --agents moco/heuristic "
                  "random  # the players' own comment") == (4, ["moco/heuristic", "random"])
    assert shipped_players("loco/ppo") != players
