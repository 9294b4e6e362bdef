"""Agent files are data: saving, loading, validation field by field, and hostile files."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.agents.ppo import PPOBot
from loco_envs.policy import NumpyPolicy, load_policy, save_policy
from loco_envs.policy import files as policy_files
from tests.safety.helpers import random_policy, saved_policy, sb3_style_data, touching_pickle

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env_id", loco_envs.available_envs())
def test_saved_policy_loads_back_and_plays_legal_moves(tmp_path: Path, env_id: str) -> None:
    policy = random_policy(env_id, (8, 4), num_players=2)
    save_policy(tmp_path / "p", policy, {"env_id": env_id, "env_options": {"num_players": 2},
                                         "seed": 5, "decisions": 123})
    loaded, doc = load_policy(tmp_path / "p.npz")
    assert doc["layer_sizes"] == [8, 4] and doc["provenance"]["decisions"] == 123
    for (w, b), (w2, b2) in zip([*policy.hidden, policy.action],
                                [*loaded.hidden, loaded.action], strict=True):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)
    bot = agents.make(f"ppo:{tmp_path / 'p'}")
    env = loco_envs.make(env_id, wrapped=False, num_players=2)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        if env.game.terminal:
            break
        mask = env.game.legal_mask()
        action = bot.act(env.view(env.agent_selection), mask, rng)
        assert mask[action] == 1
        env.step(action)
    assert sorted(os.listdir(tmp_path)) == ["p.json", "p.npz"]  # no temporary files left


def test_every_name_form_of_a_spec_loads_the_same_files(tmp_path: Path) -> None:
    base = saved_policy(tmp_path)
    for form in (base, f"{base}.npz", f"{base}.json", f"{base}.zip"):
        assert agents.make(f"ppo:{form}").policy.num_actions == 79


def test_act_batch_draws_what_one_by_one_calls_draw(tmp_path: Path) -> None:
    policy = random_policy("moco_v0", (16,), num_players=2)
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    obs, masks = [], []
    for seed in range(6):
        env.reset(seed=seed)
        obs.append(env.observe(env.agent_selection)["observation"])
        masks.append(env.game.legal_mask())
    obs, masks = np.stack(obs), np.stack(masks)
    batch = policy.act_batch(obs, masks, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    one_by_one = [policy.act_observation(o, m, rng, 1.0)
                  for o, m in zip(obs, masks, strict=True)]
    assert batch.tolist() == one_by_one
    greedy = policy.act_batch(obs, masks, np.random.default_rng(0), 0.0)
    assert greedy.tolist() == [policy.act_observation(o, m, None) for o, m in zip(obs, masks,
                                                                                   strict=True)]
    sharp = policy.act_batch(obs, masks, np.random.default_rng(7), temperature=0.5)
    rng = np.random.default_rng(7)
    assert sharp.tolist() == [policy.act_observation(o, m, rng, 0.5)
                              for o, m in zip(obs, masks, strict=True)]
    assert all(masks[i, a] for i, a in enumerate(batch))
    given = policy.act_batch(obs, masks, np.random.default_rng(7), logits=policy.logits(obs))
    assert given.tolist() == batch.tolist()  # logits computed elsewhere draw the same moves
    with pytest.raises(ValueError, match=r"logits \(6, 3\), the masks are"):
        policy.act_batch(obs, masks, np.random.default_rng(7), logits=np.zeros((6, 3)))
    with pytest.raises(ValueError, match="row 1 has no legal action"):
        masks[1] = 0
        policy.act_batch(obs, masks, np.random.default_rng(0))
    with pytest.raises(ValueError, match="same N"):
        policy.act_batch(obs, masks[:2], np.random.default_rng(0))


def test_ppo_spec_loads_without_torch(tmp_path: Path) -> None:
    base = saved_policy(tmp_path)
    script = textwrap.dedent(f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        import numpy as np, agents, loco_envs
        bot = agents.make("ppo:{base}")
        env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
        env.reset(seed=0)
        a = bot.act(env.view(env.agent_selection), env.game.legal_mask(),
                    np.random.default_rng(0))
        assert not any(m.split(".")[0] == "torch" for m in sys.modules)
        print("ok", a)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok ")


# ---------------------------------------------------------------------------------------------
# Hostile files: nothing runs, the error says why
def _payload_is_live(marker: Path) -> None:
    """The control: unpickling the payload in a fresh process does create the marker."""
    script = "import pickle, sys; pickle.loads(bytes.fromhex(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", script, touching_pickle(marker).hex()], check=True,
                   cwd=ROOT, timeout=60)
    assert marker.exists()
    marker.unlink()


def test_malicious_sb3_zip_with_a_plausible_sidecar_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    _payload_is_live(marker)
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as archive:
        archive.writestr("data", sb3_style_data(marker))
        archive.writestr("policy.pth", b"\x80\x02" + touching_pickle(marker))
        archive.writestr("_stable_baselines3_version", "2.3.0")
    # The sidecar the trainer used to write beside its zips, fully plausible.
    (tmp_path / "evil.json").write_text(json.dumps({
        "format": "loco-envs-ppo/1", "env_id": "moco_v0", "options": {"num_players": 2},
        "observation_size": 524, "num_actions": 79, "obs_transform": "log1p",
        "net_arch": [64, 64], "activation": "tanh", "num_timesteps": 4096}))
    for form in ("evil.zip", "evil", "evil.json", "evil.npz"):
        with pytest.raises(ValueError) as info:
            agents.make(f"ppo:{tmp_path / form}")
        assert ("field 'format' must be 'loco-envs-policy', got 'loco-envs-ppo/1'"
                in str(info.value)), info.value
    (tmp_path / "evil.json").unlink()
    with pytest.raises(ValueError, match="Stable-Baselines3 checkpoint, which runs code"):
        agents.make(f"ppo:{evil}")
    assert not marker.exists()


def _doc_for(tmp_path: Path, weights: bytes, **changes) -> None:
    base = saved_policy(tmp_path, name="ref")
    doc = json.loads(base.with_suffix(".json").read_text())
    doc.update({"weights_sha256": hashlib.sha256(weights).hexdigest(), **changes})
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    (tmp_path / "evil.npz").write_bytes(weights)


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _good_arrays(tmp_path: Path) -> dict[str, np.ndarray]:
    with np.load(saved_policy(tmp_path, name="ref").with_suffix(".npz")) as npz:
        return {k: npz[k] for k in npz.files}


def test_malicious_npz_with_object_arrays_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    _payload_is_live(marker)
    from tests.safety.helpers import Touch

    arrays = _good_arrays(tmp_path)
    arrays["action_bias"] = np.array([Touch(marker)] * 79, dtype=object)
    _doc_for(tmp_path, _npz(arrays))
    with pytest.raises(ValueError, match="'action_bias': dtype object, expected float32"):
        agents.make(f"ppo:{tmp_path / 'evil'}")
    assert not marker.exists()


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "loco-envs-ppo/1"}, "'format' must be"),
    ({"format_version": 2}, "'format_version' must be 1"),
    ({"format_version": True}, "'format_version' must be 1"),
    ({"env_id": "chess_v0"}, "'env_id' must be one of"),
    ({"env_id": ["moco_v0"]}, "'env_id' must be one of"),
    ({"env_options": {"num_players": 9}}, "'env_options' are not accepted"),
    ({"env_options": {"num_players": 3}}, "'observation_size' is 504, but moco_v0 with"),
    ({"env_options": {"bogus": 1, "num_players": 2}}, "'env_options' are not accepted"),
    ({"env_options": "num_players=2"}, "'env_options' must be an object"),
    ({"observation_size": 503}, "'observation_size' is 503"),
    ({"observation_size": 1e3}, "'observation_size' must be a positive integer"),
    ({"num_actions": -79}, "'num_actions' must be a positive integer"),
    ({"layer_sizes": [16, 0]}, "'layer_sizes' widths must be integers"),
    ({"layer_sizes": [10**9]}, "'layer_sizes' widths must be integers"),
    ({"layer_sizes": [8] * 17}, "'layer_sizes' must be a list of at most 16"),
    ({"layer_sizes": "16"}, "'layer_sizes' must be a list"),
    ({"activation": "sigmoid"}, "'activation' must be one of"),
    ({"activation": ["tanh"]}, "'activation' must be one of"),
    ({"obs_transform": "exp"}, "'obs_transform' must be one of"),
    ({"weights_sha256": "0" * 63}, "'weights_sha256' must be 64"),
    ({"provenance": []}, "'provenance' must be an object"),
    ({"provenance": {"seed": -1}}, "'provenance.seed' must be a non-negative"),
    ({"provenance": {"decisions": "many"}}, "'provenance.decisions' must be"),
    ({"provenance": {"config": 3}}, "'provenance.config' must be an object"),
    ({"provenance": {"owner": "x"}}, "'provenance.owner' is unknown"),
    ({"provenance": {"evaluation": json.loads("[" * 40 + "]" * 40)}},
     "'provenance.evaluation' is nested deeper"),
    ({"extra": 1}, "'extra' is not part of"),
])
def test_each_bad_field_is_a_value_error_naming_it(tmp_path: Path, change, message) -> None:
    _doc_for(tmp_path, _npz(_good_arrays(tmp_path)), **change)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_policy(tmp_path / "evil")


@pytest.mark.parametrize("field", ["format_version", "env_id", "layer_sizes", "provenance"])
def test_a_missing_field_is_named(tmp_path: Path, field: str) -> None:
    _doc_for(tmp_path, _npz(_good_arrays(tmp_path)))
    doc = json.loads((tmp_path / "evil.json").read_text())
    del doc[field]
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=f"field '{field}' is missing"):
        load_policy(tmp_path / "evil")


def _mutated(arrays, name, value):
    return {**arrays, name: value}


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda a: _mutated(a, "action_bias", a["action_bias"].astype(np.float64)),
     "'action_bias': dtype float64"),
    (lambda a: _mutated(a, "action_bias", a["action_bias"][:-1]), "'action_bias': shape"),
    (lambda a: _mutated(a, "hidden_0_weight", a["hidden_0_weight"].T.copy()),
     "'hidden_0_weight': shape"),
    (lambda a: _mutated(a, "action_bias", np.full(79, np.nan, np.float32)), "NaN or infinite"),
    (lambda a: _mutated(a, "hidden_0_bias", np.full(16, np.inf, np.float32)), "NaN or infinite"),
    (lambda a: {k: v for k, v in a.items() if k != "action_weight"}, "missing array"),
    (lambda a: {**a, "extra": np.zeros(2, np.float32)}, "besides the arrays"),
])
def test_bad_arrays_are_value_errors(tmp_path: Path, mutate, message) -> None:
    _doc_for(tmp_path, _npz(mutate(_good_arrays(tmp_path))))
    with pytest.raises(ValueError, match=message):
        load_policy(tmp_path / "evil")


def test_an_npz_header_claiming_a_huge_array_is_refused_before_reading(tmp_path: Path) -> None:
    arrays = _good_arrays(tmp_path)
    weights = bytearray(_npz(arrays))
    # Rewrite the shape in the .npy header of action_bias: (79,) -> a terabyte of floats.
    i = weights.find(b"'shape': (79,)")
    assert i > 0
    weights[i:i + 14] = b"'shape': (9**9**1)"[:14]
    _doc_for(tmp_path, bytes(weights))
    with pytest.raises(ValueError, match="policy .*evil"):
        load_policy(tmp_path / "evil")


def test_not_a_zip_and_not_json_are_value_errors(tmp_path: Path) -> None:
    _doc_for(tmp_path, b"PK\x03\x04 not really a zip")
    with pytest.raises(ValueError, match="not a readable .npz"):
        load_policy(tmp_path / "evil")
    (tmp_path / "evil.json").write_bytes(b"\xff\xfe{")
    with pytest.raises(ValueError, match="not UTF-8"):
        load_policy(tmp_path / "evil")
    (tmp_path / "evil.json").write_text('{"format": NaN}')
    with pytest.raises(ValueError, match="not valid JSON"):
        load_policy(tmp_path / "evil")
    (tmp_path / "evil.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="evil.json"):
        load_policy(tmp_path / "evil")


def test_a_pair_torn_between_its_two_writes_is_refused(tmp_path: Path, monkeypatch) -> None:
    base = saved_policy(tmp_path)
    real = policy_files.atomic_write_bytes

    def crash_on_json(path: Path, data: bytes) -> None:
        if path.suffix == ".json":
            raise KeyboardInterrupt  # the process dies after the .npz, before the .json
        real(path, data)

    monkeypatch.setattr(policy_files, "atomic_write_bytes", crash_on_json)
    other = random_policy("moco_v0", seed=9, num_players=2)
    with pytest.raises(KeyboardInterrupt):
        save_policy(base, other, {"env_id": "moco_v0", "env_options": {"num_players": 2}})
    with pytest.raises(ValueError, match="different saves"):
        load_policy(base)
    assert sorted(os.listdir(tmp_path)) == ["agent.json", "agent.npz"]


def test_save_refuses_what_load_would_refuse(tmp_path: Path) -> None:
    policy = random_policy("moco_v0", num_players=2)
    with pytest.raises(ValueError, match="'observation_size' is 504, but moco_v0 with"):
        save_policy(tmp_path / "p", policy, {"env_id": "moco_v0",
                                             "env_options": {"num_players": 4}})
    with pytest.raises(ValueError, match="unknown meta field"):
        save_policy(tmp_path / "p", policy, {"env_id": "moco_v0", "env_options": {},
                                             "owner": "me"})
    bad = NumpyPolicy(policy.hidden, (policy.action[0], policy.action[1] * np.nan))
    with pytest.raises(ValueError, match="NaN"):
        save_policy(tmp_path / "p", bad, {"env_id": "moco_v0",
                                          "env_options": {"num_players": 2}})
    assert not list(tmp_path.iterdir())


def test_sampling_at_a_temperature_draws_from_the_sharpened_softmax() -> None:
    policy = random_policy("moco_v0", (16,), num_players=2)
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=3)
    obs, mask = env.observe(env.agent_selection)["observation"], env.game.legal_mask()
    legal = np.flatnonzero(mask)
    draws = 20_000
    actions = policy.act_batch(np.repeat(obs[None], draws, 0), np.repeat(mask[None], draws, 0),
                               np.random.default_rng(1), temperature=0.5)
    logits = policy.logits(obs)[legal].astype(np.float64) / 0.5
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    seen = np.bincount(actions, minlength=mask.size)[legal] / draws
    assert np.abs(seen - expected).max() < 0.02
    assert policy.act_observation(obs, mask, np.random.default_rng(0), 0.0) == \
        policy.act_observation(obs, mask, None)  # temperature 0 is greedy, and draws nothing


@pytest.mark.parametrize("bad", [-0.5, float("inf"), float("nan"), "0.5", True, None])
def test_a_bad_temperature_is_refused_naming_it(bad) -> None:
    policy = random_policy("moco_v0", (16,), num_players=2)
    with pytest.raises(ValueError, match="temperature"):
        PPOBot(policy, lambda view: view, "x", temperature=bad)
    with pytest.raises(ValueError, match="temperature"):
        policy.act_observation(np.zeros(policy.observation_size, np.float32),
                               np.ones(policy.num_actions, np.int8), np.random.default_rng(0), bad)
