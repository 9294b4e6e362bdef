"""Per-action features (loco_envs/<game>/features.py): computed from the observation, equal to
the game's
facts read off the view, and carried through policies, files and the trainer's checks."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import loco_envs
from loco_envs.agents.loco import STACKERS, LocoStrong, answers, playing_seats, seat_after
from loco_envs.agents.moco import MocoHeuristic
from loco_envs.agents.ppo import load_bot
from loco_envs.loco import actions as lcodec
from loco_envs.loco import cards as lcards
from loco_envs.loco import observation as loco_obs
from loco_envs.loco.features import LOCO_K, loco_actions
from loco_envs.moco import actions as codec
from loco_envs.moco.cards import VALUES
from loco_envs.moco.features import MOCO_K, moco_actions
from loco_envs.moco.rules import PILE_LIMIT
from loco_envs.policy import (
    ACTION_FEATURES,
    NumpyPolicy,
    check_transform,
    load_policy,
    save_policy,
    transform_bounds,
    transform_observation,
)
from tests.agents.helpers import random_decisions


def _positions(num_players: int, games: int = 6, seed: int = 0):
    """(view, observation, mask) of every decision of random Moco! games."""
    for env, obs in random_decisions("moco_v0", num_players, games, seed):
        yield env.view(env.game.current_seat), obs["observation"], obs["action_mask"]


def _scores(view, values) -> list[float]:
    return [sum(c * v for c, v in zip(view.chips[s], values, strict=True))
            for s in range(view.num_players)]


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_M21_moco_features_are_the_plays_and_chips_facts_of_the_view(num_players):
    """Each play's gain, change and game end (M-20, M-21), each chip's value, from the view."""
    bot = MocoHeuristic()
    checked = 0
    for view, obs, mask in _positions(num_players):
        feats = moco_actions(obs[None])[0].reshape(codec.NUM_ACTIONS, MOCO_K)
        me, others = view.seat, [s for s in range(num_players) if s != view.seat]
        for a in np.flatnonzero(mask):
            if a < codec.NUM_PLAYS:
                card, pile = codec.PLAY_CARD[a], codec.PLAY_PILE[a]
                delta = VALUES[card] - view.pile_values[pile]
                theirs = np.mean([view.chips[s][pile] for s in others])
                assert feats[a, 0] == pytest.approx((view.chips[me][pile] - theirs) * delta / 10,
                                                    abs=1e-5)
                assert feats[a, 1] == pytest.approx(delta / 10, abs=1e-6)
                ends = view.heights[pile] + 1 >= PILE_LIMIT
                assert feats[a, 2] == ends
                if ends:
                    values = list(view.pile_values)
                    values[pile] = VALUES[card]
                    scores = _scores(view, values)
                    lead = scores[me] - max(scores[s] for s in others)
                    assert feats[a, 3] == pytest.approx(np.clip(lead / 20, -1, 1), abs=1e-5)
                else:
                    assert feats[a, 3] == 0
            elif a < codec.NO_CHIP:
                suit = a - codec.FIRST_CHIP
                assert feats[a, 0] * 10 == pytest.approx(bot.expected_values(view)[suit],
                                                         abs=1e-4)
                assert feats[a, 2] * 5 == view.chips[me][suit]
                assert feats[a, 5] * 5 == view.supply[suit]
            else:
                assert not feats[a].any()
            checked += 1
        limit = ACTION_FEATURES["moco_actions"].limit
        assert np.abs(feats).max() <= limit
    assert checked > 500


def test_transform_appends_the_features_after_the_scaled_observation():
    _, obs, _ = next(_positions(2))
    batch = np.stack([obs, obs])
    out = transform_observation(batch, "log1p+moco_actions")
    assert out.shape == (2, obs.size + ACTION_FEATURES["moco_actions"].size)
    np.testing.assert_allclose(out[:, :obs.size], np.log1p(batch))
    np.testing.assert_allclose(out[:, obs.size:], moco_actions(batch))
    np.testing.assert_allclose(transform_observation(obs, "log1p+moco_actions"), out[0])
    low, high = transform_bounds("log1p+moco_actions", np.zeros(obs.size), np.ones(obs.size))
    assert low.shape == high.shape == out.shape[1:]


@pytest.mark.parametrize("name", sorted(ACTION_FEATURES))
@pytest.mark.parametrize("scale", ["none", "log1p"])
def test_each_input_is_the_scaled_observation_then_its_features_bit_for_bit(name, scale):
    """The compiled features are written straight into the input's columns: the same bytes as
    the two parts made apart, for a batch, a single observation and a batch of batches."""
    features = ACTION_FEATURES[name]
    vec = loco_envs.make_vec(features.env_id, 5, num_players=2)
    vec.reset(seed=3)
    obs = np.array(vec.obs)
    scaled = obs if scale == "none" else np.log1p(obs)
    expected = np.concatenate([scaled, features.compute(obs)], axis=1)
    inputs = transform_observation(obs, f"{scale}+{name}")
    assert inputs.dtype == np.float32 and inputs.flags.c_contiguous
    np.testing.assert_array_equal(inputs, expected)
    np.testing.assert_array_equal(transform_observation(obs[2], f"{scale}+{name}"), expected[2])
    np.testing.assert_array_equal(
        transform_observation(obs[:4].reshape(2, 2, -1), f"{scale}+{name}"),
        expected[:4].reshape(2, 2, -1))
    into = np.full((5, features.size + 1), 7.0, np.float32)
    assert features.compute(obs, out=into[:, 1:]) is not None
    np.testing.assert_array_equal(into[:, 1:], expected[:, obs.shape[1]:])
    assert (into[:, 0] == 7.0).all()  # nothing written outside the view


@pytest.mark.parametrize("compiled", [True, False])
def test_features_written_into_an_array_of_the_wrong_shape_or_type_are_refused(
        compiled, monkeypatch):
    """On the compiled path and on the Python one (no compiled engine), alike: nothing is
    written past the rows given."""
    from loco_envs.compiled import ENGINES

    features = ACTION_FEATURES["loco_actions"]
    if not compiled:
        monkeypatch.delitem(ENGINES, features.env_id)
    vec = loco_envs.make_vec(features.env_id, 3, num_players=2)
    vec.reset(seed=1)
    obs = np.array(vec.obs)
    into = np.full((4, features.size), 7.0, np.float32)
    np.testing.assert_array_equal(features.compute(obs, out=into[:3]), features.compute(obs))
    assert (into[3] == 7.0).all()
    for bad in (into[:2], into[:3].astype(np.float64), into[:3, 1:], into[None, :3]):
        with pytest.raises(ValueError, match=r"loco_actions features of 3 observations go "
                                             r"into a \(3, \d+\) float32 array"):
            features.compute(obs, out=bad)


def test_features_of_another_game_are_refused_naming_the_transform():
    check_transform("log1p+moco_actions", "moco_v0")
    with pytest.raises(ValueError, match="moco_actions.*moco_v0, not 'loco_v0'"):
        check_transform("log1p+moco_actions", "loco_v0")
    with pytest.raises(ValueError, match="must be one of"):
        check_transform("log1p+nothing", "moco_v0")
    with pytest.raises(ValueError, match="features 'moco_actions' are for moco_v0, not 'momo_v0'"):
        check_transform("log1p+moco_actions", "momo_v0")
    with pytest.raises(ValueError, match=r"config key 'obs_transform'.*loco_v0"):
        from loco_envs.train.ppo import parse_args

        parse_args(["--env-id", "loco_v0", "--obs-transform", "log1p+moco_actions"])


def _feature_policy(seed: int = 0) -> NumpyPolicy:
    rng = np.random.default_rng(seed)
    obs_size = loco_envs.make("moco_v0", wrapped=False, num_players=2).observation_size()
    width = obs_size + ACTION_FEATURES["moco_actions"].size
    return NumpyPolicy([(rng.normal(0, 0.1, (16, width)).astype(np.float32),
                         np.zeros(16, np.float32))],
                       (rng.normal(0, 0.1, (codec.NUM_ACTIONS, 16)).astype(np.float32),
                        np.zeros(codec.NUM_ACTIONS, np.float32)), "tanh", "log1p+moco_actions")


def test_a_policy_with_features_saves_loads_and_plays_from_views(tmp_path):
    policy = _feature_policy()
    env = loco_envs.make("moco_v0", wrapped=False, num_players=2)
    assert policy.observation_size == env.observation_size()
    path = save_policy(tmp_path / "p", policy, {"env_id": "moco_v0",
                                                "env_options": {"num_players": 2}})
    loaded, doc = load_policy(path)
    assert doc["obs_transform"] == "log1p+moco_actions"
    assert loaded.input_size == policy.input_size
    bot = load_bot(path)
    for view, obs, mask in _positions(2, games=1):
        rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
        assert bot.act(view, mask, rng1) == policy.act_observation(obs, mask, rng2, 1.0)
        assert mask[bot.act(view, mask, rng1)]


def test_a_feature_policy_file_for_another_game_is_refused(tmp_path):
    path = save_policy(tmp_path / "p", _feature_policy(), {"env_id": "moco_v0",
                                                           "env_options": {"num_players": 2}})
    json_path = path.with_suffix(".json")
    json_path.write_text(json_path.read_text().replace('"moco_v0"', '"loco_v0"'))
    with pytest.raises(ValueError, match="field 'obs_transform'.*not 'loco_v0'"):
        load_policy(path)


def test_clone_then_ppo_with_features_keeps_the_clones_actor_at_the_start(tmp_path):
    """Behaviour cloning and the trainer both feed the network the features (the warm start
    copies a clone whose first layer is observation + features wide)."""
    pytest.importorskip("torch")
    from loco_envs.train.imitation import BCArgs, run
    from loco_envs.train.ppo import Args, train

    transform = "log1p+moco_actions"
    bc = BCArgs(env_id="moco_v0", num_players=2, teacher="moco/heuristic",
                opponent_mix={"teacher": 1.0}, games=4, dagger_rounds=0, epochs=1,
                batch_size=64, net_arch=[16], workers=1, eval_games=0,
                obs_transform=transform, out=str(tmp_path / "bc"))
    path = run(bc, log=lambda *_: None)
    clone, _ = load_policy(path)
    assert clone.input_size == clone.observation_size + ACTION_FEATURES["moco_actions"].size
    args = Args(env_id="moco_v0", num_players=2, obs_transform=transform, net_arch=[16],
                init_policy=str(path), total_timesteps=64, num_envs=4, num_steps=16,
                batch_size=32, update_epochs=1, learning_rate=1e-12, anneal_lr=False,
                opponent_mix={"random": 1.0, "snapshot": 1.0}, snapshot_every=1,
                final_eval_games=0, checkpoint_every=0, progress_bar=False,
                runs_dir=str(tmp_path))
    result = train(args)
    trained, doc = load_policy(result.checkpoint.with_suffix(".npz"))
    assert doc["obs_transform"] == transform
    obs = np.stack([o for _, o, _ in list(_positions(2, games=1))[:20]])
    np.testing.assert_allclose(trained.logits(obs), clone.logits(obs), atol=1e-3)


# --- LOCO (loco_actions) ------------------------------------------------------------------------
def _loco_positions(num_players: int, games: int = 4, seed: int = 0, cap: int = 400):
    """(view, observation, mask) of the decisions of random LOCO games (each cut at ``cap``)."""
    for env, obs in random_decisions("loco_v0", num_players, games, seed, cap):
        yield env.view(env.game.current_seat), obs["observation"], obs["action_mask"]


def _play(code: str, count: int = 1) -> int:
    return lcodec.play_action(lcards.card_id(code), count)


def _loco_features(view) -> np.ndarray:
    return loco_actions(loco_obs.encode(view)[None])[0].reshape(lcodec.NUM_ACTIONS, LOCO_K)


def _after(view, seat: int, steps: int, direction: int | None = None) -> int:
    for _ in range(steps):
        seat = seat_after(view, seat, direction)
    return seat


def _p_follow(view, idents, seat: int) -> float:
    return LocoStrong.p_holds(LocoStrong.unseen(view), idents, view.hand_sizes[seat])


def _loco_play_facts(view, ident: int, k: int) -> np.ndarray:
    """The table's play row, from the view and the rules, one card at a time."""
    me, size, kind = view.seat, sum(view.hand), lcards.KIND[ident]
    facts = np.zeros(LOCO_K)
    facts[0], facts[2] = k == size, lcards.POINTS[ident] * k / 100
    if k == size:
        return facts  # L-70
    others = len(playing_seats(view)) - 1
    if kind == "S" or (kind == "R" and others == 1):
        nxt = _after(view, me, k + 1)  # L-30, L-31
    elif kind == "R":
        nxt = seat_after(view, me, view.direction * (-1) ** k)
    else:
        nxt = seat_after(view, me)
    hand = list(view.hand)
    hand[ident] -= k
    colours = [lcards.COLOUR[ident]] if lcards.COLOUR[ident] >= 0 else range(4)
    facts[1] = size - k == 1
    facts[4] = min(view.pending + k * (4 if kind == "+4" else 2), 20) / 20 if kind in (
        "+2", "+4") else 0
    facts[5] = min(max(sum(n for i, n in enumerate(hand) if lcards.matches(i, ident, c))
                       for c in colours), 10) / 10
    if nxt != me:
        facts[7] = 1 / (1 + view.hand_sizes[nxt])
        if kind in ("+2", "+4"):
            facts[8] = _p_follow(view, answers(view, ident), nxt)
        else:
            facts[8] = min(_p_follow(view, [i for i in range(lcards.NUM_IDENTITIES)
                                            if lcards.matches(i, ident, c)], nxt) for c in colours)
    facts[6] = nxt == me
    if kind == "X":
        smallest = min(view.hand_sizes[s] for s in playing_seats(view) if s != me)
        facts[9] = np.clip((size - k - smallest) / 10, -1, 1)
    if kind == "O":
        giver = _after(view, me, k, -view.direction)
        received = size - k if giver == me else view.hand_sizes[giver]
        facts[9] = np.clip((size - k - received) / 10, -1, 1)
    facts[10] = min(sum(hand[i] for i in STACKERS), 4) / 4
    facts[11] = LocoStrong.unseen(view)[ident] > 0
    return facts


@pytest.mark.parametrize("num_players", [2, 4])
def test_L10_L43_loco_features_are_the_facts_of_each_play_and_slap(num_players):
    """Every legal play and slap of random games, against the rules applied to the view."""
    checked = 0
    for view, obs, mask in _loco_positions(num_players):
        feats = loco_actions(obs[None])[0].reshape(lcodec.NUM_ACTIONS, LOCO_K)
        plays, slaps = feats[lcodec.PLAY0:lcodec.SLAP0], feats[lcodec.SLAP0:lcodec.DRAW]
        np.testing.assert_array_equal(plays, slaps)
        for a in np.flatnonzero(mask[:lcodec.DRAW]):
            play = a % lcodec.NUM_PLAYS
            ident, count = lcodec.PLAY_IDENT_LIST[play], lcodec.PLAY_COUNT_LIST[play]
            facts = _loco_play_facts(view, ident, count)
            np.testing.assert_allclose(feats[a], facts, atol=1e-5, err_msg=lcodec.action_to_str(a))
            checked += 1
        assert np.abs(feats).max() <= ACTION_FEATURES["loco_actions"].limit
    assert checked > 300


@pytest.mark.parametrize("num_players", [2, 4])
def test_L12_L35_loco_features_of_draws_colours_and_targets_are_the_views_facts(num_players):
    checked = 0
    for view, obs, mask in _loco_positions(num_players, seed=1):
        feats = loco_actions(obs[None])[0].reshape(lcodec.NUM_ACTIONS, LOCO_K)
        size, nxt = sum(view.hand), seat_after(view, view.seat)
        if mask[lcodec.DRAW]:
            reach = view.draw_pile_size + sum(view.discard_counts) - 1
            assert feats[lcodec.DRAW, 3] * 20 == pytest.approx(
                min(view.pending or 1, reach, 20))  # L-13, L-32
            assert feats[lcodec.DRAW, 7] == pytest.approx(1 / (1 + view.hand_sizes[nxt]))
            checked += 1
        for c in np.flatnonzero(mask[lcodec.COLOUR0:lcodec.TARGET0]):
            follows = [i for i in range(lcards.NUM_IDENTITIES) if lcards.matches(i, view.top, c)]
            assert feats[lcodec.COLOUR0 + c, 5] * 10 == pytest.approx(
                min(sum(view.hand[i] for i in follows), 10))
            assert feats[lcodec.COLOUR0 + c, 8] == pytest.approx(_p_follow(view, follows, nxt),
                                                             abs=1e-5)
            checked += 1
        for d in np.flatnonzero(mask[lcodec.TARGET0:lcodec.LOCO]) + 1:
            target = view.hand_sizes[(view.seat + d) % num_players]
            assert feats[lcodec.TARGET0 + d - 1, 9] == pytest.approx(
                np.clip((size - target) / 10, -1, 1))
            assert feats[lcodec.TARGET0 + d - 1, 7] == pytest.approx(1 / (1 + target))
            checked += 1
    assert checked > 100


def _loco_view(num_players: int, hand: dict[str, int], sizes: list[int], top: str = "r5",
               **fields):
    """A view of seat 0 at its turn, its hand and the others' sizes as given."""
    env = loco_envs.make("loco_v0", wrapped=False, num_players=num_players)
    env.reset(seed=0)
    counts = [0] * lcards.NUM_IDENTITIES
    for code, n in hand.items():
        counts[lcards.card_id(code)] = n
    discard = [0] * lcards.NUM_IDENTITIES
    discard[lcards.card_id(top)] = 1
    view = replace(env.view(0), seat=0, phase="turn", actor=0, turn_seat=0, hand=tuple(counts),
                   hand_sizes=(sum(counts), *sizes), top=lcards.card_id(top), colour=0,
                   direction=1, pending=0, pending_kind=None, drawn=None,
                   discard_counts=tuple(discard), draw_pile_size=50)
    return replace(view, **fields)


def test_L30_L31_with_two_players_an_odd_number_of_skips_or_reverses_gives_the_turn_back():
    view = _loco_view(2, {"rS": 2, "rR": 2, "y7": 1}, [4])
    feats = _loco_features(view)
    for code in ("rS", "rR"):
        one, two = (feats[_play(code, k)] for k in (1, 2))
        assert one[6] == 1 and one[7] == 0 and one[8] == 0
        assert two[6] == 0 and two[7] == pytest.approx(1 / 5)
    assert feats[_play("rS", 1), 2] == pytest.approx(0.2)


def test_L30_L31_with_four_players_skips_pass_seats_and_a_reverse_turns_back():
    view = _loco_view(4, {"rS": 2, "rR": 1, "r3": 1, "b9": 1}, [3, 5, 2])
    feats = _loco_features(view)
    assert feats[_play("r3"), 7] == pytest.approx(1 / 4)  # seat 1
    assert feats[_play("rS", 1), 7] == pytest.approx(1 / 6)  # seat 2
    assert feats[_play("rS", 2), 7] == pytest.approx(1 / 3)  # seat 3
    assert feats[_play("rR"), 7] == pytest.approx(1 / 3)  # seat 3
    left = replace(view, direction=-1)
    assert _loco_features(left)[_play("rR"), 7] == pytest.approx(1 / 4)
    gone = replace(view, in_round=(True, True, False, True))  # seat 2 is stepped over
    assert _loco_features(gone)[_play("rS", 1), 7] == pytest.approx(1 / 3)
    assert _loco_features(gone)[_play("rS", 2), 6] == 1  # k + 1 = 3 seats


def test_L20_L32_stacked_penalties_grow_and_the_answers_left_are_counted():
    view = _loco_view(2, {"r+2": 2, "y+2": 1, "+4": 1, "g1": 1}, [6], top="b+2", colour=3,
                      pending=2, pending_kind="+2")
    feats = _loco_features(view)
    two = feats[_play("r+2", 2)]
    assert two[4] == pytest.approx((2 + 4) / 20)
    assert two[10] == pytest.approx(2 / 4)  # y+2 and +4 stay
    assert feats[lcodec.DRAW, 3] == pytest.approx(2 / 20)
    assert feats[lcodec.DRAW, 10] == 1


def test_L70_L50_the_last_card_has_no_effect_and_the_second_last_owes_a_call():
    view = _loco_view(2, {"r+2": 1}, [1])
    feats = _loco_features(view)[_play("r+2")]
    assert feats[0] == 1 and feats[2] == pytest.approx(0.3)
    assert not np.delete(feats, [0, 2]).any()
    view = _loco_view(2, {"r9": 1, "g3": 1}, [5])
    feats = _loco_features(view)[_play("r9")]
    assert feats[0] == 0 and feats[1] == 1 and feats[5] == 0  # g3 cannot follow r9 in red


def test_L13_a_draw_hands_over_what_the_piles_hold():
    discard = [0] * lcards.NUM_IDENTITIES
    discard[lcards.card_id("r5")], discard[lcards.card_id("r6")] = 1, 2
    view = _loco_view(2, {"g1": 1, "g2": 1}, [3], pending=4, pending_kind="+4", top="+4",
                      draw_pile_size=0, discard_counts=tuple(discard))
    assert _loco_features(view)[lcodec.DRAW, 3] == pytest.approx(2 / 20)  # 3 cards less the top


def test_L35_L36_swap_and_rotation_compare_the_hand_received():
    view = _loco_view(4, {"rX": 1, "O": 1, "r1": 2, "g1": 2}, [2, 6, 9])
    feats = _loco_features(view)
    assert feats[_play("rX"), 9] == pytest.approx((6 - 1 - 2) / 10)
    # one Rotation, clockwise: the hand of the seat before me (seat 3, 9 cards) comes to me
    assert feats[_play("O"), 9] == pytest.approx((6 - 1 - 9) / 10)
    target = _loco_view(4, {"r1": 2, "g1": 2}, [2, 6, 1], phase="target", swaps_left=1)
    feats = _loco_features(target)
    assert feats[lcodec.TARGET0:lcodec.TARGET0 + 3, 9] == pytest.approx([0.2, -0.2, 0.3])
    assert list(feats[lcodec.TARGET0:lcodec.TARGET0 + 3, 1]) == [0, 0, 1]
    assert not feats[lcodec.TARGET0 + 3:lcodec.LOCO].any()  # no seats that far round


def test_L52_calls_and_shouts_price_the_cards_at_stake():
    view = _loco_view(2, {"r1": 1}, [4], phase="call")
    feats = _loco_features(view)
    assert feats[lcodec.LOCO, 1] == feats[lcodec.SILENT, 1] == 1
    assert feats[lcodec.SILENT, 3] == pytest.approx(2 / 20)
    silent = _loco_features(_loco_view(2, {"r1": 3}, [1], phase="contre"))
    announced = _loco_features(_loco_view(2, {"r1": 3}, [1], phase="contre",
                                          contre_announced=True))
    assert (silent[lcodec.CONTRE, 3], silent[lcodec.CONTRE, 4]) == (0, pytest.approx(2 / 20))
    assert (announced[lcodec.CONTRE, 3], announced[lcodec.CONTRE, 4]) == (pytest.approx(1 / 20), 0)


@pytest.mark.parametrize("num_players", range(2, 11))
def test_L01_loco_features_have_one_size_for_every_player_count(num_players):
    env = loco_envs.make("loco_v0", wrapped=False, num_players=num_players)
    low, high = loco_obs.bounds(num_players)
    for obs in (low, high):  # the extremes of every entry stay within the limit
        feats = loco_actions(obs[None])
        assert feats.shape == (1, ACTION_FEATURES["loco_actions"].size)
        assert np.isfinite(feats).all()
        assert np.abs(feats).max() <= ACTION_FEATURES["loco_actions"].limit
    assert low.size == env.observation_size()


def test_loco_features_refuse_an_observation_of_another_size():
    with pytest.raises(ValueError, match=r"loco_actions: observations of size 271.*2-10 players"):
        loco_actions(np.zeros((1, 271), np.float32))


def test_a_loco_policy_with_features_saves_loads_and_plays_with_numpy(tmp_path):
    transform = "log1p+loco_actions"
    env = loco_envs.make("loco_v0", wrapped=False, num_players=2)
    rng = np.random.default_rng(0)
    width = env.observation_size() + ACTION_FEATURES["loco_actions"].size
    policy = NumpyPolicy([(rng.normal(0, 0.1, (16, width)).astype(np.float32),
                           np.zeros(16, np.float32))],
                         (rng.normal(0, 0.1, (lcodec.NUM_ACTIONS, 16)).astype(np.float32),
                          np.zeros(lcodec.NUM_ACTIONS, np.float32)), "tanh", transform)
    assert policy.observation_size == env.observation_size()
    path = save_policy(tmp_path / "p", policy, {"env_id": "loco_v0",
                                                "env_options": {"num_players": 2}})
    loaded, doc = load_policy(path)
    assert doc["obs_transform"] == transform
    bot = load_bot(path)
    positions = list(_loco_positions(2, games=1, cap=200))
    for view, obs, mask in positions:
        rng1, rng2 = np.random.default_rng(1), np.random.default_rng(1)
        action = bot.act(view, mask, rng1)
        assert action == loaded.act_observation(obs, mask, rng2, 1.0) and mask[action]
    obs = np.stack([o for _, o, _ in positions])
    np.testing.assert_allclose(loaded.logits(obs), policy.logits(obs), atol=1e-6)
    check_transform(transform, "loco_v0")
    with pytest.raises(ValueError, match="loco_actions.*loco_v0, not 'moco_v0'"):
        check_transform(transform, "moco_v0")
