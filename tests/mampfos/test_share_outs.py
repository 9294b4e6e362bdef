"""Los Mampfos share-outs: what a seat sees of the last one (P-31) and which are valid (P-12)."""

from __future__ import annotations

import pytest

from loco_envs.mampfos.observation import encode, slices
from tests.mampfos.helpers import act, colours, game_from, only_pile, state


def test_P31_recall_does_not_keep_showing_a_share_out_seen_at_an_earlier_decision():
    # White drops 3 red; both seats took part. Then seat 1 feeds grey, seat 0 feeds brown, and
    # seat 1 turns over the end card. The share-out is no longer the last event, and each seat
    # has decided since seeing it: in recall (P-31) it must not stay in view and vector.
    data = state(2, phase="wheel", card="drop W", donkey="white", feed_left=0,
                 bellies=[colours(red=3), [0] * 5, [0] * 5],
                 pile=only_pile(C=["feed G1"], D=["feed B1"], H=["end"]))
    game = game_from(data, memory="recall")
    act(game, "wheel blue", "wheel blue")  # seats 0, 1: nobody gets the red, 3 go back
    assert game.view(1).last_share is not None and game.view(1).share_new  # news: shown
    act(game, "feed orange")  # seat 1 feeds grey
    assert game.view(0).last_share is not None  # seat 0 has not decided since: still news
    act(game, "feed orange")  # seat 0 feeds brown; seat 1 turns over the end card
    assert game.view(1).card == "end"
    s = slices(2, "recall")
    for seat in (0, 1):
        view = game.view(seat)
        assert not view.share_new and view.last_share is None
        vec = encode(view)
        for name in ("share_donkey", "share_out", "share_back", "share_wheels", "share_gains"):
            assert not vec[s[name]].any(), name
        assert "dropped" not in game.render_text(seat)
        assert "dropped" in game.render_text(seat, reveal_all=True)
    # perfect memory shows the bellies anyway; its view is unchanged
    perfect = game_from(data, memory="perfect")
    act(perfect, "wheel blue", "wheel blue", "feed orange", "feed orange")
    assert perfect.view(1).last_share is not None


def test_P12_a_state_whose_last_share_breaks_the_share_out_is_rejected():
    # out: red 3; seats chose red, red, blue -> gains 1, 1, 0 and 1 red back (P-12)
    good = {"donkey": "white", "out": colours(red=3), "wheels": ["red", "red", "blue"],
            "gains": [1, 1, 0], "back": colours(red=1)}
    game_from(state(3, last_share=good))  # accepted
    for bad in (dict(good, gains=[1000, 1, 0]), dict(good, gains=[3, 0, 0]),
                dict(good, back=[0] * 5)):
        with pytest.raises(ValueError, match="last_share"):
            game_from(state(3, last_share=bad))
