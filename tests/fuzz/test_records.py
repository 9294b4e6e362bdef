"""Fuzzing ``loco_envs.replay`` with mutated game records (lines and raw bytes).

A record is a file a user hands the replay. A mutated one either still reproduces its game, or
is refused with a ``ValueError`` that gives the line number; never another exception.
"""

from __future__ import annotations

import functools
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

import loco_envs
from tests.fuzz.fuzzing import bounded, budgets, count, mutated


@functools.lru_cache(maxsize=256)
def valid_record(env_id: str, seed: int, moves: int | None) -> str:
    """A record of a random game from deal ``seed`` (to its end, or ``moves`` decisions)."""
    env = loco_envs.make(env_id, wrapped=False, num_players=2 + seed % 2)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = 0
    while not env.over and (moves is None or done < moves):
        env.step(int(rng.choice(np.flatnonzero(env.game.legal_mask()))))
        done += 1
    return json.dumps(env.record_lines())


def byte_mutation(data: st.DataObject, text: bytes) -> bytes:
    """Cut, insert or overwrite raw bytes (a torn write, a stray byte, another encoding)."""
    where = data.draw(st.integers(0, len(text)), label="offset")
    how = data.draw(st.sampled_from(["cut", "insert", "overwrite"]), label="bytes")
    junk = data.draw(st.one_of(st.binary(min_size=1, max_size=8),
                               st.sampled_from([b"\xff", b"\x00", b"\n", b"{", b"]", b"NaN"])),
                     label="junk")
    if how == "cut":
        return text[:where]
    if how == "insert":
        return text[:where] + junk + text[where:]
    return text[:where] + junk + text[where + len(junk):]


def mutated_jsonl(data: st.DataObject, lines: list) -> bytes:
    """``lines`` as JSON Lines, mutated either as JSON values or as raw bytes."""
    if data.draw(st.booleans(), label="structured"):
        bad, _ = mutated(data, lines)
        lines = bad if isinstance(bad, list) else [bad]
        return "".join(json.dumps(line) + "\n" for line in lines).encode()
    return byte_mutation(data, "".join(json.dumps(line) + "\n" for line in lines).encode())


def record_property(env_id: str, data: st.DataObject) -> None:
    seed = data.draw(st.integers(0, 20), label="deal")
    moves = data.draw(st.sampled_from([None, None, 0, 5, 30]), label="moves")
    lines = json.loads(valid_record(env_id, seed, moves))
    text = mutated_jsonl(data, lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.jsonl"
        path.write_bytes(text)
        with bounded():
            try:
                loco_envs.replay(path)
            except ValueError as exc:
                count(f"record {env_id}", "ValueError")
                assert "line " in str(exc), f"no line number in {exc}"
                return
    count(f"record {env_id}", "replayed")


test_records, test_records_slow = (
    pytest.mark.parametrize("env_id", loco_envs.available_envs())(test)
    for test in budgets(record_property, data=st.data()))


# ---------------------------------------------------------------------------------------------
# Match records (``benchmarks.tournament --from-records FILE``)
@functools.lru_cache(maxsize=1)
def valid_match_records() -> str:
    from loco_envs.benchmarks import tournament as T

    t = T.Tournament("moco_v0", 2, ("moco/heuristic", "random", "random"), 12, seed=2)
    return json.dumps(T.play(t, progress=False))


def match_records_property(data: st.DataObject) -> None:
    from loco_envs.benchmarks import ratings as R

    records = json.loads(valid_match_records())
    text = mutated_jsonl(data, records)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.jsonl"
        path.write_bytes(text)
        with bounded():
            try:
                table = R.ratings_from_file(path, bootstrap=20)
            except ValueError as exc:
                count("match records", "ValueError")
                assert str(path) in str(exc), exc
                return
    count("match records", "rated")
    assert all(np.isfinite(row.elo) for row in table)


test_match_records, test_match_records_slow = budgets(match_records_property, data=st.data())
