"""Fuzzing ``agents.make`` with spec strings, and ``ppo:`` agent files with mutated contents.

A spec comes from a command line or a config; an agent file from anyone. Either gives a bot
or a ``ValueError``; a policy file that loads plays legal moves in the env it names.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

import loco_envs
from loco_envs import agents
from loco_envs.policy import load_policy
from tests.fuzz.fuzzing import NASTY, UNICODE, bounded, budgets, count, mutated
from tests.safety.helpers import saved_policy

SPECS = ["random", *agents.HEURISTICS, "ppo:", "ppo:runs/x", "ppo:/", "ppo:.", "ppo:/dev/null",
         "ppo:/dev/zero", "ppo:/proc/self/environ", "ppo:" + "a/" * 2000, "ppo:\x00",
         "ppo:~/x.zip", "ppo:../../etc/passwd", "ppo:/tmp", "ppo:*.npz"]


def spec_text(data: st.DataObject) -> object:
    kind = data.draw(st.sampled_from(["known", "edited", "text", "nasty"]), label="kind")
    if kind == "known":
        return data.draw(st.sampled_from(SPECS), label="spec")
    if kind == "edited":
        spec = data.draw(st.sampled_from(SPECS), label="spec")
        extra = data.draw(st.one_of(st.text(max_size=6), st.sampled_from(UNICODE)), label="x")
        at = data.draw(st.integers(0, len(spec)), label="at")
        return spec[:at] + extra + spec[at:]
    if kind == "text":
        return data.draw(st.text(max_size=40), label="text")
    return data.draw(NASTY, label="value")


def spec_property(data: st.DataObject) -> None:
    spec = spec_text(data)
    with bounded():
        try:
            bot = agents.make(spec)  # type: ignore[arg-type]
        except ValueError:
            count("agent spec", "ValueError")
            return
    count("agent spec", "a bot")
    assert isinstance(bot, agents.Bot)


test_agent_specs, test_agent_specs_slow = budgets(spec_property, data=st.data())


# ---------------------------------------------------------------------------------------------
_BASE: dict = {}


def base_files() -> tuple[dict, dict[str, np.ndarray]]:
    if not _BASE:
        folder = Path(tempfile.mkdtemp(prefix="fuzz-policy-"))
        base = saved_policy(folder, "mampfos_v0")
        _BASE["doc"] = json.loads(base.with_suffix(".json").read_text())
        with np.load(base.with_suffix(".npz")) as npz:
            _BASE["arrays"] = {k: npz[k] for k in npz.files}
    return copy.deepcopy(_BASE["doc"]), {k: v.copy() for k, v in _BASE["arrays"].items()}


def mutated_arrays(data: st.DataObject, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    name = data.draw(st.sampled_from(sorted(arrays)), label="array")
    how = data.draw(st.sampled_from(["dtype", "shape", "value", "drop", "add", "object"]),
                    label="how")
    a = arrays[name]
    if how == "dtype":
        arrays[name] = a.astype(data.draw(st.sampled_from(
            [np.float64, np.float16, np.int32, np.int8, np.complex64, ">f4", "U3"])))
    elif how == "shape":
        arrays[name] = data.draw(st.sampled_from([a[:-1], a.reshape(-1), a[None], a.T.copy(),
                                                  np.zeros((0,), np.float32)]))
    elif how == "value":
        a.flat[data.draw(st.integers(0, a.size - 1))] = data.draw(
            st.sampled_from([np.nan, np.inf, -np.inf, 1e38, -0.0]))
    elif how == "drop":
        del arrays[name]
    elif how == "add":
        arrays[data.draw(st.sampled_from(["extra", name + "_x", "data"]))] = np.zeros(3, np.float32)
    else:
        arrays[name] = np.array([{"x": 1}] * a.shape[0], dtype=object)
    return arrays


def policy_file_property(data: st.DataObject) -> None:
    doc, arrays = base_files()
    if data.draw(st.booleans(), label="mutate json"):
        doc, _ = mutated(data, doc)
    if data.draw(st.booleans(), label="mutate arrays"):
        arrays = mutated_arrays(data, arrays)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    weights = buffer.getvalue()
    if isinstance(doc, dict) and data.draw(st.booleans(), label="fix the hash"):
        doc["weights_sha256"] = hashlib.sha256(weights).hexdigest()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "agent"
        base.with_suffix(".npz").write_bytes(weights)
        base.with_suffix(".json").write_text(json.dumps(doc))
        with bounded():
            try:
                policy, meta = load_policy(base)
            except ValueError as exc:
                count("agent file", "ValueError")
                assert str(base) in str(exc)
                return
    count("agent file", "loaded")
    env = loco_envs.make(meta["env_id"], wrapped=False, **meta["env_options"])
    env.reset(seed=0)
    mask = env.game.legal_mask()
    action = policy.act_observation(env.observe(env.agent_selection)["observation"], mask,
                                    np.random.default_rng(0), temperature=1.0)
    assert mask[action] == 1


test_agent_files, test_agent_files_slow = budgets(policy_file_property, data=st.data())
