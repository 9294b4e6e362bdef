"""Los Mampfos' per-action features (loco_envs/mampfos/features.py) against the view's facts."""

from __future__ import annotations

import numpy as np
import pytest

import loco_envs
from loco_envs.mampfos import actions as codec
from loco_envs.mampfos.features import MAMPFOS_K, mampfos_actions
from loco_envs.mampfos.observation import encode
from loco_envs.policy import ACTION_FEATURES
from tests.agents.helpers import random_decisions
from tests.mampfos.helpers import random_game


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_P12_P20_features_are_the_heaps_and_standing_of_the_view(num_players):
    """Each colour's heap in the donkey fed or emptied now (P-11, P-12), each donkey's two
    largest heaps and total, the mover's lead (P-20), whether the others collected alike, and the
    cards left (P-04): read off the view, at every decision of random games."""
    checked = {"feed": 0, "wheel": 0, "donkey": 0}
    for env, obs in random_decisions("mampfos_v0", num_players, games=4, seed=num_players):
        view = env.view(env.game.current_seat)
        feats = mampfos_actions(obs["observation"][None])[0].reshape(codec.NUM_ACTIONS,
                                                                     MAMPFOS_K)
        totals = [sum(row) for row in view.collected]
        others = [s for s in range(num_players) if s != view.seat]
        lead = totals[view.seat] - max(totals[s] for s in others)
        alike = all(view.collected[s] == view.collected[others[0]] for s in others)
        assert feats[:, 3] == pytest.approx(np.clip(lead / 10, -2, 2))
        assert (feats[:, 4] == alike).all()
        assert feats[:, 5] == pytest.approx(sum(view.cards_left) / 40)
        for d in range(codec.NUM_DONKEYS):
            heaps = sorted(view.bellies[d], reverse=True)
            assert feats[codec.DONKEY_BASE + d, :3] == pytest.approx(
                [heaps[0] / 10, heaps[1] / 10, sum(heaps) / 10])
        for phase, base in (("feed", codec.FEED_BASE), ("wheel", codec.WHEEL_BASE)):
            block = feats[base:base + codec.NUM_COLOURS, :3]
            if view.phase != phase:
                assert not block.any()
                continue
            belly = view.bellies[view.donkey]
            for c, (heap, largest, margin) in enumerate(block):
                rival = max(belly[o] for o in range(codec.NUM_COLOURS) if o != c)
                assert heap == pytest.approx(belly[c] / 10)
                assert largest == (belly[c] == max(belly) and belly[c] > 0)
                assert margin == pytest.approx((belly[c] - rival) / 10)
            checked[phase] += 1
        if view.phase == "donkey":
            checked["donkey"] += 1
        assert np.abs(feats).max() <= ACTION_FEATURES["mampfos_actions"].limit
    assert min(checked.values()) > 5, checked


def test_P30_P31_the_features_need_the_bellies_and_say_so():
    """In ``memory="recall"`` the observation has no bellies (P-31): a ValueError names why."""
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3, memory="recall")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)["observation"]
    with pytest.raises(ValueError, match="memory='perfect'"):
        mampfos_actions(obs[None])


def test_P13_P20_features_of_a_finished_game_keep_the_standing_and_no_move():
    """Game over: no colour entries, each seat's final lead (P-20), the cards never turned
    (P-13: the end card's letter pile is left)."""
    game = random_game(seed=4, n=3)
    assert game.terminal
    totals = [sum(row) for row in game.collected]
    for seat in range(3):
        view = game.view(seat)
        feats = mampfos_actions(encode(view)[None])[0].reshape(codec.NUM_ACTIONS, MAMPFOS_K)
        others = [t for s, t in enumerate(totals) if s != seat]
        assert not feats[codec.FEED_BASE:, :3].any()
        assert feats[:, 3] == pytest.approx(np.clip((totals[seat] - max(others)) / 10, -2, 2))
        assert feats[:, 5] == pytest.approx(sum(view.cards_left) / 40)
