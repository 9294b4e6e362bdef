"""The contract between a game's rules module and the generic environment.

A game is a mutable rules state (OpenSpiel's ``State``): it knows whose decision is next, which
actions are legal, how an action changes it, and what each seat may see. It imports neither
Gymnasium nor PettingZoo, so it can be tested, benchmarked and driven by a server on its own.

Chance (shuffles, flips, races) is drawn from ``self.rng``, a ``numpy.random.Generator`` that the
environment seeds; nothing touches the global RNG.
"""

from __future__ import annotations

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
