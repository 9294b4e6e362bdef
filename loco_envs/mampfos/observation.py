"""Los Mampfos view -> flat ``float32`` observation, with a named-slice table.

Seat-indexed fields are relative to the observer: entry 0 is the observer, entry i the seat i
places clockwise. Colour vectors are ordered orange, red, blue, green, yellow; donkey vectors
white, grey, brown. Every entry is a count or a flag; :func:`bounds` gives each entry's range
by the rules (the observation ``Box``'s ``low``/``high``): flags 0..1; biscuit counts of one
colour 0..20 (P-02: no more exist), except what one card feeds (``card_number``, ``feed_left``,
``card_fed``: 0..3, the largest feed card); ``cards_left`` 0..5 per letter (P-04); a share-out's
gains 0..20 (a player's wheel names one colour, P-12).

The ``bellies`` slice exists only with ``memory="perfect"`` (P-30); with ``"recall"`` the
vector is 15 entries shorter and holds only what P-31 lists.
"""

from __future__ import annotations

import numpy as np

from loco_envs.core.bounds import slice_bounds
from loco_envs.mampfos.rules import (
    BISCUITS_PER_COLOUR,
    CARD_DONKEY,
    CARD_ID,
    CARD_KIND,
    CARD_NUMBER,
    DECK,
    LETTERS,
    PATH_LENGTH,
    PHASES,
    MampfosView,
)

NC = 5  # colours
ND = 3  # donkeys

#: (name, length as a function of the player count n, meaning) in vector order.
FIELDS: tuple[tuple[str, object, str], ...] = (
    ("phase", 4, "one-hot: donkey, feed, wheel, over"),
    ("to_act", "n", "one-hot relative seat to act (all zero when over)"),
    ("active", "n", "one-hot relative seat whose card is being carried out"),
    ("card_kind", 3, "one-hot kind of the card in play: feed, droppings, end"),
    ("card_donkey", 4, "one-hot donkey printed on the card: white, grey, brown, any (★)"),
    ("card_number", 1, "biscuits / spaces of a feed card (0 otherwise)"),
    ("donkey", ND, "one-hot donkey being fed or emptied now"),
    ("feed_left", 1, "biscuits still to feed under the current card"),
    ("card_fed", NC, "biscuits fed so far under the current card, by colour"),
    ("end_left", ND, "donkeys still to be chosen for the end card's final droppings"),
    ("wheels_set", "n", "relative seats that have set their millwheel (not the colour)"),
    ("own_wheel", NC, "one-hot colour of the observer's own millwheel, once set"),
    ("positions", ND * PATH_LENGTH, "per donkey, one-hot space 0..11"),
    ("supply", NC, "biscuits in the supply by colour"),
    ("bellies", ND * NC, "per donkey, biscuits eaten by colour (memory='perfect' only)"),
    ("collected", "5n", "per relative seat, biscuits collected by colour"),
    ("cards_left", len(LETTERS), "cards not yet turned over per back letter A..H"),
    ("fed_since", ND * NC, "per donkey, biscuits fed to it since the observer's last decision "
     "(after the last share-out of that donkey)"),
    ("share_new", 1, "1 if the last share-out happened after the observer's last decision"),
    ("share_donkey", ND, "one-hot donkey of the last share-out (share_* all zero in memory="
     "'recall' once share_new is 0)"),
    ("share_out", NC, "what came out in the last share-out, by colour"),
    ("share_back", NC, "what went back into that donkey, by colour"),
    ("share_wheels", "5n", "per relative seat, one-hot millwheel colour of the last share-out"),
    ("share_gains", "n", "per relative seat, biscuits received in the last share-out"),
)


def _length(spec: object, n: int) -> int:
    if isinstance(spec, int):
        return spec
    return {"n": n, "5n": 5 * n}[spec]


def slices(num_players: int, memory: str = "perfect") -> dict[str, slice]:
    """Name -> slice of the observation vector for this player count and memory mode."""
    table, start = {}, 0
    for name, spec, _ in FIELDS:
        if name == "bellies" and memory != "perfect":
            continue
        length = _length(spec, num_players)
        table[name] = slice(start, start + length)
        start += length
    return table


def observation_size(num_players: int, memory: str = "perfect") -> int:
    """Length of the observation vector."""
    return slices(num_players, memory)["share_gains"].stop


#: Slices of biscuit counts (each at most the 20 of a colour) and of one card's feeding.
_BISCUIT_COUNTS = ("supply", "bellies", "collected", "fed_since", "share_out", "share_back",
                   "share_gains")
_FEED_COUNTS = ("card_number", "feed_left", "card_fed")


def bounds(num_players: int, memory: str = "perfect") -> tuple[np.ndarray, np.ndarray]:
    """Per-entry ``(low, high)`` of the observation (see the module docstring)."""
    table = {name: (0, 1) for name, _, _ in FIELDS}
    table |= {name: (0, BISCUITS_PER_COLOUR) for name in _BISCUIT_COUNTS}
    table |= {name: (0, max(CARD_NUMBER)) for name in _FEED_COUNTS}
    table["cards_left"] = (0, [len(DECK[letter]) for letter in LETTERS])
    if memory != "perfect":
        del table["bellies"]
    return slice_bounds(slices(num_players, memory), table)


_SLICE_CACHE: dict[tuple[int, str], dict[str, slice]] = {}


def _slices(num_players: int, memory: str) -> dict[str, slice]:
    key = (num_players, memory)
    if key not in _SLICE_CACHE:
        _SLICE_CACHE[key] = slices(num_players, memory)
    return _SLICE_CACHE[key]


def encode(view: MampfosView) -> np.ndarray:
    """The observation vector of ``view`` (fresh array; the caller may keep it)."""
    n, me = view.num_players, view.seat
    s = _slices(n, view.memory)
    obs = np.zeros(s["share_gains"].stop, np.float32)

    def rel(seat: int) -> int:
        return (seat - me) % n

    obs[s["phase"].start + PHASES.index(view.phase)] = 1
    if view.to_act >= 0:
        obs[s["to_act"].start + rel(view.to_act)] = 1
    obs[s["active"].start + rel(view.active)] = 1
    if view.card is not None:
        card = CARD_ID[view.card]
        obs[s["card_kind"].start + CARD_KIND[card]] = 1
        if CARD_DONKEY[card] >= 0:
            obs[s["card_donkey"].start + CARD_DONKEY[card]] = 1
        obs[s["card_number"].start] = CARD_NUMBER[card]
    if view.donkey is not None:
        obs[s["donkey"].start + view.donkey] = 1
    obs[s["feed_left"].start] = view.feed_left
    obs[s["card_fed"]] = view.card_fed
    for d in view.end_left:
        obs[s["end_left"].start + d] = 1
    base = s["wheels_set"].start
    for seat, done in enumerate(view.wheels_set):
        if done:
            obs[base + rel(seat)] = 1
    if view.own_wheel is not None:
        obs[s["own_wheel"].start + view.own_wheel] = 1
    base = s["positions"].start
    for d, pos in enumerate(view.positions):
        obs[base + d * PATH_LENGTH + pos] = 1
    obs[s["supply"]] = view.supply
    if view.bellies is not None and "bellies" in s:
        obs[s["bellies"]] = [c for belly in view.bellies for c in belly]
    base = s["collected"].start
    for seat, row in enumerate(view.collected):
        start = base + NC * rel(seat)
        obs[start:start + NC] = row
    obs[s["cards_left"]] = view.cards_left
    obs[s["fed_since"]] = [c for row in view.fed_since for c in row]
    obs[s["share_new"].start] = view.share_new
    share = view.last_share
    if share is not None:
        obs[s["share_donkey"].start + share.donkey] = 1
        obs[s["share_out"]] = share.out
        obs[s["share_back"]] = share.back
        wheels, gains = s["share_wheels"].start, s["share_gains"].start
        for seat in range(n):
            obs[wheels + NC * rel(seat) + share.wheels[seat]] = 1
            obs[gains + rel(seat)] = share.gains[seat]
    return obs


def to_string(obs: np.ndarray, num_players: int, memory: str = "perfect") -> str:
    """The debugging twin of :func:`encode`: one ``name: values`` line per slice."""
    lines = []
    for name, sl in slices(num_players, memory).items():
        values = " ".join(f"{v:g}" for v in np.asarray(obs[sl]).tolist())
        lines.append(f"{name:>12}: {values}")
    return "\n".join(lines)
