"""``make_vec(engine="compiled")``: the same games, arrays and results as the Python engine.

The compiled engine's own rules are held to the Python engine move by move in
``tests/compiled``; these tests hold the vector env built on it (kernels, autoreset, bots,
records, threads) to the one built on the Python engine.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.compiled import rng as R
from loco_envs.vector.compiled import default_threads

ARRAYS = ("obs", "masks", "seats", "rewards", "terminations", "truncations")


def _both(num_envs: int, **options):
    return [loco_envs.make_vec("loco_v0", num_envs, engine=engine, **options)
            for engine in ("python", "compiled")]


def _assert_same(python, compiled, where: str) -> None:
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(python, name), getattr(compiled, name),
                                      err_msg=f"{name} differ {where}")
    for name in ("scores", "ranks", "lengths", "episode_seeds"):
        np.testing.assert_array_equal(getattr(python.buf, name), getattr(compiled.buf, name),
                                      err_msg=f"{name} differ {where}")


@pytest.mark.parametrize("options", [
    {"num_players": 2, "max_decisions": 300},  # games past the log's first 256 moves
    {"num_players": 4, "rounds": 3, "stacking": "identical", "photo_finish": "seat"},
    {"num_players": 10, "timeout_rate": 0.2, "max_decisions": 500, "reward": "score"},
    {"num_players": 3, "autoreset_mode": "Disabled", "max_decisions": 150},
])
def test_compiled_vector_env_plays_the_python_vector_envs_games(options):
    """Same seeds, same random actions (a seat at a time, some games skipped): every array and
    every result equal, through episode ends, autoresets and max_decisions truncations."""
    python, compiled = _both(24, **options)
    python.reset(seed=5)
    compiled.reset(seed=5)
    rng = np.random.default_rng(0)
    for step in range(400):
        _assert_same(python, compiled, f"at step {step}")
        live = np.flatnonzero(python.seats >= 0)
        if live.size == 0:
            break
        actions = np.full(24, -1, np.int64)
        for i in live.tolist():
            if rng.random() < 0.9:
                actions[i] = rng.choice(np.flatnonzero(python.masks[i]))
        python.step(actions)
        compiled.step(actions)
    for i in range(24):  # each game's replayed record (its move log outgrew its first size)
        assert compiled.game_env(i).game.state_dict() == python.game_env(i).game.state_dict()


def test_bots_inside_the_env_play_on_their_compiled_twins():
    """The scripted bots and the random bot choose inside the kernel with the games' bot
    generators; a bot with no twin plays from a Python view of the compiled game."""

    class FirstLegal:
        name = "first-legal"

        def act(self, view, action_mask, rng):
            assert view.seat == view.actor  # the view of the seat to act
            return int(np.flatnonzero(action_mask)[0])

    bots = [agents.make("loco/heuristic-strong"), agents.make("loco/heuristic"),
            agents.RandomBot(), FirstLegal()]
    python, compiled = _both(16, num_players=3, bots=bots, max_decisions=400)
    python.reset(seed=1)
    compiled.reset(seed=1)
    rng = np.random.default_rng(1)
    for step in range(300):
        _assert_same(python, compiled, f"at step {step}")
        chosen = rng.integers(len(bots), size=16)
        python.step(np.full(16, -1), chosen)
        compiled.step(np.full(16, -1), chosen)


def test_results_do_not_depend_on_the_thread_count():
    if default_threads() < 2:
        pytest.skip("one core: nothing to compare")
    runs = []
    for threads in (1, 2):
        vec = loco_envs.make_vec("loco_v0", 64, num_players=4, num_threads=threads,
                                 bots=[agents.RandomBot()])
        vec.reset(seed=9)
        for _ in range(200):
            vec.step(np.full(64, -1), np.zeros(64, np.int64))
        runs.append({name: np.array(getattr(vec, name)) for name in ARRAYS})
    for name in ARRAYS:
        np.testing.assert_array_equal(runs[0][name], runs[1][name], err_msg=name)


def test_a_compiled_games_record_replays_on_the_python_engine(tmp_path):
    vec = loco_envs.make_vec("loco_v0", 4, num_players=2, autoreset_mode="Disabled",
                             bots=[agents.make("loco/heuristic")])
    vec.reset(seed=3)
    while (vec.seats >= 0).any():
        vec.step(np.full(4, -1), np.where(vec.seats >= 0, 0, -1))
    assert vec.engine == "compiled"
    for i in range(4):
        env = vec.game_env(i)
        assert env.game.terminal
        assert [int(r) for r in env.game.final_ranks()] == vec.buf.ranks[i].tolist()
        path = env.save_record(tmp_path / f"game{i}.jsonl")
        loco_envs.replay(path)
        header = json.loads(path.read_text().splitlines()[0])
        assert header["seed"] == int(vec.buf.episode_seeds[i])


def test_bot_actions_draw_from_the_given_generators():
    """``bot_actions`` is ``bot.act`` on each game's view, advancing each generator alike."""
    vec = loco_envs.make_vec("loco_v0", 8, num_players=2)
    vec.reset(seed=4)
    rows = np.arange(8)
    for spec in ("random", "loco/heuristic", "loco/heuristic-strong"):
        bot = agents.make(spec)
        gens = [np.random.default_rng([7, i]) for i in rows]
        states = np.zeros((8, R.STATE_WORDS), np.uint64)
        for i, g in enumerate(gens):
            R.from_generator(g, states[i])
        got = vec.bot_actions(bot, rows, states)
        want = [bot.act(vec.view(i, int(vec.seats[i])), vec.masks[i], gens[i]) for i in rows]
        assert got.tolist() == want
        for i, g in enumerate(gens):
            after = np.zeros(R.STATE_WORDS, np.uint64)
            R.from_generator(g, after)
            assert after.tolist() == states[i].tolist()
    python = loco_envs.make_vec("loco_v0", 2, engine="python")
    python.reset(seed=0)
    assert python.bot_actions(agents.RandomBot(), [0], np.zeros((1, 6), np.uint64)) is None


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"engine": "fast"}, "engine"),
    ({"engine": "compiled", "backend": "shared_memory"}, "backend"),
    ({"num_threads": 0}, "num_threads"),
    ({"num_threads": True}, "num_threads"),
    ({"engine": "python", "num_threads": 1}, "num_threads"),
])
def test_bad_engine_options_name_the_option(kwargs, named):
    with pytest.raises(ValueError, match=named):
        loco_envs.make_vec("loco_v0", 2, **kwargs)


def test_a_game_without_a_compiled_engine_says_so():
    from loco_envs.compiled import ENGINES

    missing = [env_id for env_id in loco_envs.available_envs() if env_id not in ENGINES]
    if not missing:
        pytest.skip("every game has a compiled engine")
    with pytest.raises(ValueError, match="no compiled engine"):
        loco_envs.make_vec(missing[0], 2, engine="compiled")
    assert loco_envs.make_vec(missing[0], 2).engine == "python"


def test_an_illegal_action_moves_no_game():
    vec = loco_envs.make_vec("loco_v0", 3, num_players=2)
    vec.reset(seed=0)
    before = {name: np.array(getattr(vec, name)) for name in ARRAYS}
    illegal = int(np.flatnonzero(vec.masks[2] == 0)[0])
    legal = [int(np.flatnonzero(vec.masks[i])[0]) for i in range(2)]
    with pytest.raises(ValueError, match="game 2"):
        vec.step(np.array(legal + [illegal]))
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(vec, name), before[name])


@pytest.mark.parametrize(("env_id", "players", "lineup"), [
    ("loco_v0", 3, ("loco/heuristic-strong", "loco/heuristic", "random")),
    ("moco_v0", 2, ("moco/heuristic", "moco/heuristic")),
    ("momo_v0", 2, ("momo/heuristic", "random")),
    ("mampfos_v0", 3, ("mampfos/heuristic", "random")),
])
def test_tournaments_on_the_compiled_engines_keep_the_python_records(env_id, players, lineup):
    """The batched runner (compiled engine, compiled bots) writes the records that
    ``play_game`` (Python engine, Python bots) writes for the same seeds."""
    from loco_envs.benchmarks import tournament as T

    t = T.Tournament(env_id, players, lineup, 24, seed=11)
    batched = T.play(t, progress=False)
    single = [T.play_game(env_id, seats, seed, g) for g, seed, seats in T.schedule(t)]
    for got, want in zip(batched, single, strict=True):
        assert {**got, "agents": None} == {**want, "agents": None}
