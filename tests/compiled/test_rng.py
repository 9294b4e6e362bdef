"""The compiled engines' generator is numpy's ``default_rng``, draw for draw."""

from __future__ import annotations

import numpy as np
import pytest

from loco_envs.compiled import rng as R


@pytest.mark.parametrize("seed", [0, 1, 42, 2**31 - 2, 2**32, 2**40 + 5, 2**64 - 1])
def test_seeding_is_default_rng(seed):
    st, ref = np.zeros(R.STATE_WORDS, np.uint64), np.zeros(R.STATE_WORDS, np.uint64)
    R.seed_state(np.uint64(seed), st)
    R.from_generator(np.random.default_rng(seed), ref)
    assert st.tolist() == ref.tolist()
    R.seed_state_pair(np.uint64(seed), np.uint64(1), st)  # a vector env's bot generator
    R.from_generator(np.random.default_rng([seed, 1]), ref)
    assert st.tolist() == ref.tolist()


def test_draws_are_numpys():
    """integers(n), random(), shuffle of a list and integers(2**32), interleaved, so the
    buffered 32-bit half carries over between methods as in numpy."""
    numpy_rng = np.random.default_rng(7)
    st = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(numpy_rng, st)
    for trial in range(3000):
        kind = trial % 4
        if kind == 0:
            n = 1 + trial % 113
            assert R.integers(st, n) == numpy_rng.integers(n)
        elif kind == 1:
            assert R.random(st) == numpy_rng.random()
        elif kind == 2:
            items = list(range(trial % 120))
            compiled = np.array(items, np.int8 if len(items) < 128 else np.int16)
            numpy_rng.shuffle(items)
            R.shuffle(st, compiled, len(compiled))
            assert compiled.tolist() == items
        else:
            assert R.integers(st, 2**32) == numpy_rng.integers(2**32)
    ref = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(numpy_rng, ref)
    assert st.tolist() == ref.tolist()
    assert R.to_generator(st).integers(10**9) == numpy_rng.integers(10**9)


def test_other_bit_generators_are_refused():
    with pytest.raises(ValueError, match="PCG64"):
        R.from_generator(np.random.Generator(np.random.MT19937(0)),
                         np.zeros(R.STATE_WORDS, np.uint64))


def test_random_legal_is_random_bots_move():
    """Every game's compiled random bot is ``RandomBot``: the same move from the same
    generator on masks of every density (its state advanced alike), and -1 without a draw on
    an empty mask, where the Python bot raises."""
    from loco_envs.agents import RandomBot

    bot, numpy_rng, masks = RandomBot(), np.random.default_rng(11), np.random.default_rng(3)
    st = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(numpy_rng, st)
    for trial in range(2000):
        mask = (masks.random(242) < (trial % 20 + 1) / 20).astype(np.int8)
        if not mask.any():
            continue
        assert R.random_legal(mask, st) == bot.act(None, mask, numpy_rng)
    before = st.copy()
    assert R.random_legal(np.zeros(242, np.int8), st) == -1
    assert st.tolist() == before.tolist()
    ref = np.zeros(R.STATE_WORDS, np.uint64)
    R.from_generator(numpy_rng, ref)
    assert st.tolist() == ref.tolist()
