"""LOCO observation: a :class:`~loco_envs.loco.rules.LocoView` as a flat ``float32`` vector.

Seats are relative to the observer (0 = self, 1 = next clockwise, ...). Points are scaled by
1/100 so every entry stays within [0, 255].

==================  ====================  ===================================================
slice               size                  content
==================  ====================  ===================================================
hand                55                    own cards, count per identity (cards.py order)
top                 55                    one-hot identity of the top card
colour              4                     one-hot current colour (r y g b)
direction           1                     1 clockwise, 0 counter-clockwise
pending             3                     pending penalty cards; one-hot kind (+2, +4)
phase               8                     one-hot decision phase (turn … slap)
drawn               55                    one-hot card just drawn (own normal draw only)
swaps_left          1                     Swap targets still to name
seats               14 × n                per relative seat: hand size, call state one-hot
                                          (none/owed/announced/silent), active, in round,
                                          total/100, rounds won, left-over/100, has the turn,
                                          decides now, played last, is judged in the
                                          Contre-LOCO window
contre_announced    1                     the judged player announced
match               3                     round, match length, decisive round
draw_pile           1                     cards in the draw pile
discard             55                    count per identity in the discard pile
==================  ====================  ===================================================
"""

from __future__ import annotations

import numpy as np

from loco_envs.loco.cards import CODES, COLOURS, NUM_IDENTITIES
from loco_envs.loco.rules import CALL_STATES, PHASES, LocoView

PER_SEAT = 14
NUM_PHASES = len(PHASES) - 1  # "over" is never observed by an agent that acts


def slices(num_players: int) -> dict[str, slice]:
    """Name -> slice of the observation for ``num_players``."""
    sizes = [
        ("hand", NUM_IDENTITIES), ("top", NUM_IDENTITIES), ("colour", len(COLOURS)),
        ("direction", 1), ("pending", 3), ("phase", NUM_PHASES), ("drawn", NUM_IDENTITIES),
        ("swaps_left", 1), ("seats", PER_SEAT * num_players), ("contre_announced", 1),
        ("match", 3), ("draw_pile", 1), ("discard", NUM_IDENTITIES),
    ]
    out, start = {}, 0
    for name, size in sizes:
        out[name] = slice(start, start + size)
        start += size
    return out


def observation_size(num_players: int) -> int:
    return slices(num_players)["discard"].stop


_CALL_INDEX = {name: i for i, name in enumerate(CALL_STATES)}


def encode(view: LocoView) -> np.ndarray:
    n = view.num_players
    sl = slices(n)
    obs = np.zeros(observation_size(n), np.float32)
    obs[sl["hand"]] = view.hand
    obs[sl["top"].start + view.top] = 1
    obs[sl["colour"].start + view.colour] = 1
    obs[sl["direction"].start] = view.direction == 1
    p = sl["pending"].start
    obs[p] = view.pending
    if view.pending_kind:
        obs[p + 1 + (view.pending_kind == "+4")] = 1
    phase = PHASES.index(view.phase)
    if phase < NUM_PHASES:
        obs[sl["phase"].start + phase] = 1
    if view.drawn is not None:
        obs[sl["drawn"].start + view.drawn] = 1
    obs[sl["swaps_left"].start] = view.swaps_left
    base = sl["seats"].start
    for rel in range(n):
        seat = (view.seat + rel) % n
        row = base + rel * PER_SEAT
        obs[row] = view.hand_sizes[seat]
        obs[row + 1 + _CALL_INDEX[view.calls[seat]]] = 1
        obs[row + 5] = view.active[seat]
        obs[row + 6] = view.in_round[seat]
        obs[row + 7] = view.scores[seat] / 100
        obs[row + 8] = view.rounds_won[seat]
        obs[row + 9] = view.leftover[seat] / 100
        obs[row + 10] = seat == view.turn_seat
        obs[row + 11] = seat == view.actor
        obs[row + 12] = seat == view.lander
        obs[row + 13] = seat == view.contre_caller
    obs[sl["contre_announced"].start] = view.contre_announced
    m = sl["match"].start
    obs[m: m + 3] = view.round, view.rounds, view.decider
    obs[sl["draw_pile"].start] = view.draw_pile_size
    obs[sl["discard"]] = view.discard_counts
    return obs


def to_string(obs: np.ndarray, num_players: int) -> str:
    """The debugging twin of :func:`encode`: every non-zero entry by slice name."""
    parts = []
    for name, sl in slices(num_players).items():
        values = obs[sl]
        nonzero = np.flatnonzero(values)
        if name in ("hand", "top", "drawn", "discard"):
            items = [f"{CODES[i]}:{values[i]:g}" for i in nonzero]
        else:
            items = [f"{i}:{values[i]:g}" for i in nonzero]
        parts.append(f"{name}[{' '.join(items)}]")
    return " ".join(parts)
