"""LOCO state dicts: the decision fields (phase, actor, window) must agree with each other."""

from __future__ import annotations

import pytest

from tests.loco.helpers import game, position

BASE_HANDS = [["r5", "g5", "W"], ["b1", "b2"], ["y1", "y2"]]
OPEN_WINDOW = {"kind": "slap", "to_decide": [2], "choices": {}}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"phase": "slap"}, "window"),  # a slap decision with no window open
        ({"phase": "contre", "window": {"kind": "contre", "to_decide": [1], "choices": {}},
          "actor": 1}, "contre_queue"),
        ({"phase": "call"}, "call_queue"),
        ({"phase": "call", "call_queue": [7]}, "call_queue"),
        ({"phase": "slap", "actor": 2, "window": {"kind": "junk", "to_decide": [2],
                                                   "choices": {}}}, "window"),
        ({"phase": "slap", "actor": 2, "window": {**OPEN_WINDOW, "choices": [1]}}, "window"),
        ({"phase": "slap", "actor": 1, "window": OPEN_WINDOW}, "window"),  # not the one asked
        ({"window": OPEN_WINDOW}, "window"),  # a window open during a regular turn
        ({"turn_seat": 1, "active": [True, False, True], "hands": [["r5", "g5", "W", "b1", "b2"],
                                                                  [], ["y1", "y2"]]},
         "turn_seat"),
        ({"phase": "target", "swaps_left": 0}, "swaps_left"),
        # L-73: a decisive round left to one seat would open windows that ask nobody
        ({"in_round": [True, False, False]}, "in_round"),
    ],
)
def test_state_dict_with_inconsistent_decision_fields_names_the_field(fields, field):
    """shared/API.md: a malformed state dict raises ValueError naming the bad field, instead
    of loading and then failing with IndexError/AttributeError on the next action."""
    hands = fields.pop("hands", BASE_HANDS)
    state = position(hands, ["r3"], **fields)
    with pytest.raises(ValueError, match=field):
        game(state)


def test_state_dict_with_consistent_windows_still_loads():
    hands = [["r5", "g5", "W"], ["b1", "b2"], ["y1", "r3"]]
    state = position(hands, ["g1", "r3"], phase="slap", actor=2, turn_seat=1, lander=0,
                     window={"kind": "slap", "to_decide": [2], "choices": {}})
    g = game(state)
    assert g.legal_actions()
