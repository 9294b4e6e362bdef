"""The vector env against the single raw env: same seeds, same actions, same games."""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.core import IllegalActionError
from loco_envs.vector import first_seeds, next_seed

GAMES = [("loco_v0", {"num_players": 2}), ("moco_v0", {"num_players": 3}),
         ("momo_v0", {"num_players": 2}), ("mampfos_v0", {"num_players": 3})]


class SingleGame:
    """Game ``i`` of a vector env replayed on one raw env, with the seeds the docs promise."""

    def __init__(self, env_id: str, options: dict, first_seed: int):
        self.env = loco_envs.make(env_id, wrapped=False, **options)
        self.rng = np.random.default_rng(first_seed)
        self.bot_rng = np.random.default_rng([first_seed, 1])
        self.env.reset(seed=first_seed)

    def expected_row(self) -> tuple[np.ndarray, np.ndarray, int]:
        env = self.env
        agent = env.agent_selection
        obs = env.observe(agent)
        return obs["observation"], obs["action_mask"], env.seat(agent)

    def step(self, action: int) -> tuple[np.ndarray, bool, bool, list[float]]:
        env = self.env
        env.step(action)
        rewards = np.array([env.rewards[a] for a in env.possible_agents], np.float32)
        terminated, truncated = env.game.terminal, env.over and not env.game.terminal
        scores = [env.infos[a].get("score") for a in env.possible_agents]
        if env.over:
            env.reset(seed=next_seed(self.rng))
        return rewards, terminated, truncated, scores


def _check_rows(vec, singles) -> None:
    for i, single in enumerate(singles):
        obs, mask, seat = single.expected_row()
        assert vec.seats[i] == seat
        np.testing.assert_array_equal(vec.obs[i], obs)
        np.testing.assert_array_equal(vec.masks[i], mask)


#: (backend, num_workers) with 5 games: all in this process; this process's slice alone; its
#: slice of 2 and a worker's of 3; its slice of 1 and two workers' of 2.
BACKENDS = [("serial", None), ("shared_memory", 1), ("shared_memory", 2), ("shared_memory", 3)]


@pytest.mark.parametrize(("backend", "workers"), BACKENDS)
@pytest.mark.parametrize(("env_id", "options"), GAMES)
def test_same_seeds_give_the_single_env_trajectories(env_id, options, backend, workers):
    n, seed = 5, 11
    options = {**options, "max_decisions": 40}  # truncations and autoresets within the test
    vec = loco_envs.make_vec(env_id, n, backend=backend, num_workers=workers, **options)
    try:
        vec.reset(seed=seed)
        singles = [SingleGame(env_id, options, s) for s in first_seeds(seed, n)]
        rng = np.random.default_rng(0)
        ends = 0
        _check_rows(vec, singles)
        for step in range(150):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.masks])
            if step % 7 == 3:
                actions[1] = -1  # skipped this step: game 1 must not move
            _, rewards, terms, truncs, infos = vec.step(actions)
            for i, single in enumerate(singles):
                if actions[i] < 0:
                    assert not terms[i] and not truncs[i] and not rewards[i].any()
                    continue
                want_rewards, terminated, truncated, scores = single.step(int(actions[i]))
                np.testing.assert_array_equal(rewards[i], want_rewards)
                assert (terms[i], truncs[i]) == (terminated, truncated)
                if terminated or truncated:
                    ends += 1
                    assert infos["_score"][i]
                    np.testing.assert_allclose(infos["score"][i], scores)
            _check_rows(vec, singles)
        assert ends > 0
    finally:
        vec.close()


@pytest.mark.parametrize("backend", ["serial", "shared_memory"])
def test_bots_play_inside_the_env_with_the_games_bot_generator(backend):
    n, seed, options = 3, 5, {"num_players": 2, "max_decisions": 60}
    bot = agents.make("loco/heuristic")
    vec = loco_envs.make_vec("loco_v0", n, backend=backend, num_workers=2, bots=[bot],
                             **options)
    try:
        vec.reset(seed=seed)
        singles = [SingleGame("loco_v0", options, s) for s in first_seeds(seed, n)]
        for _ in range(120):
            bots = np.zeros(n, np.int64)
            vec.step(np.full(n, -1), bots)
            for single in singles:
                env = single.env
                agent = env.agent_selection
                single.step(bot.act(env.view(agent), env.observe(agent)["action_mask"],
                                    single.bot_rng))
            _check_rows(vec, singles)
    finally:
        vec.close()


class _ViewRecorder:
    """Plays the first legal action and keeps the views it was handed."""

    name = "recorder"

    def __init__(self, reads_view: bool):
        self.reads_view = reads_view
        self.views: list = []

    def act(self, view, action_mask, rng):
        self.views.append(view)
        return int(np.flatnonzero(action_mask)[0])


def test_a_bot_that_reads_no_view_is_handed_none_and_the_others_their_view():
    blind, seeing = _ViewRecorder(reads_view=False), _ViewRecorder(reads_view=True)
    vec = loco_envs.make_vec("loco_v0", 2, bots=[blind, seeing, agents.make("random")],
                             num_players=2)
    try:
        vec.reset(seed=3)
        for step in range(12):
            vec.step(np.full(2, -1), np.array([0, 1]) if step % 2 else np.array([1, 2]))
    finally:
        vec.close()
    assert len(blind.views) == 6 and all(view is None for view in blind.views)
    assert len(seeing.views) == 12 and all(view is not None for view in seeing.views)
    assert agents.RandomBot.reads_view is False


def _pettingzoo_state(env) -> str:
    """Everything a caller of the raw env can read, besides the rules state, as one string."""
    agent = env.agent_selection
    obs = env.observe(agent)
    return json.dumps({
        "record": env.record_lines(), "agent_selection": agent, "rewards": env.rewards,
        "cumulative": env._cumulative_rewards, "terminations": env.terminations,
        "truncations": env.truncations, "infos": env.infos, "over": env.over,
        "truncated_game": env.truncated_game, "decisions": env.decisions,
        "agents": env.agents, "observation": obs["observation"].tolist(),
        "action_mask": obs["action_mask"].tolist(), "last": [float(env.last()[1]),
                                                             *env.last()[2:4]]})


#: Caps near each game's length under random play: some games end, others are truncated
#: (random LOCO games take hundreds of decisions: truncated only).
CAPS = {"loco_v0": 30, "moco_v0": 35, "momo_v0": 40, "mampfos_v0": 106}


@pytest.mark.parametrize(("env_id", "options"),
                         [*GAMES, ("loco_v0", {"num_players": 3, "timeout_rate": 0.3})])
def test_game_env_reads_like_the_single_env_during_and_after_each_game(env_id, options):
    """The batch steps its envs without PettingZoo's bookkeeping: ``game_env`` syncs it."""
    n, seed = 6, 2
    options = {**options, "max_decisions": CAPS[env_id]}
    vec = loco_envs.make_vec(env_id, n, autoreset_mode="Disabled", **options)
    vec.reset(seed=seed)
    singles = []
    for s in first_seeds(seed, n):
        singles.append(loco_envs.make(env_id, wrapped=False, **options))
        singles[-1].reset(seed=s)
    rng = np.random.default_rng(3)
    terminated = truncated = 0
    for step in range(CAPS[env_id] + 3):
        live = vec.seats >= 0
        actions = np.array([rng.choice(np.flatnonzero(m)) if live[i] else -1
                            for i, m in enumerate(vec.masks)])
        vec.step(actions)
        for i in np.flatnonzero(live).tolist():
            singles[i].step(int(actions[i]))
        terminated += int(vec.terminations.sum())
        truncated += int(vec.truncations.sum())
        for i, single in enumerate(singles):
            if step % 4 == 0 or vec.seats[i] < 0:  # finished games: again at every step
                assert _pettingzoo_state(vec.game_env(i)) == _pettingzoo_state(single)
    assert (vec.seats < 0).all() and truncated > 0 and (env_id == "loco_v0" or terminated > 0)


def test_seed_list_sets_each_games_first_episode():
    vec = loco_envs.make_vec("moco_v0", 2, num_players=2)
    vec.reset(seed=[7, 9])
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    env.reset(seed=9)
    np.testing.assert_array_equal(vec.obs[1], env.observe(env.agent_selection)["observation"])
    assert vec.buf.episode_seeds.tolist() == [7, 9]


def test_a_games_seed_does_not_depend_on_the_batch_size():
    assert first_seeds(3, 8)[:4] == first_seeds(3, 4)


def test_illegal_action_raises_naming_the_game_and_moves_nothing():
    vec = loco_envs.make_vec("moco_v0", 3, num_players=2)
    vec.reset(seed=1)
    before = vec.obs.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in vec.masks])
    actions[2] = np.flatnonzero(vec.masks[2] == 0)[0]
    with pytest.raises(ValueError, match="game 2: action"):
        vec.step(actions)
    np.testing.assert_array_equal(vec.obs, before)
    with pytest.raises(ValueError, match="out of range"):
        vec.step(np.full(3, 10_000))
    with pytest.raises(ValueError, match="3 integers"):
        vec.step(np.zeros(2, np.int64))


@pytest.mark.parametrize("backend", ["serial", "shared_memory"])
def test_masks_are_read_only_because_checked_actions_are_played_unchecked(backend):
    """``step`` checks actions against ``masks`` and LOCO's ``play_legal`` trusts the check,
    so a caller cannot loosen a mask (a bot's action outside its mask goes to ``apply``)."""
    vec = loco_envs.make_vec("loco_v0", 2, backend=backend, num_workers=2)
    vec.reset(seed=4)
    with pytest.raises(ValueError, match="read-only"):
        vec.masks[0, :] = 1
    illegal = int(np.flatnonzero(vec.masks[0] == 0)[0])
    with pytest.raises(ValueError, match="game 0: action"):
        vec.step(np.array([illegal, int(np.flatnonzero(vec.masks[1])[0])]))
    vec.close()


def test_a_game_changed_through_game_env_is_checked_and_encoded_from_its_new_state():
    """Stepping or resetting ``game_env(i)`` changes game ``i`` behind the batch's back: the
    next ``step`` checks against, and writes, that game's state, not the stale rows."""
    vec = loco_envs.make_vec("loco_v0", 2, num_players=2)
    vec.reset(seed=0)
    stale = np.array(vec.masks[0])
    raw = vec.game_env(0)
    moved = next(a for a in np.flatnonzero(stale)
                 if any(not _legal_after(raw, a)[b] for b in np.flatnonzero(stale)))
    raw.step(int(moved))
    now_illegal = next(int(b) for b in np.flatnonzero(stale) if not raw.game.legal_mask()[b])
    other = vec.obs[1].copy()
    with pytest.raises(ValueError, match="game 0: action"):
        vec.step(np.array([now_illegal, -1]))
    np.testing.assert_array_equal(vec.masks[0], raw.game.legal_mask())
    np.testing.assert_array_equal(vec.obs[1], other)  # nothing moved
    for seed in range(5):
        vec.game_env(0).reset(seed=seed)
        action = int(np.flatnonzero(vec.game_env(0).game.legal_mask())[0])
        vec.step(np.array([action, -1]))
        raw = vec.game_env(0)
        single = loco_envs.make("loco_v0", wrapped=False, num_players=2)
        single.reset(seed=seed)
        single.step(action)
        seen = single.observe(single.agent_selection)
        np.testing.assert_array_equal(vec.obs[0], seen["observation"])
        np.testing.assert_array_equal(vec.masks[0], seen["action_mask"])
        assert raw.game.state_dict() == single.game.state_dict()


def _legal_after(raw, action) -> np.ndarray:
    """The mask after ``action`` in a copy of ``raw``'s game."""
    twin = loco_envs.make("loco_v0", wrapped=False, num_players=raw.num_players)
    twin.reset(seed=0, options={"state": raw.game.state_dict()})
    twin.step(int(action))
    return twin.game.legal_mask()


class _IllegalBot:
    """Plays outside its mask: the first action it forbids, or one past the last index."""

    reads_view = False

    def __init__(self, out_of_range: bool = False):
        self.out_of_range = out_of_range

    def act(self, view, action_mask, rng):
        if self.out_of_range:
            return action_mask.size
        return int(np.flatnonzero(action_mask == 0)[0])


@pytest.mark.parametrize("out_of_range", [False, True])
def test_a_bots_illegal_action_raises_the_rule_it_breaks(out_of_range):
    vec = loco_envs.make_vec("loco_v0", 1, bots=[_IllegalBot(out_of_range)])
    vec.reset(seed=2)
    with pytest.raises(IllegalActionError, match="not in 0" if out_of_range else "L-"):
        vec.step(np.array([-1]), bots=np.array([0]))


def test_autoreset_disabled_keeps_a_finished_game_finished():
    vec = loco_envs.make_vec("momo_v0", 2, num_players=2, max_decisions=3,
                             autoreset_mode="Disabled")
    vec.reset(seed=0)
    for _ in range(3):
        vec.step(np.array([np.flatnonzero(m)[0] for m in vec.masks]))
    assert vec.truncations.all() and (vec.seats == -1).all() and not vec.masks.any()
    with pytest.raises(ValueError, match="is over"):
        vec.step(np.zeros(2, np.int64))
    vec.step(np.full(2, -1))  # skipping finished games is fine
    vec.reset(seed=0)
    assert (vec.seats >= 0).all()


def test_bad_arguments_raise_value_error_naming_them():
    with pytest.raises(ValueError, match="num_players"):
        loco_envs.make_vec("loco_v0", 2, num_players=99)
    with pytest.raises(ValueError, match="num_envs"):
        loco_envs.make_vec("loco_v0", 0)
    with pytest.raises(ValueError, match="backend"):
        loco_envs.make_vec("loco_v0", 2, backend="threads")
    with pytest.raises(ValueError, match="autoreset_mode"):
        loco_envs.make_vec("loco_v0", 2, autoreset_mode="NextStep")
    with pytest.raises(ValueError, match="max_decisions"):
        loco_envs.make_vec("loco_v0", 2, max_decisions=0)
    vec = loco_envs.make_vec("loco_v0", 2)
    with pytest.raises(ValueError, match="seed"):
        vec.reset(seed=[1])
    with pytest.raises(RuntimeError, match="reset"):
        loco_envs.make_vec("loco_v0", 2).step(np.zeros(2, np.int64))


class _BrokenBot:
    name = "broken"

    def act(self, view, action_mask, rng):
        raise RuntimeError("boom")


@pytest.mark.parametrize(("broken", "slice_name"), [(0, "games 0..1"), (3, "games 2..3")])
def test_a_slice_error_is_raised_in_the_parent_and_a_reset_goes_on(broken, slice_name):
    """Game 0..1 are this process's slice, 2..3 a worker's: either one's error is a
    ``RuntimeError`` naming its slice, raised once every slice has finished its step, so
    the next command (a reset: the step was left half done) finds every slice waiting."""
    vec = loco_envs.make_vec("moco_v0", 4, backend="shared_memory", num_workers=2,
                             bots=[agents.make("random"), _BrokenBot()], num_players=2)
    try:
        vec.reset(seed=0)
        bots = np.zeros(4, np.int64)
        bots[broken] = 1
        with pytest.raises(RuntimeError, match="boom") as caught:
            vec.step(np.full(4, -1), bots)
        assert slice_name in str(caught.value)
        assert vec.worker_pids and all(p > 0 for p in vec.worker_pids)
        vec.reset(seed=1)
        vec.step(np.full(4, -1), np.zeros(4, np.int64))
        assert not vec.terminations.any()
    finally:
        vec.close()


class _LongErrorBot:
    name = "long error"

    def act(self, view, action_mask, rng):
        raise RuntimeError("x" * 100_000)  # far beyond a pipe's buffer


def test_a_worker_error_longer_than_the_pipe_buffer_is_raised():
    vec = loco_envs.make_vec("moco_v0", 4, backend="shared_memory", num_workers=2,
                             bots=[_LongErrorBot()], num_players=2)
    try:
        vec.reset(seed=0)
        bots = np.array([-1, -1, 0, -1])
        with pytest.raises(RuntimeError, match="games 2..3: RuntimeError") as caught:
            vec.step(np.where(bots < 0, -1, 0), bots)
        assert "x" * 100_000 in str(caught.value)
    finally:
        vec.close()


class _SlowBot:
    name = "slow"
    reads_view = False

    def act(self, view, action_mask, rng):
        time.sleep(0.3)
        return int(np.flatnonzero(action_mask)[0])


class _InterruptBot:
    name = "interrupt"
    reads_view = False

    def act(self, view, action_mask, rng):
        raise KeyboardInterrupt


def test_an_interrupt_in_this_process_slice_leaves_the_workers_in_step():
    """Ctrl-C in the caller's own slice (game 0) goes up only once the worker's slow step is
    done, so the next command waits for the worker's own answer to it, not the old one."""
    vec = loco_envs.make_vec("moco_v0", 2, backend="shared_memory", num_workers=2,
                             bots=[_InterruptBot(), _SlowBot()], num_players=2)
    fresh = loco_envs.make_vec("moco_v0", 2, num_players=2)
    try:
        vec.reset(seed=0)
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            vec.step(np.full(2, -1), np.array([0, 1]))
        assert time.perf_counter() - start >= 0.3
        vec.reset(seed=1)
        fresh.reset(seed=1)
        np.testing.assert_array_equal(vec.obs, fresh.obs)
        np.testing.assert_array_equal(vec.masks, fresh.masks)
    finally:
        vec.close()
        fresh.close()


def test_arrays_a_caller_kept_stay_readable_after_close_and_a_closed_env_refuses():
    vec = loco_envs.make_vec("loco_v0", 3, backend="shared_memory", num_workers=2,
                             num_players=2)
    obs, _ = vec.reset(seed=0)
    want = np.array(obs)
    vec.close()
    np.testing.assert_array_equal(obs, want)  # the kept view, its pages still mapped
    np.testing.assert_array_equal(vec.obs, want)  # the env's copy
    with pytest.raises(RuntimeError, match="closed"):
        vec.step(np.zeros(3, np.int64))
    with pytest.raises(RuntimeError, match="closed"):
        vec.reset(seed=0)


def test_a_dead_worker_is_named_instead_of_waited_for():
    vec = loco_envs.make_vec("loco_v0", 4, backend="shared_memory", num_workers=2,
                             num_players=2)
    try:
        vec.reset(seed=0)
        (pid,) = vec.worker_pids
        os.kill(pid, signal.SIGKILL)
        actions = np.array([np.flatnonzero(m)[0] for m in vec.masks])
        with pytest.raises(RuntimeError, match=f"worker {pid} died"):
            vec.step(actions)
    finally:
        vec.close()
    assert vec.obs.shape == (4, vec.single_observation_space.shape[0])  # copied out at close


def test_spaces_follow_gymnasium_vector_conventions():
    vec = loco_envs.make_vec("loco_v0", 4, num_players=2)
    assert vec.observation_space.shape == (4, vec.single_observation_space.shape[0])
    assert vec.action_space.shape == (4,)
    assert vec.metadata["autoreset_mode"].value == "SameStep"
    obs, _ = vec.reset(seed=0)
    assert obs.dtype == np.float32 and vec.masks.dtype == np.int8
    assert vec.observation_space.contains(obs)


def test_seats_not_observed_are_not_encoded_until_observed_again():
    vec = loco_envs.make_vec("moco_v0", 2, num_players=2)
    vec.reset(seed=0)
    vec.observed[:] = False
    stale = vec.obs.copy()
    vec.step(np.array([np.flatnonzero(m)[0] for m in vec.masks]))
    np.testing.assert_array_equal(vec.obs, stale)
    vec.observed[:] = True
    vec.step(np.array([np.flatnonzero(m)[0] for m in vec.masks]))
    env = vec.game_env(1)
    np.testing.assert_array_equal(vec.obs[1], env.observe(env.agent_selection)["observation"])
