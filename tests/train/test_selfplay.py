"""The self-play vector env: the learner's own view and final reward, batched opponents, seeds."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.core.rewards import rank_rewards
from loco_envs.policy import NumpyPolicy
from loco_envs.train.pool import OpponentPool
from loco_envs.train.selfplay import SelfPlayVecEnv

GAMES = [("loco_v0", 2), ("moco_v0", 2), ("moco_v0", 3), ("momo_v0", 2),
         ("mampfos_v0", 3)]


def make(env_id: str, players: int, n: int = 6, mix: dict | None = None, **kw) -> SelfPlayVecEnv:
    pool = OpponentPool(mix or {"random": 1.0}, env_id)
    options = {"num_players": players, **kw.pop("options", {})}
    return SelfPlayVecEnv(env_id, n, pool, options, seed=kw.pop("seed", 3), **kw)


def random_policy(env: SelfPlayVecEnv, seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    size, n = env.observation_space.shape[0], env.action_space.n
    return NumpyPolicy([(rng.normal(size=(16, size)).astype(np.float32),
                         np.zeros(16, np.float32))],
                       (rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n, np.float32)))


def random_actions(env: SelfPlayVecEnv, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])


def add_snapshots(env: SelfPlayVecEnv, transform: str, seeds) -> None:  # noqa: ANN001
    """Random snapshots reading ``transform``'s inputs, one per seed."""
    for seed in seeds:
        policy = random_policy(env, seed)
        policy.obs_transform = transform
        env.add_snapshot(policy)


def play_trace(env: SelfPlayVecEnv, steps: int = 25, seed: int = 5) -> list[np.ndarray]:
    """What the learner sees over ``steps`` random moves from a reset: observations, rewards,
    ends and the opponents of every game."""
    rng = np.random.default_rng(seed)
    out = [env.reset()]
    for _ in range(steps):
        env.step_async(random_actions(env, rng))
        obs, rewards, dones, _ = env.step_wait()
        out += [obs, rewards, dones, env.opponents.copy()]
    return out


def check_learners_turn(env: SelfPlayVecEnv, obs: np.ndarray) -> None:
    """Every game waits on the learner, and hands back the learner's own observation."""
    np.testing.assert_array_equal(env.vec.seats, env.learner_seat)
    for i in range(env.num_envs):
        raw = env.vec.game_env(i)
        agent = raw.possible_agents[int(env.learner_seat[i])]
        seen = raw.observe(agent)
        np.testing.assert_allclose(obs[i], np.log1p(seen["observation"]), rtol=1e-6)
        np.testing.assert_array_equal(env.action_masks()[i], seen["action_mask"].astype(bool))


@pytest.mark.parametrize(("env_id", "players"), GAMES)
def test_learner_gets_its_own_final_reward_in_every_seat(env_id: str, players: int) -> None:
    env = make(env_id, players, n=8)
    ended_by = {"learner": 0, "opponent": 0}
    collect = env._collect_ends
    first_call = [False]

    def spy(games, rewards, dones, infos, counting):  # noqa: ANN001
        before = int(dones.sum()) if dones is not None else 0
        collect(games, rewards, dones, infos, counting)
        if dones is not None and dones.sum() > before:
            ended_by["learner" if first_call[0] else "opponent"] += int(dones.sum()) - before
        first_call[0] = False

    env._collect_ends = spy
    rng = np.random.default_rng(0)
    obs = env.reset()
    seats_seen = set()
    for _ in range(200 if env_id != "loco_v0" else 150):
        check_learners_turn(env, obs)
        env.step_async(random_actions(env, rng))
        first_call[0] = True  # step_wait's first look at ended games follows the learner's move
        obs, rewards, dones, infos = env.step_wait()
        assert not rewards[~dones].any()  # nothing is paid before the end
        for i in np.flatnonzero(dones).tolist():
            info = infos[i]
            seats_seen.add(info["seat"])
            ranks = env.vec.buf.ranks[i]  # the game that just ended (one end per game here)
            assert rewards[i] == pytest.approx(rank_rewards(list(ranks))[info["seat"]])
            assert info["final_reward"] == rewards[i]
            assert len(info["opponents"]) == players - 1
    assert seats_seen == set(range(players))
    assert sum(ended_by.values()) > 0
    if env_id != "loco_v0":  # few random LOCO games end within the test: either way may miss
        assert ended_by["learner"] > 0 and ended_by["opponent"] > 0
    env.close()


def test_each_snapshot_decides_for_all_its_games_in_one_forward_pass() -> None:
    env = make("moco_v0", 2, n=8, mix={"random": 1e-9, "snapshot": 1.0})
    calls = []

    class Spy(NumpyPolicy):
        def act_batch(self, obs, masks, rng, temperature=1.0, inputs=None,  # noqa: ANN001
                      logits=None):
            who = env.opponents[np.arange(env.num_envs), env.vec.seats]
            games = np.flatnonzero(who == self.code)
            calls.append((self.code, len(obs)))
            # the rows are the observations of the games where it is to act, from its seat
            for row, i in zip(obs, games, strict=True):
                raw = env.vec.game_env(int(i))
                np.testing.assert_array_equal(row, raw.observe(raw.agent_selection)["observation"])
            np.testing.assert_array_equal(inputs, np.log1p(obs))  # the transform, shared
            assert logits is None  # numpy's forward pass on the CPU
            return super().act_batch(obs, masks, rng, temperature, inputs)

    base = random_policy(env)
    codes = set()
    for _ in range(2):
        spy = Spy(base.hidden, base.action)
        spy.code = env.add_snapshot(spy)
        codes.add(spy.code)
    rng = np.random.default_rng(1)
    env.reset()
    calls.clear()
    for _ in range(20):
        env.step_async(random_actions(env, rng))
        env.step_wait()
    assert {code for code, _ in calls} == codes
    assert max(size for _, size in calls) > 1  # several games in one pass
    env.close()


def test_snapshots_share_one_transform_a_round_and_play_the_moves_they_would_alone(
        monkeypatch) -> None:
    transform = "log1p+loco_actions"  # the costly transform: LOCO's action features

    def trace(alone: bool) -> list[np.ndarray]:
        env = make("loco_v0", 2, n=12, mix={"random": 1.0, "snapshot": 2.0},
                   obs_transform=transform)
        add_snapshots(env, transform, (0, 1, 2))
        if alone:  # the reference: every snapshot transforms its own rows
            def play(games, codes, actions):  # noqa: ANN001
                for code in np.unique(codes).tolist():
                    mine = games[codes == code]
                    actions[mine] = env.pool.policy(code).act_batch(
                        env.vec.obs[mine], env.vec.masks[mine], env.rng)
            monkeypatch.setattr(env, "_play_snapshots", play)
        out = play_trace(env)
        env.close()
        return out

    reference = trace(alone=True)
    with monkeypatch.context() as patch:  # no snapshot transforms its rows itself any more
        patch.setattr(NumpyPolicy, "logits", lambda *_: pytest.fail("a snapshot's own transform"))
        shared = trace(alone=False)
    for a, b in zip(shared, reference, strict=True):
        np.testing.assert_array_equal(a, b)


def test_same_seed_same_run_with_either_backend() -> None:
    runs = []
    for backend in ("serial", "shared_memory", "serial"):
        env = make("mampfos_v0", 3, n=5, backend=backend, num_workers=2,
                   mix={"random": 1, "mampfos/heuristic": 1, "snapshot": 1})
        env.add_snapshot(random_policy(env))
        rng = np.random.default_rng(7)
        trace = [env.reset()]
        for _ in range(60):
            env.step_async(random_actions(env, rng))
            obs, rewards, dones, _ = env.step_wait()
            trace += [obs, rewards, dones]
        env.close()
        runs.append(trace)
    for a, b, c in zip(*runs, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_a_game_stopped_at_max_decisions_is_done_with_reward_zero() -> None:
    env = make("loco_v0", 2, n=3, options={"max_decisions": 4})
    rng = np.random.default_rng(0)
    env.reset()
    truncated = 0
    for _ in range(6):
        env.step_async(random_actions(env, rng))
        _, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones).tolist():
            assert infos[i].get("truncated") and rewards[i] == 0.0 and "first" not in infos[i]
            truncated += 1
    assert truncated > 0
    env.close()


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(ValueError, match="opponent_mix"):
        OpponentPool({"loco/heuristic": 1.0}, "moco_v0")
    with pytest.raises(ValueError, match="pool_size"):
        OpponentPool({"random": 1.0}, "moco_v0", 0)
    with pytest.raises(ValueError, match="num_players"):
        make("moco_v0", 9)


def test_pool_keeps_old_snapshots_that_games_still_play() -> None:
    pool = OpponentPool({"random": 1.0, "snapshot": 1.0}, "moco_v0", max_snapshots=1)
    policy = NumpyPolicy([], (np.zeros((3, 4), np.float32), np.zeros(3, np.float32)))
    first = pool.add_snapshot(policy)
    second = pool.add_snapshot(policy, in_use=[first])
    assert pool.policy(first) is policy and len(pool.snapshots) == 1
    pool.add_snapshot(policy, in_use=[])
    with pytest.raises(KeyError):
        pool.policy(second)
    codes = pool.sample(np.random.default_rng(0), 200)
    assert set(codes.tolist()) <= {0, first + 2}


def test_act_batch_refuses_inputs_that_are_not_the_rows_transformed() -> None:
    env = make("moco_v0", 2, n=4)
    policy = random_policy(env)
    env.reset()
    obs, masks = env.vec.obs[:3], env.vec.masks[:3]
    rng = np.random.default_rng(0)
    policy.act_batch(obs, masks, rng, inputs=np.log1p(obs))
    for bad in (np.log1p(obs[:2]), np.log1p(obs)[:, :-1]):
        with pytest.raises(ValueError, match="inputs"):
            policy.act_batch(obs, masks, rng, inputs=bad)
    env.close()


@pytest.mark.parametrize(("env_id", "players"), [("moco_v0", 3), ("loco_v0", 4)])
def test_the_first_place_reward_pays_a_win_alone_1_and_a_loss_minus_1_over_n_1(
        env_id: str, players: int) -> None:
    """learner_reward='first': (n f - 1) / (n - 1) from the share f of first place, where the
    game's rank reward also pays second places; the same games either way (same seed)."""
    paid = {}
    for reward in ("game", "first"):
        env = make(env_id, players, n=8, learner_reward=reward)
        rng = np.random.default_rng(1)
        env.reset()
        ends = []
        for _ in range(400):
            env.step_async(random_actions(env, rng))
            _, rewards, dones, infos = env.step_wait()
            ends += [(rewards[i], infos[i]["first"]) for i in np.flatnonzero(dones).tolist()
                     if "first" in infos[i]]
        env.close()
        paid[reward] = ends
    assert len(paid["first"]) >= 8 and [f for _, f in paid["first"]] == [
        f for _, f in paid["game"]]  # the same games
    for (first_pay, share), (game_pay, _) in zip(paid["first"], paid["game"], strict=True):
        assert first_pay == pytest.approx((players * share - 1) / (players - 1))
        if share == 1.0:
            assert first_pay == 1.0 and game_pay == 1.0
        elif share == 0.0:
            assert first_pay == pytest.approx(-1 / (players - 1))
    assert any(g != f for (f, _), (g, _) in zip(paid["first"], paid["game"], strict=True))


def test_an_unknown_learner_reward_is_refused_by_name() -> None:
    from loco_envs.train.ppo import Args

    with pytest.raises(ValueError, match="learner_reward must be one of"):
        make("moco_v0", 2, learner_reward="win")
    with pytest.raises(ValueError, match="config key 'learner_reward' must be one of"):
        Args(env_id="moco_v0", num_players=2, learner_reward="win").validate()


def test_frozen_opponents_on_a_torch_device_play_the_moves_numpy_plays(monkeypatch) -> None:
    """device=...: snapshots and saved agents decide by a torch copy of their network there
    (a GPU in training; the CPU here), with the same moves as numpy's forward pass; the pool's
    dropped members leave the device."""
    transform = "log1p+loco_actions"
    from loco_envs.train import networks

    def trace(device: str | None) -> tuple[list[np.ndarray], SelfPlayVecEnv]:
        env = make("loco_v0", 2, n=12, mix={"random": 1.0, "loco/ppo": 1.0, "snapshot": 2.0},
                   obs_transform=transform, device=device)
        add_snapshots(env, transform, (0, 1))
        return play_trace(env), env

    reference, plain = trace(None)
    assert not plain._on_device
    plain.close()
    made = []
    monkeypatch.setattr(networks, "actor_of",
                        lambda policy, made=made, real=networks.actor_of:
                        made.append(policy) or real(policy))
    with monkeypatch.context() as patch:  # numpy's forward pass is not used any more
        patch.setattr(NumpyPolicy, "logits_of_inputs", lambda *_: pytest.fail("numpy forward"))
        on_device, env = trace("cpu")
    for a, b in zip(on_device, reference, strict=True):
        np.testing.assert_array_equal(a, b)
    assert len(made) == len(env._on_device) == 3  # two snapshots and loco/ppo, once each
    gone = 10_000  # a member the pool no longer holds
    assert not env.pool.holds(gone)
    env._on_device[gone] = object()
    add_snapshots(env, transform, range(2, 9))  # newer snapshots, drawn for new episodes
    rng = np.random.default_rng(6)
    for _ in range(400):  # until a new member has moved: its copy is made, the device tidied
        env.step_async(random_actions(env, rng))
        env.step_wait()
        if len(made) > 3:
            break
    assert len(made) > 3 and gone not in env._on_device
    assert all(env.pool.holds(code) for code in env._on_device)
    env.close()


@pytest.mark.parametrize("transform", ["none", "log1p", "log1p+loco_actions"])
def test_the_learner_keeps_its_inputs_while_the_games_go_on(transform: str) -> None:
    """SB3 stores a step's inputs in the rollout after the next step: they are an array of
    their own, whatever the transform (``none`` is the games' own observation buffer)."""
    env = make("loco_v0", 2, obs_transform=transform)
    first = env.reset()
    kept = first.copy()
    assert not np.may_share_memory(first, env.vec.obs)
    env.step_async(random_actions(env, np.random.default_rng(0)))
    second, *_ = env.step_wait()
    assert not np.may_share_memory(second, env.vec.obs)
    np.testing.assert_array_equal(first, kept)
