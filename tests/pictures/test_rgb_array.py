"""``render_mode="rgb_array"``: every game draws its table as an ``(H, W, 3) uint8`` image.

A picture shows a seat (or the public) nothing its view does not hold: two tables that differ
only in what the viewer cannot see give the very same image. The frames of a game keep one size,
so a video recorder takes them; a bot game is written as a clip (PNG frames and a GIF).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from PIL import Image

import loco_envs
from loco_envs import agents

OPTIONS = {
    "loco_v0": {"num_players": 3},
    "moco_v0": {"num_players": 3},
    "momo_v0": {"num_players": 2, "expansion_a": True, "expansion_b": True},
    "mampfos_v0": {"num_players": 3},
}


def frames_of_a_game(env_id: str, seed: int, limit: int = 60, **options) -> list[np.ndarray]:
    env = loco_envs.make(env_id, render_mode="rgb_array", max_decisions=limit,
                         **{**OPTIONS[env_id], **options})
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = [env.render()]
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(
            rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if action is not None:
            frames.append(env.render())
    frames.append(env.render())  # the public table at the end
    return frames


@pytest.mark.parametrize("env_id", list(OPTIONS))
def test_every_game_renders_frames_of_one_shape(env_id):
    frames = frames_of_a_game(env_id, seed=1)
    assert len(frames) > 10
    height, width, channels = frames[0].shape
    assert channels == 3 and height > 100 and width > 100
    for frame in frames:
        assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
        assert frame.shape == (height, width, 3)
    assert frames[0].std() > 10  # a picture, not a blank
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])


def test_a_solo_momo_game_and_a_whole_mampfos_game_render_to_the_end():
    for env_id, options in (("momo_v0", {"num_players": 1, "expansion_a": False,
                                         "expansion_b": False}),
                            ("mampfos_v0", {"num_players": 5})):
        frames = frames_of_a_game(env_id, seed=2, limit=5000, **options)
        assert len({f.shape for f in frames}) == 1


@pytest.mark.parametrize("env_id", list(OPTIONS))
def test_the_option_and_the_metadata_name_rgb_array(env_id):
    env = loco_envs.make(env_id, wrapped=False, render_mode="rgb_array", **OPTIONS[env_id])
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] > 0
    env.reset(seed=0)
    for seat in (*range(env.num_players), None):
        image = env.game.render_rgb(seat)
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_the_gymnasium_solo_momo_env_records_a_video_frame_by_frame():
    import gymnasium

    env = gymnasium.make("loco_envs/MomoSolo-v0", render_mode="rgb_array")
    _, info = env.reset(seed=0)
    first = env.render()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    second = env.render()
    assert first.dtype == np.uint8 and first.shape == second.shape and first.shape[2] == 3
    assert not np.array_equal(first, second)


# --------------------------------------------------------------------------------------------
# Secrecy: tables that differ only in what the viewer cannot see look the same to it
# --------------------------------------------------------------------------------------------
def game_from(env_id: str, state: dict, **options):
    env = loco_envs.make(env_id, wrapped=False, **{**OPTIONS[env_id], **options})
    env.reset(seed=0, options={"state": copy.deepcopy(state)})
    return env.game


def started(env_id: str, seed: int, moves: int = 0):
    env = loco_envs.make(env_id, wrapped=False, **OPTIONS[env_id])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        env.game.apply(int(rng.choice(env.game.legal_actions())))
    return env.game


def assert_same_for(viewers, a, b) -> None:
    for seat in viewers:
        assert np.array_equal(a.render_rgb(seat), b.render_rgb(seat)), f"seat {seat} sees it"


@pytest.mark.parametrize("seed", range(3))
def test_loco_other_hands_and_the_draw_pile_are_not_drawn(seed):
    game = started("loco_v0", seed)
    state = game.state_dict()
    twin = copy.deepcopy(state)
    hand, pile = twin["hands"][1], twin["draw_pile"]
    j = next(j for j, code in enumerate(pile) if code != hand[0])
    hand[0], pile[j] = pile[j], hand[0]
    a, b = game_from("loco_v0", state), game_from("loco_v0", twin)
    assert_same_for((0, 2, None), a, b)
    assert not np.array_equal(a.render_rgb(1), b.render_rgb(1))  # its own hand is drawn


def test_loco_a_slap_window_is_drawn_only_for_the_seat_deciding_in_it():
    from loco_envs.loco.state import position

    # p1 holds the other W: after p0's W and colour, p1 alone is asked to slap (L-41)
    state = position([["W", "b1", "b9"], ["W", "r1"], ["y4", "y5"]], ["g3"])
    twin = position([["W", "b1", "b9"], ["g8", "r1"], ["y4", "y5"]], ["g3"])
    games = [game_from("loco_v0", s, num_players=3) for s in (state, twin)]
    for game in games:
        for move in ("play W", "colour r"):
            game.apply(game.str_to_action(move))
    window, none = games
    assert window.state_dict()["phase"] == "slap" and none.state_dict()["phase"] == "turn"
    assert_same_for((0, 2, None), window, none)


@pytest.mark.parametrize("seed", range(3))
def test_moco_other_hands_and_the_removed_cards_are_not_drawn(seed):
    game = started("moco_v0", seed, moves=4)
    state = game.state_dict()
    twin = copy.deepcopy(state)
    twin["hands"][1][0], twin["removed"][0] = twin["removed"][0], twin["hands"][1][0]
    a, b = game_from("moco_v0", state), game_from("moco_v0", twin)
    assert_same_for((0, 2, None), a, b)
    assert not np.array_equal(a.render_rgb(1), b.render_rgb(1))


@pytest.mark.parametrize("seed", range(3))
def test_momo_the_bag_order_is_not_drawn(seed):
    game = started("momo_v0", seed, moves=6)
    state = game.state_dict()
    twin = copy.deepcopy(state)
    twin["bag"] = twin["bag"][::-1]
    assert twin["bag"] != state["bag"]
    assert_same_for((0, 1, None), game_from("momo_v0", state), game_from("momo_v0", twin))


@pytest.mark.parametrize("memory", ["perfect", "recall"])
def test_mampfos_a_millwheel_is_drawn_only_for_its_owner(memory):
    checked = 0
    for seed in range(6):
        game = started("mampfos_v0", seed)
        game = game_from("mampfos_v0", game.state_dict(), memory=memory)
        rng = np.random.default_rng(seed)
        while not game.terminal and checked <= seed:
            view = game.view(game.current_seat)
            if view.phase == "wheel" and not any(view.wheels_set):
                setter = game.current_seat
                state = game.state_dict()
                a, b = (game_from("mampfos_v0", state, memory=memory) for _ in range(2))
                a.apply(a.str_to_action("wheel red"))
                b.apply(b.str_to_action("wheel blue"))
                others = [s for s in range(3) if s != setter]
                assert_same_for([*others, None], a, b)
                assert not np.array_equal(a.render_rgb(setter), b.render_rgb(setter))
                checked += 1
            game.apply(int(rng.choice(game.legal_actions())))
    assert checked >= 3


# --------------------------------------------------------------------------------------------
# A clip of a bot game
# --------------------------------------------------------------------------------------------
def test_a_bot_game_is_written_as_a_clip(tmp_path):
    env = loco_envs.make("loco_v0", num_players=3, render_mode="rgb_array", max_decisions=40)
    env.reset(seed=5)
    bot = agents.make("loco/heuristic")
    rng = np.random.default_rng(5)
    frames = [env.render()]
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else bot.act(
            env.unwrapped.view(agent), obs["action_mask"], rng)
        env.step(action)
        frames.append(env.render())
    images = [Image.fromarray(frame) for frame in frames]
    for i, image in enumerate(images[:5]):
        image.save(tmp_path / f"frame_{i:03d}.png")
    clip = tmp_path / "game.gif"
    images[0].save(clip, save_all=True, append_images=images[1:], duration=500, loop=0)
    with Image.open(clip) as back:
        assert back.n_frames >= 10 and back.size == images[0].size
    with Image.open(tmp_path / "frame_004.png") as png:
        assert np.array_equal(np.asarray(png.convert("RGB")), frames[4])
