"""The suite's games as OpenSpiel games (optional extra ``openspiel``: ``pip install
loco-envs[openspiel]``).

``import loco_envs.openspiel`` registers four pyspiel Python games, so OpenSpiel's own
algorithms and tools load them by name::

    import pyspiel, loco_envs.openspiel
    game = pyspiel.load_game("loco_envs_moco", {"num_players": 3})
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)

=====================  ============  ===========  ========================================
short name             players       actions      engine
=====================  ============  ===========  ========================================
``loco_envs_loco``     2-10 (2)      LOCO's       :class:`loco_envs.loco.rules.LocoGame`
``loco_envs_moco``     2-5 (4)       Moco!'s      :class:`loco_envs.moco.rules.MocoGame`
``loco_envs_momo``     2-4 (2)       Loco Momo's  :class:`loco_envs.momo.rules.MomoGame`
``loco_envs_mampfos``  2-5 (3)       Los M.'s     :class:`loco_envs.mampfos.rules.MampfosGame`
=====================  ============  ===========  ========================================

Parameters: ``num_players`` (default in brackets) and ``max_decisions`` (see below). Actions are
the suite's action indices (``num_distinct_actions`` = the env's ``Discrete(n)``), strings its
``action_to_str``. Players are seats. Returns are the suite's ``rank`` rewards at the end
(zero-sum, in [-1, 1]); nothing is paid before. Loco Momo's solo mode is not offered (its result
is a score, not a rank).

Chance. OpenSpiel wants every random event as a chance node with explicit outcomes. The
engines draw their chance from one seeded ``numpy`` generator (deals, LOCO's reshuffles
and photo finishes, Los Mampfos' card flips, Loco Momo's bag), so the games model chance as
*sampled up front*: the game starts with four chance nodes of 256 equally likely outcomes each,
the bytes of a 32-bit seed, and every later random event follows from that seed. This is exact
in distribution for every game (the engine's draws from the seeded generator are the game's own
random events) and keeps the chance nodes few and small; what it gives up is a chance node at
each draw, so algorithms that enumerate the full game tree (exact best responses, CFR over
chance) see 2^32 deals, each followed by a deterministic game. LOCO's reshuffles in particular
(L-13: whose outcome depends on the whole discard pile) are not separate chance nodes.

Observations. ``observation_tensor`` is the env's observation vector of that player (its view
encoded, ``shared/API.md``), ``observation_string`` the view's text. ``information_state_*``
is the same view with the player's own past actions appended (tensor: their counts per action):
the view carries each game's public history as the env designs it (Moco!'s piles, Los Mampfos'
events since one's last decision, LOCO's discard counts), but it is not a full perfect-recall
history of every event; use it as an imperfect-recall information state.

Length. OpenSpiel needs a bound on a game's length, and two LOCO bots can stall a game for good;
``max_decisions`` (default 2000 for LOCO, 1000 for the others) ends a game as a tie of all
players (every return 0), as the env option of that name does.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the extra is optional
    raise ImportError("loco_envs.openspiel needs OpenSpiel: pip install 'loco-envs[openspiel]' "
                      "(or pip install open-spiel)") from exc

SEED_BYTES = 4


@dataclass(frozen=True)
class _Spec:
    game: str
    players: tuple[int, int]
    default_players: int
    max_decisions: int


SPECS = {
    "loco": _Spec("loco", (2, 10), 2, 2000),
    "moco": _Spec("moco", (2, 5), 4, 1000),
    "momo": _Spec("momo", (2, 4), 2, 1000),
    "mampfos": _Spec("mampfos", (2, 5), 3, 1000),
}


@functools.cache
def _engine(game: str) -> tuple[Any, Any]:
    import importlib

    rules = importlib.import_module(f"loco_envs.{game}.rules")
    observation = importlib.import_module(f"loco_envs.{game}.observation")
    cls = {"loco": "LocoGame", "moco": "MocoGame", "momo": "MomoGame",
           "mampfos": "MampfosGame"}[game]
    return getattr(rules, cls), observation


def _game_type(spec: _Spec) -> Any:
    return pyspiel.GameType(
        short_name=f"loco_envs_{spec.game}",
        long_name=f"loco-envs {spec.game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.players[1],
        min_num_players=spec.players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"num_players": spec.default_players,
                                 "max_decisions": spec.max_decisions},
    )


class LocoEnvsGame(pyspiel.Game):
    """One of the suite's games for OpenSpiel (see the module docstring)."""

    spec: _Spec

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        spec = self.spec
        n = int(params.get("num_players", spec.default_players))
        if not spec.players[0] <= n <= spec.players[1]:
            raise ValueError(f"num_players {n} out of range {spec.players[0]}..{spec.players[1]}")
        limit = int(params.get("max_decisions", spec.max_decisions))
        engine, _ = _engine(spec.game)
        info = pyspiel.GameInfo(
            num_distinct_actions=engine.NUM_ACTIONS, max_chance_outcomes=256,
            num_players=n, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=limit + SEED_BYTES)
        super().__init__(_game_type(spec), info, {"num_players": n, "max_decisions": limit})
        # plain values only: pyspiel deep-copies a game with its states and keeps no attribute
        self.config = (spec.game, n, limit)

    def new_initial_state(self) -> LocoEnvsState:
        return LocoEnvsState(self, self.config)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return _Observer(self.config, perfect_recall)


class LocoEnvsState(pyspiel.State):
    """A state: the seed bytes drawn so far, then the engine's game."""

    def __init__(self, game: LocoEnvsGame, config: tuple[str, int, int]):
        super().__init__(game)
        self.name, self.n, self.max_decisions = config
        self.seed_bytes: list[int] = []
        self.engine: Any = None
        self.decisions = 0
        self.own_actions: list[list[int]] = [[] for _ in range(self.n)]

    # -- pyspiel's State API
    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        if self._over():
            return pyspiel.PlayerId.TERMINAL
        return int(self.engine.current_seat)

    def _over(self) -> bool:
        return self.engine.terminal or self.decisions >= self.max_decisions

    def _legal_actions(self, player: int) -> list[int]:
        return self.engine.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(b, 1 / 256) for b in range(256)]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.seed_bytes.append(int(action))
            if len(self.seed_bytes) == SEED_BYTES:
                seed = int.from_bytes(bytes(self.seed_bytes), "little")
                cls = _engine(self.name)[0]
                self.engine = cls(np.random.default_rng(seed), num_players=self.n)
            return
        self.own_actions[self.engine.current_seat].append(int(action))
        self.engine.apply(int(action))
        self.decisions += 1

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        return _engine(self.name)[0].action_to_str(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self._over()

    def returns(self) -> list[float]:
        n = self.n
        if not (self.engine is not None and self.engine.terminal):
            return [0.0] * n
        ranks = self.engine.final_ranks()
        return [(sum(r < o for o in ranks) - sum(o < r for o in ranks)) / (n - 1)
                for r in ranks]

    def __str__(self) -> str:
        if self.engine is None:
            return f"seed bytes {self.seed_bytes}"
        return self.engine.render_text(None, reveal_all=True)


class _Observer:
    """PyObserver: the player's view encoded (and, for information states, its own actions)."""

    def __init__(self, config: tuple[str, int, int], perfect_recall: bool):
        engine, self.observation = _engine(config[0])
        self.n = config[1]
        self.perfect_recall = perfect_recall
        size = int(self.observation.observation_size(self.n))
        extra = engine.NUM_ACTIONS if perfect_recall else 0
        self.tensor = np.zeros(size + extra, np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if perfect_recall:
            self.dict["own_actions"] = self.tensor[size:]

    def set_from(self, state: LocoEnvsState, player: int) -> None:
        self.tensor.fill(0)
        if state.engine is None:
            return
        self.dict["observation"][:] = self.observation.encode(state.engine.view(player))
        if self.perfect_recall:
            np.add.at(self.dict["own_actions"], state.own_actions[player], 1)

    def string_from(self, state: LocoEnvsState, player: int) -> str:
        if state.engine is None:
            return f"p{player}: dealing"
        text = repr(state.engine.view(player))
        if self.perfect_recall:
            text += f" own actions {state.own_actions[player]}"
        return text


def _register() -> dict[str, type]:
    classes = {}
    for name, spec in SPECS.items():
        cls = type(f"{name.capitalize()}OpenSpielGame", (LocoEnvsGame,), {"spec": spec})
        pyspiel.register_game(_game_type(spec), cls)
        classes[name] = cls
    return classes


GAMES = _register()
SHORT_NAMES = [f"loco_envs_{name}" for name in SPECS]

__all__ = ["GAMES", "SHORT_NAMES", "LocoEnvsGame", "LocoEnvsState"]
