"""The throughput benchmark's vector-env table, run for a blink: its rows, ratios and Markdown.

Only the shape of the report is checked (the rates themselves depend on the machine).
"""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.benchmarks import train_throughput as T


def test_the_vector_table_pairs_each_row_with_the_single_env_of_its_repeats():
    training, vector, busy = T.measure(["moco_v0"], updates=1, repeats=2, seconds=0.05, seed=0,
                                       only=("vector",))
    assert training == [] and busy == []
    levels = [row["level"] for row in vector]
    assert levels[0] == T.SINGLE_ENV_LEVEL and len(levels) == 2 + len(T.VECTOR_SIZES)
    assert vector[0]["vs_single"] == pytest.approx(1.0)
    for row in vector:
        assert row["decisions_per_s"] > 0 and row["vs_single"] > 0
    text = T.tables(training, vector)
    assert text.count("\n| moco_v0 2p |") == len(vector)
    assert "| 1.00x |" in text


def test_paired_median_takes_the_ratio_within_each_repeat():
    row = {"samples": [{"r": 10.0}, {"r": 30.0}, {"r": 8.0}]}
    base = {"samples": [{"r": 5.0}, {"r": 10.0}, {"r": 2.0}]}
    assert T._paired_median(row, base, "r") == 3.0  # ratios 2, 3, 4 (medians alone: 10 / 5)


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        T.main(["--envs", "nope_v0"])
    assert "unknown env id" in capsys.readouterr().err


def test_the_batch_draw_is_uniform_over_each_rows_legal_actions():
    masks = np.zeros((3, 7), np.int8)
    masks[0, [1, 4, 6]] = 1
    masks[1, 0] = 1
    masks[2, :] = 1
    rng = np.random.default_rng(0)
    draws = np.array([T._uniform_legal(masks, rng) for _ in range(7000)])
    assert (draws[:, 1] == 0).all()
    for row in (0, 2):
        legal = np.flatnonzero(masks[row])
        counts = np.bincount(draws[:, row], minlength=7)
        assert set(np.flatnonzero(counts)) == set(legal)
        share = counts[legal] / len(draws)
        # each share's standard error is below 0.006 at 7,000 draws; 5 of them allowed
        np.testing.assert_allclose(share, 1 / len(legal), atol=0.03)


def test_the_busy_table_compares_each_job_with_one_thread_per_core(monkeypatch):
    monkeypatch.setattr(T, "available_cores", lambda: 2)
    rows = T._busy_rows(["loco_v0"], 1)
    assert [(r["job"], r["threads"]) for r in rows] == [
        (T.BUSY_JOBS[0], 2), (T.BUSY_JOBS[0], 1), (T.BUSY_JOBS[1], 2), (T.BUSY_JOBS[1], None)]
    for row, rate, ratio in zip(rows, (100.0, 300.0, 0.5, 5.0), (1, 3, 1, 10), strict=True):
        row.update(rate=rate, vs_one_per_core=ratio)
    text = T.tables([], [], rows)
    assert "| loco_v0 2p | training | 1 | 300.00 decisions/s | 3.00x |" in text
    assert "| each process's share | 5.00 games/s | 10.00x |" in text


def test_threads_flag_is_checked(capsys):
    with pytest.raises(SystemExit):
        T.main(["--threads", "0"])
    assert "--threads" in capsys.readouterr().err
