"""LOCO's compiled bots (``loco_envs.loco.compiled.bots``) choose the Python bots' moves.

Side by side: Python games (moves chosen by the bots themselves and by random), each decision
copied into a compiled row (``state.write_game``), and every bot asked on both engines: the
same action, and the generator left in the same state. The compiled generators are never
re-synced from the Python ones during a game, so a draw too many would show at once. Hand-built
positions pin the rarer branches (calls, Contre-LOCO, colours, Swap targets, Rotations, slaps
by the turn seat and by others, stacks with both ``stacking`` options).

Measure the speeds with ``.venv/bin/python -m tests.compiled.test_loco_bots``.
"""

from __future__ import annotations

import time
from math import comb

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.agents.loco import LocoHeuristic, LocoStrong
from loco_envs.compiled import rng as R
from loco_envs.loco import actions as A
from loco_envs.loco import cards as C
from loco_envs.loco.compiled import bots as B
from loco_envs.loco.compiled import state as S
from loco_envs.loco.rules import PHASES, LocoGame
from loco_envs.loco.state import position

PY_BOTS = (agents.RandomBot(), LocoHeuristic(), LocoStrong())
COMPILED = (B.random, B.heuristic, B.heuristic_strong)
KINDS = (B.RANDOM, B.HEURISTIC, B.STRONG)
#: How often the next move is the random bot's, the heuristic's, the strong bot's.
MOVER_WEIGHTS = np.array([0.2, 0.4, 0.4])


def game_options(n: int, k: int) -> dict:
    """The ``k``-th mix of every LOCO option for ``n`` players."""
    timeout = (0.0, 0.0, 0.05, [0.7] + [0.0] * (n - 1))[k % 4]  # the last: seat 0 leaves
    return {"num_players": n, "stacking": ("any", "identical")[k % 2],
            "photo_finish": ("random", "seat")[(k // 2) % 2], "rounds": (1, 3, 1, 5)[k % 4],
            "timeout_rate": timeout}


class Batch:
    """Positions gathered into rows of one compiled state, checked together by ``act_batch``."""

    def __init__(self, cfg: S.LocoConfig, size: int = 256):
        self.cfg, self.size = cfg, size
        self.s = S.allocate(size, cfg)
        self.masks = np.zeros((size, A.NUM_ACTIONS), np.int8)
        self.before = np.zeros((size, len(KINDS), R.STATE_WORDS), np.uint64)
        self.after = np.zeros_like(self.before)
        self.expected = np.zeros((size, len(KINDS)), np.int64)
        self.count = 0

    def add(self, game: LocoGame, mask: np.ndarray, before, after, expected) -> None:
        k = self.count
        S.write_game(self.s, k, game)
        self.masks[k], self.before[k], self.after[k] = mask, before, after
        self.expected[k] = expected
        self.count += 1
        if self.count == self.size:
            self.check()

    def check(self) -> None:
        m, nk = self.count, len(KINDS)
        rows = np.repeat(np.arange(m), nk)
        kinds = np.tile(np.array(KINDS, np.int64), m)
        states = self.before[:m].reshape(m * nk, R.STATE_WORDS).copy()
        out = np.full(m * nk, -2, np.int64)
        B.act_batch(self.s, self.cfg, kinds, rows, self.masks[rows], states, out)
        assert out.reshape(m, nk).tolist() == self.expected[:m].tolist()
        assert np.array_equal(states.reshape(m, nk, R.STATE_WORDS), self.after[:m])
        self.count = 0


def compare_game(options: dict, seed: int, max_steps: int, batched: bool = True,
                 seen: set | None = None) -> int:
    """Play one Python game, comparing every bot at every decision (one call each, and with
    ``batched`` again in batches); return the decisions."""
    env = loco_envs.make("loco_v0", wrapped=False, **options)
    env.reset(seed=seed)
    game, n = env.game, options["num_players"]
    cfg = S.config(options)
    s = S.allocate(1, cfg)
    batch = Batch(cfg, size=128) if batched else None
    mover = np.random.default_rng([seed, 7])
    # each bot's generator per seat, kept for the whole game on both engines
    py_rngs = [[np.random.default_rng([seed, b, seat]) for seat in range(n)]
               for b in range(len(KINDS))]
    twin_rngs = np.zeros((len(KINDS), n, R.STATE_WORDS), np.uint64)
    for b in range(len(KINDS)):
        for seat in range(n):
            R.from_generator(py_rngs[b][seat], twin_rngs[b, seat])
    state = np.zeros(R.STATE_WORDS, np.uint64)
    before = np.zeros((len(KINDS), R.STATE_WORDS), np.uint64)
    after = np.zeros_like(before)
    steps = 0
    while not game.terminal and steps < max_steps:
        seat, mask = game.current_seat, game.legal_mask()
        S.write_game(s, 0, game)
        view = game.view(seat)
        actions = []
        for b, (bot, twin) in enumerate(zip(PY_BOTS, COMPILED, strict=True)):
            before[b] = twin_rngs[b, seat]
            action = int(bot.act(view, mask, py_rngs[b][seat]))
            got = int(twin(s, cfg, 0, mask, twin_rngs[b, seat]))
            R.from_generator(py_rngs[b][seat], state)
            after[b] = state
            where = f"{options} seed {seed} decision {steps} ({PHASES[game.phase]})"
            assert got == action, f"{bot.name}: python {action}, compiled {got}; {where}"
            assert np.array_equal(state, twin_rngs[b, seat]), f"{bot.name} generator; {where}"
            actions.append(action)
        if seen is not None:
            seen.update(situations(game, view, actions))
        if batch is not None:
            batch.add(game, mask, before, after, actions)
        game.apply(actions[int(mover.choice(len(KINDS), p=MOVER_WEIGHTS))])
        steps += 1
    if batch is not None and batch.count:
        batch.check()
    return steps


def situations(game: LocoGame, view, actions: list[int]) -> set[str]:
    """Names of the bots' branches a decision exercised (what the sample must reach)."""
    phase = view.phase
    found = {phase}
    for name, action in zip(("heuristic", "strong"), actions[1:], strict=True):
        if phase == "slap":
            who = "turn seat" if view.seat == view.turn_seat else "other seat"
            found.add(f"{name} slap by {who}: {'pass' if action == A.PASS else 'slap'}")
        elif phase in ("turn", "after_draw", "after_penalty") and action < A.SLAP0:
            kind = C.KIND[A.PLAY_IDENT_LIST[action]]
            found.add(f"{name} plays {kind if kind in ('X', 'O', 'W', '+4', '+2') else 'coloured'}"
                      + (" on a pending penalty" if view.pending else ""))
        elif phase == "contre":
            found.add(f"contre: {A.action_to_str(action)}")
    if game.stacking == "identical" and view.pending and phase == "turn":
        found.add("identical stack")
    if not all(game.active):
        found.add("a seat left")
    return found


# --- exact probabilities -------------------------------------------------------------------------
def test_p_holds_is_pythons_exact_division():
    """Every (unseen total, hits, hand size) the deck allows: the same double as ``1.0 -
    comb(total - hits, k) / comb(total, k)`` with Python's correctly rounded division."""
    for total in range(C.DECK_SIZE + 1):
        for hits in range(total + 1):
            for k in range(0, total + 2, 1 if total < 40 else 3):
                if k <= 0 or hits == 0 or total == 0:
                    expected = 0.0
                else:
                    k2 = min(k, total)
                    expected = 1.0 - comb(total - hits, k2) / comb(total, k2)
                assert B._p_holds(total, hits, k) == expected, (total, hits, k)


def test_p_holds_matches_the_strong_bot():
    rng = np.random.default_rng(3)
    for _ in range(300):
        unseen = np.minimum(rng.integers(0, 5, C.NUM_IDENTITIES), C.FULL_DECK_COUNTS)
        idents = rng.choice(C.NUM_IDENTITIES, size=int(rng.integers(1, 20)), replace=False)
        size = int(rng.integers(-1, 60))
        hits = int(unseen[idents].sum())
        assert B._p_holds(int(unseen.sum()), hits, size) == LocoStrong.p_holds(unseen, idents,
                                                                               size)


# --- hand-built positions ------------------------------------------------------------------------
def play(code: str, k: int = 1) -> int:
    return A.play_action(C.card_id(code), k)


def slap(code: str, k: int = 1) -> int:
    return A.slap_action(C.card_id(code), k)


def slap_window(hands, discard, actor, turn_seat, lander=0, **fields) -> dict:
    return position(hands, discard, phase="slap", actor=actor, turn_seat=turn_seat,
                    lander=lander, window={"kind": "slap", "to_decide": [actor], "choices": {}},
                    **fields)


PLUS2 = {"pending": 2, "pending_kind": "+2"}
PLUS4 = {"pending": 4, "pending_kind": "+4"}
FIVE = ["b1", "b2", "b3", "b4", "b5"]
#: (name, state dict, options, expected heuristic action, expected strong action); None: only
#: the two engines are compared.
POSITIONS = [
    ("call: always LOCO",
     position([["r5"], ["g1", "g2"]], ["r3"], phase="call", call_queue=[0],
              calls=["owed", "none"], lander=0), {}, A.LOCO, A.LOCO),
    ("Contre-LOCO on a silent caller",
     position([["r5"], ["g1", "g2"]], ["r3"], phase="contre", actor=1, turn_seat=1, lander=0,
              contre_queue=[[0, False]], calls=["silent", "none"],
              window={"kind": "contre", "to_decide": [1], "choices": {}}), {},
     A.CONTRE, A.CONTRE),
    ("no Contre-LOCO on an announced call",
     position([["r5"], ["g1", "g2"]], ["r3"], phase="contre", actor=1, turn_seat=1, lander=0,
              contre_queue=[[0, True]], calls=["announced", "none"],
              window={"kind": "contre", "to_decide": [1], "choices": {}}), {},
     A.PASS, A.PASS),
    ("colour: ties by points (heuristic) or by fewest unseen (strong)",
     position([["y9", "g1"], FIVE], ["g3", "W"], phase="colour", lander=0, turn_seat=1), {},
     A.COLOUR0 + 1, A.COLOUR0 + 2),
    ("Swap target: the smallest hand, nearest clockwise on ties",
     position([["g1", "g2", "g3"], ["r1", "r2", "r3"], ["r4", "r6"], ["r7", "r8"]],
              ["r5", "rX"], phase="target", lander=0, turn_seat=1, swaps_left=1), {},
     A.TARGET0 + 1, A.TARGET0 + 1),
    ("slap: the last stack answer is kept; the strong bot keeps it too",
     slap_window([FIVE, ["g1", "g2"], ["r+2", "g4", "g5", "g6", "g7"]], ["r5", "r+2"], 2, 1,
                 **PLUS2), {"num_players": 3}, A.PASS, A.PASS),
    ("slap: the strong bot piles a penalty on a near winner",
     slap_window([["g8", "g9"], ["g1", "g2"], ["r+2", "g4", "g5", "g6", "g7"]],
                 ["r5", "r+2"], 2, 1, **PLUS2), {"num_players": 3}, A.PASS, slap("r+2")),
    ("slap: a spare stack answer goes",
     slap_window([FIVE, ["g1", "g2"], ["r+2", "+4", "g5", "g6", "g7"]], ["r5", "r+2"], 2, 1,
                 **PLUS2), {"num_players": 3}, slap("r+2"), slap("r+2")),
    ("slap: going out",
     slap_window([FIVE, ["g1", "g2"], ["r7"]], ["r5", "r7"], 2, 1, calls=["none"] * 3),
     {"num_players": 3}, slap("r7"), slap("r7")),
    ("slap: a Rotation that brings a smaller hand",
     slap_window([FIVE, ["g1", "g2"], ["O", "g5", "g6", "g7"]], ["r5", "O"], 2, 1),
     {"num_players": 3}, slap("O"), slap("O")),
    ("slap: no Rotation that brings a bigger hand",
     slap_window([FIVE, ["g1", "g2", "g3", "g4", "g8"], ["O", "g5", "g6", "g7"]], ["r5", "O"],
                 2, 1), {"num_players": 3}, A.PASS, A.PASS),
    ("turn-seat slap: what the turn would play; the strong bot sees nobody can race it",
     slap_window([FIVE, ["r7", "b6", "b8"], ["g1", "g2"]], ["r5", "r7"], 1, 1),
     {"num_players": 3}, slap("r7"), A.PASS),
    ("turn-seat slap: not what the turn would play",
     slap_window([FIVE, ["r7", "r9", "b7"], ["g1", "g2"]], ["r5", "r7"], 1, 1),
     {"num_players": 3}, A.PASS, A.PASS),
    ("turn-seat slap: a Wild a rival may hold",
     slap_window([FIVE, ["W", "b6", "b7"], ["g1", "g2"]], ["r5", "W"], 1, 1, colour="r"),
     {"num_players": 3}, slap("W"), slap("W")),
    ("turn-seat slap: a +4 aimed at it (the strong bot waits)",
     slap_window([FIVE, ["+4", "b6", "b7"], ["g1", "g2"]], ["r5", "+4"], 1, 1, colour="r",
                 **PLUS4), {"num_players": 3}, slap("+4"), A.PASS),
    ("pending +2 (any): every copy of the best answer",
     position([["g+2", "g+2", "r+2", "r1"], FIVE], ["r5", "r+2"], **PLUS2), {},
     play("g+2", 2), play("g+2", 2)),
    ("pending +2 (identical): only the top's twin",
     position([["g+2", "g+2", "r+2", "r1"], FIVE], ["r5", "r+2"], **PLUS2),
     {"stacking": "identical"}, play("r+2"), play("r+2")),
    ("pending +4: answered with +4",
     position([["+4", "+4", "r1"], FIVE], ["r5", "+4"], colour="r", **PLUS4), {},
     play("+4", 2), play("+4", 2)),
    ("after a draw: the drawn card if it matches",
     position([["r4", "g1", "g2"], FIVE], ["r5"], phase="after_draw", drawn="r4"), {},
     play("r4"), None),
    ("Swap when a smaller hand is there",
     position([["rX", "g1", "g2", "g3", "g4"], ["y1", "y2"]], ["r5"]), {},
     play("rX"), play("rX")),
    ("Rotation when the hand it brings is smaller",
     position([["O", "b1", "b2", "b3", "b4"], FIVE, ["g1", "g2"]], ["r5"]), {"num_players": 3},
     play("O"), play("O")),
    ("two players: one Skip of two, to play again",
     position([["rS", "rS", "g1"], FIVE], ["r5"]), {}, None, play("rS")),
    ("two players: a +2 that would come back is held",
     position([["r+2", "+4", "g1", "g2", "g3", "g4"],
               ["y1", "y2", "y3", "y4", "y5", "y6", "y7", "y8", "y9", "b6", "b7", "b8", "b9",
                "g6", "g7", "g8", "g9", "y1", "y2", "y3"]], ["r5"]), {}, None, None),
]


@pytest.mark.parametrize("name, data, options, heuristic, strong", POSITIONS,
                         ids=[p[0] for p in POSITIONS])
def test_hand_built_positions(name, data, options, heuristic, strong):
    opts = {"num_players": len(data["hands"]), **options}
    game = LocoGame.from_state_dict(data, np.random.default_rng(0), opts)
    cfg = S.config(opts)
    s = S.allocate(1, cfg)
    S.write_game(s, 0, game)
    mask, seat = game.legal_mask(), game.current_seat
    st = np.zeros(R.STATE_WORDS, np.uint64)
    for bot, twin, expected in zip(PY_BOTS[1:], COMPILED[1:], (heuristic, strong), strict=True):
        action = bot.act(game.view(seat), mask, np.random.default_rng(1))
        if expected is not None:
            assert action == expected, f"{bot.name}: {A.action_to_str(action)}"
        R.from_generator(np.random.default_rng(1), st)
        assert twin(s, cfg, 0, mask, st) == action, bot.name
    for k in range(3):  # the random bot, drawing from generators in several states
        rng = np.random.default_rng(k)
        rng.integers(3, size=k)
        R.from_generator(rng, st)
        assert B.random(s, cfg, 0, mask, st) == PY_BOTS[0].act(None, mask, rng)
        assert R.to_generator(st).bit_generator.state == rng.bit_generator.state


def test_random_bot_with_no_legal_action_draws_nothing():
    cfg = S.config({"num_players": 2})
    s = S.allocate(1, cfg)
    st = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(np.random.default_rng(0), st)
    kept = st.copy()
    assert B.random(s, cfg, 0, np.zeros(A.NUM_ACTIONS, np.int8), st) == -1
    assert np.array_equal(st, kept)


# --- side by side in played games ----------------------------------------------------------------
#: Branches the make-test sample must reach (so that it compares them).
MUST_SEE = {
    "turn", "after_draw", "after_penalty", "colour", "target", "call", "contre", "slap",
    "contre: contre", "contre: pass", "identical stack", "a seat left",
    "heuristic slap by turn seat: slap", "heuristic slap by turn seat: pass",
    "heuristic slap by other seat: slap", "heuristic slap by other seat: pass",
    "strong slap by turn seat: pass", "strong slap by other seat: slap",
    "strong slap by other seat: pass",
    "heuristic plays X", "heuristic plays O", "heuristic plays W", "heuristic plays +2",
    "heuristic plays +4", "heuristic plays coloured", "strong plays X", "strong plays O",
    "strong plays W", "strong plays +2", "strong plays +4", "strong plays coloured",
    "heuristic plays +2 on a pending penalty", "strong plays +4 on a pending penalty",
}


def test_sample_side_by_side():
    """Every player count and option mix, a few thousand decisions (the make-test sample)."""
    seen: set[str] = set()
    decisions = 0
    for n in range(2, 11):
        for k in range(4 if n <= 4 else 2):
            options = game_options(n, k + n)
            decisions += compare_game(options, seed=1000 * n + k, max_steps=150, seen=seen)
    assert decisions > 2000
    assert MUST_SEE <= seen, sorted(MUST_SEE - seen)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(2, 11))
def test_many_decisions_side_by_side(n):
    """At least 12,000 decisions per player count (108,000 in all), each asked of the three
    bots, whole games with every option mix."""
    decisions, seed = 0, 0
    while decisions < 12_000:
        decisions += compare_game(game_options(n, seed), seed=50_000 + 100 * n + seed,
                                  max_steps=4000)
        seed += 1


def differential_games(games) -> int:
    """Full games on both engines (``differential_play``), the bots on both sides."""
    pytest.importorskip("loco_envs.loco.compiled.engine")
    from loco_envs.compiled.differential import BotPair, differential_play

    decisions = 0
    for n, seed in games:
        pairs = [BotPair(PY_BOTS[1], B.heuristic, seats=[0]),
                 BotPair(PY_BOTS[2], B.heuristic_strong, seats=range(1, n - 1)),
                 BotPair(PY_BOTS[0], B.random, seats=[n - 1])]
        decisions += differential_play("loco_v0", game_options(n, seed), seed, bots=pairs,
                                       observers="none", max_steps=3000)
    return decisions


def test_differential_play_with_the_compiled_bots():
    """Full compiled games (engine and bots together) when the compiled engine is there."""
    differential_games([(2, 1), (4, 2), (7, 3)])


@pytest.mark.slow
def test_differential_play_with_the_compiled_bots_many():
    differential_games([(n, seed) for n in range(2, 11) for seed in range(4)])


# --- speed ---------------------------------------------------------------------------------------
def bench(num_players: int = 4, positions: int = 2000, repeat: int = 20) -> None:
    """Decisions/s of each bot: Python (``view()`` included) vs compiled (one call per
    decision, and ``act_batch`` on one thread and on all)."""
    import numba

    start = time.perf_counter()
    cfg = S.config({"num_players": num_players})
    s = S.allocate(1, cfg)
    st = np.zeros(R.STATE_WORDS, np.uint64)
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    for twin in COMPILED:
        twin(s, cfg, 0, mask, st)
    B.act_batch(s, cfg, np.zeros(1, np.int64), np.zeros(1, np.int64), mask[None],
                st[None].copy(), np.zeros(1, np.int64))
    print(f"first calls (compile or load from cache): {time.perf_counter() - start:.2f} s")
    games, cfg_rows = [], S.allocate(positions, cfg)
    env = loco_envs.make("loco_v0", wrapped=False, num_players=num_players)
    seed, rng = 0, np.random.default_rng(0)
    env.reset(seed=seed)
    while len(games) < positions:
        if env.game.terminal:
            seed += 1
            env.reset(seed=seed)
        game = env.game
        S.write_game(cfg_rows, len(games), game)
        games.append((game.state_dict(), game.legal_mask().copy(), game.current_seat))
        game.apply(PY_BOTS[2].act(game.view(game.current_seat), game.legal_mask(), rng))
    python_games = [LocoGame.from_state_dict(d, np.random.default_rng(0),
                                             {"num_players": num_players}) for d, _, _ in games]
    masks = np.array([m for _, m, _ in games])
    rows = np.arange(positions)
    states = np.zeros((positions, R.STATE_WORDS), np.uint64)
    for k in range(positions):  # (an all-zero PCG64 state never leaves zero)
        R.from_generator(np.random.default_rng(k), states[k])
    out = np.zeros(positions, np.int64)
    print(f"{num_players} players, {positions} positions from played games")
    for bot, twin, kind in zip(PY_BOTS, COMPILED, KINDS, strict=True):
        t = time.perf_counter()
        for game, mask in zip(python_games, masks, strict=True):
            view = game.view(game.current_seat) if bot is not PY_BOTS[0] else None
            bot.act(view, mask, rng)
        py = positions / (time.perf_counter() - t)
        t = time.perf_counter()
        for _ in range(repeat):
            for k in range(positions):
                twin(cfg_rows, cfg, k, masks[k], states[k])
        one = repeat * positions / (time.perf_counter() - t)
        kinds = np.full(positions, kind, np.int64)
        rates = []
        for threads in (1, numba.config.NUMBA_NUM_THREADS):
            numba.set_num_threads(threads)
            t = time.perf_counter()
            for _ in range(repeat):
                B.act_batch(cfg_rows, cfg, kinds, rows, masks, states, out)
            rates.append(repeat * positions / (time.perf_counter() - t))
        print(f"{bot.name:22s} python {py:10,.0f}/s   compiled, a call each {one:12,.0f}/s   "
              f"act_batch 1 thread {rates[0]:12,.0f}/s   {numba.config.NUMBA_NUM_THREADS} "
              f"threads {rates[1]:12,.0f}/s")


if __name__ == "__main__":
    bench()
