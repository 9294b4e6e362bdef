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
seeded game replays identically.
"""

from __future__ import annotations

import importlib
import math
import time
from typing import Any

import numpy as np

GAMES = ("loco", "moco", "momo", "mampfos")
#: Decisions of a playout before it is cut off, per game (None: to the end).
DEFAULT_DEPTH = {"loco": 40, "moco": None, "momo": None, "mampfos": None}
OPTIONS = ("iterations", "time", "c", "rollout", "depth")


class _Node:
    __slots__ = ("children", "visits", "total", "avail", "seat")

    def __init__(self, seat: int):
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 1
        self.seat = seat  # the seat that moved into this node


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
        self.policy = None
        if rollout == "heuristic":
            from loco_envs import agents

            self.policy = agents.make(f"{game}/heuristic")
        self.game: Any = None  # optional: the game itself (module docstring)
        self.name = f"{game}/ismcts"
        self.last_iterations = 0

    # -----------------------------------------------------------------------------------------
    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("ISMCTSBot.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        seat = view.seat
        source = self.game
        if source is None or source.terminal or source.view(seat) != view:
            source = self.search.from_view(view, rng)
        root = _Node(seat)
        deadline = None if self.time is None else time.perf_counter() + self.time
        done = 0
        while True:
            self._iterate(root, source.resample(seat, rng), rng)
            done += 1
            if deadline is None:
                if done >= self.iterations:
                    break
            elif time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        legal_set = set(legal.tolist())
        best = max((a for a in root.children if a in legal_set),
                   key=lambda a: (root.children[a].visits, root.children[a].total), default=None)
        return int(legal[rng.integers(legal.size)]) if best is None else int(best)

    def _iterate(self, root: _Node, game: Any, rng: np.random.Generator) -> None:
        node, path, c = root, [], self.c
        while not game.terminal:  # selection and expansion
            legal = game.legal_actions()
            actor = game.current_seat
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                child = children.get(a)
                if child is not None:
                    child.avail += 1
            if untried:
                a = untried[int(rng.integers(len(untried)))]
                child = children[a] = _Node(actor)
                game.apply(a)
                path.append(child)
                break
            best, best_value = None, -math.inf
            for a in legal:
                child = children[a]
                value = child.total / child.visits + c * math.sqrt(
                    math.log(child.avail) / child.visits)
                if value > best_value:
                    best, best_value = a, value
            node = children[best]
            game.apply(best)
            path.append(node)
        steps, depth, policy = 0, self.depth, self.policy
        while not game.terminal and (depth is None or steps < depth):  # playout
            mask = game.legal_mask()
            if policy is None:
                moves = np.flatnonzero(mask)
                game.apply(int(moves[rng.integers(moves.size)]))
            else:
                game.apply(int(policy.act(game.view(game.current_seat), mask, rng)))
            steps += 1
        rewards = self.search.evaluate(game)
        root.visits += 1
        for child in path:  # backup, each node from the view of the seat that moved into it
            child.visits += 1
            child.total += rewards[child.seat]


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
