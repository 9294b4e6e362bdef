"""The feature shortcut (train/networks.py, ``feature_shortcut``): the action layer reads the
action features beside the last hidden layer, in torch and in the numpy policy alike, through
cloning, the warm start, PPO and the policy file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from loco_envs.agents.ppo import load_bot
from loco_envs.policy import (
    ACTION_FEATURES,
    expand_shortcut,
    load_policy,
    shortcut_scores,
    transform_observation,
)
from tests.agents.helpers import first_decisions
from tests.train.helpers import assert_export_is_the_sb3_policy

torch = pytest.importorskip("torch")

TRANSFORM = "log1p+moco_actions"
WIDTH = ACTION_FEATURES["moco_actions"].size


def _observations(count: int = 30) -> tuple[np.ndarray, list]:
    """The observations, and (view, mask) pairs, of a random Moco! game's first decisions."""
    return first_decisions("moco_v0", count)


def _clone(tmp_path, **overrides):
    from loco_envs.train.imitation import BCArgs, run

    bc = BCArgs(env_id="moco_v0", num_players=2, teacher="moco/heuristic",
                opponent_mix={"teacher": 1.0}, games=4, dagger_rounds=0, epochs=1,
                batch_size=64, net_arch=[16], workers=1, eval_games=0,
                obs_transform=TRANSFORM, feature_shortcut=True, out=str(tmp_path / "bc"))
    for key, value in overrides.items():
        setattr(bc, key, value)
    return run(bc, log=lambda *_: None)


def test_the_numpy_policy_computes_the_torch_actors_logits():
    from loco_envs.train.imitation import actor_policy, build_networks

    obs, _ = _observations()
    inputs = transform_observation(obs, TRANSFORM)
    actor, _ = build_networks(inputs.shape[1], 79, [16, 8], "tanh", shortcut=WIDTH)
    with torch.no_grad():
        actor.scores.weight.normal_()
        expected = actor(torch.from_numpy(inputs)).numpy()
    policy = actor_policy(actor, TRANSFORM)
    assert policy.feature_shortcut and policy.action[0].shape == (79, 8 + WIDTH)
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-5, atol=1e-4)


def test_each_logit_reads_only_its_own_actions_features():
    """With the hidden layers silenced, logit a is sum_k W[a, k] * features[a, k]."""
    from loco_envs.train.imitation import actor_policy, build_networks

    obs, _ = _observations()
    inputs = transform_observation(obs, TRANSFORM)
    actor, _ = build_networks(inputs.shape[1], 79, [16], "tanh", shortcut=WIDTH)
    with torch.no_grad():
        for p in actor.body.parameters():
            p.zero_()
        actor.scores.weight.normal_()
    policy = actor_policy(actor, TRANSFORM)
    scores = actor.scores.effective()
    features = inputs[:, -WIDTH:].reshape(len(obs), 79, -1)
    expected = (features * scores).sum(axis=2) + policy.action[1]
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-5, atol=1e-4)
    assert np.array_equal(shortcut_scores(policy.action[0][:, 16:]), scores)


def test_an_action_layer_reading_other_actions_features_is_not_a_shortcut():
    block = expand_shortcut(np.ones((3, 2), np.float32))
    block[0, 3] = 0.5  # action 0 reading action 1's second feature
    with pytest.raises(ValueError, match="not per action"):
        shortcut_scores(block)


def test_a_shortcut_clone_saves_loads_and_warm_starts_ppo(tmp_path):
    from loco_envs.train.ppo import Args, train

    path = _clone(tmp_path)
    clone, doc = load_policy(path)
    assert doc["feature_shortcut"] is True and clone.feature_shortcut
    assert clone.action[0].shape == (79, 16 + WIDTH)
    shortcut_scores(clone.action[0][:, 16:])  # per action
    _, positions = _observations(count=10)
    bot = load_bot(path)
    for view, mask in positions:
        assert mask[bot.act(view, mask, np.random.default_rng(0))]
    args = Args(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM, feature_shortcut=True,
                net_arch=[16], init_policy=str(path), total_timesteps=64, num_envs=4,
                num_steps=16, batch_size=32, update_epochs=1, learning_rate=1e-12,
                anneal_lr=False, opponent_mix={"random": 1.0, "snapshot": 1.0},
                snapshot_every=1, final_eval_games=0, checkpoint_every=0, progress_bar=False,
                runs_dir=str(tmp_path))
    result = train(args)
    trained, doc = load_policy(result.checkpoint.with_suffix(".npz"))
    assert doc["feature_shortcut"] is True
    obs, _ = _observations()
    np.testing.assert_allclose(trained.logits(obs), clone.logits(obs), atol=1e-3)


def test_a_warm_start_without_the_runs_shortcut_is_refused_naming_it(tmp_path):
    from loco_envs.train.ppo import Args

    path = _clone(tmp_path, feature_shortcut=False)
    args = Args(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM, feature_shortcut=True,
                net_arch=[16], init_policy=str(path))
    with pytest.raises(ValueError, match="init_policy.*feature_shortcut"):
        args.validate()


@pytest.mark.parametrize("module", ["ppo", "imitation"])
def test_a_shortcut_without_features_is_refused_naming_the_key(module):
    if module == "ppo":
        from loco_envs.train.ppo import Args as Config
    else:
        from loco_envs.train.imitation import BCArgs as Config
    config = Config(env_id="moco_v0", num_players=2, obs_transform="log1p",
                    feature_shortcut=True)
    with pytest.raises(ValueError, match="'feature_shortcut' needs action features"):
        config.validate()


@pytest.mark.parametrize("value", ["yes", 1])
def test_a_file_whose_shortcut_is_not_a_bool_is_refused(tmp_path, value):
    path = _clone(tmp_path)
    json_path = path.with_suffix(".json")
    doc = json.loads(json_path.read_text())
    doc["feature_shortcut"] = value
    json_path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="field 'feature_shortcut' must be true or false"):
        load_policy(path)


def test_a_shortcut_run_resumes_from_its_checkpoint_with_the_same_network(tmp_path):
    """SB3 saves ShortcutPolicy with its layout (features_extractor_kwargs); --resume rebuilds
    the same network and goes on."""
    from sb3_contrib import MaskablePPO

    from loco_envs.train.networks import ShortcutPolicy
    from loco_envs.train.ppo import Args, train

    args = Args(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM, feature_shortcut=True,
                net_arch=[16], total_timesteps=64, num_envs=4, num_steps=16, batch_size=32,
                update_epochs=1, opponent_mix={"random": 1.0}, final_eval_games=0,
                checkpoint_every=1, progress_bar=False, runs_dir=str(tmp_path))
    first = train(args)
    model = MaskablePPO.load(first.checkpoint, device="cpu")
    assert isinstance(model.policy, ShortcutPolicy)
    assert_export_is_the_sb3_policy(model, first.checkpoint, _observations()[0], TRANSFORM)
    second = train(Args(**{**args.__dict__, "total_timesteps": 128,
                           "resume": str(first.run_dir)}))
    assert second.num_timesteps == 128


def test_the_policy_classes_override_no_private_member_of_sb3_or_torch():
    """Issue 40: the trainer extends SB3, sb3-contrib and torch's distributions through their
    public members only, so an upgrade that renames a private step cannot silently skip ours."""
    import inspect

    from loco_envs.train import networks

    foreign = ("stable_baselines3", "sb3_contrib", "torch")
    checked = 0
    for name in networks.__all__:
        cls = getattr(networks, name)
        if not inspect.isclass(cls):
            continue
        bases = [b for b in cls.__mro__[1:] if b.__module__.split(".")[0] in foreign]
        for member in vars(cls):
            if member.startswith("_") and not member.startswith("__") and member != "_abc_impl":
                hidden = [b.__qualname__ for b in bases if member in vars(b)]
                assert not hidden, f"{name}.{member} overrides {hidden}"
                checked += 1
        checked += bool(bases)
    assert checked >= 10  # the policies, the distribution and the extractors were looked at


@pytest.mark.parametrize("scorer", [0, 4])
def test_sb3s_own_save_and_load_rebuild_the_shortcut_policy(tmp_path, scorer):
    """The layout travels in SB3's recorded constructor arguments (features_extractor_kwargs),
    so the policy-level save and load give the same network and logits."""
    import gymnasium as gym

    from loco_envs.train.networks import ActionFeatureLayout, ShortcutPolicy

    space = gym.spaces.Box(-10, 10, (len(_observations(1)[0][0]) + WIDTH,))
    layout = dict(features=WIDTH, action_scorer=scorer)
    policy = ShortcutPolicy(space, gym.spaces.Discrete(79), lambda _: 3e-4, net_arch=[16],
                            features_extractor_class=ActionFeatureLayout,
                            features_extractor_kwargs=layout)
    with torch.no_grad():
        policy.mlp_extractor.scores.weight.normal_()  # not zero: the scores must come back
    policy.save(str(tmp_path / "policy.pt"))
    loaded = ShortcutPolicy.load(str(tmp_path / "policy.pt"), device="cpu")
    assert (loaded.mlp_extractor.scorer is None) == (scorer == 0)
    inputs = torch.from_numpy(transform_observation(_observations(5)[0], TRANSFORM))
    with torch.no_grad():
        expected = policy.get_distribution(inputs).distribution.probs
        assert torch.equal(loaded.get_distribution(inputs).distribution.probs, expected)


@pytest.mark.parametrize(("shortcut", "scorer", "hidden"),
                         [(False, 0, [16, 8]), (True, 0, [16]), (True, 0, []), (False, 4, [16]),
                          (True, 4, [8])])
def test_a_data_only_policy_goes_back_to_the_same_torch_actor(shortcut, scorer, hidden):
    """actor_of inverts the exporter: the torch actor's logits are the numpy policy's."""
    from loco_envs.train.imitation import actor_policy
    from loco_envs.train.networks import Tanh, actor_of, build_actor

    inputs = transform_observation(_observations(20)[0], TRANSFORM)
    torch.manual_seed(3)
    original = build_actor(inputs.shape[1], 79, hidden, Tanh, WIDTH if shortcut else 0, scorer,
                           WIDTH)
    with torch.no_grad():  # every part in play, the zero-initialised ones too
        for parameter in original.parameters():
            parameter.add_(torch.randn_like(parameter) * 0.1)
    policy = actor_policy(original, TRANSFORM)
    copy = actor_of(policy)
    with torch.no_grad():
        logits = copy(torch.from_numpy(inputs)).numpy()
        assert np.allclose(logits, original(torch.from_numpy(inputs)).numpy(), atol=1e-5)
    assert np.allclose(logits, policy.logits_of_inputs(inputs), atol=1e-4)
    assert not copy.training


def test_an_actor_that_does_not_fit_is_refused_naming_the_part():
    """load_actor (the warm start's and actor_of's copy): layers, shortcut and scorer."""
    from loco_envs.train.imitation import actor_policy
    from loco_envs.train.networks import Tanh, build_actor, load_actor

    size = len(_observations(1)[0][0]) + WIDTH
    policy = actor_policy(build_actor(size, 79, [16, 8], Tanh, WIDTH), TRANSFORM)
    other = build_actor(size, 79, [16], Tanh, WIDTH)
    layers = [m for m in other.body if isinstance(m, torch.nn.Linear)]
    with pytest.raises(ValueError, match="2 hidden layers, the network has 1"):
        load_actor(policy, layers, other.head, other.scores, None)
    plain = build_actor(size, 79, [16, 8], Tanh)
    layers = [m for m in plain.body if isinstance(m, torch.nn.Linear)]
    with pytest.raises(ValueError, match="a feature shortcut, the network has none"):
        load_actor(policy, layers, plain.head, None, None)
    wide = build_actor(size, 79, [32, 8], Tanh, WIDTH)
    layers = [m for m in wide.body if isinstance(m, torch.nn.Linear)]
    with pytest.raises(ValueError, match=r"layer of shape \(16, \d+\), the network has \(32"):
        load_actor(policy, layers, wide.head, wide.scores, None)
