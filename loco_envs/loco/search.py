"""Search support for LOCO: what each seat has learnt, ``resample``, and a game from a view.

``LocoGame.resample(seat, rng)`` (``shared/API.md``, Search) comes here. The hidden cards of a
LOCO position are the other hands and the draw pile; the discard pile is public by its counts
(the view's ``discard_counts``; its order under the top card only matters at a reshuffle, and
the reshuffle shuffles). What a seat can have learnt beyond its view, tracked by the engine in
two arrays that are in neither the observation nor the ``state_dict`` (a game loaded from a
state dict starts knowing nothing, as if just dealt):

- ``known[o, t]`` (``int16``, seats x seats x 55): cards seat ``o`` knows seat ``t`` holds, a
  lower bound. A Swap (L-35) shows each of the two seats the hand it gives away; a Rotation
  (L-36) shows every seat the hand it passes on; everyone's knowledge moves with the hands; a
  landing of ``k`` copies lowers the bound by ``k`` (the cards played may be the known ones);
  a seat that leaves (L-61) knows and is known nothing more. ``None`` until a Swap or Rotation.
- ``pile_bound[o]`` (seats x 55): an upper bound on the draw pile seat ``o`` knows: a reshuffle
  (L-13) makes the draw pile the discard pile less its top, whose counts are public; every card
  ``o`` draws after it leaves the bound. ``None`` until a reshuffle (and after a seat leaves:
  its hand joins the draw pile unseen).

``resample`` keeps the seat's hand and the public table, deals the other seats their known
cards, then the rest of the unseen cards at random: the draw pile first, from the cards the
bound allows, then the other hands' unknown cards. The draw is uniform over the deals consistent
with these constraints. It is an approximation of the exact posterior in that it ignores what
the play itself suggests (a seat that drew instead of playing may lack a matching card; a card
turned up at the deal, L-02, went back into the draw pile; a slap shows nothing of the rest of
a hand) and the draw pile's bound is on its composition only (which of the reshuffled cards the
other seats drew is treated as uniform).

Secret decisions (L-41, L-52) are redrawn too: in a Contre-LOCO window the shouts already given
by other seats become uniform random choices (the seat's own is kept). A slap window is seen only
by the seat deciding in it, so it is rebuilt from the new hands: the window's seats are the new
holders of the top card in the rules' order, the seat keeps its place relative to the seat now
deciding (deciding, already decided with its own choice, waiting, or not asked), the choices of
the seats before the one deciding are uniform over their legal slaps (pass included), and a seat
that is not asked gets either an open window among the new holders or, if nobody holds the card,
the regular turn it sees anyway. A deal that cannot give the seat its place in the window is
drawn again (up to 50 times; then the original hidden hands are kept, which only a test could
notice). The new game's own generator is seeded from ``rng``.

:func:`from_view` builds a whole game from a view alone (what ``agents.ismcts`` searches from):
the same deal with no tracked knowledge, and the fields a view does not show set to their
usual values (see its docstring).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from loco_envs.loco import cards as C
from loco_envs.loco.phases import AFTER_DRAW, CONTRE, SLAP, TURN

_IDS = np.arange(C.NUM_IDENTITIES)
_TRIES = 50


# ---------------------------------------------------------------------------------------------
# What the seats learn (called by the engine, ``loco_envs.loco.rules``)
def _known(game: Any) -> np.ndarray:
    if game.known is None:
        n = game.num_players
        game.known = np.zeros((n, n, C.NUM_IDENTITIES), np.int16)
    return game.known


def note_reshuffle(game: Any) -> None:
    """L-13: the new draw pile is the old discard pile less its top, in public."""
    counts = np.bincount(game.draw_pile, minlength=C.NUM_IDENTITIES).astype(np.int16)
    game.pile_bound = np.tile(counts, (game.num_players, 1))


def note_land(game: Any, seat: int, ident: int, count: int) -> None:
    """``count`` copies of ``ident`` left ``seat``'s hand: they may have been known ones."""
    known = game.known[:, seat, ident]
    np.maximum(known - count, 0, out=known)


def note_swap(game: Any, a: int, b: int) -> None:
    """L-35: ``a`` and ``b`` exchange hands; each knows the hand it gives."""
    known = _known(game)
    known[:, [a, b]] = known[:, [b, a]]
    known[a, b] = game.hands[a]
    known[b, a] = game.hands[b]
    known[a, a] = known[b, b] = 0


def note_rotation(game: Any, seats: list[int]) -> None:
    """L-36: every playing seat's hand moves one seat on; each knows the hand it passes on."""
    known = _known(game)
    old = known.copy()
    dest = {s: game._step_from(s, 1) for s in seats}
    for s, d in dest.items():
        known[:, d] = old[:, s]
    for s, d in dest.items():
        known[s, d] = game.hands[s]
        known[s, s] = 0


def note_leave(game: Any, seat: int) -> None:
    """L-61: the seat's hand goes into the draw pile unseen; it is known nothing more."""
    if game.known is not None:
        game.known[:, seat] = 0
        game.known[seat] = 0
    game.pile_bound = None


# ---------------------------------------------------------------------------------------------
# Resampling
def resample(game: Any, seat: int, rng: np.random.Generator) -> Any:
    """``LocoGame.resample``: see the module docstring."""
    new = game.copy_with_rng(np.random.default_rng(int(rng.integers(2**63))))
    new._mask = None
    for _ in range(_TRIES):
        fills = _deal_hidden(game, new, seat, rng)
        if _secret_decisions(game, new, seat, rng, fills):
            return new
    for t in range(game.num_players):  # keep the true hands: only the choices are redrawn
        new.hands[t][:] = game.hands[t]
    new.draw_pile = list(game.draw_pile)
    _secret_decisions(game, new, seat, rng, None, force=True)
    return new


def _deal_hidden(game: Any, new: Any, seat: int, rng: np.random.Generator) -> dict:
    """Deal the hidden cards of ``new`` again (see the module docstring); returns, per other
    seat, the cards it got that the seat did not know of (one of them may be a drawn card)."""
    n = game.num_players
    unseen = (C.FULL_DECK_COUNTS - game.hands[seat] - game.discard_counts).astype(np.int64)
    known = (np.zeros((n, C.NUM_IDENTITIES), np.int64) if game.known is None
             else game.known[seat].astype(np.int64))
    known[seat] = 0
    free = unseen - known.sum(axis=0)
    size = len(game.draw_pile)
    pile = None
    if game.pile_bound is not None:
        allowed = np.minimum(game.pile_bound[seat], free)
        if allowed.sum() >= size:
            cards = np.repeat(_IDS, allowed)
            pile = cards[rng.choice(cards.size, size, replace=False)]
            free = free - np.bincount(pile, minlength=C.NUM_IDENTITIES)
    rest = np.repeat(_IDS, free)
    rng.shuffle(rest)
    if pile is None:
        pile, rest = rest[:size], rest[size:]
    else:
        rng.shuffle(pile)
    new.draw_pile = pile.tolist()
    fills, at = {}, 0
    for t in range(n):
        if t == seat:
            continue
        k = game.hand_sizes[t] - int(known[t].sum())
        fill = rest[at: at + k]
        at += k
        fills[t] = fill
        new.hands[t][:] = known[t] + np.bincount(fill, minlength=C.NUM_IDENTITIES)
    return fills


def _secret_decisions(game: Any, new: Any, seat: int, rng: np.random.Generator,
                      fills: dict | None, force: bool = False) -> bool:
    """Redraw what ``seat`` cannot know of the decision under way; False: deal again."""
    if game.phase == AFTER_DRAW and game.current_seat != seat and game.drawn is not None:
        actor = game.current_seat
        fill = fills.get(actor) if fills is not None else None
        if fill is not None and len(fill):
            new.drawn = int(fill[rng.integers(len(fill))])
        else:
            cards = np.repeat(_IDS, new.hands[actor])
            new.drawn = int(cards[rng.integers(cards.size)])
    elif game.phase == CONTRE:
        new.window_choices = {s: (k if s == seat else int(rng.integers(2)))
                              for s, k in game.window_choices.items()}
    elif game.phase == SLAP:
        return _slap_window(game, new, seat, rng, force)
    return True


def _slap_window(game: Any, new: Any, seat: int, rng: np.random.Generator,
                 force: bool) -> bool:
    """Rebuild an open slap window (L-41) from the new hands."""
    top = game.discard[-1]
    order = [s for s in new._clockwise_after(game.lander) if new.hands[s][top] > 0]
    if seat == game.current_seat:
        places = [order.index(seat)]
    elif seat in game.window_choices:
        places = list(range(order.index(seat) + 1, len(order)))
    elif seat in game.window_to_decide:
        places = list(range(order.index(seat)))
    elif not order:  # nobody to ask: the regular turn the seat sees anyway
        new._close_window()
        new.slap_window_due = False
        new._set_decision(TURN, game.turn_seat)
        return True
    else:
        places = list(range(len(order)))
    if not places:
        if not force:
            return False
        order, places = _original_order(game), [_original_place(game)]
    p = places[int(rng.integers(len(places)))]
    choices = {}
    for s in order[:p]:
        if s == seat:
            choices[s] = game.window_choices[s]
        else:
            choices[s] = int(rng.integers(int(new.hands[s][top]) + 1))
    new.window_kind = "slap"
    new.window_choices = choices
    new.window_to_decide = order[p:]
    new._set_decision(SLAP, order[p])
    return True


def _original_order(game: Any) -> list[int]:
    decided = list(game.window_choices)
    return decided + list(game.window_to_decide)


def _original_place(game: Any) -> int:
    return len(game.window_choices)


# ---------------------------------------------------------------------------------------------
# A game from a view (agents.ismcts)
def from_view(view: Any, rng: np.random.Generator, **options: Any) -> Any:
    """A whole game consistent with ``view`` (a :class:`~loco_envs.loco.rules.LocoView`).

    The hidden cards are dealt at random as by :func:`resample` with nothing known beyond the
    view; the discard pile's order under its top card is random. Fields a view does not show take
    their usual values: no timed-out turns, one Rotation behind a colour decision on a Rotation,
    only the Contre-LOCO window under way queued, photo finish by the ``photo_finish`` option
    (default ``"random"``). Secret choices of others in a window under way are uniform.
    """
    from loco_envs.core.registry import raw_env_class  # rules.py imports this module

    LocoGame = raw_env_class("loco_v0").game_class  # noqa: N806 - the class, by its name
    v = view
    n, seat = v.num_players, v.seat
    hand = np.array(v.hand, np.int64)
    discard_counts = np.array(v.discard_counts, np.int64)
    unseen = C.FULL_DECK_COUNTS - hand - discard_counts
    playing = [a and b for a, b in zip(v.active, v.in_round, strict=True)]
    codes = C.CODES

    def clockwise_from(s: int) -> list[int]:
        return [(s + i) % n for i in range(n) if playing[(s + i) % n]]

    for _ in range(_TRIES):
        rest = np.repeat(_IDS, unseen)
        rng.shuffle(rest)
        pile, rest = rest[:v.draw_pile_size], rest[v.draw_pile_size:]
        hands, at = [], 0
        for t in range(n):
            if t == seat:
                hands.append(np.repeat(_IDS, hand))
            else:
                hands.append(rest[at: at + v.hand_sizes[t]])
                at += v.hand_sizes[t]
        under = discard_counts.copy()
        under[v.top] -= 1
        discard = np.repeat(_IDS, under)
        rng.shuffle(discard)
        phase, actor = v.phase, v.actor
        drawn = None
        if phase == "after_draw":
            if actor == seat:
                drawn = None if v.drawn is None else codes[v.drawn]
            elif len(hands[actor]):
                drawn = codes[int(hands[actor][rng.integers(len(hands[actor]))])]
        window: dict = {"kind": None, "to_decide": [], "choices": {}}
        call_queue, contre_queue = [], []
        if phase == "call":
            order = clockwise_from(actor)
            call_queue = [s for s in order if v.calls[s] == "owed"]
        elif phase == "contre":
            contre_queue = [[v.contre_caller, bool(v.contre_announced)]]
            order = clockwise_from(v.contre_caller)[1:]
            p = order.index(actor)
            window = {"kind": "contre", "to_decide": order[p:],
                      "choices": {str(s): int(rng.integers(2)) for s in order[:p]}}
        elif phase == "slap":
            order = clockwise_from(v.lander)
            order = order[1:] + order[:1]
            counts = {s: int(np.sum(hands[s] == v.top)) for s in order}
            order = [s for s in order if counts[s] > 0]
            p = order.index(seat)
            window = {"kind": "slap", "to_decide": order[p:],
                      "choices": {str(s): int(rng.integers(counts[s] + 1)) for s in order[:p]}}
        state = {
            "num_players": n, "rounds": v.rounds, "round": v.round, "decider": v.decider,
            "hands": [[codes[c] for c in h] for h in hands],
            "draw_pile": [codes[c] for c in pile],
            "discard": [codes[c] for c in discard] + [codes[v.top]],
            "colour": C.COLOURS[v.colour], "direction": v.direction, "pending": v.pending,
            "pending_kind": v.pending_kind, "phase": phase, "actor": actor,
            "turn_seat": v.turn_seat, "lander": v.lander, "drawn": drawn,
            "swaps_left": v.swaps_left,
            "rotations_left": int(phase == "colour" and v.top == C.ROTATION),
            "calls": list(v.calls), "call_queue": call_queue, "contre_queue": contre_queue,
            "window": window,
            "slap_window_due": phase in ("colour", "target", "call", "contre"),
            "active": list(v.active), "in_round": list(v.in_round),
            "scores": list(v.scores), "rounds_won": list(v.rounds_won),
            "leftover": list(v.leftover), "timeouts": [0] * n,
        }
        opts = {"num_players": n, "stacking": v.stacking,
                **{k: val for k, val in options.items() if k == "photo_finish"}}
        try:
            return LocoGame.from_state_dict(state, np.random.default_rng(
                int(rng.integers(2**63))), opts)
        except ValueError:
            continue
    raise ValueError(f"no LOCO game consistent with the view of seat {seat} was found")


# ---------------------------------------------------------------------------------------------
# Evaluation of a cut-off playout (agents.ismcts)
def engine_options(game: Any) -> dict:
    """The rules options of ``game`` (``LocoGame.OPTIONS``), as its compiled engine takes them
    (``loco_envs.loco.compiled.state.config``): what ISMCTS's playout batch is made with."""
    return {"num_players": game.num_players, "rounds": game.rounds,
            "photo_finish": game.photo_finish, "timeout_rate": list(game.timeout_rates),
            "stacking": game.stacking}


def evaluate(game: Any) -> list[float]:
    """Rank rewards of an unfinished game as if it stopped now: match points, then the fewest
    points left in hand (L-71), a seat that left last."""
    if game.terminal:
        return _rank_rewards(game.final_ranks())
    keys = [(not game.active[s], -game.scores[s], int(game.hands[s] @ C.POINTS))
            for s in range(game.num_players)]
    return _rank_rewards([sum(o < k for o in keys) for k in keys])


def _rank_rewards(ranks: list[int]) -> list[float]:
    n = len(ranks)
    return [(sum(r < o for o in ranks) - sum(o < r for o in ranks)) / (n - 1) for r in ranks]


__all__ = ["engine_options", "evaluate", "from_view", "note_land", "note_leave",
           "note_reshuffle", "note_rotation", "note_swap", "resample"]
