"""L-41: a slap window is secret.

Only the holders of the top card are asked in a slap window, so a seat that is not deciding in
it must not be able to tell that a window is open: its view, its observation vector and its
renders (text and image) must be exactly what they would be with no window. Checked the way an
outside check does it: against the same table where nobody else holds a copy of the card, first
on built positions, then on every window of seeded random matches.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import loco_envs
from loco_envs.loco import actions as A
from loco_envs.loco.observation import encode_game
from loco_envs.loco.rules import SLAP, TURN, LocoGame
from loco_envs.loco.state import position


def env_at(state: dict, moves: tuple[str, ...], **options):
    env = loco_envs.make("loco_v0", num_players=len(state["hands"]), wrapped=False,
                         render_mode="ansi", **options)
    env.reset(seed=0, options={"state": copy.deepcopy(state)})
    for text in moves:
        env.step(env.str_to_action(text))
    return env


def seen_by(env, seat: int | None) -> tuple:
    """Everything ``seat`` (``None``: the public) is shown: view, observation, render (the
    text and the image)."""
    if seat is None:
        return env.game.render_text(None), env.game.render_rgb(None).tobytes()
    env.render_seat = seat
    agent = env.possible_agents[seat]
    picture = env.render()
    env.render_seat = None
    return (env.view(agent), env.observe(agent)["observation"].tolist(), picture,
            env.game.render_rgb(seat).tobytes())


# (hands with copies of the card about to land, the same hands with the copies swapped out,
#  discard pile, moves up to the window, seats asked in the window)
CASES = {
    "a wild, one holder": (
        [["W", "b1", "b9"], ["b4", "b2"], ["W", "r1"], ["y4", "y5"]],
        [["W", "b1", "b9"], ["b4", "b2"], ["g8", "r1"], ["y4", "y5"]],
        ["g3"], ("play W", "colour r"), [2]),
    "the turn seat holds the last copy": (
        [["g7", "b1", "b9"], ["g7", "b2"], ["r1", "r2"]],
        [["g7", "b1", "b9"], ["y6", "b2"], ["r1", "r2"]],
        ["g3"], ("play g7",), [1]),
    "a +4 aimed at a holder, raced by another": (
        [["+4", "g1", "g2"], ["+4", "g5", "g6"], ["y1", "y3"], ["+4", "b5"]],
        [["+4", "g1", "g2"], ["r4", "g5", "g6"], ["y1", "y3"], ["r6", "b5"]],
        ["r3"], ("play +4", "colour g"), [1, 3]),
    "the card's player holds another copy": (
        [["g7", "g7", "b1"], ["b4", "b2"], ["r1", "r2"]],
        [["g7", "y7", "b1"], ["b4", "b2"], ["r1", "r2"]],
        ["g3"], ("play g7",), [0]),
    "after a LOCO! call and its Contre-LOCO window": (
        [["W", "g1"], ["b4", "b2"], ["W", "r1"], ["y4", "y5"]],
        [["W", "g1"], ["b4", "b2"], ["b8", "r1"], ["y4", "y5"]],
        ["g3"], ("play W", "colour r", "loco", "pass", "pass", "pass"), [2]),
    "a Rotation": (
        [["O", "g1", "g2"], ["b4", "b2"], ["O", "O", "r1"]],
        [["O", "g1", "g2"], ["b4", "b2"], ["r5", "r6", "r1"]],
        ["g3"], ("play O", "colour y"), [0]),  # seat 2's hand has moved on to seat 0
}


@pytest.mark.parametrize("stacking", ["any", "identical"])
@pytest.mark.parametrize("case", list(CASES))
def test_L41_a_seat_not_asked_sees_the_table_as_with_no_window(case, stacking):
    with_copies, without, discard, moves, asked = CASES[case]
    window = env_at(position(with_copies, discard), moves, stacking=stacking)
    plain = env_at(position(without, discard), moves, stacking=stacking)
    assert window.game.phase == SLAP and window.game.window_to_decide == asked
    assert plain.game.phase == TURN
    for seat in [s for s in range(len(with_copies)) if s not in asked] + [None]:
        assert seen_by(window, seat) == seen_by(plain, seat), seat


def test_L41_seats_waiting_in_the_window_learn_nothing_of_the_other_slappers():
    """While seat 3 decides, seat 1 (who already passed) sees the table as with no window."""
    with_copies, without, discard, moves, _ = CASES["a +4 aimed at a holder, raced by another"]
    window = env_at(position(with_copies, discard), (*moves, "pass"))
    assert window.game.current_seat == 3
    own_copy_kept = copy.deepcopy(without)
    own_copy_kept[1] = with_copies[1]
    plain = env_at(position(own_copy_kept, discard), moves)
    plain.step(plain.str_to_action("pass"))  # seat 1's own window, alone in it
    assert plain.game.phase == TURN
    for seat in (0, 1, 2, None):
        assert seen_by(window, seat) == seen_by(plain, seat), seat


def no_window_twin(state: dict, observer: int) -> dict | None:
    """The same table with the window gone: every copy of the top card in a hand other than
    ``observer``'s swapped for another card off the draw pile, the regular turn next."""
    twin = copy.deepcopy(state)
    top, pile = twin["discard"][-1], twin["draw_pile"]
    spare = [i for i, code in enumerate(pile) if code != top]
    for seat, hand in enumerate(twin["hands"]):
        for i, code in enumerate(hand):
            if code == top and seat != observer:
                if not spare:
                    return None
                j = spare.pop()
                hand[i], pile[j] = pile[j], code
    twin.update(phase="turn", actor=twin["turn_seat"], slap_window_due=False,
                window={"kind": None, "to_decide": [], "choices": {}})
    return twin


def seen_in_game(game: LocoGame, seat: int) -> tuple:
    """What the env shows ``seat`` (its view, ``encode``, ``render``) and the public render,
    read from the engine directly: the env's own paths, without building an env per check."""
    return (game.view(seat), encode_game(game, seat).tolist(), game.render_text(seat),
            game.render_text(None))


@pytest.mark.parametrize("stacking", ["any", "identical"])
def test_L41_every_window_of_random_matches_is_invisible_to_the_seats_not_deciding(stacking):
    checked = 0
    for seed in range(8):
        n = (2, 3, 4, 6)[seed % 4]
        options = {"num_players": n, "stacking": stacking,
                   "photo_finish": ("random", "seat")[seed % 2]}
        game = LocoGame(rng=np.random.default_rng(seed), **options)
        rng = np.random.default_rng(seed)
        while not game.terminal:
            if game.phase == SLAP:
                state = game.state_dict()
                seat = int(rng.choice([s for s in range(n) if s != game.current_seat]))
                twin_state = no_window_twin(state, seat)
                if twin_state is not None:
                    twin = LocoGame.from_state_dict(twin_state, np.random.default_rng(0), options)
                    assert seen_in_game(game, seat) == seen_in_game(twin, seat), (seed, seat)
                    checked += 1
            actions = game.legal_actions()
            plays = [a for a in actions if a < A.DRAW]  # play eagerly so windows come often
            pool = plays if plays and rng.random() < 0.8 else actions
            game.apply(pool[rng.integers(len(pool))])
    assert checked > 100
