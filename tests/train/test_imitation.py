"""Behaviour cloning (``train.imitation``) and the PPO warm start from it (``train.warmstart``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from loco_envs import agents  # noqa: E402
from loco_envs.policy import load_policy  # noqa: E402
from loco_envs.train.imitation import BCArgs, collect, main, run  # noqa: E402
from loco_envs.train.warmstart import check_compatible, value_path, warm_start  # noqa: E402


def small_args(tmp_path, **kw) -> BCArgs:
    base = dict(env_id="mampfos_v0", num_players=3, teacher="mampfos/heuristic",
                opponent_mix={"teacher": 0.5, "random": 0.5}, games=12, dagger_rounds=1,
                dagger_games=6, epochs=2, batch_size=64, net_arch=[32, 32], workers=1,
                eval_games=0, out=str(tmp_path / "bc"))
    base.update(kw)
    return BCArgs(**base)


def test_collect_labels_the_student_seat_with_the_teachers_legal_moves(tmp_path):
    args = small_args(tmp_path)
    data = collect(args, 0, list(range(4)))
    masks = np.unpackbits(data.masks, axis=1, count=13).astype(bool)
    assert len(data) > 0 and data.games == 4
    assert masks[np.arange(len(data)), data.actions].all()
    assert set(np.unique(data.returns)) <= {-1.0, -0.5, 0.0, 0.5, 1.0}


def test_collect_is_a_function_of_the_seed(tmp_path):
    a = collect(small_args(tmp_path), 0, [0, 1, 2])
    b = collect(small_args(tmp_path), 0, [0, 1, 2])
    c = collect(small_args(tmp_path, seed=2), 0, [0, 1, 2])
    assert np.array_equal(a.obs, b.obs) and np.array_equal(a.actions, b.actions)
    assert not (len(a) == len(c) and np.array_equal(a.obs, c.obs))


@pytest.fixture(scope="module")
def cloned(tmp_path_factory):
    """One small run shared by the tests that only read its files."""
    return run(small_args(tmp_path_factory.mktemp("bc")), log=lambda *_: None)


def test_run_saves_a_numpy_policy_with_provenance_and_value_net(cloned):
    path = cloned
    policy, doc = load_policy(path)
    assert policy.layer_sizes == [32, 32]
    prov = doc["provenance"]
    assert prov["seed"] == 1 and prov["decisions"] > 0
    assert prov["config"]["teacher"] == "mampfos/heuristic"
    assert value_path(path).is_file()
    bot = agents.make(f"ppo:{path}")
    mask = np.zeros(13, np.int8)
    mask[[2, 4]] = 1
    assert bot.policy.act_observation(np.zeros(policy.observation_size, np.float32), mask,
                                      np.random.default_rng(0)) in (2, 4)


def test_run_is_reproducible(tmp_path, cloned):
    first, _ = load_policy(cloned)
    second, _ = load_policy(run(small_args(tmp_path / "b"), log=lambda *_: None))
    for (w1, b1), (w2, b2) in zip(first.hidden, second.hidden, strict=True):
        assert np.array_equal(w1, w2) and np.array_equal(b1, b2)


@pytest.mark.parametrize("key,value", [("teacher", "moco/heuristic"), ("games", 0),
                                       ("opponent_mix", {"random": -1.0}), ("eval_games", 1000),
                                       ("net_arch", []), ("activation", "gelu")])
def test_bad_config_names_the_key(tmp_path, key, value):
    with pytest.raises(ValueError, match=key):
        small_args(tmp_path, **{key: value}).validate()


def test_command_line_rejects_unknown_flags(capsys):
    assert main(["--no-such-key", "1"]) == 2
    assert "no_such_key" in capsys.readouterr().err


def test_warm_start_copies_actor_and_value_into_a_maskable_policy(cloned):
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from loco_envs.policy import transform_observation
    from loco_envs.train.torch_policy import from_sb3

    path = cloned
    saved, _ = load_policy(path)
    obs_space = spaces.Box(0.0, 10.0, (saved.observation_size,), np.float32)
    sb3 = MaskableActorCriticPolicy(obs_space, spaces.Discrete(13), lambda _: 1e-4,
                                    net_arch=dict(pi=[32, 32], vf=[32, 32]),
                                    activation_fn=torch.nn.Tanh)

    class Model:
        policy = sb3

    check_compatible(path, "mampfos_v0", {"num_players": 3}, [32, 32], "tanh", "log1p")
    assert warm_start(Model, path) is True
    copied = from_sb3(sb3, "log1p")
    obs = np.random.default_rng(0).integers(0, 5, (6, saved.observation_size)).astype(np.float32)
    assert np.allclose(copied.logits(obs), saved.logits(obs), atol=1e-5)
    with np.load(value_path(path)) as v:
        x = transform_observation(obs, "log1p")
        for i in range(2):
            x = np.tanh(x @ v[f"hidden_{i}_weight"].T + v[f"hidden_{i}_bias"])
        expected = x @ v["value_weight"].T + v["value_bias"]
    with torch.no_grad():
        got = sb3.predict_values(torch.from_numpy(transform_observation(obs, "log1p")))
    assert np.allclose(got.numpy(), expected, atol=1e-5)


def test_warm_start_refuses_another_network(cloned):
    path = cloned
    with pytest.raises(ValueError, match="layer_sizes"):
        check_compatible(path, "mampfos_v0", {"num_players": 3}, [64, 64], "tanh", "log1p")
    with pytest.raises(ValueError, match="num_players"):
        check_compatible(path, "mampfos_v0", {"num_players": 2}, [32, 32], "tanh", "log1p")


def test_trainer_init_policy_is_checked_against_the_run(cloned):
    from loco_envs.train.ppo import Args

    args = Args(env_id="mampfos_v0", num_players=3, net_arch=[64, 64], init_policy=str(cloned),
                num_envs=4, num_steps=16, batch_size=64, eval_opponents=["random"],
                final_eval_games=0, eval_games=3)
    with pytest.raises(ValueError, match="init_policy"):
        args.validate()
    args.net_arch = [32, 32]
    args.validate()


def test_ship_copies_the_policy_and_records_its_duplicate_evaluation(cloned, tmp_path,
                                                                     monkeypatch):
    from loco_envs.train.ship import ship

    monkeypatch.setattr(agents, "PRETRAINED_DIR", tmp_path / "pretrained")
    path = ship(cloned, "mampfos/ppo", ["random"], games=6, workers=1)
    assert path == tmp_path / "pretrained" / "mampfos_3p.npz"
    policy, doc = load_policy(path)
    assert np.array_equal(policy.action[0], load_policy(cloned)[0].action[0])
    table = doc["provenance"]["evaluation"]
    assert table["games_per_opponent"] == 6 and table["play"] == "greedy"
    assert 0 <= table["win_rate"]["random"]["low"] <= table["win_rate"]["random"]["high"] <= 1
    assert doc["provenance"]["config"]["shipped_from"] == str(cloned)
    assert agents.make("mampfos/ppo").temperature == 0
    with pytest.raises(ValueError, match="not the game of"):
        ship(cloned, "loco/ppo", ["random"], games=2, workers=1)


def test_a_ship_that_fails_leaves_the_shipped_agent_as_it_was(cloned, tmp_path, monkeypatch):
    """Nothing half applied: a refused --keep-evaluation copies nothing, and a copy, an
    evaluation or a record that fails puts the previous files back (or removes the new ones
    where there were none)."""
    from loco_envs.train import ship as ship_module

    shipped = tmp_path / "pretrained"
    monkeypatch.setattr(agents, "PRETRAINED_DIR", shipped)
    with pytest.raises(ValueError, match="keep-evaluation"):
        ship_module.ship(cloned, "mampfos/ppo", ["random"], games=2, keep_evaluation=True)
    assert not shipped.exists() or not any(shipped.iterdir())

    def fails(*args, **kwargs):
        raise RuntimeError("a worker died")

    monkeypatch.setattr(ship_module, "evaluate_spec", fails)
    with pytest.raises(RuntimeError):
        ship_module.ship(cloned, "mampfos/ppo", ["random"], games=2)
    assert not any(shipped.iterdir())
    shipped.joinpath("mampfos_3p.npz").write_bytes(b"old weights")
    shipped.joinpath("mampfos_3p.json").write_bytes(b"old card")

    def old_files_kept():
        return (shipped.joinpath("mampfos_3p.npz").read_bytes() == b"old weights"
                and shipped.joinpath("mampfos_3p.json").read_bytes() == b"old card")

    with pytest.raises(RuntimeError):
        ship_module.ship(cloned, "mampfos/ppo", ["random"], games=2)
    assert old_files_kept()
    # the second copy fails (a full disk), or recording the table does
    real_copy = ship_module.shutil.copyfile
    copies = []

    def second_copy_fails(src, dst):
        copies.append(dst)
        if len(copies) == 2:
            raise OSError("no space left on device")
        return real_copy(src, dst)

    monkeypatch.setattr(ship_module.shutil, "copyfile", second_copy_fails)
    with pytest.raises(OSError):
        ship_module.ship(cloned, "mampfos/ppo", ["random"], games=2)
    assert old_files_kept()
    monkeypatch.setattr(ship_module.shutil, "copyfile", real_copy)
    monkeypatch.setattr(ship_module, "evaluate_spec", lambda *a, **k: {"rate": float("nan")})

    def save_fails(*args, **kwargs):
        raise ValueError("Out of range float values are not JSON compliant")

    monkeypatch.setattr(ship_module, "save_policy", save_fails)
    with pytest.raises(ValueError):
        ship_module.ship(cloned, "mampfos/ppo", ["random"], games=2)
    assert old_files_kept()


def test_ship_turns_the_trainers_summary_into_the_table():
    from loco_envs.train.ship import _table_of

    table = _table_of({"games": 2000, "capped": 1, "elo": [1500.0, 1450.0, 1550.0],
                       "win_rates": {"random": [0.9, 0.88, 0.92], "loco/heuristic": [0.5, 0.47,
                                                                                     0.53]}})
    assert table["games_per_opponent"] == 1000 and table["play"] == "sampling"
    assert table["win_rate"]["loco/heuristic"] == {"rate": 0.5, "low": 0.47, "high": 0.53}


# --- an imitation config as the trainer's init_policy (train.warmstart.ensure_clone) ----------
CLONE_YAML = """env_id: mampfos_v0
num_players: 3
teacher: mampfos/heuristic
opponent_mix: {teacher: 0.5, random: 0.5}
games: 6
dagger_rounds: 0
epochs: 1
batch_size: 64
net_arch: [32, 32]
workers: 1
eval_games: 0
"""


def _ppo_args(init_policy, runs_dir, **kw):
    from loco_envs.train.ppo import Args

    base = dict(env_id="mampfos_v0", num_players=3, net_arch=[32, 32], init_policy=str(init_policy),
                num_envs=4, num_steps=16, batch_size=32, update_epochs=1, total_timesteps=64,
                eval_opponents=["random"], final_eval_games=0, eval_games=3, checkpoint_every=0,
                progress_bar=False, runs_dir=str(runs_dir))
    base.update(kw)
    return Args(**base)


def test_a_clone_config_is_made_into_the_runs_folder_then_reused_while_unchanged(tmp_path):
    from loco_envs.train.warmstart import ensure_clone, policy_of

    config = tmp_path / "tiny_bc.yaml"
    config.write_text(CLONE_YAML)
    runs = tmp_path / "runs"
    lines: list[str] = []
    made = ensure_clone(config, runs, log=lines.append)
    assert policy_of(config, runs) == runs / "imitation" / "tiny_bc"
    assert load_policy(made)[1]["provenance"]["config"]["games"] == 6
    assert any("cloning mampfos/heuristic" in line for line in lines)
    stamp = (runs / "imitation" / "tiny_bc.npz").stat().st_mtime_ns
    lines.clear()
    assert ensure_clone(config, runs, log=lines.append) == runs / "imitation" / "tiny_bc"
    assert (runs / "imitation" / "tiny_bc.npz").stat().st_mtime_ns == stamp
    assert len(lines) == 1
    assert lines[0].startswith(f"warm start: the clone at {runs / 'imitation' / 'tiny_bc'} (made "
                               f"by {config}, ")
    config.write_text(CLONE_YAML.replace("games: 6", "games: 9"))  # another recipe: made again
    lines.clear()
    ensure_clone(config, runs, log=lines.append)
    assert load_policy(runs / "imitation" / "tiny_bc")[1]["provenance"]["config"]["games"] == 9
    assert any("cloning" in line for line in lines)


def test_the_trainer_makes_the_clone_its_config_names_and_starts_from_it(tmp_path):
    from loco_envs.train.ppo import train

    config = tmp_path / "tiny_bc.yaml"
    config.write_text(CLONE_YAML)
    args = _ppo_args(config, tmp_path / "runs", learning_rate=1e-12, anneal_lr=False)
    args.validate()
    result = train(args)
    clone, _ = load_policy(tmp_path / "runs" / "imitation" / "tiny_bc")
    trained, doc = load_policy(result.checkpoint.with_suffix(".npz"))
    obs = np.random.default_rng(0).integers(0, 5, (6, clone.observation_size)).astype(np.float32)
    np.testing.assert_allclose(trained.logits(obs), clone.logits(obs), atol=1e-3)
    recorded = doc["provenance"]["config"]
    assert recorded["init_policy"] == str(config)
    # the clone's recipe is recorded when the run starts: true even after the clone is remade
    assert recorded["warm_start"]["config"]["games"] == 6
    config.write_text(CLONE_YAML.replace("games: 6", "games: 9"))
    from loco_envs.train.ship import with_method

    assert with_method(dict(recorded))["warm_start"]["config"]["games"] == 6


def test_a_clone_made_alone_by_train_imitation_is_the_one_the_trainer_reuses(tmp_path,
                                                                          monkeypatch):
    from loco_envs.train.warmstart import ensure_clone

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny_bc.yaml").write_text(CLONE_YAML)
    assert main(["tiny_bc.yaml"]) == 0  # writes runs/imitation/tiny_bc, as its comment says
    lines: list[str] = []
    assert ensure_clone("tiny_bc.yaml", "runs", log=lines.append) == Path("runs/imitation/tiny_bc")
    assert len(lines) == 1 and "warm start: the clone at" in lines[0]


def test_a_clone_out_with_a_suffix_or_a_dot_is_written_and_reused_by_its_name(tmp_path):
    from loco_envs.train.warmstart import ensure_clone, value_path

    config = tmp_path / "tiny_bc.yaml"
    config.write_text(CLONE_YAML + f"out: {tmp_path / 'clone.v2.npz'}\n")
    ensure_clone(config, tmp_path, log=lambda *_: None)
    assert (tmp_path / "clone.v2.npz").is_file() and (tmp_path / "clone.v2.value.npz").is_file()
    assert value_path(tmp_path / "clone.v2") == tmp_path / "clone.v2.value.npz"
    lines: list[str] = []
    ensure_clone(config, tmp_path, log=lines.append)
    assert len(lines) == 1 and "the clone at" in lines[0]


@pytest.mark.parametrize(("change", "match"), [
    ({"net_arch": [64, 64]}, "init_policy.*tiny_bc.yaml has layer_sizes"),
    ({"num_players": 2, "eval_games": 4}, "init_policy.*num_players"),
    ({"obs_transform": "none"}, "init_policy.*obs_transform"),
])
def test_a_clone_config_that_does_not_fit_the_run_is_refused_naming_what_differs(tmp_path, change,
                                                                                match):
    config = tmp_path / "tiny_bc.yaml"
    config.write_text(CLONE_YAML)
    args = _ppo_args(config, tmp_path / "runs", **change)
    with pytest.raises(ValueError, match=match):
        args.validate()
    assert not (tmp_path / "runs").exists()  # refused before anything was made


def test_a_bad_or_missing_clone_config_is_refused_naming_init_policy_and_its_key(tmp_path):
    config = tmp_path / "tiny_bc.yaml"
    config.write_text(CLONE_YAML.replace("games: 6", "games: 0"))
    with pytest.raises(ValueError, match="init_policy.*'games' must be >= 1"):
        _ppo_args(config, tmp_path).validate()
    with pytest.raises(ValueError, match="init_policy.*does not exist"):
        _ppo_args(tmp_path / "missing.yaml", tmp_path).validate()


def test_a_clone_config_named_in_a_config_file_is_found_beside_that_file(tmp_path):
    from loco_envs.train.ppo import parse_args

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "tiny_bc.yaml").write_text(CLONE_YAML)
    (tmp_path / "sub" / "run.yaml").write_text(
        "env_id: mampfos_v0\nnum_players: 3\nnet_arch: [32, 32]\ninit_policy: tiny_bc.yaml\n"
        "eval_opponents: [random]\neval_games: 3\nfinal_eval_games: 3\n")
    args = parse_args([str(tmp_path / "sub" / "run.yaml")])
    assert args.init_policy == str(tmp_path / "sub" / "tiny_bc.yaml")
