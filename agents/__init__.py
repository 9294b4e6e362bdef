"""Bots for the suite's games: the protocol, ``make(spec)``, and the uniform random bot.

A bot reads only what its seat may know (``env.unwrapped.view(agent)``) and the action mask,
never the state, and draws any randomness from the ``numpy.random.Generator`` it is handed, so a
game is reproducible from its seeds::

    import agents, loco_envs, numpy as np
    env = loco_envs.make("loco_v0", wrapped=False, num_players=2)
    env.reset(seed=0)
    bot, rng = agents.make("loco/heuristic"), np.random.default_rng(0)
    agent = env.agent_selection
    action = bot.act(env.view(agent), env.observe(agent)["action_mask"], rng)

Specs understood by :func:`make` (``shared/API.md``):

=============================  ==============================================================
spec                           bot
=============================  ==============================================================
``random``                     uniform over the legal actions (:class:`RandomBot`)
``<game>/heuristic``           a short scripted strategy per game: ``loco``, ``moco``,
                               ``momo``, ``mampfos`` (module ``agents.<game>``)
``loco/heuristic-strong``      LOCO heuristic that also tracks unseen cards and opponents
``mampfos/bold``               Los Mampfos heuristic whose millwheel keeps a lead and gambles
                               from level or behind (:class:`agents.mampfos.MampfosBold`)
``<game>/greedy``              one-ply greedy yardstick written from the rules page, kept out
                               of training: ``moco``, ``momo`` (:mod:`agents.greedy`)
``<game>/ppo``                 the trained policy shipped in ``agents/pretrained/`` for that game
                               (:data:`PRETRAINED`: its player count; how it was trained is in
                               the JSON beside the weights); numpy only, like ``ppo:``
``loco/ppo-4p``                LOCO's shipped policy for 4 players (``loco/ppo`` plays 2)
``ppo:<path>``                 a trained policy saved as data (``<path>.npz`` + ``.json``,
                               :mod:`agents.ppo`; numpy only, never unpickles anything)
``<game>/ismcts[:k=v,...]``    Information-Set MCTS on the game's ``resample``
                               (:mod:`agents.ismcts`), options after a colon:
                               ``loco/ismcts:iterations=200,c=0.7,rollout=heuristic``
``<game>/flatmc[:k=v,...]``    flat Monte Carlo: every legal move played out on the same
                               redealt hidden cards (:mod:`agents.ismcts`), e.g.
                               ``moco/flatmc:playouts=32,rollout=random``
=============================  ==============================================================

Bots are stateless between calls except where a docstring says otherwise; a bot that keeps
memory (e.g. card tracking) must rebuild it from the view alone so that one bot object may play
any seat of any game. A bot that never reads its view may say so with ``reads_view = False``
(as :class:`RandomBot` does): a vector env then hands it ``None`` and saves building the view.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Bot", "RandomBot", "available_specs", "make"]


@runtime_checkable
class Bot(Protocol):
    """What the tournament runner and users call: ``act`` returns one legal action index."""

    name: str

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """Choose a legal action (``action_mask[a] == 1``) from the seat's view."""
        ...


class RandomBot:
    """Uniform over the legal actions; all randomness comes from the ``rng`` argument."""

    name = "random"
    reads_view = False  # the mask is all it needs

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("RandomBot.act: the action mask has no legal action")
        return int(legal[rng.integers(legal.size)])


#: spec -> (module, class name) of every scripted bot; modules are imported on demand so a game
#: that is not installed does not break the others.
HEURISTICS: dict[str, tuple[str, str]] = {
    "loco/heuristic": ("loco_envs.agents.loco", "LocoHeuristic"),
    "loco/heuristic-strong": ("loco_envs.agents.loco", "LocoStrong"),
    "moco/heuristic": ("loco_envs.agents.moco", "MocoHeuristic"),
    "momo/heuristic": ("loco_envs.agents.momo", "MomoHeuristic"),
    "mampfos/heuristic": ("loco_envs.agents.mampfos", "MampfosHeuristic"),
    "mampfos/bold": ("loco_envs.agents.mampfos", "MampfosBold"),
    "moco/greedy": ("loco_envs.agents.greedy", "MocoGreedy"),
    "momo/greedy": ("loco_envs.agents.greedy", "MomoGreedy"),
}


#: spec -> name of the shipped policy in :data:`PRETRAINED_DIR` (``<name>.npz`` + ``.json``, the
#: format of :mod:`agents.ppo`); each plays the player count in its name.
PRETRAINED: dict[str, str] = {
    "loco/ppo": "loco_2p",
    "loco/ppo-4p": "loco_4p",
    "moco/ppo": "moco_2p",
    "momo/ppo": "momo_2p",
    "mampfos/ppo": "mampfos_3p",
}
PRETRAINED_DIR = Path(__file__).parent / "pretrained"
#: The temperature each shipped agent samples its move at (``agents.ppo.PPOBot``; 0: it plays
#: its most likely legal move), chosen by duplicate games against the heuristic on other deals
#: than the shipped table's. Moco!: 0.663 greedy, 0.658 at 1 in 1,000 games. Los Mampfos (on
#: the shipped table's deals, seed 2026): beside one heuristic and random 0.521 greedy against
#: 0.513 at 1 in 3,000 games, against two heuristics 0.768 (1,002) against 0.755 (3,000). Loco Momo:
#: 0.668 at 0.05, 0.652 at 0.25, 0.620 at 1 in 600 games (the same deals). LOCO's earlier
#: agent (before ``configs/loco_league.yaml``) gained nothing from sharpening (against
#: ``heuristic-strong``, two sets of 1,000 deals: 0.612 and 0.599 at 0.5, 0.596 and 0.621 at 1),
#: and a greedy LOCO policy can lock a game into a loop, so it samples at 1. LOCO at 4 players,
#: against three ``heuristic-strong`` on two sets of 1,000 deals: 0.271 and 0.278 at 1, 0.275
#: and 0.268 at 0.5; it samples at 1 too.
#: ``provenance.evaluation.play`` in each JSON says how its table was measured.
PRETRAINED_TEMPERATURE: dict[str, float] = {
    "loco/ppo": 1.0,
    "loco/ppo-4p": 1.0,
    "moco/ppo": 0.0,
    "momo/ppo": 0.0,
    "mampfos/ppo": 0.0,
}


def available_specs() -> list[str]:
    """Specs :func:`make` can build now (``ppo:<path>`` aside)."""
    return (["random"] + [spec for spec in HEURISTICS if _loadable(spec)]
            + [spec for spec, name in PRETRAINED.items()
               if (PRETRAINED_DIR / f"{name}.json").is_file()]
            + [f"{game}/{search}" for search in SEARCHES for game in ISMCTS_GAMES])


#: Games with the search bots, ``<game>/ismcts[:options]`` and ``<game>/flatmc[:options]``
#: (:mod:`agents.ismcts`).
ISMCTS_GAMES = ("loco", "moco", "momo", "mampfos")
#: The search bots' names in a spec (``agents.ismcts.SEARCHES``, imported only when one is made).
SEARCHES = ("ismcts", "flatmc")


def _loadable(spec: str) -> bool:
    module, attr = HEURISTICS[spec]
    try:
        return hasattr(importlib.import_module(module), attr)
    except ImportError:
        return False


def make(spec: str) -> Bot:
    """Build a bot from its spec (see the module docstring); ``ValueError`` for a bad spec."""
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    if spec == "random":
        return RandomBot()
    if spec.startswith("ppo:"):
        return _make_ppo(spec[len("ppo:"):])
    if spec in PRETRAINED:
        return _make_pretrained(spec)
    game, _, search = spec.partition("/")
    kind, _, options = search.partition(":")
    if game in ISMCTS_GAMES and kind in SEARCHES:
        from loco_envs.agents.ismcts import make as make_search

        return make_search(game, options, kind)
    if spec in HEURISTICS:
        module, attr = HEURISTICS[spec]
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"agent spec {spec!r} is not available here ({exc})") from None
        return cls()
    raise ValueError(
        f"unknown agent spec {_short(repr(spec))}; known: {available_specs()} or 'ppo:<path>'"
    )


def _make_ppo(path: str) -> Bot:
    """A trained policy in the data-only format of :mod:`agents.ppo` (``.npz`` + ``.json``).

    ``<path>`` may be ``name``, ``name.npz``, ``name.json`` or ``name.zip`` (a training
    checkpoint's name: its data-only export beside it is loaded, the zip is never opened). The
    bot samples its move from the masked policy with the ``rng`` it is handed
    (``agents.ppo.load_bot(path, temperature=0)`` plays greedily); loaded files are cached
    per process, so a tournament may call this for every game.
    """
    if not path:
        raise ValueError("agent spec 'ppo:<path>': the path is missing")
    from loco_envs.agents.ppo import load_bot

    try:
        return load_bot(path)
    except ValueError as exc:
        raise ValueError(f"agent spec 'ppo:{_short(path)}': {exc}") from None


def _make_pretrained(spec: str) -> Bot:
    """A shipped policy (:data:`PRETRAINED`), sampling at its :data:`PRETRAINED_TEMPERATURE`."""
    from loco_envs.agents.ppo import load_bot

    try:
        bot = load_bot(PRETRAINED_DIR / PRETRAINED[spec], PRETRAINED_TEMPERATURE[spec])
    except ValueError as exc:
        raise ValueError(f"agent spec {spec!r} is not available here ({exc})") from None
    bot.name = spec
    return bot


def _short(text: str) -> str:
    return text if len(text) <= 200 else text[:197] + "..."
