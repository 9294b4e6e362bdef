"""Training on RLlib (``train.rllib``): the seat env's protocol, the exported policy's logits,
config errors, and a short self-play run on a local Ray (``ray.init(num_cpus=2)``).

Run with ``make test-ray`` (or ``make test-slow``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="the ray extra is not installed: pip install -e '.[ray]'")
torch = pytest.importorskip("torch", reason="the train extra is not installed")

import loco_envs  # noqa: E402
from loco_envs import agents  # noqa: E402
from loco_envs.benchmarks import tournament as T  # noqa: E402
from loco_envs.policy import load_policy  # noqa: E402
from loco_envs.train import rllib as L  # noqa: E402

pytestmark = pytest.mark.slow


def seat_env(mix, max_decisions=5000, env_id="moco_v0", players=2, pool_size=2):
    return L.SeatGameEnv({"env_id": env_id,
                          "env_options": {"num_players": players, "max_decisions": max_decisions},
                          "opponent_mix": mix, "pool_size": pool_size})


def play_out(env, seed):
    """Random legal moves for whoever RLlib is asked about; every step's dicts, checked."""
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = []
    while True:
        assert len(obs) == 1  # turn-based: one agent to act
        (agent, o), = obs.items()
        assert agent in env.possible_agents and env.observation_spaces[agent].contains(o)
        assert env.players[env.raw.game.current_seat] == agent
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        steps.append((obs, rewards, terminateds, truncateds))
        if terminateds["__all__"] or truncateds["__all__"]:
            return steps


def test_seat_env_pays_each_network_seat_its_own_final_reward_at_the_end():
    env = seat_env({"snapshot": 1.0})
    for seed in range(5):
        steps = play_out(env, seed)
        *middle, (obs, rewards, terminateds, truncateds) = steps
        assert all(set(r.values()) <= {0.0} for _, r, _, _ in middle)
        assert terminateds["__all__"] and not truncateds["__all__"]
        final = env.raw.final_rewards()
        assert set(rewards) == set(obs) == env.seen
        for agent, reward in rewards.items():
            assert reward == final[int(agent.split("@")[1])]
            assert not obs[agent]["action_mask"].any()
        modules = sorted(L.module_of_agent(a) for a in env.agents)
        assert modules[0].startswith("frozen_") and modules[-1] == "learner"


def test_seat_env_observations_are_copies_the_game_does_not_share():
    # The rules engines cache their legal mask until the next move and hand out that array:
    # an observation written into (by a connector, or a user) must not change the game.
    env = seat_env({"random": 1.0}, env_id="loco_v0")
    obs, _ = env.reset(seed=5)
    (agent, o), = obs.items()
    legal = env.raw.game.legal_mask().copy()
    o["action_mask"][:] = 0
    o["observations"][:] = -1.0
    np.testing.assert_array_equal(env.raw.game.legal_mask(), legal)
    np.testing.assert_array_equal(env._observation_of(agent)["action_mask"], legal)


def test_seat_env_plays_scripted_seats_itself_and_truncates_at_the_cap():
    env = seat_env({"moco/heuristic": 1.0})
    steps = play_out(env, 3)
    assert env.agents == [a for a in env.players if a.startswith("learner@")]
    assert "moco/heuristic" in env.players
    assert all(set(obs) <= {env.agents[0]} for obs, _, _, _ in steps)

    capped = seat_env({"random": 1.0}, max_decisions=6)
    obs, rewards, terminateds, truncateds = play_out(capped, 1)[-1]
    assert truncateds["__all__"] and not terminateds["__all__"]
    assert set(rewards.values()) == {0.0} and capped.raw.truncated_game


def test_exported_numpy_policy_gives_the_modules_logits(tmp_path):
    args, _ = L.load_args(None, ["--env-id", "loco_v0", "--net-arch", "[32, 16]",
                                 "--activation", "relu"])
    env = seat_env({"random": 1.0}, env_id="loco_v0")
    module = L.MaskedActorCritic(observation_space=env.observation_spaces["learner@0"],
                                 action_space=env.action_spaces["learner@0"],
                                 model_config=L.module_spec(args).model_config)
    torch.manual_seed(0)
    for p in module.parameters():  # weights far from the init, so a swapped layer would show
        torch.nn.init.normal_(p, std=0.3)
    raw = loco_envs.make("loco_v0", wrapped=False, num_players=2)
    raw.reset(seed=4)
    rng = np.random.default_rng(4)
    observations, masks = [], []
    for _ in range(60):
        o = raw.observe(raw.agent_selection)
        observations.append(o["observation"])
        masks.append(o["action_mask"].astype(np.float32))
        raw.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    obs = np.stack(observations)
    expected = module.unmasked_logits(torch.from_numpy(obs)).detach().numpy()
    exported = L.export_policy(module)
    np.testing.assert_allclose(exported.logits(obs), expected, rtol=1e-5, atol=1e-5)

    # The masked forward pass: the same logits where legal, the float minimum elsewhere.
    batch = {"obs": {"observations": torch.from_numpy(obs),
                     "action_mask": torch.from_numpy(np.stack(masks))}}
    masked = module.forward_inference(batch)["action_dist_inputs"].detach().numpy()
    legal = np.stack(masks) > 0
    np.testing.assert_allclose(masked[legal], expected[legal], rtol=1e-5, atol=1e-5)
    assert (masked[~legal] < -1e30).all()

    # Saved in the suite's format, it loads and plays as a ppo: agent.
    from loco_envs.policy import save_policy
    path = save_policy(tmp_path / "exported", exported,
                       {"env_id": "loco_v0", "env_options": {"num_players": 2}})
    loaded, doc = load_policy(path)
    np.testing.assert_array_equal(loaded.logits(obs), exported.logits(obs))
    assert doc["activation"] == "relu" and doc["layer_sizes"] == [32, 16]
    record = T.play_game("loco_v0", [f"ppo:{path}", "random"], seed=2, max_decisions=500)
    assert record["steps"] > 0


def test_bad_config_values_name_the_key(tmp_path):
    with pytest.raises(ValueError, match="unknown flag --bogus"):
        L.load_args("configs/moco_quick.yaml", ["--bogus", "1"])
    with pytest.raises(ValueError, match="'activation'"):
        L.load_args("configs/moco_quick.yaml", ["--activation", "gelu"])
    with pytest.raises(ValueError, match="opponent_mix"):
        L.load_args("configs/moco_quick.yaml", ["--opponent-mix", "{loco/heuristic: 1.0}"])
    with pytest.raises(ValueError, match="'batch_size'"):
        L.load_args("configs/moco_quick.yaml", ["--num-envs", "1", "--num-steps", "8"])
    with pytest.raises(ValueError, match="'obs_transform'.*action features"):
        L.load_args("configs/moco_quick.yaml", ["--obs-transform", "log1p+moco_actions"])
    config = tmp_path / "mine.yaml"  # a local trainer's key is left out and listed
    config.write_text("env_id: momo_v0\nnum_envs: 4\nvec_env: subproc\n")
    args, unused = L.load_args(config)
    assert (args.env_id, args.num_envs, args.exp_name) == ("momo_v0", 4, "mine")
    assert unused == ["vec_env"]
    with pytest.raises(ValueError, match="does not exist"):
        L.load_args(tmp_path / "missing.yaml")


def test_short_self_play_run_exports_a_playable_policy_and_logs(ray_local, tmp_path, capsys):
    code = L.main(["configs/moco_quick.yaml", "--no-progress", "--total-timesteps", "500",
                   "--num-envs", "2", "--num-steps", "128", "--batch-size", "128",
                   "--snapshot-every", "1", "--pool-size", "2", "--final-eval-games", "4",
                   "--eval-opponents", "[random]", "--eval-bootstrap", "20",
                   "--runs-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    (run,) = tmp_path.iterdir()
    assert run.name.startswith("moco_v0__rllib_moco_quick__1__")
    assert list(run.glob("events.out.tfevents.*"))
    speed = json.loads((run / "speed.json").read_text())
    assert speed["learner_decisions"] >= 500 and speed["iterations"] >= 2
    policy = run / "policy" / "final.npz"
    bot = agents.make(f"ppo:{policy}")
    _, doc = load_policy(policy)
    assert doc["provenance"]["decisions"] == speed["learner_decisions"]
    assert doc["provenance"]["config"]["trainer"] == "train.rllib"
    assert bot.policy.observation_size == doc["observation_size"]
    records = [json.loads(line) for line in (run / "eval" / "records.jsonl").open()]
    assert len(records) == 4 and all(f"ppo:{policy}" in r["seats"] for r in records)
    assert "learner decisions/s" in out and "win rate vs random" in out
