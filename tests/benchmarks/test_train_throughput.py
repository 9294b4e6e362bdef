"""The throughput benchmark's vector-env table, run for a blink: its rows, ratios and Markdown.

Only the shape of the report is checked (the rates themselves depend on the machine).
"""

from __future__ import annotations

import pytest

from loco_envs.benchmarks import train_throughput as T


def test_the_vector_table_pairs_each_row_with_the_single_env_of_its_repeats():
    training, vector = T.measure(["moco_v0"], updates=1, repeats=2, seconds=0.05, seed=0,
                                 only=("vector",))
    assert training == []
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
