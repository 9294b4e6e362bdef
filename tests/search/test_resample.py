"""``game.resample(seat, rng)`` and ``game.clone()`` on every game (shared/API.md, Search)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

import loco_envs
from loco_envs.loco import cards as LC
from loco_envs.loco.rules import LocoGame
from loco_envs.loco.state import position
from tests.search.helpers import CASES, case_id, positions


def _check_resamples(game, rng) -> None:
    before = game.state_dict()
    for seat in range(game.num_players):
        view = game.view(seat)
        new = game.resample(seat, rng)
        assert new.view(seat) == view
        assert new is not game
        if not game.terminal:
            assert new.legal_mask().any()
            legal = np.flatnonzero(new.legal_mask())
            new.apply(int(legal[rng.integers(legal.size)]))  # a resampled game plays on
    assert game.state_dict() == before  # the original is unchanged


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_resample_keeps_the_view_of_every_seat(case):
    """Random positions (about 5,000 resamples over all cases): view equal, original kept."""
    env_id, n, opts = case
    rng = np.random.default_rng(1)
    count = max(20, 240 // n) if env_id == "loco_v0" else max(15, 120 // n)
    for game in positions(env_id, n, opts, count):
        _check_resamples(game, rng)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_resample_keeps_the_view_many_positions(case):
    env_id, n, opts = case
    rng = np.random.default_rng(2)
    for game in positions(env_id, n, opts, 1500 // n, seed=7, max_steps=2000):
        _check_resamples(game, rng)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_clone_is_independent_and_replays_alike(case):
    env_id, n, opts = case
    rng = np.random.default_rng(3)
    for game in positions(env_id, n, opts, 30):
        before = game.state_dict()
        twin = game.clone()
        assert twin.state_dict() == before
        other = game.clone()
        for _ in range(25):  # the same actions give the same chance: the rng is copied
            if twin.terminal:
                break
            legal = np.flatnonzero(twin.legal_mask())
            a = int(legal[rng.integers(legal.size)])
            twin.apply(a)
            other.apply(a)
        assert twin.state_dict() == other.state_dict()
        assert game.state_dict() == before


@pytest.mark.parametrize("env_id,n", [("loco_v0", 2), ("moco_v0", 3), ("momo_v0", 2),
                                      ("mampfos_v0", 3)])
@pytest.mark.parametrize("seat", [-1, 5, 99, True, "0"])
def test_resample_seat_out_of_range_is_a_value_error(env_id, n, seat):
    env = loco_envs.make(env_id, wrapped=False, num_players=n)
    env.reset(seed=0)
    if seat == 5 and n > 5:
        seat = n
    with pytest.raises(ValueError, match="seat"):
        env.game.resample(seat, np.random.default_rng(0))


# --------------------------------------------------------------------------- every place
def _loco_game(state: dict, n: int) -> LocoGame:
    return LocoGame.from_state_dict(state, np.random.default_rng(0), {"num_players": n})


def test_loco_every_hidden_card_goes_everywhere_it_could():
    """L-01: each identity the seat cannot see is dealt to each other hand and the draw pile."""
    env = loco_envs.make("loco_v0", wrapped=False, num_players=3)
    env.reset(seed=4)
    game, rng = env.game, np.random.default_rng(0)
    unseen = LC.FULL_DECK_COUNTS - game.hands[0] - game.discard_counts
    places = {1: Counter(), 2: Counter(), "pile": Counter()}
    for _ in range(600):
        new = game.resample(0, rng)
        for t in (1, 2):
            places[t].update(np.flatnonzero(new.hands[t]).tolist())
        places["pile"].update(new.draw_pile)
    for place, seen in places.items():
        assert set(seen) == set(np.flatnonzero(unseen).tolist()), place


def test_moco_every_unseen_card_goes_to_every_hand_and_the_removed():
    """M-03: the removed cards and the other hands are dealt from the same unseen cards."""
    env = loco_envs.make("moco_v0", wrapped=False, num_players=4)
    env.reset(seed=2)
    game, rng = env.game, np.random.default_rng(0)
    unseen = set().union(*game._hands[1:], game._removed)
    places = {t: set() for t in (1, 2, 3)} | {"removed": set()}
    for _ in range(500):
        new = game.resample(0, rng)
        for t in (1, 2, 3):
            places[t] |= new._hands[t]
        places["removed"] |= set(new._removed)
    assert all(seen == unseen for seen in places.values())


def test_momo_every_bag_token_can_come_next():
    """K-01: the bag's order is hidden; its contents are known."""
    env = loco_envs.make("momo_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    game, rng = env.game, np.random.default_rng(0)
    nxt = {game.resample(0, rng).bag[-1] for _ in range(400)}
    assert nxt == set(game.bag)
    assert Counter(game.resample(1, rng).bag) == Counter(game.bag)


def test_mampfos_secret_wheels_are_redrawn_own_kept():
    """P-12: millwheels set by others stay secret until all are set; one's own is known."""
    env = loco_envs.make("mampfos_v0", wrapped=False, num_players=3)
    env.reset(seed=0)
    game, rng = env.game, np.random.default_rng(0)
    while game.phase != 2 or game.wheel_count < 2:  # PH_WHEEL, two wheels set
        legal = np.flatnonzero(game.legal_mask())
        game.apply(int(legal[rng.integers(legal.size)]))
    setters = [s for s, w in enumerate(game.wheels) if w >= 0]
    me = setters[0]
    other = setters[1]
    seen = {game.resample(me, rng).wheels[other] for _ in range(200)}
    assert seen == set(range(5))
    assert all(game.resample(me, rng).wheels[me] == game.wheels[me] for _ in range(20))
    waiting = game.current_seat
    for _ in range(50):
        new = game.resample(waiting, rng)
        assert new.view(waiting) == game.view(waiting)
        assert all(w >= 0 for s, w in enumerate(new.wheels) if s in setters)


# --------------------------------------------------------------------------- LOCO knowledge
def _slap_window_state() -> dict:
    """L-41: seat 0 played a Wild; holders 1, 3, 0 are asked in that order; 1 has slapped."""
    return position(
        [["W", "g1", "g2"], ["W", "b3", "b4"], ["y1", "y2", "y3"], ["W", "g7", "g8"]],
        ["r3", "W"], phase="slap", actor=3, turn_seat=1, lander=0, colour="g",
        window={"kind": "slap", "to_decide": [3, 0], "choices": {"1": 1}})


def test_L41_resample_mid_slap_window_each_seat():
    """Deciding (3), decided (1), waiting (0) and not asked (2): views equal, own choice kept,
    the others' choices redrawn."""
    game, rng = _loco_game(_slap_window_state(), 4), np.random.default_rng(0)
    turn_states = 0
    for seat in range(4):
        for _ in range(150):
            new = game.resample(seat, rng)
            assert new.view(seat) == game.view(seat)
            if seat == 1:
                assert new.window_choices.get(1) == 1
            if seat == 2 and new.phase != 7:  # nobody holds a Wild any more: a plain turn
                turn_states += 1
            if new.phase == 7:
                top = new.discard[-1]
                assert all(new.hands[s][top] >= 1 for s in new.window_to_decide)
                assert all(0 <= k <= new.hands[s][top] for s, k in new.window_choices.items())
    assert turn_states > 0


def test_L52_resample_mid_contre_window_redraws_shouts():
    """L-52/L-53: seat 2 has shouted (hidden); seat 3 decides; seat 0 is still to answer."""
    state = position(
        [["g1", "g2", "g3"], ["b9"], ["y1", "y2"], ["r1", "r2"]], ["r3", "b5"],
        phase="contre", actor=3, turn_seat=2, lander=1, colour="b",
        calls=["none", "silent", "none", "none"], contre_queue=[[1, False]],
        window={"kind": "contre", "to_decide": [3, 0], "choices": {"2": 1}},
        slap_window_due=True)
    game, rng = _loco_game(state, 4), np.random.default_rng(0)
    shouts = Counter()
    for seat in range(4):
        for _ in range(100):
            new = game.resample(seat, rng)
            assert new.view(seat) == game.view(seat)
            if seat == 2:
                assert new.window_choices[2] == 1
            else:
                shouts[new.window_choices[2]] += 1
    assert set(shouts) == {0, 1}


def test_L35_a_swap_teaches_both_seats_the_hand_they_gave():
    """L-35: after seat 0 swaps with seat 1, seat 0 knows seat 1 holds its old hand."""
    state = position([["rX", "g1", "g2", "b7"], ["y1", "y2"], ["y5", "y6", "y7"]], ["r3"])
    game, rng = _loco_game(state, 3), np.random.default_rng(0)
    game.apply(game.str_to_action("play rX x1"))
    game.apply(next(a for a in game.legal_actions()
                    if game.action_to_str(a).endswith("+1")))  # the next seat, seat 1
    assert sorted(game.state_dict()["hands"][1]) == ["b7", "g1", "g2"]
    for _ in range(50):
        assert sorted(LC.CODES[i] for i in np.repeat(np.arange(55), game.resample(0, rng)
                                                     .hands[1])) == ["b7", "g1", "g2"]
        new = game.resample(1, rng)  # seat 1 knows seat 0 holds its old hand
        assert sorted(LC.CODES[i] for i in np.repeat(np.arange(55), new.hands[0])) == \
            ["y1", "y2"]
    third = {tuple(game.resample(2, rng).hands[1].tolist()) for _ in range(20)}
    assert len(third) > 1  # seat 2 saw nothing of it


def test_L36_a_rotation_teaches_every_seat_the_hand_it_passed_on():
    """L-36: every hand moves one seat on; each seat knows where its old hand went."""
    state = position([["O", "g1", "g2"], ["y1", "y2", "b4"], ["y5", "y6", "y7"]], ["r3"])
    game, rng = _loco_game(state, 3), np.random.default_rng(0)
    game.apply(game.str_to_action("play O x1"))
    game.apply(game.str_to_action("colour g"))
    hands = game.state_dict()["hands"]
    for seat in range(3):
        dest = (seat + 1) % 3
        for _ in range(20):
            new = game.resample(seat, rng)
            got = sorted(LC.CODES[i] for i in np.repeat(np.arange(55), new.hands[dest]))
            assert got == sorted(hands[dest])
            assert new.view(seat) == game.view(seat)


def test_L13_after_a_reshuffle_the_pile_is_dealt_from_the_reshuffled_cards():
    """L-13: the reshuffled draw pile is the discard pile less its top, in public."""
    discard = ["r1", "r2", "r3", "r4", "g4"]
    state = position([["g1", "g2"], ["b1", "b2"]], discard)
    deck = [c for c in state["draw_pile"]]
    state["hands"][1] += deck  # everything else in seat 1's hand: the draw pile is empty
    state["draw_pile"] = []
    game, rng = _loco_game(state, 2), np.random.default_rng(0)
    game.apply(game.str_to_action("draw"))  # reshuffles r1..r4, seat 0 draws one
    assert len(game.draw_pile) == 3
    for _ in range(50):
        new = game.resample(1, rng)
        assert set(LC.CODES[c] for c in new.draw_pile) <= {"r1", "r2", "r3", "r4"}
        assert new.view(1) == game.view(1)
