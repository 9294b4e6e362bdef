"""``RulesAECEnv``: the PettingZoo bookkeeping shared by every game of the suite.

A game's ``env.py`` subclasses it, names its :class:`~loco_envs.core.game.Game` class and its
observation encoder, and is done. This class handles agents and seats, final rewards (``rank``
or ``score``), cumulative rewards and dead steps (as PettingZoo's classic envs do), action masks,
rendering, ``view``/``state_dict``, state injection through ``reset(options={"state": ...})``, and
the game record that :func:`loco_envs.replay` checks.

The episode cap ``max_decisions`` (an option of every game; default ``None``, no cap)
-------------------------------------------------------------------------------------
Some policies never end a game (a LOCO player that always draws or passes can go on for good),
and an external trainer would hang on such an episode. With ``max_decisions=N`` the env counts
the decisions taken since ``reset``: every ``step`` with an action by the agent to act, whoever
it is (all seats together, not per agent), and every ``timeout``. Dead steps (``None`` for an
agent already done) are not decisions. When the N-th decision leaves the game unfinished:

- every agent is *truncated* in PettingZoo's sense: ``truncations[agent]`` is True and
  ``last()`` returns ``truncated=True`` (``terminated`` stays False: the game itself has not
  ended); agents then leave through dead steps (``env.step(None)``) as at a normal end;
- the reward of a truncation is 0 for every agent (nothing has been decided: rewards are paid
  at a real end only), so the episode's return is 0;
- ``infos[agent]`` holds ``{"truncated": True, "decisions": N, "score": <the seat's score so
  far>}`` (the rules engine's ``final_scores()`` of the unfinished game);
- every action mask is all zeros; the rules state stays as it was, for inspection;
- the record ends with ``{"result": {"truncated": true, "decisions": N, "scores": [...]}}``, and
  :func:`loco_envs.replay` checks that the replayed game is truncated at that same decision
  with those scores.

A game that ends on exactly its N-th decision terminates normally. Decisions are counted from
``reset``, also when it starts from a given state. The cap is an env option: it is in the
record's header (when set), so a replay rebuilds the same cap.
"""

from __future__ import annotations

import copy
import json
from array import array
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from loco_envs._version import __version__
from loco_envs.core.game import Game
from loco_envs.core.options import ENV_OPTIONS, validate_options
from loco_envs.core.rewards import rank_rewards, score_rewards

#: The ``action_str`` of a record line for a decision the clock took (``RulesAECEnv.timeout``).
TIMEOUT = "timeout"
#: The action such a decision is stored with (every action of every game is >= 0).
TIMED_OUT = -1


class RulesAECEnv(AECEnv):
    """Generic AEC environment over a rules engine.

    Subclasses set ``game_class``, ``env_id``, ``metadata`` and implement
    :meth:`observation_size`, :meth:`observation_bounds` and :meth:`encode`.
    """

    game_class: ClassVar[type[Game]]
    env_id: ClassVar[str]
    def __init__(self, **options: Any):
        super().__init__()
        self.options = validate_options(self.game_class.OPTIONS, options)
        self.render_mode = self.options["render_mode"]
        self.max_decisions: int | None = self.options["max_decisions"]  # read at every move
        self.num_players = self.options.get("num_players", 1)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat_of = {agent: i for i, agent in enumerate(self.possible_agents)}
        low, high = self.observation_bounds()
        if low.shape != (self.observation_size(),) or high.shape != low.shape:
            raise ValueError(f"{self.env_id}: observation bounds of shape {low.shape}/"
                             f"{high.shape}, observations of {self.observation_size()} entries")
        n_actions = self.game_class.NUM_ACTIONS
        self._observation_spaces = {
            agent: _observation_space(low, high, n_actions) for agent in self.possible_agents
        }
        self._action_spaces = {agent: spaces.Discrete(n_actions) for agent in self.possible_agents}
        self._no_actions = np.zeros(n_actions, np.int8)
        self.game: Game | None = None
        self.render_seat: int | None = None  # None: render the seat to act

    # --- what each game supplies -------------------------------------------------------
    def observation_size(self) -> int:
        """Length of the flat observation for ``self.options``."""
        raise NotImplementedError

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per-entry ``(low, high)`` of the observation for ``self.options``, from the rules.

        Built by :func:`loco_envs.core.bounds.slice_bounds` from the game's slice table.
        """
        raise NotImplementedError

    def encode(self, seat: int) -> np.ndarray:
        """The ``float32`` observation of ``seat`` (an encoding of ``view(seat)``)."""
        raise NotImplementedError

    def encode_into(self, seat: int, out: np.ndarray) -> None:
        """Write ``encode(seat)`` into ``out``, e.g. a row of a vector env's buffer.

        A game whose encoder can write in place overrides this to skip the temporary array.
        """
        out[:] = self.encode(seat)

    @classmethod
    def encode_rows(cls, envs: Sequence[RulesAECEnv], seats: Sequence[int], obs: np.ndarray,
                    rows: Sequence[int], arrays: Any = None) -> None:
        """Write ``envs[i].encode(seats[i])`` into ``obs[rows[i]]`` for every ``i``.

        A vector env's batch calls this once a step for all the games it observes, with the
        game class's ``batch_arrays`` (in which game ``i`` holds row ``rows[i]``). A game
        whose encoder can share work between games (one numpy call for a block of every row)
        overrides it; the rows must equal ``encode``'s.
        """
        for env, seat, row in zip(envs, seats, rows, strict=True):
            env.encode_into(seat, obs[row])

    # --- PettingZoo API ------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Other reset options are ignored, as PettingZoo's api_test expects.
        options = dict(options or {})
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        rng = np.random.default_rng(seed)
        game_options = self.game_options()
        env_options = {"reward": self.options["reward"]}
        if self.options["max_decisions"] is not None:
            env_options["max_decisions"] = self.options["max_decisions"]
        if options.get("state") is not None:
            game = self.game_class.from_state_dict(options["state"], rng, game_options)
            initial_state = json.loads(json.dumps(options["state"]))
        else:
            game = self.game_class(rng=rng, **game_options)
            initial_state = None
        self.game = game
        self._record_header = {
            "env": self.env_id,
            "version": _package_version(),
            "options": game_options | env_options,
            "seed": seed,
            "state": initial_state,
        }
        # The moves, as two arrays of C integers: seats (signed chars) and actions (TIMED_OUT
        # for a timeout). A tuple a move is an object the garbage collector counts: one a
        # decision set off a collection every few hundred decisions, the full ones over every
        # game in the process (without them LOCO's vector env at 256 games on the Python engine
        # went from 1.32x-1.45x to 1.52x-1.58x the single raw env per core).
        self._move_seats, self._move_actions = array("b"), array("i")
        self.truncated_game = False  # True once max_decisions stopped an unfinished game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._synced = True
        self._after_move()

    def game_options(self) -> dict[str, Any]:
        """The options the rules engine takes (everything but the env-level ones)."""
        return {k: v for k, v in self.options.items() if k not in ENV_OPTIONS}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.game.current_seat
        self.game.apply(int(action))  # raises before changing anything if illegal
        self._move_seats.append(seat)
        self._move_actions.append(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._after_move()
        if self.render_mode == "human":
            self.render()

    def step_unsynced(self, action: int, checked: bool = False) -> bool:
        """``step(action)`` for the vector env's hot loop: the move and its record line only.

        Plays ``action`` for the seat to act and records it, as ``step`` does, and returns
        whether the game is over (ended, or at ``max_decisions``). An illegal action raises
        and changes nothing, unless ``checked`` says that the caller has checked it against
        ``legal_mask`` already: then the engine's ``play_legal`` plays it without a check.
        PettingZoo's per-move bookkeeping (``agent_selection``, ``rewards``, ``terminations``,
        ``truncations``, ``infos``, ``truncated_game``) waits for :meth:`sync`, which the
        caller runs before anything reads it; the rules state, ``view``, ``encode`` and
        ``decisions`` are up to date at once.
        """
        game = self.game
        seat = game.current_seat
        action = int(action)  # as step(): the record can take it once the game has moved
        if checked:
            game.play_legal(action)
        else:
            game.apply(action)
        self._move_seats.append(seat)
        self._move_actions.append(action)
        self._synced = False
        cap = self.max_decisions
        return game.terminal or (cap is not None and len(self._move_actions) >= cap)

    def sync(self) -> None:
        """Bring the bookkeeping up to date after :meth:`step_unsynced` moves.

        One ``_after_move`` gives exactly the state that a ``step`` per move would have left:
        every reward is 0 until the game ends or is truncated, so the per-move updates of
        ``rewards`` and the cumulative rewards add nothing, and the rest is set from the state;
        only ``agent_selection``, which an ended game leaves on the last mover, is set first.
        """
        if not self._synced:
            self._synced = True
            self.agent_selection = self.possible_agents[self._move_seats[-1]]
            self._after_move()

    def _after_move(self) -> None:
        game = self.game
        if game.terminal:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_seat]
            cap = self.max_decisions
            if cap is not None and len(self._move_actions) >= cap:
                self._truncate()
        self._accumulate_rewards()

    @property
    def decisions(self) -> int:
        """Decisions taken since ``reset`` (what ``max_decisions`` counts)."""
        return len(self._move_actions)

    def _truncate(self) -> None:
        """Stop an unfinished game at the cap: every agent truncated, reward 0, scores so far."""
        self.truncated_game = True
        scores = self.game.final_scores()
        for agent in self.agents:
            self.rewards[agent] = 0.0
            self.truncations[agent] = True
            self.infos[agent] = {"truncated": True, "decisions": self.decisions,
                                 "score": float(scores[self._seat_of[agent]])}

    def _finish(self) -> None:
        game = self.game
        values = self.final_rewards()
        scores, ranks = game.final_scores(), game.final_ranks()
        for agent in self.agents:
            seat = self._seat_of[agent]
            self.rewards[agent] = float(values[seat])
            self.terminations[agent] = True
            self.infos[agent] = {"score": float(scores[seat]), "rank": int(ranks[seat])}
        if not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]

    def final_rewards(self) -> list[float]:
        """Each seat's reward at the end: ``rank`` or ``score`` (a lone player gets its score)."""
        scores = self.game.final_scores()
        if self.options["reward"] == "score" or self.num_players == 1:
            return score_rewards(scores)
        return rank_rewards(self.game.final_ranks())

    @property
    def over(self) -> bool:
        """True once the game has ended or was truncated at ``max_decisions``."""
        return self.game.terminal or self.truncated_game

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        acting = not self.over and self.game.current_seat == seat
        mask = self.game.legal_mask() if acting else self._no_actions.copy()
        return {"observation": self.encode(seat), "action_mask": mask}

    def render(self) -> str | np.ndarray | None:
        """The table as ``render_seat`` sees it (``None``: the seat to act; the public table
        once the game is over): text (``"ansi"``, printed for ``"human"``) or an image
        (``"rgb_array"``)."""
        if self.render_mode is None:
            return None
        seat = self.render_seat
        if seat is None and not self.game.terminal:
            seat = self.game.current_seat
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(seat)
        text = self.game.render_text(seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- the suite's extras (shared/API.md) ----------------------------------------------
    def seat(self, agent: str | int) -> int:
        """Seat index of an agent name (seats pass through)."""
        if isinstance(agent, (int, np.integer)):
            if not 0 <= agent < self.num_players:
                raise ValueError(f"seat {agent} out of range 0..{self.num_players - 1}")
            return int(agent)
        if agent not in self._seat_of:
            raise ValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        return self._seat_of[agent]

    def view(self, agent: str | int) -> Any:
        """Exactly what ``agent`` may see; scripted bots read this, never the state."""
        return self.game.view(self.seat(agent))

    def state_dict(self) -> dict:
        """The whole state as JSON-safe data (hidden information included)."""
        return self.game.state_dict()

    def action_to_str(self, action: int) -> str:
        return self.game_class.action_to_str(int(action))

    def str_to_action(self, text: str) -> int:
        return self.game_class.str_to_action(text)

    def timeout(self) -> None:
        """Let the clock run out for the agent to act, in games with a turn clock.

        A live server's hook: the rules engine's ``timeout`` transition decides what happens.
        The record keeps it as a move with ``"action": null, "action_str": "timeout"``.
        """
        if not hasattr(self.game, "timeout"):
            raise ValueError(f"{self.env_id} has no turn clock")
        agent, seat = self.agent_selection, self.game.current_seat
        if self.over:
            raise ValueError("the game is over: no clock is running")
        self.game.timeout()
        self._move_seats.append(seat)
        self._move_actions.append(TIMED_OUT)
        self._cumulative_rewards[agent] = 0.0
        self._after_move()

    def record_lines(self) -> list[dict]:
        """The game record so far: header, one line per decision, result once it is over.

        The result of a game truncated at ``max_decisions`` is ``{"truncated": true,
        "decisions": N, "scores": <scores so far>}`` instead of its ranks and scores.
        """
        lines: list[dict] = [self._record_header]
        for i, (seat, action) in enumerate(zip(self._move_seats, self._move_actions,
                                               strict=True)):
            if action == TIMED_OUT:
                action, name = None, TIMEOUT
            else:
                name = self.game_class.action_to_str(action)
            lines.append({"i": i, "agent": self.possible_agents[seat], "action": action,
                          "action_str": name})
        if self.game.terminal:
            lines.append(
                {"result": {"ranks": list(self.game.final_ranks()),
                            "scores": [float(s) for s in self.game.final_scores()]}}
            )
        elif self.truncated_game:
            lines.append(
                {"result": {"truncated": True, "decisions": self.decisions,
                            "scores": [float(s) for s in self.game.final_scores()]}}
            )
        return lines

    def save_record(self, path: str | Path) -> Path:
        """Write the game record as JSON Lines and return its path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w") as handle:
            for line in self.record_lines():
                handle.write(json.dumps(line) + "\n")
        return path


#: Observation spaces already built, by bounds and action count (see _observation_space).
_SPACE_PROTOTYPES: dict[tuple[bytes, bytes, int], spaces.Dict] = {}


def _observation_space(low: np.ndarray, high: np.ndarray, n_actions: int) -> spaces.Dict:
    """A new observation space per agent, copied from a cached prototype.

    Gymnasium's ``Box`` formats its bounds into a string when it is built, about 10 ms for
    per-entry bounds: a vector env of hundreds of games would pay that per game and agent.
    A deep copy skips it and still gives each agent a space (and sampling RNG) of its own.
    """
    low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
    key = (low.tobytes(), high.tobytes(), n_actions)
    if key not in _SPACE_PROTOTYPES:
        _SPACE_PROTOTYPES[key] = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
            }
        )
    return copy.deepcopy(_SPACE_PROTOTYPES[key])


def _package_version() -> str:
    return __version__
