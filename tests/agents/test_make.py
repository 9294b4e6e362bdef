"""``agents.make`` and the random bot."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs import agents


def test_make_random_is_a_bot_named_random():
    bot = agents.make("random")
    assert isinstance(bot, agents.Bot)
    assert bot.name == "random"


def test_random_bot_picks_only_legal_actions_uniformly():
    mask = np.zeros(10, np.int8)
    mask[[2, 5, 7]] = 1
    rng = np.random.default_rng(0)
    picks = [agents.make("random").act(None, mask, rng) for _ in range(3000)]
    values, counts = np.unique(picks, return_counts=True)
    assert values.tolist() == [2, 5, 7]
    assert counts.min() > 900  # about 1000 each


def test_random_bot_is_deterministic_given_its_rng():
    mask = np.ones(50, np.int8)
    bot = agents.make("random")
    a = [bot.act(None, mask, np.random.default_rng(3)) for _ in range(5)]
    rng1, rng2 = np.random.default_rng(9), np.random.default_rng(9)
    assert [bot.act(None, mask, rng1) for _ in range(20)] == [
        bot.act(None, mask, rng2) for _ in range(20)
    ]
    assert len(set(a)) == 1


def test_random_bot_leaves_the_global_rng_alone():
    np.random.seed(1)
    expected = np.random.random()
    np.random.seed(1)
    agents.make("random").act(None, np.ones(5, np.int8), np.random.default_rng(0))
    assert np.random.random() == expected


def test_random_bot_with_no_legal_action_is_an_error():
    with pytest.raises(ValueError, match="no legal action"):
        agents.make("random").act(None, np.zeros(4, np.int8), np.random.default_rng(0))


@pytest.mark.parametrize("spec", ["randm", "loco/heuristik", "chess/heuristic", "", "moco/"])
def test_unknown_spec_is_a_value_error_naming_it(spec):
    with pytest.raises(ValueError, match="unknown agent spec"):
        agents.make(spec)


def test_non_string_spec_is_a_value_error():
    with pytest.raises(ValueError, match="must be a string"):
        agents.make(3)  # type: ignore[arg-type]


def test_ppo_spec_is_a_clear_value_error_until_training_lands():
    with pytest.raises(ValueError, match="ppo:runs/x.pt"):
        agents.make("ppo:runs/x.pt")


def test_available_specs_start_with_random_and_all_build():
    specs = agents.available_specs()
    assert specs[0] == "random"
    for spec in specs:
        assert agents.make(spec).name == spec
