"""The OpenMP wait setting that importing the compiled engines applies (loco_envs.compiled)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from loco_envs.compiled import SPIN_COUNT

SETTINGS = ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "NUMBA_THREADING_LAYER")


def _environment_after_import(**given: str) -> dict[str, str | None]:
    """The three settings as a fresh interpreter sees them after ``import loco_envs``."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    env.update(given)
    code = ("import json, os, loco_envs; "
            f"print(json.dumps([os.environ.get(k) for k in {SETTINGS!r}]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    return dict(zip(SETTINGS, json.loads(out), strict=True))


def test_threads_spin_briefly_unless_told_otherwise():
    assert _environment_after_import() == {
        "GOMP_SPINCOUNT": str(SPIN_COUNT), "OMP_WAIT_POLICY": None,
        "NUMBA_THREADING_LAYER": None}


@pytest.mark.parametrize("given", [{"GOMP_SPINCOUNT": "50"}, {"OMP_WAIT_POLICY": "passive"},
                                   {"OMP_WAIT_POLICY": "active"}])
def test_a_setting_of_the_user_is_kept_and_none_added(given):
    seen = _environment_after_import(**given)
    assert seen == {k: given.get(k) for k in SETTINGS}


def test_numba_s_threading_layer_leaves_torch_s_threads_a_brief_spin():
    """The layer picks numba's thread pool; torch's OpenMP threads still read the spin."""
    assert _environment_after_import(NUMBA_THREADING_LAYER="workqueue") == {
        "GOMP_SPINCOUNT": str(SPIN_COUNT), "OMP_WAIT_POLICY": None,
        "NUMBA_THREADING_LAYER": "workqueue"}
