"""The Ray backend's bookkeeping and argument checks: no Ray cluster needed (``make test``)."""

from __future__ import annotations

import sys

import pytest

from loco_envs.benchmarks import ray_backend as RB
from loco_envs.benchmarks import tournament as T


def moco_duel(games: int = 4) -> T.Tournament:
    return T.Tournament("moco_v0", 2, ("moco/heuristic", "random"), games, seed=3)


def test_chunks_cover_every_game_once_in_order():
    games = list(range(103))
    for cpus in (1, 2, 16, 1000):
        chunks = RB.chunked(games, cpus)
        assert [g for chunk in chunks for g in chunk] == games
        assert all(1 <= len(chunk) <= 8 for chunk in chunks)
    assert len(RB.chunked(games, 2)) >= 4 * 2  # enough chunks to keep both CPUs busy


def test_a_chunk_must_bring_back_exactly_its_games():
    records: dict[int, dict] = {}
    RB._take(records, [0, 1], [{"game": 0}, {"game": 1}])
    assert sorted(records) == [0, 1]
    with pytest.raises(RuntimeError, match="came back with games"):
        RB._take(records, [2, 3], [{"game": 2}])
    with pytest.raises(RuntimeError, match="came back with games"):
        RB._take(records, [2, 3], [{"game": 2}, {"game": 2}])
    with pytest.raises(RuntimeError, match="came back twice"):
        RB._take(records, [1], [{"game": 1}])
    assert sorted(records) == [0, 1]  # nothing half taken


def test_bad_backend_and_address_are_named():
    with pytest.raises(ValueError, match="--backend must be one of"):
        T.play(moco_duel(), backend="spark")
    with pytest.raises(ValueError, match="--address .* --backend ray"):
        T.play(moco_duel(), address="127.0.0.1:6379")
    with pytest.raises(ValueError, match="max_retries"):
        RB.play_games({}, T._play_task, max_retries=-1)


def test_command_line_without_ray_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code = T.main(["moco_v0", "--games", "2", "--agents", "random", "--backend", "ray",
                   "--no-progress", "--out", str(tmp_path)])
    assert code == 2
    assert "pip install -e '.[ray]'" in capsys.readouterr().err


def test_command_line_rejects_an_unknown_backend(capsys):
    with pytest.raises(SystemExit):
        T.main(["moco_v0", "--agents", "random", "--backend", "dask"])
    assert "invalid choice" in capsys.readouterr().err
