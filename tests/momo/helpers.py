"""Building Loco Momo positions for tests: valid state dicts from the parts that matter."""

from __future__ import annotations

from collections import Counter

import numpy as np

from loco_envs.momo.actions import COPIES, TOKEN_CODES
from loco_envs.momo.rules import ROUNDS, MomoGame


def board(*rows: str) -> list[list[str]]:
    """``board("Rb Lg", "", ...)``: up to 5 rows of space-separated codes (missing rows empty)."""
    parsed = [row.split() for row in rows]
    return parsed + [[] for _ in range(5 - len(parsed))]


def cells(*rows: str) -> list[int]:
    """25 row-major cells (``-1`` empty) of a board given as in :func:`board`."""
    out = [-1] * 25
    for r, row in enumerate(board(*rows)):
        for c, code in enumerate(row):
            out[r * 5 + c] = TOKEN_CODES.index(code)
    return out


def make_state(
    num_players: int = 2,
    *,
    forest: list[list[str]] | None = None,
    boards: list[list[list[str]]] | None = None,
    pending: list[str] = (),
    discarded: list[str] = (),
    bag_front: list[str] = (),
    rest: str = "bag",
    turn: int = 0,
    first_player: int = 0,
    expansion_a: str | None = None,
    expansion_b: str | None = None,
) -> dict:
    """A valid state: tokens not named anywhere go to the bag after ``bag_front`` (in code
    order), or to ``discarded`` when ``rest="discarded"`` (an empty bag)."""
    forest = forest if forest is not None else [["Rb"] * 4, ["Lb"] * 4, ["Eb"] * 4, ["Bb"] * 4]
    boards = boards if boards is not None else [board() for _ in range(num_players)]
    used = Counter(bag_front)
    used.update(code for area in forest for code in area)
    used.update(code for b in boards for row in b for code in row)
    used.update(pending)
    used.update(discarded)
    rest_tokens = [code for code in TOKEN_CODES for _ in range(COPIES - used[code])]
    if any(used[code] > COPIES for code in used):
        raise AssertionError(f"test position uses too many tokens: {used}")
    bag = list(bag_front) + (rest_tokens if rest == "bag" else [])
    discarded = list(discarded) + (rest_tokens if rest == "discarded" else [])
    over = turn == ROUNDS * num_players
    return {
        "num_players": num_players,
        "expansion_a": expansion_a,
        "expansion_b": expansion_b,
        "first_player": first_player,
        "turn": turn,
        "phase": "over" if over else ("place" if pending else "pick"),
        "current_seat": -1 if over else (first_player + turn) % num_players,
        "bag": bag,
        "forest": [list(area) for area in forest],
        "boards": [[list(row) for row in b] for b in boards],
        "pending": list(pending),
        "discarded": discarded,
    }


def game_from(state: dict, seed: int = 0) -> MomoGame:
    options = {
        "num_players": state["num_players"],
        "expansion_a": state["expansion_a"] is not None,
        "expansion_b": state["expansion_b"] is not None,
    }
    return MomoGame.from_state_dict(state, np.random.default_rng(seed), options)


def final_game(*boards_: list[list[str]], **kw) -> MomoGame:
    """A finished game whose pictures are ``boards_`` (the rest of the tokens discarded)."""
    n = len(boards_)
    state = make_state(
        n, forest=[[], [], [], []], boards=list(boards_), rest="discarded", turn=ROUNDS * n, **kw
    )
    return game_from(state)
