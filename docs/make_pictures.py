"""Make the pictures of the README and the documentation site from ``render_mode="rgb_array"``.

    python docs/make_pictures.py          # writes docs/pictures/*.png and loco_game.gif

Each game is played by its heuristic bots from a fixed seed, so the pictures are the same on
every run of the same code: a still of each table (as the public sees it) and an animated LOCO
game seen by seat 0, shrunk and reduced to a small palette to keep the GIF small.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

import loco_envs
from loco_envs import agents

OUT = Path(__file__).resolve().parent / "pictures"
#: game -> (options, seed, decisions to play before the still, the bot of every seat)
STILLS = {
    "loco": ({"num_players": 4}, 7, 40, "loco/heuristic"),
    "moco": ({"num_players": 3}, 3, 30, "moco/heuristic"),
    "momo": ({"num_players": 3, "expansion_a": True}, 3, 45, "momo/heuristic"),
    "mampfos": ({"num_players": 3}, 3, 60, "mampfos/heuristic"),
}
GIF_DECISIONS = 45
GIF_SCALE = 0.5


def play(game: str, options: dict, seed: int, decisions: int, spec: str, seat: int | None,
         every_frame: bool = False) -> list[np.ndarray]:
    """Frames of a bot game from ``seat``'s chair (``None``: the public)."""
    env = loco_envs.make(f"{game}_v0", wrapped=False, **options)
    env.reset(seed=seed)
    bot, rng = agents.make(spec), np.random.default_rng(seed)
    frames = [env.game.render_rgb(seat)] if every_frame else []
    for _ in range(decisions):
        if env.game.terminal:
            break
        agent = env.agent_selection
        env.step(bot.act(env.view(agent), env.observe(agent)["action_mask"], rng))
        if every_frame:
            frames.append(env.game.render_rgb(seat))
    return frames if every_frame else [env.game.render_rgb(seat)]


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for game, (options, seed, decisions, spec) in STILLS.items():
        (frame,) = play(game, options, seed, decisions, spec, seat=None)
        Image.fromarray(frame).save(OUT / f"{game}.png", optimize=True)
    options, seed, _, spec = STILLS["loco"]
    frames = play("loco", {"num_players": 3}, seed, GIF_DECISIONS, spec, seat=0,
                  every_frame=True)
    height, width = frames[0].shape[:2]
    size = (int(width * GIF_SCALE), int(height * GIF_SCALE))
    shrunk = [Image.fromarray(f).resize(size, Image.LANCZOS) for f in frames]
    palette = shrunk[0].quantize(colors=32, dither=Image.Dither.NONE)  # one palette for all
    images = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in shrunk]
    images[0].save(OUT / "loco_game.gif", save_all=True, append_images=images[1:],
                   duration=700, loop=0, optimize=True)
    for path in sorted(OUT.iterdir()):
        print(f"{path.relative_to(OUT.parent.parent)}  {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
