"""Short training runs of every game: checkpoints as data-only bots, resume, faults."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import loco_envs  # noqa: E402
from loco_envs import agents  # noqa: E402
from loco_envs.benchmarks import tournament as T  # noqa: E402
from loco_envs.policy import NumpyPolicy, load_policy  # noqa: E402
from loco_envs.train import checkpoints as C  # noqa: E402
from loco_envs.train.ppo import Args, main, train  # noqa: E402

TINY = dict(total_timesteps=128, num_envs=4, num_steps=16, batch_size=32, update_epochs=1,
            net_arch=[32], snapshot_every=1, pool_size=2, checkpoint_every=2, eval_games=2,
            final_eval_games=2, eval_bootstrap=10, progress_bar=False, max_decisions=400)
ROOT = Path(__file__).resolve().parents[2]


def tiny_args(tmp_path: Path, env_id: str, **kw) -> Args:
    game = env_id.removesuffix("_v0")
    values = {**TINY, "env_id": env_id, "runs_dir": str(tmp_path), "exp_name": "smoke",
              "opponent_mix": {"random": 1.0, f"{game}/heuristic": 0.5, "snapshot": 1.0}}
    values.update(kw)
    return Args(**values)


def scalar_tags(run_dir: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run_dir))
    acc.Reload()
    return set(acc.Tags()["scalars"])


@pytest.mark.parametrize("env_id", ["loco_v0", "moco_v0", "momo_v0", "mampfos_v0"])
def test_smoke_run_of_each_game(tmp_path: Path, env_id: str) -> None:
    result = train(tiny_args(tmp_path, env_id))
    assert result.num_timesteps >= 128
    assert result.run_dir.name.startswith(f"{env_id}__smoke__1__")
    files = C.checkpoint_files(result.checkpoint)
    assert all(p.is_file() for p in files.values())
    policy, doc = load_policy(files["policy"])  # the data-only format, validated
    assert doc["env_id"] == env_id and doc["env_options"] == {"num_players": 2}
    assert doc["provenance"]["decisions"] == result.num_timesteps
    assert set(doc["provenance"]["evaluation"]["win_rates"]) == {
        "random", f"{env_id.removesuffix('_v0')}/heuristic"}
    # Two updates: two snapshots in the pool, a checkpoint (all its files) at update 2.
    assert len(C.load_snapshots(files["snapshots"])) == 2
    (periodic,) = (result.run_dir / "checkpoints").glob("ppo_*.zip")
    assert all(p.is_file() for p in C.checkpoint_files(periodic).values())
    game = env_id.removesuffix("_v0")
    ev = result.evaluation
    assert set(ev.scalars()) == {"eval/winrate_vs_random", f"eval/winrate_vs_{game}_heuristic",
                                 "eval/elo"}
    assert (result.run_dir / "eval" / "ratings.md").is_file()
    assert (result.run_dir / "eval" / "ratings.png").is_file()
    tags = scalar_tags(result.run_dir)
    assert {"charts/SPS", "losses/value_loss", "losses/entropy", "eval/elo",
            "eval/winrate_vs_random"} <= tags
    # The exported policy plays as a bot through the tournament runner (numpy only).
    record = T.play_game(env_id, [f"ppo:{files['policy']}", "random"], seed=3)
    assert sorted(record["ranks"]) in ([0, 1], [0, 0])


def test_periodic_eval_shared_memory_and_resume_from_the_run_folder(tmp_path: Path) -> None:
    args = tiny_args(tmp_path, "mampfos_v0", backend="shared_memory", num_workers=2,
                     eval_every=1, final_eval_games=0,
                     final_checkpoint=str(tmp_path / "out" / "final"))
    first = train(args)
    assert first.evaluation is None
    assert (tmp_path / "out" / "final.npz").is_file()
    tags = scalar_tags(first.run_dir)
    assert {"eval/winrate_vs_random", "eval/winrate_vs_mampfos_heuristic", "eval/elo",
            "charts/truncated_games", "charts/snapshots"} <= tags
    curve = json.loads((first.run_dir / "eval" / "curve.json").read_text())
    assert [p["x"] for p in curve["points"]] == [64, 128]  # one evaluation per update
    assert first.curve == first.run_dir / "eval" / "curve.png" and first.curve.is_file()
    # Go on from the run folder's newest checkpoint to 256 decisions, with the pool back.
    more = Args(**{**args.__dict__, "total_timesteps": 256, "backend": "serial",
                   "eval_every": 0, "final_eval_games": 2, "resume": str(first.run_dir),
                   "final_checkpoint": ""})
    second = train(more)
    assert second.run_dir == first.run_dir
    assert second.num_timesteps == 256
    curve = json.loads((first.run_dir / "eval" / "curve.json").read_text())
    assert [p["x"] for p in curve["points"]] == [64, 128, 256]  # the final one added
    assert set(curve["points"][-1]["win_rate"]) == {"random", "mampfos/heuristic"}
    _, doc = load_policy(C.checkpoint_files(second.checkpoint)["policy"])
    assert doc["provenance"]["decisions"] == 256


def test_numpy_actor_matches_the_torch_policy(tmp_path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    result = train(tiny_args(tmp_path, "moco_v0", total_timesteps=64, final_eval_games=0))
    model = MaskablePPO.load(result.checkpoint, device="cpu")
    policy, _ = load_policy(C.checkpoint_files(result.checkpoint)["policy"])
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    x = torch.as_tensor(np.log1p(obs)[None])
    with torch.no_grad():
        expected = model.policy.get_distribution(x).distribution.logits.numpy()[0]
    got = policy.logits(obs)
    # Both are logits up to a constant shift (torch normalises them).
    np.testing.assert_allclose(got - got.max(), expected - expected.max(), atol=1e-4)
    assert isinstance(policy, NumpyPolicy)
    # ppo:<checkpoint>.zip names the data-only export beside it, never the zip.
    bot = agents.make(f"ppo:{result.checkpoint}")
    mask = env.game.legal_mask()
    view = env.view(env.agent_selection)
    assert mask[bot.act(view, mask, np.random.default_rng(0))] == 1


@pytest.mark.parametrize("network", [
    {},
    {"obs_transform": "log1p+moco_actions", "feature_shortcut": True},  # folded first layers
    {"obs_transform": "log1p+moco_actions", "action_scorer": 4},
], ids=["mlp", "shortcut", "scorer"])
def test_a_warm_start_from_a_checkpoint_takes_its_critic_too(tmp_path: Path, network) -> None:  # noqa: ANN001
    """Every checkpoint saves the value network beside the actor (``.value.npz``), so a run
    whose ``init_policy`` is a checkpoint starts with the critic it ended with."""
    import torch
    from sb3_contrib import MaskablePPO

    from loco_envs.policy import transform_observation
    from loco_envs.train.warmstart import value_path, warm_start

    result = train(tiny_args(tmp_path, "moco_v0", total_timesteps=64, final_eval_games=0,
                             **network))
    policy_file = C.checkpoint_files(result.checkpoint)["policy"]
    assert value_path(policy_file).is_file()
    trained = MaskablePPO.load(result.checkpoint, device="cpu")
    fresh = MaskablePPO.load(result.checkpoint, device="cpu")
    with torch.no_grad():
        for parameter in [*fresh.policy.mlp_extractor.value_net.parameters(),
                          *fresh.policy.value_net.parameters()]:
            parameter.zero_()
    size = load_policy(policy_file)[0].observation_size
    obs = np.random.default_rng(0).integers(0, 4, (5, size)).astype(np.float32)
    x = torch.as_tensor(transform_observation(obs, network.get("obs_transform", "log1p")))
    with torch.no_grad():
        assert not torch.allclose(fresh.policy.predict_values(x), trained.policy.predict_values(x))
        assert warm_start(fresh, policy_file) is True
        np.testing.assert_allclose(fresh.policy.predict_values(x).numpy(),
                                   trained.policy.predict_values(x).numpy(), atol=1e-5)
    second = train(tiny_args(tmp_path / "second", "moco_v0", total_timesteps=64,
                             final_eval_games=0, init_policy=str(policy_file), **network))
    _, doc = load_policy(C.checkpoint_files(second.checkpoint)["policy"])
    assert doc["provenance"]["config"]["warm_start"]["critic"] is True


def test_resume_refuses_what_is_not_a_whole_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        C.latest_checkpoint(tmp_path / "none.zip")
    (tmp_path / "x.zip").write_bytes(b"")
    with pytest.raises(ValueError, match="missing"):
        C.latest_checkpoint(tmp_path / "x.zip")
    with pytest.raises(ValueError, match="no whole checkpoint"):
        C.latest_checkpoint(tmp_path)
    with pytest.raises(ValueError, match="resume"):
        Args(resume=str(tmp_path / "none.zip")).validate()


def test_time_limit_stops_learning_and_still_checkpoints(tmp_path: Path) -> None:
    result = train(tiny_args(tmp_path, "mampfos_v0", total_timesteps=100_000,
                             time_limit_minutes=1e-6, final_eval_games=0))
    assert result.num_timesteps < 100_000
    assert result.checkpoint.is_file()


def test_stop_at_decisions_repeats_a_longer_run_up_to_that_point(tmp_path: Path) -> None:
    """A run stopped at 200 decisions (in the fourth rollout, as a time limit stops one) has the
    weights of a 640-decision run after its third update: the schedule spans total_timesteps
    both times. (A periodic checkpoint ``ppo_<n>`` is saved as its rollout ends, before the
    update that learns from it: ``ppo_256`` holds the weights after the third update.)"""
    kw = dict(total_timesteps=640, checkpoint_every=1, final_eval_games=0)
    longer = train(tiny_args(tmp_path / "long", "moco_v0", **kw))
    stopped = train(tiny_args(tmp_path / "short", "moco_v0", stop_at_decisions=200, **kw))
    assert stopped.num_timesteps == 200 and longer.num_timesteps == 640
    weights = np.load(C.checkpoint_files(stopped.checkpoint)["policy"])
    third = np.load(longer.run_dir / "checkpoints" / "ppo_256.npz")
    assert weights.files == third.files
    assert all(np.array_equal(weights[k], third[k]) for k in weights.files)
    second = np.load(longer.run_dir / "checkpoints" / "ppo_192.npz")
    assert not all(np.array_equal(weights[k], second[k]) for k in weights.files)
    _, doc = load_policy(C.checkpoint_files(stopped.checkpoint)["policy"])
    assert doc["provenance"]["decisions"] == 200
    with pytest.raises(ValueError, match="stop_at_decisions"):
        Args(stop_at_decisions=-1).validate()


def test_a_full_disk_is_one_clear_error(tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    def full(path, data):  # noqa: ANN001
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(C, "atomic_write_bytes", full)
    code = main(["--env-id", "moco_v0", "--runs-dir", str(tmp_path), "--total-timesteps", "64",
                 "--num-envs", "4", "--num-steps", "16", "--batch-size", "32",
                 "--final-eval-games", "0", "--progress-bar", "false"])
    err = capsys.readouterr().err
    assert code == 1
    assert "error: cannot write checkpoint" in err and "No space left on device" in err
    assert "Traceback" not in err


def test_an_unwritable_output_folder_is_one_clear_error(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code = main(["--env-id", "moco_v0", "--runs-dir", str(blocker / "runs"),
                 "--progress-bar", "false"])
    err = capsys.readouterr().err
    assert code == 1 and "error: cannot write the run folder" in err
    assert "Traceback" not in err


def _train_command(runs: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "train", "--env-id", "moco_v0", "--runs-dir", str(runs),
            "--num-envs", "8", "--num-steps", "16", "--batch-size", "64", "--update-epochs", "1",
            "--net-arch", "[32]", "--checkpoint-every", "1", "--snapshot-every", "1",
            "--final-eval-games", "0", "--progress-bar", "false",
            "--opponent-mix", "{random: 1, snapshot: 1}", *extra]


@pytest.mark.slow
def test_a_run_killed_mid_checkpoint_resumes_from_the_last_whole_one(tmp_path: Path) -> None:
    """SIGKILL a real training process while it writes checkpoints, then --resume its folder."""
    runs = tmp_path / "runs"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(_train_command(runs, "--total-timesteps", "100000"), cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    killed_mid_write = False
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            folder = next(runs.glob("*/checkpoints"), None)
            zips = list(folder.glob("ppo_*.zip")) if folder else []
            if folder and len(zips) >= 2:
                if any(folder.glob(".*.tmp")):  # a file half written right now
                    killed_mid_write = True
                    break
                if len(zips) >= 6:
                    break
            time.sleep(0.002)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    folder = next(runs.glob("*/checkpoints"))
    whole = C.latest_checkpoint(folder.parent)  # the newest checkpoint whose files all load
    decisions = int(whole.stem.split("_")[1])
    result = subprocess.run(
        _train_command(runs, "--total-timesteps", str(decisions + 256), "--resume",
                       str(folder.parent)),
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"resuming {whole} at {decisions} decisions" in result.stderr
    _, doc = load_policy(folder / "final.npz")
    assert doc["provenance"]["decisions"] == decisions + 256
    print(f"killed mid-write: {killed_mid_write}")
