"""Configs for the trainer: a YAML file fills the arguments dataclass, ``--key value`` overrides.

Every value, from a file or from the command line, goes through one checker, so a typo or a bad
value fails early with a ``ValueError`` that names the key::

    args = load_config("configs/loco_quick.yaml", Args, overrides={"seed": 3})

Command-line values are read as YAML, so ``--net-arch "[64, 64]"``, ``--anneal-lr false`` and
``--opponent-mix "{random: 0.5, snapshot: 0.5}"`` work as they look.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["check_value", "field_docs", "from_mapping", "load_config", "parse_overrides"]


def field_docs(cls: type) -> dict[str, str]:
    """The one-line docstring written under each dataclass field (CleanRL's habit)."""
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


def from_mapping(cls: type, data: Mapping[str, Any], where: str = "config") -> Any:
    """An instance of the dataclass ``cls`` from ``data``; unknown keys and bad values fail."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{where}: expected a mapping of keys to values, "
                         f"got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    values = {}
    for key, value in data.items():
        if key not in names:
            raise ValueError(f"{where}: unknown config key {key!r}; known keys: {', '.join(names)}")
        values[key] = check_value(key, value, hints[key])
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


def load_config(path: str | Path | None, cls: type,
                overrides: Mapping[str, Any] | None = None) -> Any:
    """The dataclass ``cls`` filled from the YAML file at ``path``, then from ``overrides``."""
    data: dict[str, Any] = {}
    where = "config"
    if path is not None:
        path = Path(path)
        where = str(path)
        if not path.is_file():
            raise ValueError(f"config file {path} does not exist")
        try:
            loaded = yaml.safe_load(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text (byte {exc.start})") from None
        except yaml.YAMLError as exc:
            raise ValueError(f"{path}: not valid YAML ({exc})") from None
        except RecursionError:
            raise ValueError(f"{path}: YAML nested too deeply") from None
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, Mapping):
            raise ValueError(f"{path}: expected a mapping of keys to values")
        data.update(loaded)
    data.update(overrides or {})
    return from_mapping(cls, data, where)
