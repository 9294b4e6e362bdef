"""The opponent pool as a league: saved agents as members, PFSP's weights from the games."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.policy import NumpyPolicy
from loco_envs.train.pool import PFSP_FLOOR, OpponentPool, pfsp_weight
from loco_envs.train.selfplay import SelfPlayVecEnv


def test_pfsp_weights_favour_the_opponents_that_still_win() -> None:
    pool = OpponentPool({"random": 1.0, "moco/heuristic": 1.0}, "moco_v0", sampling="pfsp")
    assert pool.weights() == pytest.approx({"random": 0.5, "moco/heuristic": 0.5})
    for _ in range(100):
        pool.record(["random"], 1.0)  # the learner always beats random
        pool.record(["moco/heuristic"], -1.0)  # and always loses to the heuristic
    weights = pool.weights()
    assert weights["moco/heuristic"] > 0.9 > 0.02 > weights["random"] > 0.0
    codes = pool.sample(np.random.default_rng(0), 2000)
    assert 0.9 < np.mean(codes == pool.bot_specs.index("moco/heuristic")) < 0.995


def test_pfsp_even_favours_opponents_of_the_learners_level() -> None:
    p = np.array([0.0, 0.5, 1.0])
    assert pfsp_weight(p, "pfsp-even").argmax() == 1
    assert pfsp_weight(p, "pfsp").tolist() == pytest.approx([1 + PFSP_FLOOR, 0.25 + PFSP_FLOOR,
                                                            PFSP_FLOOR])


def test_uniform_sampling_ignores_results() -> None:
    pool = OpponentPool({"random": 3.0, "moco/heuristic": 1.0}, "moco_v0")
    pool.record(["random"], 1.0)
    assert pool.weights() == pytest.approx({"random": 0.75, "moco/heuristic": 0.25})


def test_snapshots_share_the_snapshot_weight() -> None:
    pool = OpponentPool({"random": 1.0, "snapshot": 1.0}, "moco_v0", sampling="pfsp")
    policy = NumpyPolicy([], (np.zeros((3, 4), np.float32), np.zeros(3, np.float32)))
    assert pool.weights() == {"random": 1.0}  # no snapshot yet
    pool.add_snapshot(policy)
    pool.add_snapshot(policy)
    weights = pool.weights()
    assert set(weights) == {"random", "snapshot-0", "snapshot-1"}
    assert weights["snapshot-0"] == pytest.approx(0.25)


def test_a_shipped_agent_is_a_member_played_in_batches() -> None:
    pool = OpponentPool({"moco/ppo": 1.0}, "moco_v0", sampling="pfsp", num_players=2)
    assert pool.bots == [] and pool.name(0) == "moco/ppo"
    env = SelfPlayVecEnv("moco_v0", 4, pool, {"num_players": 2}, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _, _, dones, infos = env.step(actions)
        for done, info in zip(dones, infos, strict=True):
            if done:
                assert info["opponents"] == ["moco/ppo"]
                finished += 1
    assert finished > 0 and "moco/ppo" in pool.win_rates()
    env.close()


def test_bad_league_options_are_value_errors_naming_them() -> None:
    with pytest.raises(ValueError, match="opponent_sampling"):
        OpponentPool({"random": 1.0}, "moco_v0", sampling="elo")
    with pytest.raises(ValueError, match="moco_v0"):
        OpponentPool({"loco/ppo": 1.0}, "moco_v0")
    with pytest.raises(ValueError, match="3 players"):
        OpponentPool({"mampfos/ppo": 1.0}, "mampfos_v0", num_players=2)
