"""Games played to their end on compiled twins (``CompiledBatch.play_out``, the tournaments'
path when every seat has a twin): the games, records and game records of the round loop."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from loco_envs import agents
from loco_envs.benchmarks import batched as B
from loco_envs.benchmarks import tournament as T
from loco_envs.compiled import rng as R
from loco_envs.core.registry import raw_env_class
from loco_envs.vector import compiled as C
from loco_envs.vector.batch import Buffers, buffer_layout


def tasks_of(t: T.Tournament, games_dir: Path | None = None, cap: int | None = None) -> list:
    return [(t.env_id, seats, seed, g, dict(t.options),
             None if games_dir is None else str(games_dir / f"game_{g}.jsonl"), cap)
            for g, seed, seats in T.schedule(t)]


@pytest.mark.parametrize(("env_id", "players", "lineup", "cap"), [
    ("loco_v0", 2, ("loco/heuristic-strong", "loco/heuristic"), None),
    ("loco_v0", 4, ("loco/heuristic-strong", "loco/heuristic", "random"), 60),
    ("moco_v0", 3, ("moco/heuristic", "random"), None),
])
def test_played_out_games_are_the_round_loops_games(tmp_path: Path, monkeypatch, env_id,
                                                    players, lineup, cap) -> None:
    """Records and game records equal the round-by-round loop's and ``play_game``'s, with move
    logs that grow from 8 moves (several ``play_out`` kernel calls) and capped games."""
    monkeypatch.setattr(C, "_LOG_START", 8)
    t = T.Tournament(env_id, players, lineup, 12, seed=5)
    calls = []
    play_twins = B._play_twins
    monkeypatch.setattr(B, "_play_twins", lambda *a, **k: calls.append(1) or play_twins(*a, **k))
    fast = B.play_tasks(tasks_of(t, tmp_path / "fast", cap))
    assert calls and all(r is not None for r in fast)
    monkeypatch.setattr(B, "_play_twins", lambda *a, **k: None)  # the round loop
    rounds = B.play_tasks(tasks_of(t, tmp_path / "rounds", cap))
    assert fast == rounds == [T.play_game(*task) for task in tasks_of(t, None, cap)]
    if cap is not None:
        assert any(r["capped"] for r in fast) and not all(r["capped"] for r in fast)
    for g in range(t.games):
        name = f"game_{g}.jsonl"
        lines = [json.loads(x) for x in (tmp_path / "fast" / name).read_text().splitlines()]
        assert lines == [json.loads(x) for x in
                         (tmp_path / "rounds" / name).read_text().splitlines()]


def test_seat_states_are_the_seats_default_rngs() -> None:
    seeds = [0, 1, 2**31 - 2, 2**32, 2**63 + 7, 2**64 - 1]
    games = [0, 2**32 - 1, 7, 2**40, 3, 2**64 - 1]
    words = R.seat_states(seeds, games, 3)
    want = np.zeros(R.STATE_WORDS, np.uint64)
    for i, (seed, g) in enumerate(zip(seeds, games, strict=True)):
        for s in range(3):
            R.from_generator(np.random.default_rng([seed, g, s]), want)
            np.testing.assert_array_equal(words[i, s], want)
    with pytest.raises(ValueError, match="0..2"):
        R.seat_states([-1], [0], 2)


def batch_of(num_envs: int, autoreset: bool = False) -> C.CompiledBatch:
    probe = raw_env_class("moco_v0")(num_players=2)
    agent = probe.possible_agents[0]
    layout = buffer_layout(num_envs, probe.observation_space(agent)["observation"].shape[0],
                           int(probe.action_space(agent).n), 2)
    buf = Buffers(**{name: np.zeros(shape, dtype) for name, (shape, dtype) in layout.items()})
    batch = C.CompiledBatch("moco_v0", {"num_players": 2}, num_envs, buf, autoreset=autoreset)
    batch.reset([3, 4])
    return batch


def test_play_out_refuses_what_it_cannot_play_exactly() -> None:
    kind = batch_of(2).twin_kind(agents.make("moco/heuristic"))
    kinds, words = np.full((2, 2), kind), np.zeros((4, R.STATE_WORDS), np.uint64)
    with pytest.raises(ValueError, match="share a generator"):
        batch_of(2).play_out(kinds, np.array([[0, 1], [1, 2]]), words)
    with pytest.raises(ValueError, match="no compiled twin"):
        batch_of(2).play_out(np.array([[kind, -1], [kind, kind]]), np.arange(4).reshape(2, 2),
                             words)
    with pytest.raises(ValueError, match="autoreset"):
        batch_of(2, autoreset=True).play_out(kinds, np.arange(4).reshape(2, 2), words)
    batch = batch_of(2)  # a game's seats may share one generator
    batch.play_out(kinds, np.array([[0, 0], [1, 1]]), words)
    assert (batch.io.seats == -1).all() and batch.io.terminations.all()
