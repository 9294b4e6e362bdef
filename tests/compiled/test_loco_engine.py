"""LOCO's compiled engine is its Python engine, decision for decision (L-01 … L-73).

Two harnesses compare the engines at every decision: the state dicts (hands, piles, queues,
windows, scores: hidden cards included), the generators' states and the masks, and at the end
the ranks and scores. :func:`~loco_envs.compiled.differential.differential_play` plays whole
games from a seed; :func:`_play_both` starts from a position (a state dict, built with
:func:`loco_envs.loco.state.position`), plays a script of actions and ``timeout`` calls, then
goes on at random, calling the clock at random decisions too, to reach the rare paths: reshuffles
(L-13), empty piles, Contre-LOCO windows (L-52), a slap by the turn seat (L-41/L-42), Swaps one
after another (L-35, L-54), Rotation over seats that left (L-36, L-61), decisive rounds (L-73)
and the fourth timeout (L-61).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from loco_envs.compiled import rng as R
from loco_envs.compiled.differential import differential_play
from loco_envs.loco import actions as A
from loco_envs.loco.compiled import engine, state
from loco_envs.loco.rules import LocoGame
from loco_envs.loco.state import position

NUM_ACTIONS = LocoGame.NUM_ACTIONS

# Every option in the sample: rounds 1/3/5/7, both photo finishes, both stackings, timeout
# rates 0, one rate for all, and per-seat rates high enough that seats leave (L-61).
OPTIONS = [
    {"num_players": 2},
    {"num_players": 2, "stacking": "identical", "photo_finish": "seat"},
    {"num_players": 3, "rounds": 3, "timeout_rate": 0.1},
    {"num_players": 4, "photo_finish": "seat", "rounds": 5},
    {"num_players": 5, "stacking": "identical", "timeout_rate": [0.95, 0.0, 0.6, 0.0, 0.0]},
    {"num_players": 6, "rounds": 7, "photo_finish": "seat", "timeout_rate": 0.05},
    {"num_players": 7, "stacking": "identical", "rounds": 3},
    {"num_players": 8, "timeout_rate": [0.9, 0.9, 0.0, 0.9, 0.0, 0.0, 0.9, 0.0]},
    {"num_players": 9, "photo_finish": "seat", "stacking": "identical", "rounds": 5},
    {"num_players": 10, "timeout_rate": 0.02, "rounds": 3},
    {"num_players": 10, "timeout_rate": [0.97] * 9 + [0.0]},  # all but one seat leave
]


def _ids(options: dict) -> str:
    parts = [f"{options['num_players']}p"]
    if options.get("rounds", 1) > 1:
        parts.append(f"r{options['rounds']}")
    if options.get("photo_finish") == "seat":
        parts.append("seat")
    if options.get("stacking") == "identical":
        parts.append("identical")
    rate = options.get("timeout_rate", 0)
    if isinstance(rate, list):
        parts.append("rates")
    elif rate:
        parts.append(f"t{rate}")
    return "-".join(parts)


@pytest.mark.parametrize("options", OPTIONS, ids=_ids)
def test_differential_sample(options):
    """L-01 … L-73 on both engines from a seed, two games per option (a few thousand
    decisions in all: games are cut at 600 decisions)."""
    decisions = sum(differential_play("loco_v0", options, seed, policy_seed=seed + 7,
                                      observers="none", max_steps=600) for seed in (1, 2))
    assert decisions > 10


# ------------------------------------------------------------------ the slow million
def _combos(n: int) -> list[dict]:
    """Every option for ``n`` players: rounds x photo finish x stacking x timeout rates (none,
    one rate for all, per-seat rates with seats that leave by the fourth timeout)."""
    rates = [0.0, 0.03, [0.9 if seat % 3 == 1 else 0.0 for seat in range(n)],
             [0.97 if seat else 0.2 for seat in range(n)]]
    return [{"num_players": n, "rounds": rounds, "photo_finish": photo, "stacking": stacking,
             "timeout_rate": rate}
            for rounds in (1, 3, 5, 7) for photo in ("random", "seat")
            for stacking in ("any", "identical") for rate in rates]


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(2))
@pytest.mark.parametrize("n", range(2, 11))
def test_differential_million(n, chunk):
    """At least 1M decisions: 9 player counts x 2 chunks of >= 56,000, whole games; the two
    chunks of a player count share its 64 option combinations (in a seeded order) and play each
    of theirs at least once."""
    combos = _combos(n)
    mine = np.random.default_rng(n).permutation(len(combos))[chunk::2]
    decisions, k = 0, 0
    while decisions < 56_000 or k < len(mine):
        options = combos[mine[k % len(mine)]]
        seed = 10_000 * n + 1_000 * chunk + k
        decisions += differential_play("loco_v0", options, seed, policy_seed=seed,
                                       observers="none")
        k += 1


# ------------------------------------------------------------------ positions
def _rng_words(rng: np.random.Generator) -> list[int]:
    words = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(rng, words)
    return words.tolist()


def _play_both(data: dict, options: dict | None = None, *, script: tuple[str, ...] = (),
               policy_seed: int = 0, max_steps: int = 400, timeouts: float = 0.05,
               seed: int = 3, check_is_legal: bool = False) -> LocoGame:
    """Both engines from the state dict ``data``: ``script`` (action strings, or
    ``"timeout"``) first, then random actions with a ``timeouts`` chance of a clock call
    instead. Compares everything at every decision; returns the Python game at the end."""
    options = {"num_players": len(data["hands"]), **(options or {})}
    game = LocoGame.from_state_dict(data, np.random.default_rng(seed), options)
    cfg = state.config(options | {"rounds": data["rounds"]})
    s = state.allocate(3, cfg)
    row = 2
    state.write_game(s, row, game)
    policy = np.random.default_rng(policy_seed)
    script = list(script)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    n = game.num_players
    limit = max_steps + len(script) + 1
    for step in range(limit):
        where = f"decision {step} of {data} {options}"
        assert state.state_dict(s, row, cfg) == game.state_dict(), where
        assert s.rng[row].tolist() == _rng_words(game.rng), where
        if game.terminal:
            ranks, scores = np.zeros(n, np.int64), np.zeros(n)
            engine.final_ranks(s, cfg, row, ranks)
            engine.final_scores(s, cfg, row, scores)
            assert ranks.tolist() == game.final_ranks()
            assert scores.tolist() == game.final_scores()
            assert not script, f"the game ended before the script: {script}"
            engine.legal_mask(s, cfg, row, mask)
            assert not mask.any() and not game.legal_mask().any()
            assert not any(engine.is_legal(s, cfg, row, a) for a in range(NUM_ACTIONS))
            with pytest.raises(ValueError, match="L-72"):
                engine.timeout(s, cfg, row)
            break
        assert step < limit - 1 or not script, "the script is longer than the game"
        if step == limit - 1:
            break
        engine.legal_mask(s, cfg, row, mask)
        assert np.array_equal(mask, game.legal_mask()), where
        if check_is_legal:
            legal = [engine.is_legal(s, cfg, row, a) for a in range(-1, NUM_ACTIONS + 1)]
            assert legal == [False] + [bool(m) for m in mask] + [False], where
        if script:
            text = script.pop(0)
            if text == "timeout":
                game.timeout()
                engine.timeout(s, cfg, row)
                continue
            action = A.str_to_action(text)
            assert mask[action], f"scripted {text!r} is not legal: {where}"
        elif policy.random() < timeouts:
            game.timeout()
            engine.timeout(s, cfg, row)
            continue
        else:
            action = int(policy.choice(np.flatnonzero(mask)))
        game.apply(action)
        engine.play(s, cfg, row, action)
    return game


def _empty_draw_pile(data: dict) -> dict:
    """L-13's position: every draw-pile card under the discard pile's top card."""
    data["discard"] = data["draw_pile"] + data["discard"]
    data["draw_pile"] = []
    return data


@pytest.mark.parametrize("policy_seed", range(3))
def test_L13_a_draw_reshuffles_the_discard_pile_under_its_top(policy_seed):
    data = _empty_draw_pile(position([["r5", "g2"], ["b7", "y3", "y4"], ["g8", "g9"]], ["r3"]))
    game = _play_both(data, script=("draw",), max_steps=0)
    assert len(game.discard) == 1 and len(game.draw_pile) == 112 - 7 - 1 - 1
    _play_both(data, script=("draw",), policy_seed=policy_seed, max_steps=200)


@pytest.mark.parametrize("stacking", ["any", "identical"])
def test_L13_a_penalty_reshuffles_in_the_middle_of_its_draw(stacking):
    data = position([["r5", "g2", "r+2"], ["b7", "y3"], ["g8", "g9", "b+2"]],
                    ["r3", "y+2", "+4", "+4"], pending=8, pending_kind="+4", colour="b",
                    actor=1, turn_seat=1, lander=0)
    extra = data["draw_pile"][:-3]  # three cards left to draw: the penalty needs a reshuffle
    data["draw_pile"] = data["draw_pile"][-3:]
    data["discard"] = extra + data["discard"]
    _play_both(data, {"stacking": stacking}, script=("draw", "pass"), max_steps=200)


def _everything_in_hands(hands: list[list[str]], discard: list[str], **fields) -> dict:
    """A position whose draw pile is empty and whose discard pile is its top card only: every
    other card is dealt round the hands."""
    data = position(hands, discard, **fields)
    rest, data["draw_pile"] = data["draw_pile"], []
    for k, code in enumerate(rest):
        data["hands"][k % len(hands)].append(code)
    data["calls"] = ["none"] * len(hands)
    return data


def test_L13_an_empty_draw_and_discard_pile_give_nothing():
    """A normal draw that gives nothing leaves the pass; a penalty draw that gives nothing is
    settled by what the piles gave (nothing) and its victim plays or passes."""
    data = _everything_in_hands([[], []], ["r3"])
    game = _play_both(data, script=("draw",), max_steps=0)
    assert game.drawn is None and game.legal_actions() == [A.PASS]
    data = _everything_in_hands([[], [], []], ["g+2"], pending=2, pending_kind="+2",
                                colour="g", lander=2)
    game = _play_both(data, script=("draw",), max_steps=0)
    assert game.phase == 2 and game.pending == 0  # after_penalty: play or pass
    _play_both(data, script=("draw",), max_steps=300, check_is_legal=True)


@pytest.mark.parametrize("calls, sizes", [
    (("silent", "contre", "pass", "contre"), [3, 3, 2, 2]),
    (("silent", "pass", "pass", "pass"), [1, 3, 2, 2]),
    (("loco", "contre", "contre", "pass"), [1, 4, 3, 2]),
    (("loco", "pass", "contre", "contre"), [1, 3, 3, 3]),
])
def test_L52_contre_loco_windows(calls, sizes):
    """A silent caller draws 2 once when any opponent shouts; after an announcement each
    shouter draws 1, clockwise from the card's player."""
    data = position([["r5", "r7"], ["r9", "b1", "b2"], ["y5", "g5"], ["r1", "b5"]], ["r3"])
    game = _play_both(data, script=("play r5", *calls), max_steps=0, check_is_legal=True)
    assert game.hand_sizes == sizes
    _play_both(data, script=("play r5", *calls), max_steps=150)


def test_L52_a_contre_window_is_skipped_when_its_caller_no_longer_holds_one_card():
    """L-36/L-54: a Rotation leaves seats 1 and 2 at one card; in seat 1's window seat 2
    shouts against an announcement and draws, so seat 2's own window is skipped."""
    data = position([["O", "r5"], ["b3"], ["y1", "y2"]], ["r3"], draw_top=["g7"])
    game = _play_both(data, script=("play O", "colour r", "loco", "silent", "contre", "pass"),
                      max_steps=0)
    assert game.hand_sizes == [2, 1, 2] and game.phase == 0  # the turn, no window for seat 2


@pytest.mark.parametrize("photo_finish", ["random", "seat"])
@pytest.mark.parametrize("slaps", [("slap W", "slap W"), ("slap W", "pass"), ("pass", "slap W"),
                                   ("slap W", "slap W x2")])
def test_L41_the_turn_seat_races_for_the_card(photo_finish, slaps):
    """Seat 1, whose turn it now is, and seat 2 hold a Wild like the one seat 0 played: both
    are asked (L-41), the race is drawn or goes to seat 1 (L-42), the winner names the colour
    again (L-43)."""
    data = position([["W", "g2", "g3"], ["W", "b7", "b8"], ["y1", "W", "W"]], ["r3"])
    for seed in range(3):
        _play_both(data, {"photo_finish": photo_finish}, script=("play W", "colour g", *slaps),
                   policy_seed=seed, seed=seed, max_steps=150)


def test_L41_the_turn_seat_alone_holds_the_card():
    data = position([["r5", "g2", "g3"], ["r5", "b7", "b8"], ["y1", "y2", "b4"]], ["r3"])
    for slap in ("slap r5", "pass", "timeout"):
        _play_both(data, script=("play r5", slap), max_steps=100)


@pytest.mark.parametrize("lander", [0, -1])
def test_L41_a_window_after_a_card_whose_player_is_not_playing(lander):
    """Only a state dict makes it: the window's order is ``_clockwise_after`` of a seat that
    does not play (it has left), or of no seat (-1: Python's last seat)."""
    data = position([[], ["W"], ["W", "g2"]], ["r3", "W"], colour="g", phase="call", actor=1,
                    turn_seat=1, lander=lander, call_queue=[1], slap_window_due=True,
                    calls=["none", "owed", "none"], active=[False, True, True],
                    timeouts=[4, 0, 0])
    for photo_finish in ("random", "seat"):
        game = _play_both(data, {"photo_finish": photo_finish}, script=("loco", "pass"),
                          max_steps=0)
        assert game.window_to_decide == ([2, 1] if lander == 0 else [1, 2])
        _play_both(data, {"photo_finish": photo_finish}, script=("loco", "pass", "slap W"),
                   max_steps=100)


def test_L42_a_race_against_the_direction_of_play():
    """Direction -1: the turn seat (3) is asked after seat 1 (windows go clockwise), yet
    with ``photo_finish="seat"`` it wins, being nearest after the card's player in play."""
    data = position([["W", "g2", "g3"], ["W", "b7", "b8"], ["y1", "y2", "b4"],
                     ["y7", "W", "b5"]], ["r3"], direction=-1)
    for photo_finish in ("random", "seat"):
        for seed in range(4):
            game = _play_both(data, {"photo_finish": photo_finish}, seed=seed,
                              script=("play W", "colour b", "slap W", "slap W"), max_steps=0)
            if photo_finish == "seat":
                assert game.current_seat == 3 and game.lander == 3
            _play_both(data, {"photo_finish": photo_finish}, seed=seed,
                       script=("play W", "colour b", "slap W", "slap W"), max_steps=100)


def test_L35_swaps_one_after_another():
    """Three Swaps in a row (matched by kind); the third leaves its player's target at one
    card, who owes a call (L-54)."""
    data = position([["rX", "yX", "r5"], ["gX", "r7", "y3"], ["bX", "g2", "g3"], ["r1", "b1"]],
                    ["r3"])
    script = ("play rX", "target +2", "play gX", "target +3", "play yX", "target +1", "loco")
    for policy_seed in range(3):
        _play_both(data, script=script, policy_seed=policy_seed, max_steps=150)
    for policy_seed in range(3):  # the clock names the next seat
        _play_both(data, script=("play rX", "timeout", "play yX", "timeout"),
                   policy_seed=policy_seed, max_steps=150)


@pytest.mark.parametrize("direction", [1, -1])
def test_L36_rotation_steps_over_seats_that_left(direction):
    data = position([["O", "O", "r5", "b2"], [], ["b1", "b2"], [], ["g1", "+4"]], ["r3"],
                    active=[True, False, True, False, True], direction=direction,
                    timeouts=[0, 4, 0, 4, 0])
    for policy_seed in range(3):
        _play_both(data, script=("play O x2", "colour g"), policy_seed=policy_seed,
                   max_steps=200)
        _play_both(data, script=("play O", "timeout"), policy_seed=policy_seed, max_steps=200)


def _tie_at_the_top(**fields) -> dict:
    """Seat 0 plays its last card and ties seat 1 at the top (points, rounds won, left-over
    points): L-73's decisive round between them, seat 2 out of it."""
    return position([["r5"], ["b7", "y9"], ["g2", "g4"]], ["r3"], scores=[0, 22, 0],
                    rounds_won=[0, 1, 0], leftover=[16, 0, 0], **fields)


@pytest.mark.parametrize("options", [{}, {"photo_finish": "seat", "stacking": "identical"},
                                     {"timeout_rate": [0.9, 0.0, 0.0]},
                                     {"timeout_rate": [0.0, 0.8, 0.9]}])
def test_L73_a_tie_at_the_top_plays_a_decisive_round(options):
    for policy_seed in range(3):
        game = _play_both(_tie_at_the_top(), options, script=("play r5",),
                          policy_seed=policy_seed, max_steps=3000, timeouts=0.0)
        assert game.terminal and game.decider and game.round == 2


def test_L73_a_decisive_round_in_a_longer_match_and_rotation_within_it():
    data = _tie_at_the_top(rounds=3, round=3)
    game = _play_both(data, script=("play r5",), max_steps=0)
    assert game.in_round == [True, True, False] and game.decider
    data = position([["O", "r5", "b5"], ["b7", "y9"], []], ["r3"], rounds=3, round=4,
                    decider=True, in_round=[True, True, False], scores=[50, 50, 10])
    _play_both(data, script=("play O", "colour y"), max_steps=2000)


def test_L61_the_fourth_timeout_frees_the_seat():
    """A pending penalty is drawn in full first (reshuffling if needed), then the hand goes
    into the draw pile; with two seats the match ends, with three play goes on."""
    data = position([["r5", "g2"], ["b7", "y3"]], ["r3", "r+2"], pending=2, pending_kind="+2",
                    timeouts=[3, 0])
    game = _play_both(data, script=("timeout",), max_steps=0)
    assert game.terminal and game.final_ranks() == [1, 0]
    data = _empty_draw_pile(position([["r5", "g2"], ["b7", "y3"], ["g1"]], ["r3", "r+2"],
                                     pending=2, pending_kind="+2", timeouts=[3, 3, 3]))
    _play_both(data, script=("timeout", "timeout"), max_steps=300)
    data = position([["r5", "g2"], ["b7", "y3"], ["g1"]], ["r3"], timeouts=[3, 3, 3],
                    rounds=5, round=2, scores=[0, 40, 90])
    _play_both(data, script=("draw", "timeout"), max_steps=300, timeouts=0.3)


@pytest.mark.parametrize("n", [2, 3, 6, 10])
def test_L62_the_clock_in_every_phase(n):
    """``timeout`` at random decisions of whole games (colour, target, calls, shouts, slaps,
    turns, after a draw), often enough that seats leave."""
    cfg_options = {"num_players": n, "rounds": 3}
    for seed in range(3):
        game = LocoGame(np.random.default_rng(seed), **cfg_options)
        data = game.state_dict()
        _play_both(data, cfg_options, seed=seed, policy_seed=seed, max_steps=1500,
                   timeouts=0.3 if seed else 0.1)


# ------------------------------------------------------------------ new games, batches
@pytest.mark.parametrize("n", range(2, 11))
def test_new_game_deals_as_python(n):
    """L-01 … L-04 and a first turn that may time out as it begins (L-62), for many seeds."""
    for options in ({"num_players": n}, {"num_players": n, "timeout_rate": 0.5}):
        cfg = state.config(options)
        s = state.allocate(40, cfg)
        seeds = np.arange(40, dtype=np.int64) * 7919 + n
        engine.reset_batch(s, cfg, seeds)
        for i, seed in enumerate(seeds.tolist()):
            game = LocoGame(rng=np.random.default_rng(seed), **options)
            assert state.state_dict(s, i, cfg) == game.state_dict()
            assert s.rng[i].tolist() == _rng_words(game.rng)
    cfg = state.config({})
    big = state.allocate(1, cfg)
    engine.new_game(big, cfg, 0, 2**63 - 1)
    game = LocoGame(rng=np.random.default_rng(2**63 - 1))
    assert state.state_dict(big, 0, cfg) == game.state_dict()


def _run_batch(options: dict, threads: int, num_games: int = 48, steps: int = 400):
    """Random games on the batch forms on ``threads`` threads; a compiled-free policy (numpy,
    seeded) picks each row's action from ``masks_batch``."""
    cfg = state.config(options)
    s = state.allocate(num_games, cfg)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    actions_log = []
    try:
        engine.reset_batch(s, cfg, np.arange(num_games, dtype=np.int64) + 100)
        masks = np.zeros((num_games, NUM_ACTIONS), np.int8)
        policy = np.random.default_rng(5)
        for _ in range(steps):
            engine.masks_batch(s, cfg, masks)
            actions = np.full(num_games, -1, np.int64)
            for i in np.flatnonzero(~s.terminal).tolist():
                if policy.random() < 0.9:  # some games wait a step
                    actions[i] = policy.choice(np.flatnonzero(masks[i]))
            actions_log.append(actions)
            engine.play_batch(s, cfg, actions)
    finally:
        numba.set_num_threads(before)
    return cfg, s, actions_log


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
@pytest.mark.parametrize("options", [OPTIONS[2], OPTIONS[7]], ids=_ids)
def test_results_do_not_depend_on_threads(options):
    _, one, _ = _run_batch(options, 1)
    _, two, _ = _run_batch(options, 2)
    for name in state.LocoState._fields:
        assert np.array_equal(getattr(one, name), getattr(two, name)), name


def test_batch_forms_are_the_single_forms_and_the_python_engine():
    options = {"num_players": 4, "rounds": 3, "timeout_rate": 0.05}
    cfg, s, actions_log = _run_batch(options, 1, num_games=12, steps=300)
    masks = np.zeros((12, NUM_ACTIONS), np.int8)
    engine.masks_batch(s, cfg, masks)
    single = np.zeros(NUM_ACTIONS, np.int8)
    for i in range(12):
        engine.legal_mask(s, cfg, i, single)
        assert np.array_equal(single, masks[i])
        game = LocoGame(rng=np.random.default_rng(100 + i), **options)
        for actions in actions_log:
            if actions[i] >= 0:
                game.apply(int(actions[i]))
        assert state.state_dict(s, i, cfg) == game.state_dict()
        assert s.rng[i].tolist() == _rng_words(game.rng)
