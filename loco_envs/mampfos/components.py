"""Los Mampfos components (P-01 .. P-04) and the card and phase names: data the rules engine
and the renderers share (kept apart so that neither imports the other for a constant)."""

from __future__ import annotations

from loco_envs.mampfos.actions import DONKEY_LETTERS

# --- components (P-01 .. P-04) ---------------------------------------------------------------
PATH_LENGTH = 12
START_POSITIONS = (0, 4, 8)
BISCUITS_PER_COLOUR = 20
LETTERS = "ABCDEFGH"

#: The default deck (rules page table): back letter -> its five cards. Replaceable data.
DECK: dict[str, tuple[str, ...]] = {
    "A": ("feed W3", "feed G3", "feed B3", "feed W2", "feed G2"),
    "B": ("feed B2", "feed *3", "feed W1", "feed G1", "drop W"),
    "C": ("feed B1", "feed W2", "feed G2", "drop G", "drop B"),
    "D": ("feed B2", "feed *2", "feed W3", "drop W", "drop *"),
    "E": ("feed G3", "feed B3", "feed W1", "drop G", "drop B"),
    "F": ("feed G1", "feed B1", "drop W", "drop G", "drop *"),
    "G": ("feed *3", "feed W2", "drop B", "drop W", "drop G"),
    "H": ("feed G2", "feed B2", "drop B", "drop *", "end"),
}

FEED, DROP, END = 0, 1, 2
ANY = 3  # the ★ donkey
CARD_CODES: tuple[str, ...] = (
    tuple(f"feed {d}{k}" for d in (*DONKEY_LETTERS, "*") for k in (1, 2, 3))
    + tuple(f"drop {d}" for d in (*DONKEY_LETTERS, "*"))
    + ("end",)
)
CARD_KIND = tuple(FEED if c.startswith("feed") else DROP if c.startswith("drop") else END
                  for c in CARD_CODES)
CARD_DONKEY = tuple(
    -1 if c == "end" else (*DONKEY_LETTERS, "*").index(c.split()[1][0]) for c in CARD_CODES
)
CARD_NUMBER = tuple(int(c[-1]) if c.startswith("feed") else 0 for c in CARD_CODES)
CARD_ID = {code: i for i, code in enumerate(CARD_CODES)}
END_CARD = CARD_ID["end"]

PHASES = ("donkey", "feed", "wheel", "over")
PH_DONKEY, PH_FEED, PH_WHEEL, PH_OVER = range(4)
