"""Short training runs of every game, checkpoints as bots, resume, and the numpy actor."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import agents  # noqa: E402
import loco_envs  # noqa: E402
from benchmarks import tournament as T  # noqa: E402
from train.policy import NumpyPolicy, load_bot, load_policy, read_sidecar  # noqa: E402
from train.ppo import Args, load_snapshots, snapshots_path, train  # noqa: E402

TINY = dict(total_timesteps=128, num_envs=2, vec_env="dummy", num_steps=32, batch_size=32,
            update_epochs=1, net_arch=[32], snapshot_every=1, pool_size=2, checkpoint_every=2,
            eval_games=2, final_eval_games=2, eval_bootstrap=10, progress_bar=False,
            max_learner_steps=400)


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
    assert result.checkpoint.is_file()
    meta = read_sidecar(result.checkpoint)
    assert meta["env_id"] == env_id and meta["options"]["num_players"] == 2
    # Two updates: two snapshots broadcast and saved, a checkpoint at update 2.
    assert len(load_snapshots(snapshots_path(result.checkpoint))) == 2
    assert list((result.run_dir / "checkpoints").glob("ppo_*.zip"))
    game = env_id.removesuffix("_v0")
    ev = result.evaluation
    assert set(ev.scalars()) == {"eval/winrate_vs_random", f"eval/winrate_vs_{game}_heuristic",
                                 "eval/elo"}
    assert (result.run_dir / "eval" / "ratings.md").is_file()
    assert (result.run_dir / "eval" / "ratings.png").is_file()
    tags = scalar_tags(result.run_dir)
    assert {"charts/SPS", "losses/value_loss", "losses/entropy", "eval/elo",
            "eval/winrate_vs_random"} <= tags
    # The checkpoint plays as a bot through the tournament runner.
    record = T.play_game(env_id, [f"ppo:{result.checkpoint}", "random"], seed=3)
    assert sorted(record["ranks"]) in ([0, 1], [0, 0])


def test_periodic_eval_subproc_and_resume(tmp_path: Path) -> None:
    args = tiny_args(tmp_path, "mampfos_v0", vec_env="subproc", eval_every=1,
                     final_eval_games=0, final_checkpoint=str(tmp_path / "out" / "final"))
    first = train(args)
    assert first.evaluation is None
    assert (tmp_path / "out" / "final.zip").is_file()
    tags = scalar_tags(first.run_dir)
    assert {"eval/winrate_vs_random", "eval/winrate_vs_mampfos_heuristic", "eval/elo",
            "charts/first_place_rate_vs_pool"} <= tags
    # Go on from the checkpoint to 256 decisions, in the same run folder, with the pool back.
    more = Args(**{**args.__dict__, "total_timesteps": 256, "vec_env": "dummy",
                   "eval_every": 0, "resume": str(first.checkpoint), "final_checkpoint": ""})
    second = train(more)
    assert second.run_dir == first.run_dir
    assert second.num_timesteps == 256
    assert json.loads(first.checkpoint.with_suffix(".json").read_text())["num_timesteps"] == 256


def test_numpy_actor_matches_the_torch_policy(tmp_path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    result = train(tiny_args(tmp_path, "moco_v0", total_timesteps=64, final_eval_games=0))
    model = MaskablePPO.load(result.checkpoint, device="cpu")
    policy, meta = load_policy(result.checkpoint)
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    x = torch.as_tensor(np.log1p(obs)[None])
    with torch.no_grad():
        expected = model.policy.get_distribution(x).distribution.logits.numpy()[0]
    got = policy.logits(obs)
    # Both are logits up to a constant shift (torch normalises them).
    np.testing.assert_allclose(got - got.max(), expected - expected.max(), atol=1e-4)
    # The greedy bot plays the argmax of the masked policy, from the view.
    bot = load_bot(result.checkpoint, deterministic=True)
    mask = env.game.legal_mask()
    action = bot.act(env.view(env.agent_selection), mask, np.random.default_rng(0))
    assert mask[action] == 1
    assert action == int(np.argmax(np.where(mask.astype(bool), got, -np.inf)))
    # ppo:<path> samples with the rng it is handed (any of the name's forms).
    sampler = agents.make(f"ppo:{result.checkpoint.with_suffix('')}")
    view = env.view(env.agent_selection)
    sampled = [sampler.act(view, mask, np.random.default_rng(s)) for s in range(20)]
    assert all(mask[a] for a in sampled)
    assert sampled == [sampler.act(view, mask, np.random.default_rng(s)) for s in range(20)]
    assert isinstance(policy, NumpyPolicy) and meta["observation_size"] == obs.size


def test_bad_checkpoints_are_value_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        agents.make(f"ppo:{tmp_path / 'none.zip'}")
    (tmp_path / "x.zip").write_bytes(b"")
    with pytest.raises(ValueError, match="sidecar"):
        agents.make(f"ppo:{tmp_path / 'x.zip'}")
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match="sidecar"):
        agents.make(f"ppo:{tmp_path / 'x'}")
    with pytest.raises(ValueError, match="path is missing"):
        agents.make("ppo:")


def test_bot_refuses_a_game_of_another_size(tmp_path: Path) -> None:
    result = train(tiny_args(tmp_path, "moco_v0", total_timesteps=64, final_eval_games=0))
    bot = agents.make(f"ppo:{result.checkpoint}")
    env = loco_envs.make("moco_v0", wrapped=False, num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="size"):
        bot.act(env.view(env.agent_selection), env.game.legal_mask(), np.random.default_rng(0))


def test_time_limit_stops_learning_and_still_checkpoints(tmp_path: Path) -> None:
    result = train(tiny_args(tmp_path, "mampfos_v0", total_timesteps=100_000,
                             time_limit_minutes=1e-6, final_eval_games=0))
    assert result.num_timesteps < 100_000
    assert result.checkpoint.is_file()
