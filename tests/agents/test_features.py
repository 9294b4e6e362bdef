"""Per-action features (agents/features.py): computed from the observation, equal to the game's
facts read off the view, and carried through policies, files and the trainer's checks."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.agents.features import ACTION_FEATURES, MOCO_K, moco_actions
from loco_envs.agents.moco import MocoHeuristic
from loco_envs.agents.ppo import (
    NumpyPolicy,
    check_transform,
    load_bot,
    load_policy,
    save_policy,
    transform_bounds,
    transform_observation,
)
from loco_envs.moco import actions as codec
from loco_envs.moco.cards import VALUES
from loco_envs.moco.rules import PILE_LIMIT


def _positions(num_players: int, games: int = 6, seed: int = 0):
    """(view, observation, mask) of every decision of random Moco! games."""
    env = loco_envs.make("moco_v0", wrapped=False, num_players=num_players)
    rng = np.random.default_rng(seed)
    for game in range(games):
        env.reset(seed=seed * 100 + game)
        while not env.over:
            seat = env.game.current_seat
            obs = env.observe(env.agent_selection)
            yield env.view(seat), obs["observation"], obs["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _scores(view, values) -> list[float]:
    return [sum(c * v for c, v in zip(view.chips[s], values, strict=True))
            for s in range(view.num_players)]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_M21_moco_features_are_the_plays_and_chips_facts_of_the_view(num_players):
    """Each play's gain, change and game end (M-20, M-21), each chip's value, from the view."""
    bot = MocoHeuristic()
    checked = 0
    for view, obs, mask in _positions(num_players):
        feats = moco_actions(obs[None])[0].reshape(codec.NUM_ACTIONS, MOCO_K)
        me, others = view.seat, [s for s in range(num_players) if s != view.seat]
        for a in np.flatnonzero(mask):
            if a < codec.NUM_PLAYS:
                card, pile = codec.PLAY_CARD[a], codec.PLAY_PILE[a]
                delta = VALUES[card] - view.pile_values[pile]
                theirs = np.mean([view.chips[s][pile] for s in others])
                assert feats[a, 0] == pytest.approx((view.chips[me][pile] - theirs) * delta / 10,
                                                    abs=1e-5)
                assert feats[a, 1] == pytest.approx(delta / 10, abs=1e-6)
                ends = view.heights[pile] + 1 >= PILE_LIMIT
                assert feats[a, 2] == ends
                if ends:
                    values = list(view.pile_values)
                    values[pile] = VALUES[card]
                    scores = _scores(view, values)
                    lead = scores[me] - max(scores[s] for s in others)
                    assert feats[a, 3] == pytest.approx(np.clip(lead / 20, -1, 1), abs=1e-5)
                else:
                    assert feats[a, 3] == 0
            elif a < codec.NO_CHIP:
                suit = a - codec.FIRST_CHIP
                assert feats[a, 0] * 10 == pytest.approx(bot.expected_values(view)[suit],
                                                         abs=1e-4)
                assert feats[a, 2] * 5 == view.chips[me][suit]
                assert feats[a, 5] * 5 == view.supply[suit]
            else:
                assert not feats[a].any()
            checked += 1
        limit = ACTION_FEATURES["moco_actions"].limit
        assert np.abs(feats).max() <= limit
    assert checked > 500


def test_transform_appends_the_features_after_the_scaled_observation():
    _, obs, _ = next(_positions(2))
    batch = np.stack([obs, obs])
    out = transform_observation(batch, "log1p+moco_actions")
    assert out.shape == (2, obs.size + ACTION_FEATURES["moco_actions"].size)
    np.testing.assert_allclose(out[:, :obs.size], np.log1p(batch))
    np.testing.assert_allclose(out[:, obs.size:], moco_actions(batch))
    np.testing.assert_allclose(transform_observation(obs, "log1p+moco_actions"), out[0])
    low, high = transform_bounds("log1p+moco_actions", np.zeros(obs.size), np.ones(obs.size))
    assert low.shape == high.shape == out.shape[1:]


def test_features_of_another_game_are_refused_naming_the_transform():
    check_transform("log1p+moco_actions", "moco_v0")
    with pytest.raises(ValueError, match="moco_actions.*moco_v0, not 'loco_v0'"):
        check_transform("log1p+moco_actions", "loco_v0")
    with pytest.raises(ValueError, match="must be one of"):
        check_transform("log1p+nothing", "moco_v0")
    with pytest.raises(ValueError, match="features 'moco_actions' are for moco_v0, not 'momo_v0'"):
        check_transform("log1p+moco_actions", "momo_v0")
    with pytest.raises(ValueError, match=r"config key 'obs_transform'.*loco_v0"):
        from loco_envs.train.ppo import parse_args

        parse_args(["--env-id", "loco_v0", "--obs-transform", "log1p+moco_actions"])


def _feature_policy(seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    obs_size = loco_envs.make("moco_v0", wrapped=False, num_players=2).observation_size()
    width = obs_size + ACTION_FEATURES["moco_actions"].size
    return NumpyPolicy([(rng.normal(0, 0.1, (16, width)).astype(np.float32),
                         np.zeros(16, np.float32))],
                       (rng.normal(0, 0.1, (codec.NUM_ACTIONS, 16)).astype(np.float32),
                        np.zeros(codec.NUM_ACTIONS, np.float32)), "tanh", "log1p+moco_actions")


def test_a_policy_with_features_saves_loads_and_plays_from_views(tmp_path):
    policy = _feature_policy()
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    assert policy.observation_size == env.observation_size()
    path = save_policy(tmp_path / "p", policy, {"env_id": "moco_v0",
                                                "env_options": {"num_players": 2}})
    loaded, doc = load_policy(path)
    assert doc["obs_transform"] == "log1p+moco_actions"
    assert loaded.input_size == policy.input_size
    bot = load_bot(path)
    for view, obs, mask in _positions(2, games=1):
        rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
        assert bot.act(view, mask, rng1) == policy.act_observation(obs, mask, rng2, False)
        assert mask[bot.act(view, mask, rng1)]


def test_a_feature_policy_file_for_another_game_is_refused(tmp_path):
    path = save_policy(tmp_path / "p", _feature_policy(), {"env_id": "moco_v0",
                                                           "env_options": {"num_players": 2}})
    json_path = path.with_suffix(".json")
    json_path.write_text(json_path.read_text().replace('"moco_v0"', '"loco_v0"'))
    with pytest.raises(ValueError, match="field 'obs_transform'.*not 'loco_v0'"):
        load_policy(path)


def test_clone_then_ppo_with_features_keeps_the_clones_actor_at_the_start(tmp_path):
    """Behaviour cloning and the trainer both feed the network the features (the warm start
    copies a clone whose first layer is observation + features wide)."""
    pytest.importorskip("torch")
    from loco_envs.train.imitation import BCArgs, run
    from loco_envs.train.ppo import Args, train

    transform = "log1p+moco_actions"
    bc = BCArgs(env_id="moco_v0", num_players=2, teacher="moco/heuristic",
                opponent_mix={"teacher": 1.0}, games=4, dagger_rounds=0, epochs=1,
                batch_size=64, net_arch=[16], workers=1, eval_games=0,
                obs_transform=transform, out=str(tmp_path / "bc"))
    path = run(bc, log=lambda *_: None)
    clone, _ = load_policy(path)
    assert clone.input_size == clone.observation_size + ACTION_FEATURES["moco_actions"].size
    args = Args(env_id="moco_v0", num_players=2, obs_transform=transform, net_arch=[16],
                init_policy=str(path), total_timesteps=64, num_envs=4, num_steps=16,
                batch_size=32, update_epochs=1, learning_rate=1e-12, anneal_lr=False,
                opponent_mix={"random": 1.0, "snapshot": 1.0}, snapshot_every=1,
                final_eval_games=0, checkpoint_every=0, progress_bar=False,
                runs_dir=str(tmp_path))
    result = train(args)
    trained, doc = load_policy(result.checkpoint.with_suffix(".npz"))
    assert doc["obs_transform"] == transform
    obs = np.stack([o for _, o, _ in list(_positions(2, games=1))[:20]])
    np.testing.assert_allclose(trained.logits(obs), clone.logits(obs), atol=1e-3)
