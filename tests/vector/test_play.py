"""The batched game loop (loco_envs.vector.play): seats of every kind, seeded, batch-blind."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.policy import NumpyPolicy
from loco_envs.vector.play import CALLER, PolicySeat, SeatGenerators, bot_actions, play

GAMES, PLAYERS = 6, 3


class PythonRandom:
    """A bot with no compiled twin: it always acts from Python, drawing from its generator."""

    def act(self, view, mask, rng) -> int:
        return int(rng.choice(np.flatnonzero(mask)))


def random_policy(env_id: str, players: int = PLAYERS) -> NumpyPolicy:
    env = loco_envs.make(env_id, wrapped=False, num_players=players)
    size, n = env.observation_size(), env.game_class.NUM_ACTIONS
    rng = np.random.default_rng(0)
    return NumpyPolicy([(rng.normal(size=(16, size)).astype(np.float32) * 0.1,
                         np.zeros(16, np.float32))],
                       (rng.normal(size=(n, 16)).astype(np.float32), np.zeros(n, np.float32)),
                       "tanh", "log1p")


def mixed_games(engine: str, seed: int = 7, caller: bool = False) -> list[list[dict]]:
    """Every game's record, seats mixing a compiled bot, a Python-only bot and a policy (and,
    with ``caller``, a seat the caller plays with the heuristic), one generator a game shared
    by all its seats, so the loop hands it back and forth between its two forms."""
    vec = loco_envs.make_vec("loco_v0", GAMES, engine=engine, autoreset_mode="Disabled",
                             num_players=PLAYERS, max_decisions=400)
    players = [agents.make("loco/heuristic"), PythonRandom(),
               PolicySeat(random_policy("loco_v0"), temperature=1.0)]
    lineup = np.array([np.roll([0, 1, 2], g) for g in range(GAMES)], np.int64)
    if caller:
        lineup[:, 0] = CALLER
    generators = SeatGenerators.per_game(
        [np.random.default_rng([seed, g]) for g in range(GAMES)], PLAYERS)
    stepped = np.zeros(GAMES, np.int64)

    def decide(games: np.ndarray) -> np.ndarray:
        return bot_actions(vec, players[0], games, generators)

    def count(games: np.ndarray) -> None:
        stepped[games] += 1

    vec.reset(seed=[seed * 100 + g for g in range(GAMES)])
    play(vec, lineup, players, generators, decide if caller else None, count)
    assert (vec.seats < 0).all()  # every game ended (won or capped)
    records = [vec.game_env(g).record_lines() for g in range(GAMES)]
    assert [len(r) - 2 for r in records] == stepped.tolist()  # + a header and a result
    vec.close()
    return records


def test_mixed_seats_are_seeded_and_engine_blind() -> None:
    compiled = mixed_games("compiled")
    assert compiled == mixed_games("compiled")
    assert compiled == mixed_games("python")  # the compiled twin drew what bot.act draws
    assert compiled != mixed_games("compiled", seed=8)


def test_caller_seats_are_decided_by_the_caller() -> None:
    assert mixed_games("compiled", caller=True) == mixed_games("python", caller=True)


def test_without_decide_the_loop_stops_when_the_caller_is_to_act() -> None:
    vec = loco_envs.make_vec("loco_v0", GAMES, autoreset_mode="Disabled", num_players=2)
    lineup = np.array([[CALLER, 0]] * GAMES, np.int64)
    generators = SeatGenerators.per_seat([[np.random.default_rng([g, s]) for s in range(2)]
                                          for g in range(GAMES)])
    vec.reset(seed=list(range(GAMES)))
    play(vec, lineup, [agents.make("random")], generators)
    live = vec.seats >= 0
    assert live.any() and (vec.seats[live] == 0).all()
    vec.close()


def test_shared_slots_fall_back_to_the_generator() -> None:
    """Two games on one generator cannot go to the compiled twin together (each row advances
    its own copy): the loop asks the bot game by game, in game order."""
    vec = loco_envs.make_vec("loco_v0", 2, autoreset_mode="Disabled", num_players=2)
    vec.reset(seed=[1, 2])
    shared = SeatGenerators([np.random.default_rng(5)], np.zeros((2, 2), np.int64))
    bot = agents.make("random")
    got = bot_actions(vec, bot, np.arange(2), shared)
    rng = np.random.default_rng(5)
    want = [bot.act(vec.view(i, int(vec.seats[i])), vec.masks[i], rng) for i in range(2)]
    assert got.tolist() == want
    vec.close()


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_policy_rows_draw_from_their_own_seat(temperature: float) -> None:
    """One forward pass for all games, each row's move the one ``act_observation`` makes with
    that seat's generator."""
    vec = loco_envs.make_vec("loco_v0", 4, autoreset_mode="Disabled", num_players=2,
                             max_decisions=5)
    vec.reset(seed=[3, 4, 5, 6])
    policy = random_policy("loco_v0", 2)
    seats, obs, masks = vec.seats.copy(), vec.obs.copy(), vec.masks.copy()
    want = [policy.act_observation(obs[i], masks[i], np.random.default_rng([i, int(seats[i])]),
                                   temperature) for i in range(4)]
    generators = SeatGenerators.per_seat([[np.random.default_rng([g, s]) for s in range(2)]
                                          for g in range(4)])
    play(vec, np.zeros((4, 2), np.int64), [PolicySeat(policy, temperature)], generators)
    assert [vec.game_env(i).record_lines()[1]["action"] for i in range(4)] == want
    vec.close()


def test_the_clone_short_name_bots_keep_their_compiled_twins(monkeypatch) -> None:
    """``import agents`` from a clone's root loads the bots a second time as module ``agents``;
    its RandomBot and heuristics still play on their compiled twins."""
    import importlib
    import sys
    from pathlib import Path

    from loco_envs.vector.compiled import kind_of

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    for name in ("agents", "agents.loco"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    short = importlib.import_module("agents")
    short_loco = importlib.import_module("agents.loco")
    try:
        assert short.RandomBot is not agents.RandomBot
        kinds = {"random": 0, "loco/heuristic": 1}
        assert kind_of(short.RandomBot(), kinds) == 0
        assert kind_of(short_loco.LocoHeuristic(), kinds) == 1

        class Impostor(PythonRandom):
            name = "random"

        assert kind_of(Impostor(), kinds) == -1  # a name alone is not a twin
    finally:  # the short names leave with the test
        sys.modules.pop("agents.loco", None)
        sys.modules.pop("agents", None)
