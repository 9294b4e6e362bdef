"""LOCO's compiled encoder and features are the Python ones, bit for bit.

Positions come from Python games played with random legal moves (every option, 2 to 10 players,
slap and Contre-LOCO windows, draws, Swaps and Rotations, seats that leave by the clock, crafted
decisive rounds); each is copied into a row with ``state.write_game`` and observed from every
seat. The compiled engine's transitions are not needed.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from numba import njit

import loco_envs
from loco_envs.loco import cards as C
from loco_envs.loco import features as F
from loco_envs.loco import observation as O
from loco_envs.loco.compiled import encode as E
from loco_envs.loco.compiled import state as S
from loco_envs.loco.rules import AFTER_DRAW, CONTRE, PHASES, SLAP, TURN
from loco_envs.loco.state import position

OPTIONS = [
    {"num_players": 2},
    {"num_players": 2, "rounds": 3, "photo_finish": "seat", "timeout_rate": [0.5, 0.0]},
    {"num_players": 3, "stacking": "identical"},
    {"num_players": 4, "rounds": 5, "timeout_rate": [0.0, 0.45, 0.0, 0.3]},
    {"num_players": 5, "photo_finish": "seat"},
    {"num_players": 6, "rounds": 3, "stacking": "identical", "timeout_rate": 0.1},
    {"num_players": 7},
    {"num_players": 8, "rounds": 7, "photo_finish": "seat"},
    {"num_players": 9, "timeout_rate": [0.5] + [0.0] * 8},
    {"num_players": 10, "rounds": 3, "stacking": "identical"},
]


def _decisive(state: dict, rng: np.random.Generator) -> dict | None:
    """``state`` (a plain turn) as a decisive round (L-73) of the seats but one, or ``None``."""
    n = state["num_players"]
    if state["phase"] != "turn" or state["call_queue"] or n < 3:
        return None
    playing = [s for s in range(n) if state["active"][s] and state["in_round"][s]]
    out_seats = [s for s in playing if s != state["turn_seat"]]
    if len(playing) < 3:  # two seats at least stay in the round
        return None
    out = int(rng.choice(out_seats))
    d = copy.deepcopy(state)
    d["draw_pile"] += d["hands"][out]
    d["hands"][out] = []
    d["calls"][out] = "none"
    d["in_round"][out] = False
    d["decider"] = True
    d["round"] = d["rounds"] + 1
    return d


def _positions(options: dict, seed: int, count: int):
    """``count`` positions (raw envs) of games played at random from ``seed``, one every few
    decisions; some games go on from a crafted decisive round."""
    rng = np.random.default_rng(seed)
    env = loco_envs.make("loco_v0", wrapped=False, **options)
    env.reset(seed=seed)
    made, step, craft_at = 0, 0, -1
    while made < count:
        game = env.game
        if game.terminal:
            yield env
            made += 1
            env.reset(seed=int(rng.integers(2**31)))
            step, craft_at = 0, int(rng.integers(20, 300)) if rng.random() < 0.3 else -1
            continue
        step += 1
        if step == craft_at:
            state = _decisive(game.state_dict(), rng)
            if state is None:
                craft_at += 1
            else:
                env.reset(seed=int(rng.integers(2**31)), options={"state": state})
                continue
        if rng.random() < 0.35:
            yield env
            made += 1
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, np.float32).view(np.uint32)


def _where(a: np.ndarray, b: np.ndarray, n: int) -> str:
    bad = np.flatnonzero(_bits(a).ravel() != _bits(b).ravel())
    names = []
    for j in bad[:5]:
        col = int(j % a.shape[-1])
        name = next(k for k, sl in O.slices(n).items() if sl.start <= col < sl.stop) \
            if a.shape[-1] == O.observation_size(n) else f"action {col // 12} feature {col % 12}"
        names.append(f"{name}[{col}]: {a.ravel()[j]!r} vs {b.ravel()[j]!r}")
    return f"{len(bad)} entries differ, e.g. " + "; ".join(names)


def _check(options: dict, seed: int, count: int, coverage: dict | None = None) -> None:
    n = options["num_players"]
    cfg = S.config(options)
    s = S.allocate(count, cfg)
    size = O.observation_size(n)
    expected = np.zeros((count * n, size), np.float32)
    rows = np.repeat(np.arange(count), n)
    seats = np.tile(np.arange(n), count)
    for i, env in enumerate(_positions(options, seed, count)):
        game = env.game
        S.write_game(s, i, game)
        for seat in range(n):
            expected[i * n + seat] = env.encode(seat)
            if seat == (i % n):  # the view's encoder, the reference the env's is pinned to
                assert np.array_equal(O.encode(game.view(seat)), expected[i * n + seat])
        if coverage is not None:
            _cover(coverage, game)
    got = np.full_like(expected, np.nan)
    E.encode_batch(s, cfg, rows, seats, got)
    assert np.array_equal(_bits(got), _bits(expected)), _where(got, expected, n)
    one = np.full(size, np.nan, np.float32)
    for k in range(0, count * n, 7):  # the single-row function too
        E.encode(s, cfg, rows[k], seats[k], one)
        assert np.array_equal(_bits(one), _bits(expected[k])), _where(one, expected[k], n)

    want = F.loco_actions(expected)
    feats = np.full_like(want, np.nan)
    E.features(expected, n, feats)
    assert np.array_equal(_bits(feats), _bits(want)), _where(feats, want, n)
    feats[:] = np.nan
    E.features_batch(expected, n, feats)
    assert np.array_equal(_bits(feats), _bits(want)), _where(feats, want, n)


def _cover(seen: dict, game) -> None:
    """What a position exercises (the slow test requires every item)."""
    phase = game.phase
    if phase < len(PHASES) - 1:
        seen.setdefault(f"phase {PHASES[phase]}", 0)
        seen[f"phase {PHASES[phase]}"] += 1
    marks = {
        "drawn card": phase == AFTER_DRAW and game.drawn is not None,
        "slap window, turn seat not asked": phase == SLAP and game.turn_seat != game.current_seat,
        "contre after an announcement": phase == CONTRE and game.contre_queue[0][1],
        "pending over 111": game.pending > O.MAX_CARDS,
        "seat left": not all(game.active),
        "decisive round": game.decider,
        "counter-clockwise": game.direction == -1,
        "game over": game.terminal,
        "turn": phase == TURN,
    }
    for key, hit in marks.items():
        if hit:
            seen[key] = seen.get(key, 0) + 1


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: f"n{o['num_players']}")
def test_encode_and_features_match_python(options):
    _check(options, seed=options["num_players"], count=60)


@pytest.mark.slow
def test_encode_and_features_match_python_many_positions():
    seen: dict = {}
    for seed in range(3):
        for options in OPTIONS:
            _check(options, seed=100 + seed, count=1500, coverage=seen)
    wanted = [f"phase {p}" for p in PHASES[:-1]] + [
        "drawn card", "slap window, turn seat not asked", "contre after an announcement",
        "seat left", "decisive round", "counter-clockwise", "game over"]
    missing = [key for key in wanted if not seen.get(key)]
    assert not missing, f"positions never met: {missing} (seen {seen})"


def test_secret_slap_window_reads_as_the_turn():
    """L-41: only the seat asked sees the window; the others see the turn seat's turn."""
    options = {"num_players": 4}
    cfg = S.config(options)
    s = S.allocate(1, cfg)
    for env in _positions(options, 5, 10**6):
        game = env.game
        if game.phase == SLAP and game.turn_seat != game.current_seat:
            break
    S.write_game(s, 0, game)
    sl = O.slices(4)
    out = np.zeros(O.observation_size(4), np.float32)
    for seat in range(4):
        E.encode(s, cfg, 0, seat, out)
        phase = out[sl["phase"]]
        assert phase[SLAP if seat == game.current_seat else TURN] == 1 and phase.sum() == 1
        assert np.array_equal(out, env.encode(seat))


@njit(cache=False)
def _p_holds_grid(hits, total, hand, out):
    for j in range(hits.size):
        out[j] = E._p_holds(hits[j], total[j], hand[j])


def test_p_holds_over_its_whole_domain():
    """numpy's SIMD exp and libm's differ in the last bit of some float64 results; after the
    rounding to float32 the chances agree for every (unseen, hits, hand) the features meet."""
    grid = np.arange(C.DECK_SIZE + 1)  # hand sizes, unseen cards and hits: 0..112
    total, hits, hand = (a.ravel() for a in np.meshgrid(grid, grid, grid, indexing="ij"))
    keep = hits <= total
    total, hits, hand = (a[keep].astype(np.float32) for a in (total, hits, hand))
    want = F._p_holds(hits, total, hand)
    got = np.zeros(hits.size, np.float32)
    _p_holds_grid(hits, total, hand, got)
    assert np.array_equal(_bits(got), _bits(want))


def test_pending_is_clipped_to_the_cards_outside_the_top():
    """``min(pending, 111)``: a penalty beyond every card outside the top has the same effect."""
    options = {"num_players": 3}
    state = position([["r+2", "y+2", "r5"], ["g+2", "b7"], ["b+2", "y1", "W"]], ["r3", "g+2"],
                     pending=150, pending_kind="+2", colour="g", turn_seat=1, actor=1)
    env = loco_envs.make("loco_v0", wrapped=False, **options)
    env.reset(seed=0, options={"state": state})
    cfg = S.config(options)
    s = S.allocate(1, cfg)
    S.write_game(s, 0, env.game)
    obs = np.zeros((3, O.observation_size(3)), np.float32)
    E.encode_batch(s, cfg, np.zeros(3, np.int64), np.arange(3), obs)
    assert (obs[:, O.slices(3)["pending"].start] == O.MAX_CARDS).all()
    assert np.array_equal(_bits(obs), _bits(np.stack([env.encode(seat) for seat in range(3)])))
    feats = np.zeros((3, F.FEATURES.size), np.float32)
    E.features(obs, 3, feats)
    assert np.array_equal(_bits(feats), _bits(F.loco_actions(obs)))


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTIONS[::3], ids=lambda o: f"n{o['num_players']}")
def test_differential_harness_checks_every_seat(options):
    """With the compiled engine: every seat's observation and features at every decision."""
    pytest.importorskip("loco_envs.loco.compiled.engine")
    from loco_envs.compiled.differential import differential_play

    for seed in range(2):
        differential_play("loco_v0", options, seed, policy_seed=seed, observers="all",
                          features="loco_actions", max_steps=2000)
