"""The contract between a game's rules module and the generic environment.

A game is a mutable rules state (OpenSpiel's ``State``): it knows whose decision is next, which
actions are legal, how an action changes it, and what each seat may see. It imports neither
Gymnasium nor PettingZoo, so it can be tested, benchmarked and driven by a server on its own.

Chance (shuffles, flips, races) is drawn from ``self.rng``, a ``numpy.random.Generator`` that the
environment seeds; nothing touches the global RNG.
"""

from __future__ import annotations

import copy
import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from loco_envs.core.options import Option


class IllegalActionError(ValueError):
    """An action the rules forbid; the message names the rule id it breaks."""


class Game(ABC):
    """Base class of every rules engine.

    Subclasses set the class attributes, build the initial position in ``__init__`` and keep
    ``current_seat`` (``-1`` once the game is over) and ``terminal`` up to date.
    """

    #: Option name -> declaration; validated by :func:`loco_envs.core.options.validate_options`.
    OPTIONS: ClassVar[dict[str, Option]] = {}
    #: Size of the action codec (the same for every player count).
    NUM_ACTIONS: ClassVar[int] = 0
    #: The game's action codec module, with ``action_to_str`` and ``str_to_action``.
    codec: ClassVar[ModuleType]

    num_players: int
    current_seat: int
    terminal: bool
    rng: np.random.Generator

    @abstractmethod
    def legal_mask(self) -> np.ndarray:
        """``int8`` vector of length ``NUM_ACTIONS``: 1 where the current seat may act."""

    @classmethod
    def batch_arrays(cls, num_games: int, num_players: int) -> Any:
        """Arrays in which a vector env's batch keeps a part of every game's state, or ``None``.

        An engine whose batched masks and observations read a part of its state (LOCO's hands,
        Moco!'s table, hands and counts) can have it kept here, one row per game, so that they
        gather it in one numpy call instead of building an array from one object per game. The
        batch calls :meth:`move_to` after each reset to put a game in its row. The default
        keeps every game's state in the game.
        """
        return None

    def move_to(self, arrays: Any, row: int = 0) -> None:
        """Keep this game's part of ``batch_arrays`` in row ``row``; ``arrays=None`` (before
        the row is given to another game) leaves the row, the game keeping its whole state."""
        raise NotImplementedError(f"{type(self).__name__} has no batch_arrays")

    @classmethod
    def write_masks(cls, games: Sequence[Game], out: np.ndarray, rows: Sequence[int],
                    arrays: Any = None) -> None:
        """Write ``games[i].legal_mask()`` into ``out[rows[i]]`` for every ``i``.

        A vector env's batch calls this once a step for all its games that go on, with its
        ``batch_arrays`` (in which ``games[i]`` holds row ``rows[i]``). An engine may override
        it to compute the common phases' masks for all games at once (one numpy call instead
        of one per game); they must equal ``legal_mask``'s.
        """
        if games:
            out[list(rows)] = [game.legal_mask() for game in games]

    def play_legal(self, action: int) -> None:
        """Play ``action``, which the caller has checked against a mask equal to ``legal_mask``.

        A vector env checks all its games' actions against their masks in one numpy call, so an
        engine may override this with ``apply`` less its own check (``apply`` then checks and
        calls it). The default is ``apply``, check included.
        """
        self.apply(action)

    def legal_actions(self) -> list[int]:
        """Indices of the legal actions of the current seat."""
        return np.flatnonzero(self.legal_mask()).tolist()

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action`` for the current seat.

        Raises :class:`IllegalActionError` naming the rule an illegal action breaks, and leaves
        the state untouched when it does.
        """

    @abstractmethod
    def final_ranks(self) -> list[int]:
        """Finishing position of each seat (0 is best; tied seats share a position)."""

    @abstractmethod
    def final_scores(self) -> list[float]:
        """The game's own final points of each seat.

        Also read on an unfinished game, when ``max_decisions`` truncates it: then it must give
        the points so far (what the seat would score if the game stopped here).
        """

    @abstractmethod
    def view(self, seat: int) -> Any:
        """What ``seat`` may know, as a small structured object (bots read only this)."""

    @abstractmethod
    def state_dict(self) -> dict:
        """The whole state, hidden information included, as JSON-safe data."""

    @classmethod
    @abstractmethod
    def from_state_dict(
        cls, data: dict, rng: np.random.Generator, options: dict[str, Any]
    ) -> Game:
        """Rebuild a state from :meth:`state_dict` output; ``ValueError`` names a bad field."""

    @classmethod
    def action_to_str(cls, action: int) -> str:
        """A short human-readable name of an action index (context-free, so records can use it)."""
        return cls.codec.action_to_str(action)

    @classmethod
    def str_to_action(cls, text: str) -> int:
        """Inverse of :meth:`action_to_str`; ``ValueError`` for an unknown string."""
        return cls.codec.str_to_action(text)

    @abstractmethod
    def render_text(self, seat: int | None, reveal_all: bool = False) -> str:
        """An ansi picture of the table as ``seat`` sees it (``None``: public information)."""

    def render_rgb(self, seat: int | None) -> np.ndarray:
        """An ``(H, W, 3) uint8`` image of the table as ``seat`` sees it (``None``: public).

        Like the view, it shows nothing the viewer may not know (``render_mode="rgb_array"``).
        """
        raise NotImplementedError(f"{type(self).__name__} draws no image")

    # ------------------------------------------------------------------ search (shared/API.md)
    #: The module with this game's ``resample(game, seat, rng)`` (``loco_envs.<game>.search``).
    SEARCH: ClassVar[str | None] = None

    def clone(self) -> Game:
        """An independent copy: same state, same position of ``rng`` (a clone replays alike).

        Generic: numpy arrays, lists, dicts and sets are copied one level per nesting (the
        engines keep their state in those and in immutable values); anything else is shared if
        immutable, deep-copied otherwise: two to four times cheaper than ``copy.deepcopy``.
        """
        return self.copy_with_rng(None)

    def copy_with_rng(self, rng: np.random.Generator | None) -> Game:
        """:meth:`clone`, but with ``rng`` as the copy's generator (``None``: a copy of this
        one's). ``resample`` gives each new game a generator of its own this way, without the
        cost of copying one it would replace."""
        cls = type(self)
        new = cls.__new__(cls)
        for name, value in _fields(self):
            if name == "rng":
                value = _copy_rng(value) if rng is None else rng
            else:
                value = _copy(value)
            setattr(new, name, value)
        return new

    def resample(self, seat: int, rng: np.random.Generator) -> Game:
        """A new game drawn among the states consistent with everything ``seat`` has seen.

        ``resampled.view(seat) == self.view(seat)``; ``self`` is unchanged; the hidden cards or
        tiles are redealt, and the new game's own ``rng`` is seeded from ``rng`` (so its future
        chance is not the original's). The work is done by the game's :attr:`SEARCH` module,
        whose docstring says where the draw is uniform and where it approximates.
        """
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not (
                0 <= seat < self.num_players):
            raise ValueError(f"seat {seat!r} out of range 0..{self.num_players - 1}")
        if self.SEARCH is None:
            raise NotImplementedError(f"{type(self).__name__} has no resample")
        return importlib.import_module(self.SEARCH).resample(self, int(seat), rng)


_IMMUTABLE = (int, float, str, bool, type(None), np.integer, np.floating, np.bool_, frozenset)


def _fields(game: Game):
    """(name, value) of every attribute of ``game``: its ``__dict__`` and its slots."""
    seen = set()
    for klass in type(game).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name not in seen and name not in ("__dict__", "__weakref__"):
                seen.add(name)
                if hasattr(game, name):
                    yield name, getattr(game, name)
    yield from getattr(game, "__dict__", {}).items()


def _copy_rng(rng: np.random.Generator) -> np.random.Generator:
    """The same generator at the same position (cheaper than ``copy.deepcopy``)."""
    bits = type(rng.bit_generator)(0)
    bits.state = rng.bit_generator.state
    return np.random.Generator(bits)


def _copy(value: Any) -> Any:
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, tuple):  # may hold arrays (Moco!'s batch rows)
        return tuple(_copy(v) for v in value)
    if isinstance(value, set):
        return set(value)
    params = getattr(type(value), "__dataclass_params__", None)
    if params is not None and params.frozen:
        return value  # a record of immutable values (Los Mampfos' last share-out)
    return copy.deepcopy(value)  # a Generator, a frozen dataclass, ...
