"""Game records as JSON Lines, and the replay that checks them.

A record is a header line (env id, version, options, seed, starting state), one line per
decision, and a result line once the game is over: ``{"result": {"ranks": [...], "scores":
[...]}}`` for a finished game, ``{"result": {"truncated": true, "decisions": N, "scores":
[...]}}`` for one stopped at the ``max_decisions`` cap (see :mod:`loco_envs.core.rules_env`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loco_envs.core.registry import make
from loco_envs.core.rules_env import TIMEOUT


def read_record(path: str | Path) -> list[dict]:
    """The lines of a record; ``ValueError`` names the first line that is not a JSON object."""
    lines = []
    with Path(path).open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValueError(f"record line {number}: not UTF-8 text") from None
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"record line {number}: not JSON ({exc.msg})") from None
            except RecursionError:
                raise ValueError(f"record line {number}: JSON nested too deeply") from None
            if not isinstance(line, dict):
                raise ValueError(f"record line {number}: expected a JSON object")
            lines.append((number, line))
    if not lines:
        raise ValueError("record line 1: the record is empty")
    return lines


def replay(path: str | Path) -> Any:
    """Replay a record and check that it reproduces the same game.

    Returns the raw env in its final position. A malformed record, an agent out of turn, an
    illegal or misnamed action, or a different result raises ``ValueError`` with the line number.
    """
    lines = read_record(path)
    env = start_replay(*lines[0])
    for number, line in lines[1:]:
        if "result" in line:
            check_result(env, number, line["result"])
        else:
            replay_move(env, number, line)
    return env


def start_replay(number: int, header: dict) -> Any:
    """The raw env at a record's start, built from its header line (number ``number``)."""
    missing = [key for key in ("env", "options", "seed") if key not in header]
    if missing:
        raise ValueError(f"record line {number}: header lacks {missing}")
    if not isinstance(header["options"], dict):
        raise ValueError(f"record line {number}: header 'options' must be an object")
    try:
        env = make(header["env"], wrapped=False, **header["options"])
        env.reset(seed=header["seed"], options={"state": header.get("state")})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"record line {number}: {exc}") from None
    return env


def replay_move(env: Any, number: int, line: dict) -> None:
    """Check one move line against the replaying env, then play it."""
    for key in ("agent", "action"):
        if key not in line:
            raise ValueError(f"record line {number}: move lacks {key!r}")
    if env.game.terminal:
        raise ValueError(f"record line {number}: a move after the game ended")
    if env.truncated_game:
        raise ValueError(
            f"record line {number}: a move after the game was truncated at "
            f"max_decisions={env.options['max_decisions']}"
        )
    if line["agent"] != env.agent_selection:
        raise ValueError(
            f"record line {number}: {line['agent']} moves but it is {env.agent_selection}'s turn"
        )
    action = line["action"]
    if action is None and line.get("action_str") == TIMEOUT:
        try:
            env.timeout()
        except ValueError as exc:
            raise ValueError(f"record line {number}: {exc}") from None
        return
    if not isinstance(action, int) or not 0 <= action < env.game_class.NUM_ACTIONS:
        raise ValueError(f"record line {number}: action {action!r} is not an action index")
    name = env.action_to_str(action)
    if "action_str" in line and line["action_str"] != name:
        raise ValueError(
            f"record line {number}: action {action} is {name!r}, record says {line['action_str']!r}"
        )
    try:
        env.step(action)
    except ValueError as exc:
        raise ValueError(f"record line {number}: {exc}") from None


def check_result(env: Any, number: int, result: dict) -> None:
    """Check a record's final line against the replayed game (finished or truncated)."""
    if not isinstance(result, dict):
        raise ValueError(f"record line {number}: 'result' must be a JSON object, got "
                         f"{type(result).__name__}")
    if result.get("truncated"):
        check_truncated(env, number, result)
        return
    if not env.game.terminal:
        raise ValueError(f"record line {number}: the record ends the game, the replay does not")
    ranks = list(env.game.final_ranks())
    scores = [float(s) for s in env.game.final_scores()]
    if result.get("ranks") != ranks or result.get("scores") != scores:
        raise ValueError(
            f"record line {number}: replay ends with ranks {ranks} and scores {scores}, "
            f"record says {result}"
        )


def check_truncated(env: Any, number: int, result: dict) -> None:
    """Check a truncated game's result line: same cap reached, same decisions, same scores."""
    if not env.truncated_game:
        state = "ends" if env.game.terminal else "goes on"
        raise ValueError(
            f"record line {number}: the record says the game was truncated, the replay {state}"
        )
    scores = [float(s) for s in env.game.final_scores()]
    if result.get("decisions") != env.decisions or result.get("scores") != scores:
        raise ValueError(
            f"record line {number}: replay is truncated after {env.decisions} decisions with "
            f"scores {scores}, record says {result}"
        )
