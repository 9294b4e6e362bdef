"""The action scorer (``action_scorer``, train/networks.py): one small network shared by every
action scores each move from its own features and the state's embedding, the hidden layers and
the critic read the observation alone; in torch and in the numpy policy alike, through cloning,
the warm start, PPO, snapshots, checkpoints and the policy file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from loco_envs.agents.ppo import load_bot
from loco_envs.policy import ACTION_FEATURES, load_policy, transform_observation
from tests.agents.helpers import first_decisions
from tests.train.helpers import assert_export_is_the_sb3_policy

torch = pytest.importorskip("torch")

TRANSFORM = "log1p+moco_actions"
WIDTH = ACTION_FEATURES["moco_actions"].size  # 79 actions x 6 features
OBS = 504


def _observations(count: int = 30) -> tuple[np.ndarray, list]:
    """The observations, and (view, mask) pairs, of a random Moco! game's first decisions."""
    return first_decisions("moco_v0", count)


def _actor(net_arch=(16, 8), scorer=4, shortcut=False):
    from loco_envs.train.imitation import build_networks

    actor, value = build_networks(OBS + WIDTH, 79, list(net_arch), "tanh",
                                  WIDTH if shortcut else 0, scorer, WIDTH)
    with torch.no_grad():
        actor.scorer.out.normal_()  # zero at first: make the scores count
        if shortcut:
            actor.scores.weight.normal_()
    return actor, value


def _clone(tmp_path, **overrides):
    from loco_envs.train.imitation import BCArgs, run

    bc = BCArgs(env_id="moco_v0", num_players=2, teacher="moco/heuristic",
                opponent_mix={"teacher": 1.0}, games=4, dagger_rounds=0, epochs=1,
                batch_size=64, net_arch=[16], workers=1, eval_games=0,
                obs_transform=TRANSFORM, action_scorer=8, out=str(tmp_path / "bc"))
    for key, value in overrides.items():
        setattr(bc, key, value)
    return run(bc, log=lambda *_: None)


def _ppo_args(tmp_path, **overrides):
    from loco_envs.train.ppo import Args

    base = dict(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM, action_scorer=8,
                net_arch=[16], total_timesteps=64, num_envs=4, num_steps=16, batch_size=32,
                update_epochs=1, opponent_mix={"random": 1.0}, final_eval_games=0,
                checkpoint_every=0, progress_bar=False, runs_dir=str(tmp_path))
    return Args(**{**base, **overrides})


@pytest.mark.parametrize("shortcut", [False, True])
def test_the_numpy_policy_computes_the_torch_actors_logits(shortcut):
    from loco_envs.train.imitation import actor_policy

    obs, _ = _observations()
    inputs = transform_observation(obs, TRANSFORM)
    actor, _ = _actor(shortcut=shortcut)
    with torch.no_grad():
        expected = actor(torch.from_numpy(inputs)).numpy()
    policy = actor_policy(actor, TRANSFORM)
    assert policy.feature_shortcut is shortcut
    assert policy.action[0].shape == (79, 8 + (WIDTH if shortcut else 0))
    assert policy.hidden[0][0].shape == (16, OBS)  # the hidden layers skip the features
    assert policy.input_size == OBS + WIDTH and policy.observation_size == OBS
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(policy.logits(obs[0]), expected[0], rtol=1e-5, atol=1e-4)


def test_each_score_is_the_shared_network_of_its_own_features_and_the_state():
    """logit[a] = action layer(s)[a] + out . relu(Wf f_a + Ws s + b), written out by loops."""
    from loco_envs.train.imitation import actor_policy

    obs, _ = _observations(count=3)
    inputs = transform_observation(obs, TRANSFORM)
    policy = actor_policy(_actor(net_arch=(16,))[0], TRANSFORM)
    feature_weight, state_weight, bias, out = policy.scorer
    (w0, b0), (wa, ba) = policy.hidden[0], policy.action
    for row in inputs:
        state = np.tanh(w0 @ row[:OBS] + b0)
        for a in (0, 17, 78):
            f = row[OBS + 6 * a:OBS + 6 * a + 6]
            score = out @ np.maximum(feature_weight @ f + state_weight @ state + bias, 0)
            logit = policy.logits_of_inputs(row[None])[0, a]
            assert logit == pytest.approx(wa[a] @ state + ba[a] + score, rel=1e-4, abs=1e-4)


def test_the_critic_reads_the_observation_alone():
    _, value = _actor()
    inputs = torch.from_numpy(transform_observation(_observations()[0], TRANSFORM))
    moved = inputs.clone()
    moved[:, OBS:] += 1.0
    with torch.no_grad():
        assert torch.equal(value(inputs), value(moved))


@pytest.mark.parametrize("shortcut", [False, True])
def test_a_scorer_clone_saves_loads_plays_and_warm_starts_ppo(tmp_path, shortcut):
    from loco_envs.train.ppo import train

    path = _clone(tmp_path, feature_shortcut=shortcut)
    clone, doc = load_policy(path)
    assert doc["feature_shortcut"] is shortcut and clone.feature_shortcut is shortcut
    assert doc["action_scorer"] == 8 and clone.scorer[0].shape == (8, 6)
    assert clone.scorer[1].shape == (8, 16) and clone.hidden[0][0].shape == (16, OBS)
    _, positions = _observations(count=10)
    bot = load_bot(path)
    for view, mask in positions:
        assert mask[bot.act(view, mask, np.random.default_rng(0))]
    args = _ppo_args(tmp_path, init_policy=str(path), learning_rate=1e-12, anneal_lr=False,
                     opponent_mix={"random": 1.0, "snapshot": 1.0}, snapshot_every=1,
                     feature_shortcut=shortcut)
    result = train(args)
    trained, doc = load_policy(result.checkpoint.with_suffix(".npz"))
    assert doc["action_scorer"] == 8
    obs, _ = _observations()
    np.testing.assert_allclose(trained.logits(obs), clone.logits(obs), atol=1e-3)


def test_a_warm_start_of_another_scorer_width_is_refused_naming_it(tmp_path):
    path = _clone(tmp_path)
    with pytest.raises(ValueError, match="init_policy.*action_scorer 8.*16"):
        _ppo_args(tmp_path, action_scorer=16, init_policy=str(path)).validate()
    with pytest.raises(ValueError, match="init_policy.*action_scorer 8.*0"):
        _ppo_args(tmp_path, action_scorer=0, init_policy=str(path)).validate()


@pytest.mark.parametrize("module", ["ppo", "imitation"])
@pytest.mark.parametrize(("options", "message"), [
    ({"obs_transform": "log1p"}, "'action_scorer' needs action features"),
    ({"action_scorer": -1}, "'action_scorer' must be an integer width"),
    ({"action_scorer": True}, "'action_scorer' must be an integer width"),
])
def test_a_bad_scorer_is_refused_naming_the_key(module, options, message):
    if module == "ppo":
        from loco_envs.train.ppo import Args as Config
    else:
        from loco_envs.train.imitation import BCArgs as Config
    config = Config(env_id="moco_v0", num_players=2, **{"obs_transform": TRANSFORM,
                                                        "action_scorer": 8, **options})
    with pytest.raises(ValueError, match=message):
        config.validate()


@pytest.mark.parametrize(("value", "message"), [
    ("8", "must be an integer width"), (4, "shape"), (0, "besides the arrays")])
def test_a_file_whose_scorer_field_lies_is_refused(tmp_path, value, message):
    path = _clone(tmp_path)
    json_path = path.with_suffix(".json")
    doc = json.loads(json_path.read_text())
    doc["action_scorer"] = value
    json_path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=message):
        load_policy(path)


def test_snapshots_keep_the_scorer(tmp_path):
    from loco_envs.train.checkpoints import load_snapshots, save_snapshots
    from loco_envs.train.imitation import actor_policy

    policy = actor_policy(_actor(shortcut=True)[0], TRANSFORM)
    save_snapshots(tmp_path / "pool.npz", [policy])
    (back,) = load_snapshots(tmp_path / "pool.npz")
    obs, _ = _observations()
    np.testing.assert_array_equal(back.logits(obs), policy.logits(obs))


def test_a_scorer_run_resumes_from_its_checkpoint_with_the_same_network(tmp_path):
    """SB3 saves the policy with its action_scorer; --resume rebuilds it and goes on; the
    exported numpy policy gives the torch policy's distribution."""
    from sb3_contrib import MaskablePPO

    from loco_envs.train.networks import ActionScoresExtractor
    from loco_envs.train.ppo import train

    args = _ppo_args(tmp_path, checkpoint_every=1, learning_rate=0.01, anneal_lr=False,
                     feature_shortcut=True)
    first = train(args)
    model = MaskablePPO.load(first.checkpoint, device="cpu")
    assert isinstance(model.policy.mlp_extractor, ActionScoresExtractor)
    extractor = model.policy.mlp_extractor
    assert float(extractor.scorer.out.detach().abs().sum()) > 0  # from zero: it learned
    assert extractor.scores is not None  # the shortcut beside the scorer
    assert_export_is_the_sb3_policy(model, first.checkpoint, _observations()[0], TRANSFORM)
    second = train(_ppo_args(tmp_path, checkpoint_every=1, learning_rate=0.01,
                             feature_shortcut=True, total_timesteps=128,
                             resume=str(first.run_dir)))
    assert second.num_timesteps == 128


def test_a_fresh_ppo_policy_starts_with_the_scorer_silent():
    """SB3 initialises every Linear of the extractor orthogonally; the scorer has none, and its
    out stays zero, so that a run from scratch starts near the uniform policy SB3 means it to."""
    import gymnasium as gym

    from loco_envs.train.networks import ActionFeatureLayout, ShortcutPolicy

    for shortcut in (False, True):
        layout = dict(features=WIDTH, action_scorer=8, shortcut=shortcut)
        policy = ShortcutPolicy(gym.spaces.Box(-1, 1, (OBS + WIDTH,)), gym.spaces.Discrete(79),
                                lambda _: 3e-4, features_extractor_class=ActionFeatureLayout,
                                features_extractor_kwargs=layout, net_arch=[16])
        extractor = policy.mlp_extractor
        assert not extractor.scorer.out.any()
        assert extractor.scorer.feature_weight.any()  # the rest is initialised
        inputs = torch.from_numpy(transform_observation(_observations(5)[0], TRANSFORM))
        with torch.no_grad():
            assert not extractor.forward_actor(inputs)[:, 16:].any()


def test_the_shortcut_alone_is_not_a_scorer_without_width():
    import gymnasium as gym

    from loco_envs.train.networks import ActionFeatureLayout, ShortcutPolicy

    space = gym.spaces.Box(-1, 1, (OBS + WIDTH,))
    with pytest.raises(ValueError, match="shortcut=False needs action_scorer"):
        ShortcutPolicy(space, gym.spaces.Discrete(79), lambda _: 3e-4,
                       features_extractor_class=ActionFeatureLayout,
                       features_extractor_kwargs=dict(features=WIDTH, shortcut=False))
    widest = OBS + WIDTH - 1  # a scorer's hidden layers need an input beside the features
    with pytest.raises(ValueError, match=rf"features must be a width in 1\.\.{widest}"):
        ActionFeatureLayout(space, features=OBS + WIDTH, action_scorer=8)
    with pytest.raises(ValueError, match="needs features_extractor_class=ActionFeatureLayout"):
        ShortcutPolicy(space, gym.spaces.Discrete(79), lambda _: 3e-4)
    with pytest.raises(ValueError, match="feature_shortcut is no longer an argument"):
        ShortcutPolicy(space, gym.spaces.Discrete(79), lambda _: 3e-4, feature_shortcut=WIDTH)
    with pytest.raises(ValueError, match="features: 100 are not K per each of 79 actions"):
        ShortcutPolicy(space, gym.spaces.Discrete(79), lambda _: 3e-4,
                       features_extractor_class=ActionFeatureLayout,
                       features_extractor_kwargs=dict(features=100))
    for bad in ({"features": 474.0}, {"features": WIDTH, "action_scorer": -2},
                {"features": "474"}, {"features": WIDTH, "shortcut": "yes"}):
        name = next(k for k in ("shortcut", "action_scorer", "features") if k in bad
                    and (k != "features" or len(bad) == 1))
        with pytest.raises(ValueError, match=f"^{name} must be"):
            ActionFeatureLayout(space, **bad)


def test_a_scorer_wider_than_the_cap_is_refused():
    from loco_envs.policy.transforms import MAX_SCORER_WIDTH
    from loco_envs.train.ppo import Args

    Args(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM,
         action_scorer=MAX_SCORER_WIDTH).validate()
    with pytest.raises(ValueError, match=f"'action_scorer' must be an integer width in "
                                         f"0..{MAX_SCORER_WIDTH}"):
        Args(env_id="moco_v0", num_players=2, obs_transform=TRANSFORM,
             action_scorer=MAX_SCORER_WIDTH + 1).validate()


@pytest.mark.parametrize("scorer", [False, True])
def test_a_policy_without_hidden_layers_takes_the_observation_and_the_features(scorer):
    from loco_envs.policy import NumpyPolicy

    rng = np.random.default_rng(0)
    reads = (OBS if scorer else OBS + WIDTH) + WIDTH  # the shortcut's block comes after
    action = (rng.normal(size=(79, reads)).astype(np.float32), np.zeros(79, np.float32))
    arrays = (rng.normal(size=(4, 6)), rng.normal(size=(4, OBS)), rng.normal(size=4),
              rng.normal(size=4))
    policy = NumpyPolicy([], action, "tanh", TRANSFORM, True,
                         tuple(a.astype(np.float32) for a in arrays) if scorer else None)
    assert policy.input_size == OBS + WIDTH and policy.observation_size == OBS
    obs, _ = _observations(3)
    assert policy.logits(obs).shape == (3, 79)


def test_a_clone_recorded_before_the_scorer_existed_is_reused(tmp_path):
    """A clone whose recorded config lacks a key made later (as action_scorer) was made with
    that key's default: the trainer reuses it instead of cloning again."""
    import yaml

    from loco_envs.train.warmstart import ensure_clone

    config = tmp_path / "clone.yaml"
    config.write_text(yaml.safe_dump(dict(
        env_id="moco_v0", num_players=2, teacher="moco/heuristic", opponent_mix={"teacher": 1.0},
        games=4, dagger_rounds=0, epochs=1, batch_size=64, net_arch=[16], workers=1,
        eval_games=0, obs_transform=TRANSFORM)))
    logs: list[str] = []
    path = ensure_clone(config, tmp_path / "runs", log=logs.append)
    json_path = path.with_suffix(".json")
    doc = json.loads(json_path.read_text())
    del doc["provenance"]["config"]["action_scorer"]
    json_path.write_text(json.dumps(doc))
    logs.clear()
    ensure_clone(config, tmp_path / "runs", log=logs.append)
    assert logs and logs[0].startswith("warm start: the clone at")
    doc["provenance"]["config"]["net_arch"] = [32]  # a key that differs still means a new clone
    json_path.write_text(json.dumps(doc))
    logs.clear()
    ensure_clone(config, tmp_path / "runs", log=logs.append)
    assert logs[0].startswith("warm start: cloning")
