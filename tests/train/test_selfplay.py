"""The single-agent adapter: the learner's own final reward in every seat, whoever moved last."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.core.rewards import rank_rewards
from train.policy import NumpyPolicy
from train.selfplay import SelfPlayEnv

GAMES = [("loco_v0", 2), ("loco_v0", 3), ("moco_v0", 2), ("moco_v0", 3), ("momo_v0", 2),
         ("mampfos_v0", 2), ("mampfos_v0", 3)]


def play_episode(env: SelfPlayEnv, seed: int) -> tuple[list[float], dict]:
    """A uniformly random learner; checks every observation handed back is the learner's."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    assert info["seat"] == env.seat
    rewards: list[float] = []
    while True:
        raw = env.raw
        assert raw.agent_selection == env.agent and not raw.game.terminal
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, raw.observe(env.agent)["action_mask"].astype(bool))
        assert obs.shape == env.observation_space.shape
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(reward)
        assert not truncated
        if terminated:
            return rewards, info
        assert reward == 0.0  # nothing is paid before the end


@pytest.mark.parametrize(("env_id", "players"), GAMES)
def test_learner_gets_its_own_final_reward_in_every_seat(env_id: str, players: int) -> None:
    game = env_id.removesuffix("_v0")
    ended_on_opponent = ended_on_learner = consecutive = 0
    for seat in range(players):
        env = SelfPlayEnv(env_id, {"num_players": players},
                          {"random": 1.0, f"{game}/heuristic": 1.0}, seat=seat)
        for seed in range(4 if env_id != "loco_v0" else 3):
            rewards, info = play_episode(env, 100 * seat + seed)
            raw = env.raw
            expected = rank_rewards(raw.game.final_ranks())[seat]
            assert sum(rewards) == pytest.approx(expected)
            assert rewards[-1] == pytest.approx(raw.rewards[env.agent])
            assert info["final_reward"] == pytest.approx(expected)
            assert info["rank"] == raw.game.final_ranks()[seat]
            movers = [s for s, _ in raw._moves]
            if movers[-1] == seat:
                ended_on_learner += 1
            else:
                ended_on_opponent += 1
            consecutive += sum(a == b == seat for a, b in zip(movers, movers[1:], strict=False))
    # Both endings happened, and the learner was asked several times in a row.
    assert ended_on_opponent > 0 and ended_on_learner > 0
    assert consecutive > 0


def test_seat_is_drawn_from_the_seed() -> None:
    env = SelfPlayEnv("moco_v0", {"num_players": 3})
    seats = [env.reset(seed=s)[1]["seat"] for s in range(30)]
    assert set(seats) == {0, 1, 2}
    again = [env.reset(seed=s)[1]["seat"] for s in range(30)]
    assert seats == again


def test_same_seed_same_episode() -> None:
    runs = []
    for _ in range(2):
        env = SelfPlayEnv("mampfos_v0", {"num_players": 3}, {"random": 1, "mampfos/heuristic": 1})
        rewards, _ = play_episode(env, 5)
        runs.append((rewards, [m for m in env.raw._moves]))
    assert runs[0] == runs[1]


def test_snapshot_opponents_act_on_their_own_observation() -> None:
    env = SelfPlayEnv("moco_v0", {"num_players": 2}, {"random": 1e-9, "snapshot": 1.0}, seat=0)
    rng = np.random.default_rng(0)
    size, n = env.observation_space.shape[0], env.action_space.n
    policy = NumpyPolicy([(rng.normal(size=(16, size)).astype(np.float32), np.zeros(16))],
                         (rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n)))
    seen = []

    class Spy(NumpyPolicy):
        def act_observation(self, obs, mask, rng, deterministic=True):  # noqa: ANN001
            agent = env.raw.agent_selection
            assert agent != env.agent
            np.testing.assert_array_equal(obs, env.raw.observe(agent)["observation"])
            seen.append(agent)
            return super().act_observation(obs, mask, rng, deterministic)

    env.add_snapshot(Spy(policy.hidden, policy.action))
    play_episode(env, 0)
    assert seen and set(seen) == {"player_1"}


def test_truncation_after_max_learner_steps() -> None:
    env = SelfPlayEnv("loco_v0", {"num_players": 2}, max_learner_steps=3, seat=0)
    env.reset(seed=1)
    results = [env.step(int(np.flatnonzero(env.action_masks())[0])) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True]
    assert results[-1][1] == 0.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(ValueError, match="seat"):
        SelfPlayEnv("moco_v0", {"num_players": 2}, seat=2)
    with pytest.raises(ValueError, match="opponent_mix"):
        SelfPlayEnv("moco_v0", {"num_players": 2}, {"loco/heuristic": 1.0})
    with pytest.raises(ValueError, match="obs_transform"):
        SelfPlayEnv("moco_v0", {"num_players": 2}, obs_transform="sqrt")
