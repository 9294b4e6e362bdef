"""One thread count per process: BLAS (threadpoolctl), torch and numba set together."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

import numba
import numpy as np  # noqa: F401 - its BLAS must be loaded for threadpoolctl to see it
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from loco_envs.core import threads as T


@pytest.fixture
def restore_threads():
    """Leave the test process's thread pools as they were (other tests run in it)."""
    import torch

    before = threadpool_limits(limits=None)  # records the current limits, changes none
    torch_threads, numba_threads = torch.get_num_threads(), numba.get_num_threads()
    yield
    before.restore_original_limits()
    torch.set_num_threads(torch_threads)
    numba.set_num_threads(numba_threads)


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


@pytest.mark.parametrize(("cores", "processes", "share"),
                         [(2, 1, 2), (2, 2, 1), (2, 3, 1), (16, 3, 5), (16, 16, 1)])
def test_share_divides_the_cores_among_the_processes(monkeypatch, cores, processes,
                                                     share) -> None:
    monkeypatch.setattr(T, "available_cores", lambda: cores)
    assert T.core_share(processes) == share


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_bad_thread_count_is_a_value_error_naming_it(bad) -> None:
    with pytest.raises(ValueError, match="'threads' must be a positive integer"):
        T.check_threads(bad, "config key 'threads'")
    with pytest.raises(ValueError, match="processes"):
        T.core_share(bad)


def test_none_and_positive_counts_are_accepted() -> None:
    T.check_threads(None)
    T.check_threads(3)


def test_set_threads_limits_blas_and_torch_together(restore_threads) -> None:
    import torch

    assert _blas_threads(), "numpy's BLAS is not visible to threadpoolctl"
    assert T.set_threads(1) == 1
    assert _blas_threads() == [1] * len(_blas_threads())
    assert torch.get_num_threads() == 1
    assert T.set_threads(2) == 2
    assert torch.get_num_threads() == 2


def test_default_is_the_process_share(monkeypatch, restore_threads) -> None:
    import torch

    monkeypatch.setattr(T, "available_cores", lambda: 4)
    assert T.set_threads(None, processes=2) == 2
    assert torch.get_num_threads() == 2


def test_numba_only_when_asked(restore_threads) -> None:
    numba.set_num_threads(1)
    count = min(2, numba.config.NUMBA_NUM_THREADS)
    T.set_threads(count)
    assert numba.get_num_threads() == 1
    T.set_threads(count, numba=True)
    assert numba.get_num_threads() == count


def _worker_blas_threads() -> list[int]:
    return _blas_threads()


@pytest.mark.skipif(T.available_cores() < 2, reason="one core: BLAS runs one thread anyway")
def test_a_spawned_worker_takes_the_count_from_its_initializer() -> None:
    ctx = multiprocessing.get_context("spawn")
    for count in (1, 2):
        with ctx.Pool(1, initializer=T.set_threads, initargs=(count, 1)) as pool:
            found = pool.apply(_worker_blas_threads)
        assert found and set(found) == {count}


def test_setting_threads_does_not_import_torch() -> None:
    code = ("import sys; from loco_envs.core.threads import set_threads; set_threads(1); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert out.stdout.strip() == "False"
