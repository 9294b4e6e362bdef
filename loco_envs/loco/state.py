"""Loading LOCO state dicts, and building positions for tests and tools.

:func:`position` builds a complete, valid state dict from the few fields a position needs
(hands, discard pile, whose decision), putting every other card in the draw pile, so a rule can
be checked from a state in a few lines.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypeVar

import numpy as np

from loco_envs.core.game import Game
from loco_envs.loco import cards as C
from loco_envs.loco.phases import CALL_STATES, PHASES

#: :class:`loco_envs.loco.rules.LocoGame` (which imports this module, so it is not imported here).
LocoGame = TypeVar("LocoGame", bound=Game)


def position(hands: list[list[str]], discard: list[str], *, draw_top: list[str] = (),
             **fields: Any) -> dict:
    """A full state dict: the given hands and discard pile, the other cards in the draw pile.

    ``draw_top`` lists the cards on top of the draw pile (its last item is drawn first). Any
    other ``state_dict`` field may be given; sensible defaults cover the rest (phase ``turn``,
    seat 0 to act, colour of the top card).
    """
    n = len(hands)
    used = Counter(code for hand in hands for code in hand) + Counter(discard) + Counter(draw_top)
    rest = []
    for ident, copies in enumerate(C.COPIES):
        left = copies - used[C.CODES[ident]]
        if left < 0:
            raise ValueError(f"position uses {C.CODES[ident]} more than {copies} times")
        rest.extend([C.CODES[ident]] * left)
    top = C.card_id(discard[-1])
    actor = fields.get("actor", 0)
    state = {
        "num_players": n, "rounds": 1, "round": 1, "decider": False,
        "hands": [list(h) for h in hands], "draw_pile": rest + list(draw_top),
        "discard": list(discard),
        "colour": C.COLOURS[C.COLOUR[top]] if C.COLOUR[top] >= 0 else "r",
        "direction": 1, "pending": 0, "pending_kind": None, "phase": "turn",
        "actor": actor, "turn_seat": actor, "lander": -1, "drawn": None,
        "swaps_left": 0, "rotations_left": 0,
        "calls": ["announced" if len(h) == 1 else "none" for h in hands],
        "call_queue": [], "contre_queue": [],
        "window": {"kind": None, "to_decide": [], "choices": {}},
        "slap_window_due": False, "active": [True] * n, "in_round": [True] * n,
        "scores": [0] * n, "rounds_won": [0] * n, "leftover": [0] * n, "timeouts": [0] * n,
    }
    unknown = set(fields) - set(state)
    if unknown:
        raise ValueError(f"unknown state field(s) {sorted(unknown)}")
    state.update(fields)
    return state


def _bad(field: str, why: str) -> ValueError:
    return ValueError(f"state field {field!r}: {why}")


def _effects_left(data: dict, field: str, kind: str) -> int:
    """A count of pending Swap or Rotation effects: at most the copies of one identity of
    that kind, all played together (L-20)."""
    value = _get(data, field, int)
    high = C.MOST_COPIES[kind]
    if not 0 <= value <= high:
        raise _bad(field, f"must be 0..{high} (copies of one {kind} identity), got {value}")
    return value


def _get(data: dict, field: str, kind: type | tuple) -> Any:
    if field not in data:
        raise _bad(field, "missing")
    value = data[field]
    if isinstance(value, bool) and kind is int or not isinstance(value, kind):
        raise _bad(field, f"expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _cards(field: str, codes: Any) -> list[int]:
    if not isinstance(codes, list):
        raise _bad(field, "expected a list of card codes")
    try:
        return [C.card_id(code) for code in codes]
    except (ValueError, TypeError) as exc:
        raise _bad(field, str(exc)) from None


def _seat(data: dict, field: str, n: int, allow_none: bool = False) -> int:
    seat = _get(data, field, int)
    if not (0 <= seat < n or allow_none and seat == -1):
        raise _bad(field, f"seat {seat} out of range for {n} players")
    return seat


def _per_seat(data: dict, field: str, n: int, kind: type) -> list:
    values = _get(data, field, list)
    if len(values) != n or not all(isinstance(v, kind) for v in values):
        raise _bad(field, f"expected {n} values of type {kind.__name__}")
    return list(values)


def load_state(cls: type[LocoGame], data: dict, rng: np.random.Generator,
               options: dict[str, Any]) -> LocoGame:
    """Rebuild a game from a state dict; ``ValueError`` names the first bad field."""
    if not isinstance(data, dict):
        raise ValueError("state must be a dict")
    n = _get(data, "num_players", int)
    if n != options.get("num_players", n):
        raise _bad("num_players", f"{n} does not match the option num_players="
                                  f"{options['num_players']}")
    opts = {k: v for k, v in options.items() if k in cls.OPTIONS} | {"num_players": n}
    opts["rounds"] = _get(data, "rounds", int)
    if opts["rounds"] not in (1, 3, 5, 7):
        raise _bad("rounds", "must be 1, 3, 5 or 7")
    game = cls(rng=rng, _deal=False, **opts)
    hands = _get(data, "hands", list)
    if len(hands) != n:
        raise _bad("hands", f"expected {n} hands")
    all_cards: list[int] = []
    for seat, hand in enumerate(hands):
        ids = _cards(f"hands[{seat}]", hand)
        all_cards += ids
        game.hands[seat][:] = np.bincount(ids, minlength=C.NUM_IDENTITIES) if ids else 0
        game.hand_sizes[seat] = len(ids)
    game.draw_pile = _cards("draw_pile", data.get("draw_pile"))
    discard = _cards("discard", data.get("discard"))
    if not discard:
        raise _bad("discard", "the discard pile cannot be empty")
    game._set_discard(discard)
    all_cards += game.draw_pile + game.discard
    counts = np.bincount(all_cards, minlength=C.NUM_IDENTITIES)
    if not np.array_equal(counts, C.FULL_DECK_COUNTS):
        wrong = [C.CODES[i] for i in np.flatnonzero(counts != C.FULL_DECK_COUNTS)]
        raise _bad("hands", f"hands and piles must hold the 112-card deck exactly; "
                            f"wrong counts of {wrong}")
    colour = _get(data, "colour", str)
    if colour not in C.COLOURS:
        raise _bad("colour", f"must be one of {list(C.COLOURS)}")
    game.colour = C.COLOURS.index(colour)
    game.direction = _get(data, "direction", int)
    if game.direction not in (1, -1):
        raise _bad("direction", "must be 1 or -1")
    game.pending = _get(data, "pending", int)
    game.pending_kind = data.get("pending_kind")
    if game.pending < 0 or game.pending_kind not in (None, "+2", "+4") or (
            bool(game.pending) != (game.pending_kind is not None)):
        raise _bad("pending_kind", "a pending amount needs a kind '+2' or '+4', and vice versa")
    phase = _get(data, "phase", str)
    if phase not in PHASES:
        raise _bad("phase", f"must be one of {list(PHASES)}")
    game.phase = PHASES.index(phase)
    game.terminal = phase == "over"
    game.current_seat = -1 if game.terminal else _seat(data, "actor", n)
    game.turn_seat = _seat(data, "turn_seat", n)
    game.lander = _seat(data, "lander", n, allow_none=True)
    drawn = data.get("drawn")
    game.drawn = None if drawn is None else _cards("drawn", [drawn])[0]
    if game.drawn is not None and (phase != "after_draw"
                                   or not game.hands[game.current_seat][game.drawn]):
        raise _bad("drawn", "a drawn card belongs to the hand of the seat deciding after a draw")
    game.swaps_left = _effects_left(data, "swaps_left", "X")
    game.rotations_left = _effects_left(data, "rotations_left", "O")
    calls = _per_seat(data, "calls", n, str)
    if any(c not in CALL_STATES for c in calls):
        raise _bad("calls", f"each must be one of {list(CALL_STATES)}")
    game.calls = [CALL_STATES.index(c) for c in calls]
    try:
        game.call_queue = [_in_range(s, n) for s in _get(data, "call_queue", list)]
    except (TypeError, ValueError):
        raise _bad("call_queue", f"expected a list of seats 0..{n - 1}") from None
    try:
        game.contre_queue = [(_in_range(s, n), bool(a))
                             for s, a in _get(data, "contre_queue", list)]
    except (TypeError, ValueError):
        raise _bad("contre_queue", f"expected a list of [seat 0..{n - 1}, announced]") from None
    window = _get(data, "window", dict)
    game.window_kind = window.get("kind")
    if game.window_kind not in (None, "contre", "slap"):
        raise _bad("window", "kind must be null, 'contre' or 'slap'")
    try:
        game.window_to_decide = [_in_range(s, n) for s in window.get("to_decide", [])]
        game.window_choices = {_in_range(int(s), n): int(k)
                               for s, k in window.get("choices", {}).items()}
    except (AttributeError, TypeError, ValueError):
        raise _bad("window", "to_decide: a list of seats; choices: {seat: count}") from None
    game.slap_window_due = _flag(data, "slap_window_due")
    game.active = _per_seat(data, "active", n, bool)
    game.in_round = _per_seat(data, "in_round", n, bool)
    for field in ("scores", "rounds_won", "leftover", "timeouts"):
        setattr(game, field, _per_seat(data, field, n, int))
    game.round = _get(data, "round", int)
    game.decider = _flag(data, "decider")
    _check_match(game, opts["rounds"], n)
    _check_consistency(game)
    return game


#: L-71: the most one round can give its winner (the deck less the cheapest card on the pile).
_MAX_ROUND_POINTS = int(C.FULL_DECK_COUNTS @ C.POINTS) - int(C.POINTS.min())


def _flag(data: dict, field: str) -> bool:
    value = data.get(field, False)
    if not isinstance(value, bool):
        raise _bad(field, f"expected true or false, got {type(value).__name__}")
    return value


def _check_match(game: LocoGame, rounds: int, n: int) -> None:
    """Match counters within what a match can reach: at most R + 1 scored rounds (L-73)."""
    scored = rounds + 1
    for field, high in (("scores", scored * _MAX_ROUND_POINTS),
                        ("leftover", scored * _MAX_ROUND_POINTS), ("rounds_won", scored)):
        if not all(0 <= v <= high for v in getattr(game, field)):
            raise _bad(field, f"each must be 0..{high} in a match of {rounds} rounds (L-73)")
    if not all(v >= 0 for v in game.timeouts):
        raise _bad("timeouts", "counts cannot be negative")
    if not 1 <= game.round <= rounds + n - 1:
        raise _bad("round", f"must be 1..{rounds + n - 1} in a match of {rounds} rounds")


def _in_range(seat: Any, n: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(seat)
    return seat


def _check_consistency(game: LocoGame) -> None:
    game._mask = None
    if not game.terminal:
        if game._num_playing() < 2:  # L-70/L-73: a round is played by two seats or more
            raise _bad("in_round", "a game not over needs at least two seats playing "
                                   "(active and in the round)")
        if not game._playing(game.current_seat):
            raise _bad("actor", "the seat to decide is not playing")
        if not game._playing(game.turn_seat):
            raise _bad("turn_seat", "the seat whose turn it is is not playing")
        _check_decision(game)
        if game.hand_sizes[game.current_seat] == 0 and game.phase < 5:
            raise _bad("hands", "the seat to play has no cards")
        if not game.legal_mask().any():
            raise _bad("phase", "the seat to decide would have no legal action")


def _check_decision(game: LocoGame) -> None:
    """The queue or window behind the current decision exists and asks the actor."""
    phase, actor = PHASES[game.phase], game.current_seat
    window = {"contre": "contre", "slap": "slap"}.get(phase)
    if game.window_kind != window:
        raise _bad("window", f"phase {phase!r} needs window kind {window!r}")
    if window and game.window_to_decide[:1] != [actor]:
        raise _bad("window", "to_decide must start with the seat to decide (actor)")
    top = game.discard[-1]
    if window == "slap" and any(game.hands[s][top] < 1 for s in game.window_to_decide):
        raise _bad("window", f"to_decide: a slap window asks only seats holding a "
                             f"{C.CODES[top]} (L-41)")
    if game.pending and C.KIND[top] != game.pending_kind:
        raise _bad("pending", f"a pending {game.pending_kind} penalty needs a "
                              f"{game.pending_kind} on top, not {C.CODES[top]} (L-32, L-33)")
    if phase == "call" and game.call_queue[:1] != [actor]:
        raise _bad("call_queue", "phase 'call' needs a queue starting with the actor")
    if phase == "contre" and not game.contre_queue:
        raise _bad("contre_queue", "phase 'contre' needs the call being judged")
    if phase == "target" and game.swaps_left < 1:
        raise _bad("swaps_left", "phase 'target' needs at least one Swap target to name")
