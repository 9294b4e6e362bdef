"""The trainers' ``device`` and ``threads`` keys: checked, resolved, passed on (on the CPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from loco_envs.train import torch_policy
from loco_envs.train.imitation import BCArgs
from loco_envs.train.ppo import Args, parse_args
from loco_envs.train.torch_policy import resolve_device, to_numpy_policy

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a GPU here")


def test_auto_is_the_gpu_when_torch_sees_one() -> None:
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu") == "cpu"


@no_gpu
def test_auto_is_the_cpu_without_a_gpu(monkeypatch) -> None:
    assert resolve_device("auto") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"


@no_gpu
def test_cuda_without_a_gpu_says_torch_sees_none() -> None:
    with pytest.raises(ValueError, match="'device' is 'cuda', but torch sees no GPU"):
        resolve_device("cuda")


@pytest.mark.parametrize("bad", ["gpu", "CUDA", "", "cuda:0"])
def test_other_devices_are_a_value_error_naming_device(bad) -> None:
    with pytest.raises(ValueError, match="config key 'device' must be one of"):
        resolve_device(bad)


@pytest.mark.parametrize(("text", "key"), [
    ("device: tpu\n", "'device'"),
    ("threads: 0\n", "'threads'"),
    ("threads: -2\n", "'threads'"),
    ("threads: two\n", "'threads'"),
    ("torch_threads: 1\n", "torch_threads"),  # the old key: unknown now
])
def test_trainer_config_names_the_bad_key(tmp_path: Path, text: str, key: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    with pytest.raises(ValueError, match=key):
        parse_args([str(cfg)])


def test_trainer_config_takes_threads_and_device(tmp_path: Path) -> None:
    cfg = tmp_path / "ok.yaml"
    cfg.write_text("threads: 1\ndevice: cpu\n")
    args = parse_args([str(cfg)])
    assert (args.threads, args.device) == (1, "cpu")
    assert (Args().threads, Args().device) == (None, "auto")


@pytest.mark.parametrize(("change", "key"), [({"device": "gpu"}, "'device'"),
                                             ({"threads": 0}, "'threads'")])
def test_imitation_config_names_the_bad_key(change: dict, key: str) -> None:
    args = BCArgs(env_id="moco_v0", teacher="moco/heuristic", **change)
    with pytest.raises(ValueError, match=key):
        args.validate()


def test_export_from_any_device_is_numpy_on_the_cpu() -> None:
    """The exporter copies through ``.cpu()``: here a CPU network, same logits as numpy's."""
    body = torch_policy.mlp([6, 4], torch.nn.Tanh)
    head = torch.nn.Linear(4, 3)
    policy = to_numpy_policy(body, head, "none")
    x = np.random.default_rng(0).normal(size=(5, 6)).astype(np.float32)
    with torch.no_grad():
        expected = head(body(torch.from_numpy(x))).numpy()
    assert policy.hidden[0][0].dtype == np.float32
    np.testing.assert_allclose(policy.logits_of_inputs(x), expected, rtol=1e-5, atol=1e-6)


def test_tournament_threads_flag_is_checked_before_any_worker_starts(capsys) -> None:
    from loco_envs.benchmarks import check
    from loco_envs.benchmarks import tournament as T
    from loco_envs.train import evaluate

    t = T.Tournament("moco_v0", 2, ("random", "random"), 2, 0)
    with pytest.raises(ValueError, match="--threads must be a positive integer"):
        T.play(t, workers=2, progress=False, threads=0)
    argv = ["moco_v0", "--agents", "random", "--games", "2", "--threads", "0"]
    assert T.main(argv) == 2
    assert evaluate.main(argv) == 2
    assert check.main(["--threads", "-1"]) == 2
    assert capsys.readouterr().err.count("--threads must be a positive integer") == 3


def test_tournament_workers_with_one_thread_play_the_same_records() -> None:
    from loco_envs.benchmarks import tournament as T

    t = T.Tournament("moco_v0", 2, ("random", "moco/heuristic"), 4, 0)
    alone = T.play(t, workers=1, progress=False)
    assert T.play(t, workers=2, progress=False, threads=1) == alone
