"""Shared helpers for bot tests: play a small seeded tournament and read a bot's win rate;
walk the decisions of seeded random games."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

import loco_envs
from loco_envs.benchmarks.tournament import Tournament, play


def random_decisions(env_id: str, num_players: int, games: int, seed: int = 0,
                     cap: int | None = None) -> Iterator[tuple[Any, dict]]:
    """``(raw env, observation dict of the seat to act)`` at every decision of ``games`` random
    games (game g dealt with seed ``seed * 100 + g``), each cut after ``cap`` decisions. The
    env moves on once the caller asks for the next decision."""
    env = loco_envs.make(env_id, wrapped=False, num_players=num_players)
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed * 100 + game)
        decisions = 0
        while not env.over and (cap is None or decisions < cap):
            obs = env.observe(env.agent_selection)
            yield env, obs
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            decisions += 1


def first_decisions(env_id: str, count: int) -> tuple[np.ndarray, list]:
    """The observations ``[count, D]`` of a random 2-player game's first decisions, and each
    decision's ``(view of the seat to act, action mask)``."""
    rows, positions = [], []
    for env, obs in random_decisions(env_id, 2, games=1, cap=count):
        rows.append(obs["observation"])
        positions.append((env.view(env.game.current_seat), obs["action_mask"]))
    return np.stack(rows), positions


def win_rate(env_id: str, players: int, lineup: tuple[str, ...], games: int, agent: str,
             seed: int = 0, **options) -> float:
    """Share of ``agent``'s seats that finished first (a shared first counts 1/k)."""
    records = play(Tournament(env_id, players, lineup, games, seed, options), progress=False)
    firsts = seats = 0.0
    for record in records:
        best = min(record["ranks"])
        shared = record["ranks"].count(best)
        for name, rank in zip(record["seats"], record["ranks"], strict=True):
            if name == agent:
                seats += 1
                firsts += (rank == best) / shared
    return firsts / seats
