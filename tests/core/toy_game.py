"""A tiny game used to test the core: players in turn add 1 or 2; reaching the target wins.

Seats that reach the target first rank first; everyone else ties behind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.core import Game, IllegalActionError, Option, RulesAECEnv, int_range

ACTIONS = ("add 1", "add 2")


class RaceGame(Game):
    OPTIONS = {
        "num_players": Option(2, "players", check=int_range(2, 4)),
        "target": Option(10, "sum to reach", check=int_range(3, 50)),
    }
    NUM_ACTIONS = 2

    def __init__(self, rng: np.random.Generator, num_players: int = 2, target: int = 10):
        self.rng = rng
        self.num_players = num_players
        self.target = target
        self.total = 0
        self.current_seat = int(rng.integers(num_players))
        self.terminal = False
        self.winner = -1

    def legal_mask(self) -> np.ndarray:
        return np.ones(2, np.int8) if not self.terminal else np.zeros(2, np.int8)

    def apply(self, action: int) -> None:
        if action not in (0, 1):
            raise IllegalActionError(f"R-1: action {action} is not add 1 or add 2")
        self.total += action + 1
        if self.total >= self.target:
            self.terminal, self.winner, self.current_seat = True, self.current_seat, -1
        else:
            self.current_seat = (self.current_seat + 1) % self.num_players

    def final_ranks(self) -> list[int]:
        return [0 if s == self.winner else 1 for s in range(self.num_players)]

    def final_scores(self) -> list[float]:
        return [float(s == self.winner) * self.total for s in range(self.num_players)]

    def view(self, seat: int) -> dict:
        return {"total": self.total, "seat": seat}

    def state_dict(self) -> dict:
        return {"total": self.total, "current_seat": self.current_seat}

    @classmethod
    def from_state_dict(cls, data: dict, rng: np.random.Generator, options: dict[str, Any]):
        game = cls(rng, **options)
        if not isinstance(data.get("total"), int):
            raise ValueError("state field 'total' must be an int")
        game.total = data["total"]
        game.current_seat = data["current_seat"]
        return game

    @classmethod
    def action_to_str(cls, action: int) -> str:
        return ACTIONS[action]

    @classmethod
    def str_to_action(cls, text: str) -> int:
        if text not in ACTIONS:
            raise ValueError(f"unknown action {text!r}")
        return ACTIONS.index(text)

    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        return f"total {self.total}/{self.target}"


class RaceEnv(RulesAECEnv):
    game_class = RaceGame
    env_id = "race_v0"
    metadata = {"name": "race_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def observation_size(self) -> int:
        return 1

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        # a total reaches at most target + 1 (one short of it, then add 2)
        return np.zeros(1, np.float32), np.array([self.options["target"] + 1], np.float32)

    def encode(self, seat: int) -> np.ndarray:
        return np.array([self.game.total], np.float32)
