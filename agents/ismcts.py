"""Information-Set Monte Carlo Tree Search bots (``agents.make("<game>/ismcts")``).

Single-observer ISMCTS (SO-ISMCTS; Cowling, Powley and Whitehouse, "Information Set Monte Carlo
Tree Search", IEEE TCIAIG 4(2), 2012): one tree over the searching seat's information set,
whose nodes are reached by action sequences. Each iteration

1. *determinizes*: draws a full game consistent with what the seat has seen
   (``game.resample(seat, rng)``, :mod:`loco_envs.<game>.search`);
2. *selects* down the tree among the children whose actions are legal in that determinization,
   by UCB1 with availability counts: ``mean + c * sqrt(ln(available) / visits)``, where a
   node's mean is from the point of view of the seat that moved into it (so every seat, the
   opponents included, plays to its own ends: n-player, not just two-player zero-sum);
3. *expands* one untried legal action, 4. *plays out* with the rollout policy (``random``, or
   the game's ``heuristic`` bot reading the views of the determinized game) up to ``depth``
   decisions, and 5. *backs up* the rank rewards of every seat (``shared/API.md``'s ``rank``
   reward: +1 first, -1 last; a cut-off playout is scored by the game's
   ``search.evaluate``: LOCO by match points then points left in hand, the others by their
   points so far).

The move played is the root's most visited legal child. A decision with one legal action is
played at once without search.

Where the game comes from. The bot protocol hands a bot its seat's view, its mask and an rng,
nothing else, and the runners (``benchmarks.tournament``, ``train.evaluate``, the vector env's
bots, ``loco_envs.play``) call every bot that way. So the bot rebuilds a game from the view
(``loco_envs.<game>.search.from_view``: the public table and its own hand, the hidden cards dealt
at random), and searches from determinizations ``resample``-d from it: it needs no runner to
change, one bot object may play any seat of any game of its kind, and it cannot see anything its
view does not show. The price: knowledge that is not in the view (in LOCO, the cards a seat saw
change hands by Swap or Rotation; in Los Mampfos' ``recall`` mode, the bellies it watched being
fed) is not used, because the bot is stateless between calls. A caller that owns the game may
set ``bot.game`` to it (``env.unwrapped.game``): when its ``view`` of the seat equals the view
passed to ``act``, the bot resamples from the game itself, which keeps all the knowledge
``resample`` tracks (still drawing everything hidden afresh, so it never sees a secret).

Options (``agents.make("loco/ismcts:iterations=200,c=0.7,rollout=heuristic")``):

=============  ==========  ========================================================================
option         default     meaning
=============  ==========  ========================================================================
iterations     100         iterations per decision (ignored when ``time`` is given)
time           none        a time budget per decision in seconds instead (not reproducible: the
                           number of iterations then depends on the machine)
c              0.7         the exploration constant of UCB1 (rewards lie in [-1, 1])
rollout        random      the playout policy: ``random`` or ``heuristic`` (``<game>/heuristic``)
depth          game's      decisions of a playout before it is scored as it stands
                           (LOCO: 40, where random play may never end; the others: none)
=============  ==========  ========================================================================

Reproducible: every draw comes from the ``rng`` handed to ``act``, so with an iteration budget a
seeded game replays identically. A view whose seat is not one of its game's is a ``ValueError``
naming the seat.

Speed: searched decisions per second with heuristic playouts, in one process on a 2-core
machine that other jobs kept at a load of 8 to 10 (so lower bounds: a quiet core plays
faster), each on 60 decisions of random games (``benchmarks.search_strength.speed``,
e.g. ``speed("loco_v0", 2, "loco/ismcts:iterations=200,rollout=heuristic", 60)``):

=======================  =====  =====  =====  =====
iterations                 50    200    800   1600
=======================  =====  =====  =====  =====
LOCO, 2 players           39.7   18.6    4.1    2.0
Moco!, 2 players         101.8   28.3    8.0    4.0
Loco Momo, 2 players      54.6   11.4    2.9    1.8
Los Mampfos, 3 players    53.6   14.3    4.3    1.9
=======================  =====  =====  =====  =====

Most of the time goes into the determinizations (``resample`` and writing the game into the
compiled batch, in Python), so from 200 iterations on it grows about linearly with them (at 50
the cost per decision of rebuilding the game from the view still weighs); random playouts cost
about the same (LOCO 14.9, Moco! 27.3, Loco Momo 20.9, Los Mampfos 18.2 at 200 iterations in
the same run). How strong each budget plays: ``docs/search.md``.
"""

from __future__ import annotations

import importlib
import time
from typing import Any

import numpy as np

from loco_envs.compiled import ismcts as T
from loco_envs.compiled import rng as R

GAMES = ("loco", "moco", "momo", "mampfos")
#: Decisions of a playout before it is cut off, per game (None: to the end).
DEFAULT_DEPTH = {"loco": 40, "moco": None, "momo": None, "mampfos": None}
OPTIONS = ("iterations", "time", "c", "rollout", "depth")


#: Determinizations written into the playout batch between two calls of the compiled kernel.
ROWS = 32


class ISMCTSBot:
    """SO-ISMCTS for one of the suite's games (see the module docstring)."""

    def __init__(self, game: str, iterations: int = 100, time: float | None = None,
                 c: float = 0.7, rollout: str = "random", depth: int | None | str = "default"):
        if game not in GAMES:
            raise ValueError(f"ismcts: unknown game {game!r}; known: {list(GAMES)}")
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"ismcts option 'iterations' must be a positive integer, "
                             f"got {iterations!r}")
        if time is not None and not (isinstance(time, (int, float)) and time > 0):
            raise ValueError(f"ismcts option 'time' must be a positive number of seconds, "
                             f"got {time!r}")
        if not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"ismcts option 'c' must be a number >= 0, got {c!r}")
        if rollout not in ("random", "heuristic"):
            raise ValueError(f"ismcts option 'rollout' must be 'random' or 'heuristic', "
                             f"got {rollout!r}")
        if depth == "default":
            depth = DEFAULT_DEPTH[game]
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)
                                  or depth < 0):
            raise ValueError(f"ismcts option 'depth' must be an integer >= 0 or none, "
                             f"got {depth!r}")
        self.game_name = game
        self.iterations, self.time, self.c = iterations, time, float(c)
        self.rollout, self.depth = rollout, depth
        self.search = importlib.import_module(f"loco_envs.{game}.search")
        self.state_module = importlib.import_module(f"loco_envs.{game}.compiled.state")
        kinds = importlib.import_module(f"loco_envs.{game}.compiled.bots").KINDS
        self.kind = kinds["random" if rollout == "random" else f"{game}/heuristic"]
        self.game: Any = None  # optional: the game itself (module docstring)
        self.name = f"{game}/ismcts"
        self.last_iterations = 0
        self._batch: tuple[Any, Any, Any] | None = None  # (options, compiled state, config)
        self._tree = T.new_tree(iterations + 1 if time is None else 1024)
        self._rng_state = np.zeros(R.STATE_WORDS, np.uint64)

    # -----------------------------------------------------------------------------------------
    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        seat = view.seat
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not (
                0 <= seat < view.num_players):  # before LOCO's game.view(seat) reads hands[-1]
            raise ValueError(f"ISMCTSBot.act: a view of seat {seat!r}, out of range "
                             f"0..{view.num_players - 1}")
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("ISMCTSBot.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        source = self.game
        if source is None or source.terminal or source.view(seat) != view:
            source = self.search.from_view(view, rng)
        state, cfg = self._playout_batch(source)
        R.seed_state(np.uint64(rng.integers(2**63)), self._rng_state)
        tree = self._tree
        T.reset_tree(tree)
        depth = -1 if self.depth is None else self.depth
        start = time.perf_counter()
        done, rows = 0, min(ROWS, self.iterations)
        while True:
            if self.time is not None:  # as many rows as the time left should take
                spent = time.perf_counter() - start
                if done and spent >= self.time:
                    break
                rows = 1 if not done else int(min(ROWS, max(1, (self.time - spent) * done / spent)))
            else:
                rows = min(rows, self.iterations - done)
                if rows <= 0:
                    break
            for i in range(rows):
                self.state_module.write_game(state, i, source.resample(seat, rng))
            tree = self._tree = T.grow(tree, int(tree.size[0]) + rows)
            T.search(state, cfg, rows, tree, self.c, self.kind, depth, self._rng_state,
                     source.NUM_ACTIONS)
            done += rows
        self.last_iterations = done
        children = T.root_children(tree)
        best = max((a for a in children if action_mask[a]), key=lambda a: children[a],
                   default=None)
        return int(legal[rng.integers(legal.size)]) if best is None else int(best)

    def _playout_batch(self, game: Any) -> tuple[Any, Any]:
        """The compiled batch the determinizations of ``game`` are written into (``ROWS``
        games with ``game``'s options), made again only when the options change."""
        options = self.search.engine_options(game)
        if self._batch is None or self._batch[0] != options:
            cfg = self.state_module.config(options)
            self._batch = (options, self.state_module.allocate(ROWS, cfg), cfg)
        return self._batch[1], self._batch[2]


def make(game: str, options: str = "") -> ISMCTSBot:
    """Build from the part of a spec after ``<game>/ismcts:`` (``key=value`` pairs joined by
    commas); ``ValueError`` names an unknown or malformed option."""
    kwargs: dict[str, Any] = {}
    for item in filter(None, options.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in OPTIONS:
            raise ValueError(f"ismcts: unknown option {key!r}; options: {list(OPTIONS)}")
        if not eq:
            raise ValueError(f"ismcts option {key!r} needs a value ({key}=...)")
        kwargs[key] = _parse(key, value.strip())
    bot = ISMCTSBot(game, **kwargs)
    if options:
        bot.name = f"{game}/ismcts:{options}"
    return bot


def _parse(key: str, value: str) -> Any:
    try:
        if key in ("iterations", "depth"):
            return None if key == "depth" and value == "none" else int(value)
        if key in ("time", "c"):
            return float(value)
    except ValueError:
        raise ValueError(f"ismcts option {key!r}: cannot read {value!r}") from None
    return value
