"""Fuzzing training configs: mutated YAML files and ``--key value`` overrides.

A config (file or flags) is checked key by key: it gives validated arguments or a
``ValueError`` that names the file or the key; never another exception, never a hang (YAML
alias bombs included).
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import strategies as st

from tests.fuzz.fuzzing import SMALL_NASTY, UNICODE, bounded, budgets, count, mutated

pytest.importorskip("torch")

from loco_envs.train.config import (  # noqa: E402
    BaseArgs,
    load_config,
    parse_overrides,
    read_config_file,
)

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = sorted(p.name for p in (ROOT / "configs").glob("*.yaml"))

ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)


@functools.cache
def args_class(name: str) -> type:
    if "_bc" in name:
        from loco_envs.train.imitation import BCArgs

        return BCArgs
    from loco_envs.train.ppo import Args

    return Args


def parse(name: str, path: Path, argv: list[str]):
    cls = args_class(name)
    if cls.__name__ == "Args":  # the trainer's own parsing: a clone config beside the file
        from loco_envs.train.ppo import parse_args

        return parse_args([str(path), *argv])
    args = load_config(path, cls, parse_overrides(cls, argv))
    args.validate()
    return args


def flags(cls: type) -> list[str]:
    return ["--" + f.name.replace("_", "-") for f in dataclasses.fields(cls)]


def files_beside(name: str) -> list[str]:
    """The configs that the shipped ``name`` reads beside itself: its bases and clone configs."""
    raw = yaml.safe_load((ROOT / "configs" / name).read_text()) or {}
    found = []
    for key in ("base", "init_policy"):
        other = str(raw.get(key, ""))
        if other.endswith(".yaml"):
            found += [other, *files_beside(other)]
    return found


def text_of(data: st.DataObject, name: str) -> str:
    valid = read_config_file(ROOT / "configs" / name, BaseArgs)  # its base's keys and its own
    kind = data.draw(st.sampled_from(["mutated", "mutated", "text", "bomb"]), label="kind")
    if kind == "mutated":
        bad, _ = mutated(data, valid, values=SMALL_NASTY)
        return yaml.safe_dump(bad, allow_unicode=True)
    if kind == "bomb":
        return ALIAS_BOMB + f"env_id: {valid['env_id']}\n"
    text = (ROOT / "configs" / name).read_text()
    at = data.draw(st.integers(0, len(text)), label="at")
    junk = data.draw(st.one_of(st.text(max_size=8), st.sampled_from(
        UNICODE + [": ", "- ", "!!python/object:os.system", "&a", "*a", "{", "[", "\t", "%"])),
        label="junk")
    return text[:at] + junk + text[at:]


def config_property(name: str, data: st.DataObject) -> None:
    text = text_of(data, name)
    cls = args_class(name)
    argv: list[str] = []
    for _ in range(data.draw(st.integers(0, 3), label="flags")):
        argv.append(data.draw(st.sampled_from(flags(cls) + ["--nope", "-x", "seed"]),
                              label="flag"))
        value = data.draw(st.one_of(SMALL_NASTY.map(lambda v: yaml.safe_dump(v)[:1000]),
                                    st.sampled_from(UNICODE)), label="value")
        if data.draw(st.booleans(), label="with value"):
            argv.append(value)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        for beside in files_beside(name):  # its base and clone configs, beside it as shipped
            shutil.copyfile(ROOT / "configs" / beside, Path(folder) / beside)
        with bounded():
            try:
                parse(name, path, argv)
            except ValueError as exc:
                count(f"config {name}", "ValueError")
                message = str(exc)
                assert any(word in message for word in ("config", str(path), "flag", "--")), \
                    message
                return
    count(f"config {name}", "accepted")


test_configs, test_configs_slow = (
    pytest.mark.parametrize("name", CONFIGS)(test)
    for test in budgets(config_property, data=st.data()))
