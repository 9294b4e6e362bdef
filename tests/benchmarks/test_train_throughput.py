"""The training-throughput benchmark: one real training row, the pairing of every row with
the Python raw env of its repeat, and the Markdown.

Only the shape of the report is checked (the rates themselves depend on the machine).
"""

from __future__ import annotations

import pytest

from loco_envs.benchmarks import train_throughput as T


def test_a_training_row_runs_the_trainer_on_the_quick_config():
    row = T._training_row(("serial", "configs/moco_quick.yaml", 1, 0, 1, ()))
    assert row["decisions_per_s"] > 0 and row["peak_mb"] > 0


def test_each_network_row_trains_the_network_it_names(monkeypatch):
    """LOCO's quick config has action features: a row for the flat network folded and with
    the full products, and one for the action scorer, each really trained with the network it
    names (the trainer's network builder and its folding see their settings)."""
    from loco_envs.train import networks as N
    from loco_envs.train import ppo

    networks = T._networks("configs/loco_quick.yaml")
    assert list(networks) == ["flat (folded)", "flat (full products)", "scorer"]
    assert set(T._networks("configs/moco_quick.yaml")) == {"flat"}  # no action features
    seen, folded = [], []
    real, real_fold = ppo.policy_network, N.fold_policy
    monkeypatch.setattr(ppo, "policy_network", lambda args: seen.append(args.action_scorer)
                        or real(args))
    monkeypatch.setattr(N, "fold_policy", lambda *a: folded.append(real_fold(*a)) or folded[-1])
    for overrides in networks.values():
        row = T._training_row(("serial", "configs/loco_quick.yaml", 1, 0, 1, overrides))
        assert row["decisions_per_s"] > 0
    assert seen[0] == seen[1] == 0 and seen[2] > 0
    assert len(folded) == 2 and folded[0] > 0 and folded[1] == 0  # the scorer folds nothing


def test_each_training_row_is_divided_by_the_raw_env_of_its_repeat(monkeypatch):
    rates = iter([300.0, 600.0, 100.0, 400.0])  # repeat 1: serial, shared; repeat 2: the same
    monkeypatch.setattr(T, "_in_fresh_process", lambda ctx, task: {
        "decisions_per_s": next(rates), "peak_mb": 50.0})
    training, busy = T.measure(["moco_v0"], updates=1, repeats=2, seconds=0.05, seed=0)
    assert busy == [] and [row["backend"] for row in training] == list(T.BACKENDS)
    for row in training:
        assert row["raw_env_per_s"] > 0
    # each ratio is the median of the two repeats' own ratios
    serial, shared = training
    assert serial["decisions_per_s"] == 200.0 and shared["decisions_per_s"] == 500.0
    assert serial["vs_raw_env"] * serial["raw_env_per_s"] == pytest.approx(200.0, rel=0.5)
    text = T.tables(training)
    assert text.count("\n| moco_v0 2p | quick config, ") == 2
    assert text.count(", flat network |") == 2
    assert "| 200 |" in text and "| 50 |" in text


def test_trainer_args_reach_every_training_row_and_a_gpu_row_says_so(monkeypatch):
    tasks = []
    monkeypatch.setattr(T, "_in_fresh_process", lambda ctx, task: tasks.append(task) or {
        "decisions_per_s": 100.0, "peak_mb": 50.0, "device": "cuda"})
    training, _ = T.measure(["moco_v0"], updates=1, repeats=1, seconds=0.05, seed=0,
                            trainer_args=("--num-envs", "64"))
    assert [task[-1][-2:] for task in tasks] == [("--num-envs", "64")] * len(T.BACKENDS)
    assert T.tables(training).count(", flat network on cuda |") == len(T.BACKENDS)


def test_bad_trainer_args_are_refused_before_any_row_runs(capsys, monkeypatch):
    monkeypatch.setattr(T, "measure", lambda *a, **k: pytest.fail("a row ran"))
    with pytest.raises(SystemExit):
        T.main(["--envs", "moco_v0", "--trainer-args", "--num-envs 0"])
    assert "--trainer-args: config key 'num_envs' must be >= 1" in capsys.readouterr().err


def test_paired_median_takes_the_ratio_within_each_repeat():
    row = {"samples": [{"r": 10.0}, {"r": 30.0}, {"r": 8.0}]}
    base = {"samples": [{"r": 5.0}, {"r": 10.0}, {"r": 2.0}]}
    assert T._paired_median(row, base, "r") == 3.0  # ratios 2, 3, 4 (medians alone: 10 / 5)


def test_bad_arguments_are_refused(capsys):
    with pytest.raises(SystemExit):
        T.main(["--envs", "nope_v0"])
    assert "unknown env id" in capsys.readouterr().err


def test_the_busy_table_compares_each_job_with_one_thread_per_core(monkeypatch):
    monkeypatch.setattr(T, "available_cores", lambda: 2)
    rows = T._busy_rows(["loco_v0"], 1)
    assert [(r["job"], r["threads"]) for r in rows] == [
        (T.BUSY_JOBS[0], 2), (T.BUSY_JOBS[0], 1), (T.BUSY_JOBS[1], 2), (T.BUSY_JOBS[1], None)]
    for row, rate, ratio in zip(rows, (100.0, 300.0, 0.5, 5.0), (1, 3, 1, 10), strict=True):
        row.update(rate=rate, vs_one_per_core=ratio)
    text = T.tables([], rows)
    assert "| loco_v0 2p | training | 1 | 300.00 decisions/s | 3.00x |" in text
    assert "| each process's share | 5.00 games/s | 10.00x |" in text


def test_threads_flag_is_checked(capsys):
    with pytest.raises(SystemExit):
        T.main(["--threads", "0"])
    assert "--threads" in capsys.readouterr().err
