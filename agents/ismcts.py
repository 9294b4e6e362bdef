"""Search bots: Information-Set Monte Carlo Tree Search (``agents.make("<game>/ismcts")``) and
flat Monte Carlo (``agents.make("<game>/flatmc")``, :class:`FlatMonteCarloBot` at the end).

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
rollout        random      the playout policy: ``random``, ``heuristic`` (``<game>/heuristic``) or,
                           in LOCO, ``heuristic-strong`` (``loco/heuristic-strong``)
depth          game's      decisions of a playout before it is scored as it stands
                           (LOCO: 40, where random play may never end; the others: none)
=============  ==========  ========================================================================

``<game>/flatmc`` takes ``playouts`` (rounds per decision, default 32) instead of
``iterations`` and has no ``c``; ``time``, ``rollout`` and ``depth`` mean the same.

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

import abc
import importlib
import time
from typing import Any

import numpy as np

from loco_envs.compiled import ismcts as T
from loco_envs.compiled import rng as R

GAMES = ("loco", "moco", "momo", "mampfos")
#: Decisions of a playout before it is cut off, per game (None: to the end).
DEFAULT_DEPTH = {"loco": 40, "moco": None, "momo": None, "mampfos": None}


#: Determinizations written into the playout batch between two calls of the compiled kernel.
ROWS = 32


class SearchBot(abc.ABC):
    """What the two searches share: the options both have (``time``, ``rollout``, ``depth``,
    checked by name), the game rebuilt from the view (or ``bot.game``, module docstring), the
    compiled batch its determinizations are written into, and the kernel's generator."""

    kind_name = "search"

    def __init__(self, game: str, time: float | None = None, rollout: str = "random",
                 depth: int | None | str = "default"):
        kind = self.kind_name
        if game not in GAMES:
            raise ValueError(f"{kind}: unknown game {game!r}; known: {list(GAMES)}")
        if time is not None and (isinstance(time, bool) or not isinstance(time, (int, float))
                                 or not time > 0):
            raise ValueError(f"{kind} option 'time' must be a positive number of seconds, "
                             f"got {time!r}")
        # the playout bots: the compiled engine's, by their spec's last part
        bots = importlib.import_module(f"loco_envs.{game}.compiled.bots").KINDS
        rollouts = {name.split("/")[-1]: code for name, code in bots.items()}
        if rollout not in rollouts:
            raise ValueError(f"{kind} option 'rollout' must be one of {list(rollouts)}, "
                             f"got {rollout!r}")
        if depth == "default":
            depth = DEFAULT_DEPTH[game]
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)
                                  or depth < 0):
            raise ValueError(f"{kind} option 'depth' must be an integer >= 0 or none, "
                             f"got {depth!r}")
        self.game_name, self.time, self.rollout, self.depth = game, time, rollout, depth
        self.search = importlib.import_module(f"loco_envs.{game}.search")
        self.state_module = importlib.import_module(f"loco_envs.{game}.compiled.state")
        self.kind = rollouts[rollout]
        self.game: Any = None  # optional: the game itself (module docstring)
        self.name = f"{game}/{kind}"
        self._batch: tuple[Any, Any, Any] | None = None  # (options, compiled state, config)
        self._rng_state = np.zeros(R.STATE_WORDS, np.uint64)

    def act(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """The searched move; a decision with one legal action is played at once."""
        seat = view.seat
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not (
                0 <= seat < view.num_players):  # before LOCO's game.view(seat) reads hands[-1]
            raise ValueError(f"{type(self).__name__}.act: a view of seat {seat!r}, out of "
                             f"range 0..{view.num_players - 1}")
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError(f"{type(self).__name__}.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        source = self.game
        if source is None or source.terminal or source.view(seat) != view:
            source = self.search.from_view(view, rng)
        R.seed_state(np.uint64(rng.integers(2**63)), self._rng_state)
        return self._search(source, int(seat), legal, action_mask, rng)

    @abc.abstractmethod
    def _search(self, source: Any, seat: int, legal: np.ndarray, action_mask: np.ndarray,
                rng: np.random.Generator) -> int:
        """The move ``seat`` plays, searched from determinizations of ``source`` (the kernel's
        generator already seeded from ``rng``)."""

    def _playout_batch(self, game: Any, rows: int = 0) -> tuple[Any, Any]:
        """The compiled batch the determinizations of ``game`` are written into (at least
        ``ROWS`` and ``rows`` games with ``game``'s options), made again only when the options
        change or more rows are needed."""
        options = self.search.engine_options(game)
        if (self._batch is None or self._batch[0] != options
                or self._batch[1].terminal.shape[0] < rows):
            cfg = self.state_module.config(options)
            self._batch = (options, self.state_module.allocate(max(ROWS, rows), cfg), cfg)
        return self._batch[1], self._batch[2]

    def _depth(self) -> int:
        return -1 if self.depth is None else self.depth

    def _next_batch(self, start: float, done: int, budget: int, most: int) -> int:
        """How many iterations (or rounds) the next kernel call runs, at most ``most``; 0 when
        the search is over: ``budget`` in all, or with ``time``, one first and then as many as
        the time left should take by the pace so far."""
        if self.time is None:
            return max(0, min(most, budget - done))
        spent = time.perf_counter() - start
        if not done:
            return 1
        if spent >= self.time:
            return 0
        return int(min(most, max(1, (self.time - spent) * done / spent)))


class ISMCTSBot(SearchBot):
    """SO-ISMCTS for one of the suite's games (see the module docstring)."""

    kind_name = "ismcts"

    def __init__(self, game: str, iterations: int = 100, time: float | None = None,
                 c: float = 0.7, rollout: str = "random", depth: int | None | str = "default"):
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
            raise ValueError(f"ismcts option 'iterations' must be a positive integer, "
                             f"got {iterations!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or c < 0:
            raise ValueError(f"ismcts option 'c' must be a number >= 0, got {c!r}")
        super().__init__(game, time, rollout, depth)
        self.iterations, self.c = iterations, float(c)
        self.last_iterations = 0
        self._tree = T.new_tree(iterations + 1 if time is None else 1024)

    def _search(self, source: Any, seat: int, legal: np.ndarray, action_mask: np.ndarray,
                rng: np.random.Generator) -> int:
        state, cfg = self._playout_batch(source)
        tree = self._tree
        T.reset_tree(tree)
        start, done = time.perf_counter(), 0
        while rows := self._next_batch(start, done, self.iterations, ROWS):
            for i in range(rows):
                self.state_module.write_game(state, i, source.resample(seat, rng))
            tree = self._tree = T.grow(tree, int(tree.size[0]) + rows)
            T.search(state, cfg, rows, tree, self.c, self.kind, self._depth(), self._rng_state,
                     source.NUM_ACTIONS)
            done += rows
        self.last_iterations = done
        children = T.root_children(tree)
        best = max((a for a in children if action_mask[a]), key=lambda a: children[a],
                   default=None)
        return int(legal[rng.integers(legal.size)]) if best is None else int(best)


class FlatMonteCarloBot(SearchBot):
    """Flat Monte Carlo (``agents.make("<game>/flatmc")``): no tree. Each round draws one
    determinization of the seat's information set and plays every legal move in a copy of
    it, then plays out with the rollout policy (``random`` by default); after ``playouts``
    rounds (or ``time`` seconds) the move with the best mean rank reward is played, one drawn
    from the ``rng`` among equal bests (where the game is decided every move scores alike, and
    the first in action order would be a habit, not a choice). Every move of a round meets the
    same hidden cards and the same chance to come (the determinization's generator is copied
    too), so the comparison between moves is not drowned by the luck of the deal. ``depth``
    counts the playout's decisions after the searched move (the game's default: 40 in LOCO,
    to the end in the others), and a playout is scored as ISMCTS scores it (the game's
    ``search.evaluate``: rank rewards, and solo Loco Momo's scaled score).

    Why a second search: it is the classic yardstick for a trained agent (a few dozen playouts
    of a redealt hidden hand for each legal move, a few milliseconds to tens of them a
    decision), a search without a policy or a tree whose strength comes from its playouts
    alone (``docs/search.md`` measures both rollouts). It reads only the view (or
    ``bot.game``, as :class:`ISMCTSBot`).
    ``last_playouts`` is the rounds of the last searched decision.
    """

    kind_name = "flatmc"

    def __init__(self, game: str, playouts: int = 32, time: float | None = None,
                 rollout: str = "random", depth: int | None | str = "default"):
        if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
            raise ValueError(f"flatmc option 'playouts' must be a positive integer, "
                             f"got {playouts!r}")
        super().__init__(game, time, rollout, depth)
        self.playouts = playouts
        self.last_playouts = 0

    def write_round(self, state: Any, row: int, moves: int, game: Any) -> None:
        """Rows ``row .. row + moves - 1`` of the compiled batch ``state`` become ``game``, one
        copy per legal move (every field's first axis is the game row)."""
        self.state_module.write_game(state, row, game)
        for array in state:
            array[row + 1:row + moves] = array[row]

    def _search(self, source: Any, seat: int, legal: np.ndarray, action_mask: np.ndarray,
                rng: np.random.Generator) -> int:
        moves = legal.size
        per_call = max(1, ROWS // moves)  # rounds written per kernel call
        state, cfg = self._playout_batch(source, per_call * moves)
        first = np.tile(legal, per_call)
        rewards = np.zeros(per_call * moves)
        totals = np.zeros(moves)
        start, done = time.perf_counter(), 0
        while rounds := self._next_batch(start, done, self.playouts, per_call):
            for r in range(rounds):
                self.write_round(state, r * moves, moves, source.resample(seat, rng))
            T.playouts(state, cfg, rounds * moves, first, seat, self.kind, self._depth(),
                       self._rng_state, source.NUM_ACTIONS, rewards)
            totals += rewards[:rounds * moves].reshape(rounds, moves).sum(axis=0)
            done += rounds
        self.last_playouts = done
        best = np.flatnonzero(totals == totals.max())
        return int(legal[best[rng.integers(best.size)] if best.size > 1 else best[0]])


#: The searches by the name in their spec (``<game>/<name>[:options]``), with their options.
SEARCHES: dict[str, tuple[type[SearchBot], tuple[str, ...]]] = {
    "ismcts": (ISMCTSBot, ("iterations", "time", "c", "rollout", "depth")),
    "flatmc": (FlatMonteCarloBot, ("playouts", "time", "rollout", "depth")),
}


def make(game: str, options: str = "", search: str = "ismcts") -> SearchBot:
    """Build ``search`` (a key of :data:`SEARCHES`) from the part of a spec after
    ``<game>/<search>:`` (``key=value`` pairs joined by commas); ``ValueError`` names an
    unknown or malformed option."""
    cls, known = SEARCHES[search]
    kwargs: dict[str, Any] = {}
    for item in filter(None, options.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if key not in known:
            raise ValueError(f"{search}: unknown option {key!r}; options: {list(known)}")
        if not eq:
            raise ValueError(f"{search} option {key!r} needs a value ({key}=...)")
        kwargs[key] = _parse(search, key, value.strip())
    bot = cls(game, **kwargs)
    if options:
        bot.name = f"{game}/{search}:{options}"
    return bot


def _parse(search: str, key: str, value: str) -> Any:
    try:
        if key in ("iterations", "playouts", "depth"):
            return None if key == "depth" and value == "none" else int(value)
        if key in ("time", "c"):
            return float(value)
    except ValueError:
        raise ValueError(f"{search} option {key!r}: cannot read {value!r}") from None
    return value
