"""Moco! state dicts: fields the loader must check beyond their types (``docs/rules/moco.md``)."""

from __future__ import annotations

import pytest

from tests.moco.helpers import load, position


@pytest.mark.parametrize("seat", [-1.0, True, "-1", None])
def test_M20_an_over_state_needs_the_integer_seat_minus_one(seat):
    """M-20: once the game is over nobody is to act, ``current_seat`` is exactly the int -1.

    A float -1.0 used to be taken, kept, and handed back by ``state_dict`` (no round trip).
    """
    ended = position(["2mk", "3mw"], piles={"knots": "3sk 4yk 5yk 6lk 7sk 8yk"},
                     phase="over", current_seat=-1)
    assert load(ended).state_dict()["current_seat"] == -1
    with pytest.raises(ValueError, match="'current_seat'"):
        load({**ended, "current_seat": seat})
