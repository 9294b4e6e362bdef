"""OpenSpiel's random simulation checks on every game (``make test-openspiel``)."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed: pip install 'loco-envs[openspiel]' "
                      "(or `make test-openspiel`)")

import loco_envs.openspiel  # noqa: E402,F401  (registers the games)

CASES = [("loco_envs_loco", 2), ("loco_envs_loco", 4), ("loco_envs_moco", 2),
         ("loco_envs_moco", 5), ("loco_envs_momo", 2), ("loco_envs_momo", 4),
         ("loco_envs_mampfos", 3), ("loco_envs_mampfos", 5)]


@pytest.mark.slow
@pytest.mark.parametrize("name,n", CASES)
def test_random_sim_test(name, n):
    game = pyspiel.load_game(name, {"num_players": n})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.slow
def test_tensors_and_strings():
    game = pyspiel.load_game("loco_envs_moco", {"num_players": 3})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(0)
    for player in range(3):
        assert len(state.observation_tensor(player)) == game.observation_tensor_size()
        assert len(state.information_state_tensor(player)) == \
            game.information_state_tensor_size()
        assert state.observation_string(player)
        assert state.information_state_string(player)


@pytest.mark.slow
def test_an_openspiel_algorithm_runs():
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("loco_envs_momo", {"num_players": 2})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1)
    bot = mcts.MCTSBot(game, 1.4, 5, evaluator)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(1)
    assert bot.step(state) in state.legal_actions()
