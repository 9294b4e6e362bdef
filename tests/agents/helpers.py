"""Shared helpers for bot tests: play a small seeded tournament and read a bot's win rate."""

from __future__ import annotations

from loco_envs.benchmarks.tournament import Tournament, play


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
