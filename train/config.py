"""Configs for the trainer: a YAML file fills the arguments dataclass, ``--key value`` overrides.

Every value, from a file or from the command line, goes through one checker, so a typo or a bad
value fails early with a ``ValueError`` that names the key::

    args = load_config("configs/loco_quick.yaml", Args, overrides={"seed": 3})

Command-line values are read as YAML, so ``--net-arch "[64, 64]"``, ``--anneal-lr false`` and
``--opponent-mix "{random: 0.5, snapshot: 0.5}"`` work as they look.

A shipped config is also found by its name, from any folder and from an installed wheel
(``load_config("loco_quick", Args)``, ``python -m loco_envs.train loco_quick``): the files of
``configs/`` travel with the package (:data:`SHIPPED`).

The three trainers (``python -m train``, ``train.imitation``, ``train.rllib``) share their keys
and checks through :class:`BaseArgs` (the game, seed, threads, network, opponents) and
:class:`SelfPlayArgs` (PPO's hyperparameters, the snapshot pool, the final evaluation), and read
one command line, ``[CONFIG] [--key value ...]`` (:func:`parse_command_line`,
:func:`command_line`), so a key means and is checked the same everywhere.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import sys
import textwrap
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from loco_envs.core.threads import check_threads

__all__ = ["SHIPPED", "BaseArgs", "SelfPlayArgs", "check_value", "command_line", "config_path",
           "field_docs",
           "from_mapping", "keyed", "load_config", "parse_command_line", "parse_overrides",
           "read_config_file", "shipped_configs", "usage", "wants_help"]

#: The folder of the shipped configs. In a clone ``train/`` and ``configs/`` sit side by side at
#: the root; a wheel installs them side by side again, as ``loco_envs/train`` and
#: ``loco_envs/configs`` (setup.py), so one path relative to this file finds them in both.
SHIPPED = Path(__file__).resolve().parent.parent / "configs"
#: The suffixes a config file may have; a name has none.
SUFFIXES = (".yaml", ".yml")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring written under each dataclass field (CleanRL's habit), in field order.

    Inherited fields keep their base class's docstring unless the subclass writes a new one
    (a subclass that only changes a default says so in its own words).
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if dataclasses.is_dataclass(klass):
            docs.update(_own_field_docs(klass))
    return {f.name: docs[f.name] for f in dataclasses.fields(cls) if f.name in docs}


def _own_field_docs(cls: type) -> dict[str, str]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = after.value.value.strip()
    return docs


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def check_value(key: str, value: Any, tp: Any) -> Any:
    """``value`` checked against the annotation ``tp`` (ints pass as floats); ``ValueError``."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return check_value(key, value, option)
            except ValueError:
                pass
        raise ValueError(f"config key {key!r} must be {_type_name(tp)}, got {value!r}")
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ValueError(f"config key {key!r} must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"config key {key!r} must be an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"config key {key!r} must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ValueError(f"config key {key!r} must be a string, got {value!r}")
        return value
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"config key {key!r} must be a list, got {value!r}")
        return [check_value(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        key_type, value_type = typing.get_args(tp) or (Any, Any)
        if not isinstance(value, Mapping):
            raise ValueError(f"config key {key!r} must be a mapping, got {value!r}")
        return {check_value(f"{key} (a key)", k, key_type): check_value(f"{key}.{k}", v,
                                                                         value_type)
                for k, v in value.items()}
    raise TypeError(f"config key {key!r}: unsupported annotation {tp!r}")


def from_mapping(cls: type, data: Mapping[str, Any], where: str = "config",
                 unused: list[str] | None = None,
                 sources: Mapping[str, str] | None = None) -> Any:
    """An instance of the dataclass ``cls`` from ``data``; bad values fail, and so do unknown
    keys, unless a list ``unused`` is given to collect them (a config of another trainer).

    ``sources`` names the file that gave a key, where it is not ``where`` (a key of a config's
    ``base``), so that the error points at the file to mend.
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a mapping of keys to values, "
                         f"got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = {}
    for key, value in data.items():
        place = (sources or {}).get(key, where)
        if key not in names and unused is not None:
            unused.append(key)
        elif key not in names:
            raise ValueError(f"{place}: unknown config key {key!r}; known keys: {', '.join(names)}")
        else:
            try:
                values[key] = check_value(key, value, hints[key])
            except ValueError as exc:
                if place == where:
                    raise
                raise ValueError(f"{place}: {exc}") from None
    return cls(**values)


def parse_overrides(cls: type, argv: Sequence[str]) -> dict[str, Any]:
    """``["--num-envs", "2", "--seed=3"]`` -> ``{"num_envs": 2, "seed": 3}`` (values as YAML)."""
    names = {f.name for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        if not token.startswith("--"):
            raise ValueError(f"expected a --key flag, got {token!r}")
        key, eq, text = token[2:].partition("=")
        key = key.replace("-", "_")
        if key not in names:
            raise ValueError(f"unknown flag --{key.replace('_', '-')} (config key {key!r})")
        if not eq:
            if i + 1 >= len(argv):
                raise ValueError(f"flag --{key.replace('_', '-')} needs a value")
            text = argv[i + 1]
            i += 1
        try:
            out[key] = yaml.safe_load(text) if text != "" else ""
        except yaml.YAMLError as exc:
            raise ValueError(f"config key {key!r}: cannot read {text!r} ({exc})") from None
        i += 1
    return out


def shipped_configs() -> list[str]:
    """The names of the shipped configs (``loco_quick``, ``moco_full``, ...), sorted."""
    return sorted(p.stem for p in SHIPPED.glob("*.yaml"))


def config_path(config: str | Path) -> Path:
    """The file of ``config``: a path, or the name of a shipped config (a string with neither a
    folder nor a suffix, so ``loco_quick`` means the shipped one from any folder).

    ``ValueError`` for a file that does not exist or a name that is not shipped, listing the
    shipped names: the one mistake both share is not knowing them.
    """
    names = shipped_configs()
    text = str(config)
    if isinstance(config, str) and Path(text).name == text and not text.endswith(SUFFIXES):
        if text not in names:
            raise ValueError(f"unknown config name {text!r}; shipped configs: "
                             f"{', '.join(names)} (or give a path to a YAML file)")
        return SHIPPED / f"{text}.yaml"
    path = Path(config)
    if not path.is_file():
        raise ValueError(f"config file {path} does not exist (shipped configs, by name: "
                         f"{', '.join(names)})")
    return path


def load_config(path: str | Path | None, cls: type,
                overrides: Mapping[str, Any] | None = None,
                unused: list[str] | None = None) -> Any:
    """The dataclass ``cls`` filled from the YAML file at ``path`` (a path, or a shipped
    config's name: :func:`config_path`) and the configs it is ``base``d on, then from
    ``overrides``; the file's unknown keys fail, or are collected in ``unused`` when it is
    given (the flags' keys are always checked)."""
    data: dict[str, Any] = {}
    sources: dict[str, str] = {}
    where = "config"
    if path is not None:
        path = config_path(path)
        where = str(path)
        data = read_config_file(path, cls, sources=sources)
    for key in overrides or {}:
        sources.pop(key, None)
    data.update(overrides or {})
    return from_mapping(cls, data, where, unused, sources)


def read_config_file(path: Path, cls: type, including: tuple[Path, ...] = (),
                     sources: dict[str, str] | None = None) -> dict[str, Any]:
    """The keys of the config file at ``path``: those of its ``base`` first (read the same way),
    then its own over them. A path the trainer reads beside its config (a clone config named by
    ``init_policy``) is read beside the file that gives it (``cls.beside_file``); every other
    path is from the working folder, as always.

    ``base`` names another config: a file beside this one (``loco_4p_league.yaml``) or a
    shipped config's name (``loco_full``). A stage of a recipe then writes only the keys in
    which it differs. A run records every key it ran with, whichever file gave it; a dict
    ``sources``, when given, is filled with the file that gave each key.
    """
    loaded = _yaml_mapping(path)
    data: dict[str, Any] = {}
    if "base" in loaded:
        data = read_config_file(_base_path(path, loaded.pop("base"), including), cls,
                                (*including, path.resolve()), sources)
    beside = getattr(cls, "beside_file", None)
    data.update(beside(loaded, path.parent) if beside else loaded)
    if sources is not None:
        sources.update(dict.fromkeys(loaded, str(path)))
    return data


def _base_path(path: Path, base: Any, including: tuple[Path, ...]) -> Path:
    """The file of the ``base`` that the config at ``path`` names; ``ValueError`` naming it
    for a bad one, one that is not there, or one that leads back to a config including it."""
    where = f"{path}: config key 'base'"
    if not isinstance(base, str) or not base.strip():
        raise ValueError(f"{where}: expected the name or file of a config, got {base!r}")
    named = Path(base).name == base and not base.endswith(SUFFIXES)
    try:
        found = config_path(base if named else str(path.parent / base))
        chain = (*including, path.resolve(), found.resolve())
    except (ValueError, OSError) as exc:  # OSError: e.g. a name too long for the file system
        raise ValueError(f"{where}: {getattr(exc, 'strerror', None) or exc}") from None
    if chain[-1] in chain[:-1]:
        raise ValueError(f"{where}: the configs base each other in a circle "
                         f"({' -> '.join(str(p) for p in chain)})")
    return found


def _yaml_mapping(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: YAML nested too deeply") from None
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, Mapping):
        raise ValueError(f"{path}: expected a mapping of keys to values")
    return dict(loaded)


# ---------------------------------------------------------------------------------------------
# The keys every trainer shares, checked once
@dataclasses.dataclass
class BaseArgs:
    """The keys of every trainer (``python -m train``, ``train.rllib``, ``train.imitation``):
    the game, the seed, the network, the opponents; with their one validation.

    A trainer's arguments subclass it (or :class:`SelfPlayArgs`), add their own keys and check
    them in :meth:`check_own_keys`. A subclass may declare a shared key again only to change
    its default or to say what the key means to it.
    """

    #: The run name when neither the config nor a config file gives one.
    DEFAULT_NAME: typing.ClassVar[str] = "run"

    exp_name: str = ""
    """name of the run (default: the config file's name)"""
    env_id: str = "loco_v0"
    """the game: loco_v0, moco_v0, momo_v0 or mampfos_v0"""
    num_players: int = 2
    """players per game (the learner holds one seat)"""
    env_options: dict[str, Any] = dataclasses.field(default_factory=dict)
    """other env options, e.g. {rounds: 3} for LOCO (not num_players, not max_decisions)"""
    max_decisions: int = 5000
    """stop a game after this many decisions of all seats, a draw (env option; 0: never)"""
    seed: int = 1
    """seed of everything: torch, the games (each derived from it), the opponents, evaluation"""
    threads: int | None = None
    """BLAS and torch threads of each process the run starts (null: its share of the cores)"""
    net_arch: list[int] = dataclasses.field(default_factory=lambda: [128, 128])
    """hidden layer sizes of the policy and value networks (separate networks)"""
    activation: str = "tanh"
    """hidden activation: tanh or relu"""
    obs_transform: str = "log1p"
    """observation transform before the network: log1p (tames counts), none, or with a game's
    action features ('log1p+loco_actions')"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    batch_size: int = 256
    """minibatch size of an update"""
    opponent_mix: dict[str, float] = dataclasses.field(default_factory=lambda: {"random": 1.0})
    """who sits in the other seats, drawn with these weights: agent specs ('random',
    '<game>/heuristic', 'ppo:<file>') and the trainer's own names ('snapshot', 'teacher')"""
    eval_opponents: list[str] = dataclasses.field(default_factory=lambda: ["random",
                                                                           "heuristic"])
    """evaluation opponents: agent specs; 'heuristic' means '<game>/heuristic'"""

    def validate(self) -> None:
        """``ValueError`` naming the first key with a bad value: the game, the shared numbers
        and network, the trainer's own keys (:meth:`check_own_keys`), then the opponents (the
        agents are made last, so a bad number is named before a bot of another game)."""
        self._check_game()
        self.at_least(0, "max_decisions", "seed")
        self.at_least(1, "batch_size")
        check_threads(self.threads, "config key 'threads'")
        self.require("learning_rate", self.learning_rate > 0, "> 0")
        self._check_network()
        self.check_own_keys()
        self._check_opponents()

    def check_own_keys(self) -> None:
        """The checks of a subclass's keys (each calls its base's first)."""

    @property
    def env_kwargs(self) -> dict[str, Any]:
        """The game's options (what a policy file records): env_options and the player count."""
        return {**self.env_options, "num_players": self.num_players}

    @property
    def play_options(self) -> dict[str, Any]:
        """The env options of the games played: the game's and the cap."""
        return {**self.env_kwargs, "max_decisions": self.max_decisions or None}

    @classmethod
    def beside_file(cls, keys: dict[str, Any], folder: Path) -> dict[str, Any]:
        """The keys one config file gives, with the file paths that the trainer reads beside
        that file (in ``folder``) made paths from the working folder (none here)."""
        return keys

    def opponent_specs(self) -> dict[str, float]:
        """``opponent_mix`` in the terms of :func:`train.pool.check_mix` (agent specs and
        ``snapshot``): a trainer with names of its own translates them here."""
        return dict(self.opponent_mix)

    # -- checks a subclass reuses ------------------------------------------------------------
    def require(self, key: str, ok: bool, what: str) -> None:
        """``ValueError`` saying that ``key`` must be ``what`` unless ``ok``."""
        if not ok:
            raise ValueError(f"config key {key!r} must be {what}, got {getattr(self, key)!r}")

    def at_least(self, low: int, *keys: str) -> None:
        """Each of ``keys`` is ``>= low``."""
        for key in keys:
            self.require(key, getattr(self, key) >= low, f">= {low}")

    def multiple_of_players(self, *keys: str) -> None:
        """Each of ``keys`` (a number of games) seats every player equally often."""
        for key in keys:
            if getattr(self, key) % self.num_players:
                raise ValueError(f"config key {key!r} ({getattr(self, key)}) must be a multiple "
                                 f"of num_players ({self.num_players}): each seat equally often")

    def check_spec(self, key: str, spec: str) -> None:
        """The agent spec ``spec`` of the key ``key`` plays this game and can be made."""
        from loco_envs import agents

        game = self.env_id.removesuffix("_v0")
        if "/" in spec and not spec.startswith("ppo:") and spec.split("/")[0] != game:
            raise ValueError(f"config key {key!r}: {spec!r} plays {spec.split('/')[0]}, "
                             f"not {self.env_id}")
        keyed(key, agents.make, spec)

    # -- the shared keys ---------------------------------------------------------------------
    def _check_game(self) -> None:
        import loco_envs

        if self.env_id not in loco_envs.available_envs():
            raise ValueError(f"config key 'env_id' must be one of "
                             f"{loco_envs.available_envs()}, got {self.env_id!r}")
        for key in ("num_players", "max_decisions"):
            if key in self.env_options:
                raise ValueError(f"config key 'env_options': give {key} as its own key")
        try:
            loco_envs.make(self.env_id, wrapped=False, **self.env_kwargs)
        except ValueError as exc:
            key = "num_players" if "num_players" in str(exc) else "env_options"
            raise ValueError(f"config key {key!r}: {exc}") from None

    def _check_network(self) -> None:
        from loco_envs.policy import check_transform

        self.require("net_arch", bool(self.net_arch) and min(self.net_arch) >= 1,
                     "a list of positive layer sizes")
        self.require("activation", self.activation in ("tanh", "relu"), "'tanh' or 'relu'")
        keyed("obs_transform", check_transform, self.obs_transform, self.env_id, predicate=True)

    def _check_opponents(self) -> None:
        from loco_envs.train.evaluate import resolve_opponent
        from loco_envs.train.pool import check_mix

        check_mix(self.opponent_specs(), self.env_id, num_players=self.num_players)
        self.require("eval_opponents", bool(self.eval_opponents), "at least one opponent")
        for spec in self.eval_opponents:
            self.check_spec("eval_opponents", resolve_opponent(spec, self.env_id))


@dataclasses.dataclass
class SelfPlayArgs(BaseArgs):
    """The keys of the two self-play PPO trainers (``python -m train`` on sb3-contrib,
    ``train.rllib`` on RLlib): the PPO hyperparameters, the pool of snapshots, the final
    evaluation, the budget; checked once here."""

    DEFAULT_NAME: typing.ClassVar[str] = "ppo"

    total_timesteps: int = 200_000
    """learner decisions to train on (moves of the learner's seat)"""
    num_envs: int = 128
    """games played side by side"""
    num_steps: int = 16
    """decisions collected per game per update (rollout = num_envs * num_steps)"""
    gamma: float = 0.995
    """discount (rewards come only at the end of a game)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """PPO clipping coefficient"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value-loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm (global)"""
    snapshot_every: int = 5
    """updates between frozen snapshots of the learner added to the pool (0: none)"""
    pool_size: int = 5
    """frozen snapshots kept in the pool"""
    final_eval_games: int = 400
    """games per opponent in the final evaluation (0: skip it; a multiple of num_players)"""
    eval_bootstrap: int = 500
    """bootstrap resamples for the evaluation's intervals"""
    time_limit_minutes: float = 0.0
    """stop learning after this many minutes (0: none); the final checkpoint and eval still run"""
    runs_dir: str = "runs"
    """where runs are written"""

    def check_own_keys(self) -> None:
        super().check_own_keys()
        self.at_least(1, "total_timesteps", "num_envs", "num_steps", "update_epochs",
                      "pool_size")
        self.at_least(0, "snapshot_every", "final_eval_games", "eval_bootstrap")
        self.require("time_limit_minutes", self.time_limit_minutes >= 0, ">= 0")
        for key in ("clip_coef", "max_grad_norm"):
            self.require(key, getattr(self, key) > 0, "> 0")
        for key in ("gamma", "gae_lambda"):
            self.require(key, 0 < getattr(self, key) <= 1, "in (0, 1]")
        self.at_least(0, "ent_coef", "vf_coef")
        rollout = self.num_envs * self.num_steps
        self.require("batch_size", self.batch_size <= rollout,
                     f"at most num_envs * num_steps ({rollout})")
        self.multiple_of_players("final_eval_games")


def keyed(key: str, check: typing.Callable[..., Any], *args: Any, predicate: bool = False) -> Any:
    """``check(*args)``, its ``ValueError`` prefixed with the config key it is about: after a
    colon, or (``predicate``: a message such as "needs action features") as its subject."""
    try:
        return check(*args)
    except ValueError as exc:
        raise ValueError(f"config key {key!r}{' ' if predicate else ': '}{exc}") from None


# ---------------------------------------------------------------------------------------------
# The command line of every trainer: [CONFIG] [--key value ...]
def wants_help(argv: Sequence[str]) -> bool:
    return any(a in ("-h", "--help") for a in argv)


def command_line(cls: type, argv: Sequence[str], usage: typing.Callable[[], str],
                 unused: list[str] | None = None) -> tuple[Any, int | None]:
    """How a trainer's ``main`` starts: ``(validated arguments, None)``, or ``(None, exit code)``
    once it printed the help (``--help``: 0) or the error (a bad config or flag: 2)."""
    if wants_help(argv):
        print(usage())
        return None, 0
    try:
        return parse_command_line(cls, argv, unused), None
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None, 2


def parse_command_line(cls: type, argv: Sequence[str],
                       unused: list[str] | None = None) -> Any:
    """``[CONFIG] [--key value ...]`` -> validated ``cls``; CONFIG is a YAML file or a shipped
    config's name, the flags override its keys, ``exp_name`` defaults to the config's name.

    ``unused`` collects the file's keys ``cls`` does not have instead of failing on them.
    """
    argv = list(argv)
    config = config_path(argv.pop(0)) if argv and not argv[0].startswith("--") else None
    overrides = parse_overrides(cls, argv)
    args = load_config(config, cls, overrides, unused)
    if not args.exp_name:
        args.exp_name = config.stem if config is not None else cls.DEFAULT_NAME
    args.validate()
    return args


def usage(cls: type, prog: str, summary: str, extra: Sequence[str] = ()) -> str:
    """The ``--help`` text of a trainer: its summary, ``extra`` lines, every key and default."""
    docs = field_docs(cls)
    config = textwrap.fill(
        "CONFIG: a YAML file or a shipped config's name (" + ", ".join(shipped_configs())
        + "); flags override its keys, values read as YAML (--net-arch '[64, 64]').", 100)
    lines = [f"usage: {prog} [CONFIG] [--key value ...]", "", summary, "", config, *extra, "",
             "arguments (default):"]
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = "--" + f.name.replace("_", "-")
        lines.append(f"  {flag:<22} {' '.join(docs.get(f.name, '').split())} "
                     f"({json.dumps(default)})")
    return "\n".join(lines)
