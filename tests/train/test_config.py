"""Configs: every provided config loads; unknown keys and bad values name the key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import yaml

from loco_envs.train.config import (
    BaseArgs,
    field_docs,
    load_config,
    parse_overrides,
    read_config_file,
)
from loco_envs.train.ppo import Args, main, parse_args

# The trainer's configs (others in configs/, e.g. *_bc.yaml, belong to other commands).
CONFIGS = sorted(p for p in (Path(__file__).parents[2] / "configs").glob("*.yaml")
                 if p.stem.endswith(("_quick", "_full", "_league")))


def test_there_is_a_quick_and_a_full_config_per_game() -> None:
    names = {p.stem for p in CONFIGS}
    for game in ("loco", "moco", "momo", "mampfos"):
        assert {f"{game}_quick", f"{game}_full"} <= names


def keys_of(path: Path) -> dict:
    """A config file's keys as written, with those of its ``base`` (BaseArgs reads every
    path as given)."""
    return read_config_file(path, BaseArgs)


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_provided_config_is_valid(path: Path) -> None:
    config = keys_of(path)
    warm_start = config.get("init_policy")
    overrides: list[str] = []
    if warm_start and warm_start.endswith(".yaml"):
        # A quick config naming its clone's imitation config (beside it): the trainer makes the
        # clone first, and validation already checks that it fits the run's network.
        assert (path.parent / warm_start).exists()
        args = parse_args([str(path)])
        assert args.init_policy == str(path.parent / warm_start)
    elif path.stem.endswith("_league"):
        # A league goes on from an agent: one taken out of git first (its comment says how) or
        # the final_checkpoint of the stage before it; a saved agent in its field is that start.
        saved = [spec for spec in config["opponent_mix"] if spec.startswith("ppo:")]
        assert all(spec == f"ppo:{warm_start}" for spec in saved)
        if saved and not Path(f"{warm_start}.json").exists():
            field = {k: v for k, v in config["opponent_mix"].items() if k not in saved}
            overrides = ["--opponent-mix", yaml.safe_dump(field, default_flow_style=True)]
    elif warm_start:
        # A full config starting from a clone names what its clone config writes (<name>_full
        # from python -m train.imitation configs/<name>_bc.yaml, by default
        # runs/imitation/<name>_bc), which a fresh clone has not made yet: check the chain,
        # then the rest without it.
        clone = path.stem.removesuffix("_full") + "_bc"
        assert (path.parent / f"{clone}.yaml").exists()
        assert warm_start == f"runs/imitation/{clone}"
    if not warm_start or not warm_start.endswith(".yaml"):
        start = ["--init-policy", ""] if warm_start else []
        args = parse_args([str(path), *start, *overrides])
    assert args.exp_name == path.stem
    assert args.env_id.removesuffix("_v0") == path.stem.split("_")[0]


def test_each_later_stage_starts_where_the_stage_before_it_ends() -> None:
    """A staged recipe (loco_4p_league, then its second and third stages) chains through
    final_checkpoint: each stage's init_policy is another provided config's final checkpoint,
    and the stages keep the game, the player count, the network and the features."""
    configs = {p.stem: keys_of(p) for p in CONFIGS}
    ends_at = {c["final_checkpoint"]: name for name, c in configs.items()
               if c.get("final_checkpoint")}
    starts = {name: ends_at[c["init_policy"]] for name, c in configs.items()
              if c.get("init_policy") in ends_at}
    assert starts == {"loco_4p_second_league": "loco_4p_league",
                      "loco_4p_third_league": "loco_4p_second_league"}
    for later, earlier in starts.items():
        for key in ("env_id", "num_players", "net_arch", "obs_transform"):
            assert configs[later][key] == configs[earlier][key], (later, key)


def test_a_config_takes_the_keys_of_its_base_and_writes_its_own_over_them(tmp_path: Path) -> None:
    (tmp_path / "first.yaml").write_text("env_id: moco_v0\nseed: 3\nnet_arch: [32]\n"
                                         "learning_rate: 0.001\n")
    (tmp_path / "second.yaml").write_text("base: first.yaml\nseed: 4\n")
    (tmp_path / "third.yaml").write_text("base: second.yaml\nlearning_rate: 0.0005\n")
    args = parse_args([str(tmp_path / "third.yaml"), "--seed", "9"])
    assert (args.env_id, args.net_arch, args.learning_rate, args.seed) == ("moco_v0", [32],
                                                                           0.0005, 9)
    assert args.exp_name == "third"  # the config named, not its base
    assert parse_args([str(tmp_path / "second.yaml")]).seed == 4


def test_a_base_by_a_shipped_name_and_its_paths_read_beside_it(tmp_path: Path) -> None:
    """A clone config the base names is read beside the base, wherever the config is."""
    (tmp_path / "mine.yaml").write_text("base: loco_quick\nseed: 5\n")
    args = parse_args([str(tmp_path / "mine.yaml")])
    shipped = parse_args(["loco_quick"])
    assert args.init_policy == shipped.init_policy and Path(args.init_policy).is_file()
    assert dataclasses.replace(args, seed=shipped.seed, exp_name=shipped.exp_name) == shipped


@pytest.mark.parametrize(("files", "message"), [
    ({"a.yaml": "base: a.yaml\n"}, "circle"),
    ({"a.yaml": "base: b.yaml\n", "b.yaml": "base: a.yaml\n"}, "circle"),
    ({"a.yaml": "base: 3\n"}, "'base'"),
    ({"a.yaml": "base:\n"}, "'base'"),
    ({"a.yaml": "base: " + "x" * 300 + ".yaml\n"}, "'base'"),
    ({"a.yaml": "base: missing.yaml\n"}, "missing.yaml"),
    ({"a.yaml": "base: no_such_shipped_config\n"}, "no_such_shipped_config"),
    ({"a.yaml": "base: b.yaml\n", "b.yaml": "- a list\n"}, "mapping"),
])
def test_a_bad_base_is_a_value_error_naming_it(tmp_path: Path, files: dict, message: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=message):
        load_config(tmp_path / "a.yaml", Args)


@pytest.mark.parametrize(("base_text", "message"), [
    ("seeed: 3\n", "unknown config key 'seeed'"),
    ("seed: three\n", "'seed' must be an integer"),
])
def test_a_bad_key_of_a_base_names_the_base_file(tmp_path: Path, base_text: str,
                                                 message: str) -> None:
    """The error points at the file to mend: the base that gave the key, not the config named."""
    (tmp_path / "first.yaml").write_text(base_text)
    (tmp_path / "second.yaml").write_text("base: first.yaml\nlearning_rate: 0.001\n")
    with pytest.raises(ValueError, match=message) as caught:
        load_config(tmp_path / "second.yaml", Args)
    assert str(caught.value).startswith(str(tmp_path / "first.yaml"))


def test_a_bad_value_of_a_base_written_over_is_never_read(tmp_path: Path) -> None:
    """The config named, or a flag, replaces the base's value before any check."""
    (tmp_path / "first.yaml").write_text("seed: three\n")
    (tmp_path / "second.yaml").write_text("base: first.yaml\nlearning_rate: 0.001\n")
    (tmp_path / "third.yaml").write_text("base: first.yaml\nseed: 4\n")
    assert load_config(tmp_path / "third.yaml", Args).seed == 4
    assert load_config(tmp_path / "second.yaml", Args, overrides={"seed": 5}).seed == 5


def test_every_argument_has_a_docstring() -> None:
    import dataclasses

    docs = field_docs(Args)
    assert [f.name for f in dataclasses.fields(Args)] == list(docs)
    assert all(docs.values())


def test_flags_override_the_file(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("env_id: moco_v0\nseed: 3\nnet_arch: [32]\n")
    args = parse_args([str(cfg), "--seed", "7", "--net-arch", "[64, 64]", "--anneal-lr=false",
                       "--opponent-mix", "{random: 1, moco/heuristic: 2}"])
    assert (args.env_id, args.seed, args.net_arch, args.anneal_lr) == ("moco_v0", 7, [64, 64],
                                                                        False)
    assert args.opponent_mix == {"random": 1.0, "moco/heuristic": 2.0}
    assert args.exp_name == "c"


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("colour: red\n", "colour"),
        ("num_envs: four\n", "num_envs"),
        ("num_envs: 0\n", "num_envs"),
        ("anneal_lr: 1\n", "anneal_lr"),
        ("gamma: 1.5\n", "gamma"),
        ("learning_rate: -0.1\n", "learning_rate"),
        ("env_id: chess_v0\n", "env_id"),
        ("num_players: 11\n", "num_players"),
        ("env_options: {rounds: 2}\n", "env_options"),
        ("net_arch: [64, x]\n", "net_arch"),
        ("opponent_mix: {random: -1}\n", "opponent_mix"),
        ("opponent_mix: {moco/heuristic: 1}\n", "opponent_mix"),
        ("opponent_mix: {snapshot: 1}\n", "opponent_mix"),
        ("eval_opponents: [nobody]\n", "eval_opponents"),
        ("eval_games: 3\n", "eval_games"),
        ("batch_size: 100000\n", "batch_size"),
        ("backend: threads\n", "backend"),
        ("activation: gelu\n", "activation"),
        ("target_kl: fast\n", "target_kl"),
        ("resume: nowhere.zip\n", "nowhere.zip"),
    ],
)
def test_bad_config_value_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(text)
    with pytest.raises(ValueError, match=key):
        parse_args([str(cfg)])


def test_bad_files_and_flags(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "missing.yaml", Args)
    listed = tmp_path / "list.yaml"
    listed.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(listed, Args)
    with pytest.raises(ValueError, match="'no_such_key'"):
        parse_overrides(Args, ["--no-such-key", "1"])
    with pytest.raises(ValueError, match="needs a value"):
        parse_overrides(Args, ["--seed"])
    assert main([str(listed)]) == 2
    assert "mapping" in capsys.readouterr().err
    assert main(["--help"]) == 0
    assert "--opponent-mix" in capsys.readouterr().out


def test_a_shipped_config_loads_by_name_from_any_folder(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from loco_envs.train.config import SHIPPED, shipped_configs

    monkeypatch.chdir(tmp_path)  # no configs/ here: the name alone must find the file
    assert {"loco_quick", "moco_full", "loco_bc"} <= set(shipped_configs())
    args = parse_args(["moco_quick", "--seed", "5"])
    assert (args.env_id, args.seed, args.exp_name) == ("moco_v0", 5, "moco_quick")
    # A clone config named in a shipped config is found beside it, not in the working folder.
    args = parse_args(["loco_quick"])
    assert Path(args.init_policy) == SHIPPED / "loco_quick_bc.yaml"
    with pytest.raises(ValueError, match="unknown config name 'loco_quik'.*loco_quick"):
        load_config("loco_quik", Args)
    with pytest.raises(ValueError, match="does not exist.*moco_quick"):
        load_config("configs/loco_quick.yaml", Args)  # a path stays a path


def _trainer_classes() -> list[type]:
    from loco_envs.train.imitation import BCArgs

    classes = [Args, BCArgs]
    try:
        from loco_envs.train.rllib import Args as RLlibArgs
    except ImportError:  # the ray extra is not installed
        return classes
    return [*classes, RLlibArgs]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [("env_id", "chess_v0", "'env_id' must be one of"),
     ("num_players", 11, "'num_players'"),
     ("env_options", {"num_players": 3}, "'env_options': give num_players as its own key"),
     ("seed", -1, "'seed' must be >= 0"),
     ("threads", 0, "'threads'"),
     ("net_arch", [64, 0], "'net_arch' must be a list of positive layer sizes"),
     ("activation", "gelu", "'activation' must be 'tanh' or 'relu'"),
     ("obs_transform", "sqrt", "'obs_transform' must be one of"),
     ("learning_rate", 0.0, "'learning_rate' must be > 0"),
     ("opponent_mix", {"random": -1.0}, "'opponent_mix'"),
     ("eval_opponents", ["nobody"], "'eval_opponents'")])
def test_the_shared_keys_are_checked_once_for_every_trainer(key: str, value, message: str) -> None:
    from loco_envs.train.config import BaseArgs

    for cls in _trainer_classes():
        assert issubclass(cls, BaseArgs)
        args = cls(env_id="moco_v0", teacher="moco/heuristic") if "teacher" in field_docs(cls) \
            else cls(env_id="moco_v0")
        args.validate()  # the defaults pass
        setattr(args, key, value)
        with pytest.raises(ValueError, match=message):
            args.validate()


def test_every_trainer_reads_the_same_command_line(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from loco_envs.train.config import parse_command_line
    from loco_envs.train.imitation import BCArgs

    monkeypatch.chdir(tmp_path)
    bc = parse_command_line(BCArgs, ["moco_bc", "--games", "10", "--net-arch=[32]"])
    assert (bc.exp_name, bc.env_id, bc.games, bc.net_arch) == ("moco_bc", "moco_v0", 10, [32])
    assert parse_command_line(BCArgs, ["--env-id", "moco_v0", "--teacher",
                                       "moco/heuristic"]).exp_name == "bc"
    with pytest.raises(ValueError, match="unknown flag --num-envs"):
        parse_command_line(BCArgs, ["moco_bc", "--num-envs", "4"])
    for cls in _trainer_classes():
        docs = field_docs(cls)
        assert list(docs) == [f.name for f in dataclasses.fields(cls)] and all(docs.values())
