"""Millwheel choices never leak before the share-out (P-12), through the engine or the env.

For positions at the start of a droppings, each chooser's colour is varied over all five while
everyone else's choices stay fixed; every other seat's observation, view, picture and mask must
be identical across the five until the share-out, and must differ once it is done (so the
comparison can see a difference when there is one).
"""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.mampfos.actions import wheel_action
from loco_envs.mampfos.observation import encode
from loco_envs.mampfos.rules import PH_WHEEL, MampfosGame
from tests.mampfos.helpers import game_from


def droppings_starts(seed: int, n: int, memory: str, count: int) -> list[dict]:
    """State dicts at the first millwheel choice of ``count`` droppings of a random game."""
    game = MampfosGame(rng=np.random.default_rng(seed), num_players=n, memory=memory)
    pick = np.random.default_rng(seed + 1)
    starts = []
    while not game.terminal and len(starts) < count:
        if game.phase == PH_WHEEL and game.wheel_count == 0:
            starts.append(game.state_dict())
        legal = game.legal_actions()
        game.apply(legal[pick.integers(len(legal))])
    return starts


def seen_by(game: MampfosGame, seat: int) -> tuple:
    view = game.view(seat)
    return (view, encode(view).tobytes(), game.render_text(seat),
            game.legal_mask().tobytes() if game.current_seat == seat else b"")


@pytest.mark.parametrize("memory", ["perfect", "recall"])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_P12_no_millwheel_choice_leaks_before_the_share_out(n, memory):
    for seed in range(3):
        for start in droppings_starts(seed, n, memory, count=3):
            fixed = np.random.default_rng(seed).integers(5, size=n).tolist()
            for j in range(n):  # vary the j-th chooser's colour
                chooser = (start["active"] + j) % n
                before: dict[int, list] = {}
                after: dict[int, list] = {}
                for colour in range(5):
                    game = game_from(start, seed=seed, memory=memory)
                    for k in range(n):
                        game.apply(wheel_action(colour if k == j else fixed[k]))
                        target = after if k == n - 1 else before
                        if k >= j:
                            for seat in range(n):
                                if seat != chooser:
                                    target.setdefault(seat * n + k, []).append(
                                        seen_by(game, seat))
                for key, seen in before.items():
                    assert all(s == seen[0] for s in seen), (seed, j, key)
                for key, seen in after.items():
                    assert any(s != seen[0] for s in seen), (seed, j, key)


@pytest.mark.parametrize("memory", ["perfect", "recall"])
def test_P12_the_wrapped_env_observations_do_not_depend_on_earlier_choices(memory):
    n = 4
    start = droppings_starts(5, n, memory, count=1)[0]
    fixed = [0, 3, 1, 4]
    first = (start["active"]) % n
    seen: list[list] = []
    for colour in range(5):
        env = loco_envs.make("mampfos_v0", num_players=n, memory=memory)
        env.reset(seed=1, options={"state": start})
        assert env.agent_selection == f"player_{first}"
        env.step(wheel_action(colour))
        trail = []
        for k in range(1, n - 1):  # the others choose; nobody's picture may change with colour
            trail.append([(a, env.observe(a)["observation"].tobytes(),
                           env.observe(a)["action_mask"].tobytes(), env.unwrapped.view(a))
                          for a in env.agents if a != f"player_{first}"])
            env.step(wheel_action(fixed[k]))
        trail.append([(a, env.observe(a)["observation"].tobytes())
                      for a in env.agents if a != f"player_{first}"])
        seen.append(trail)
        env.step(wheel_action(fixed[-1]))
        assert env.unwrapped.view(0).last_share.wheels[first] == colour  # revealed after
    assert all(trail == seen[0] for trail in seen)
