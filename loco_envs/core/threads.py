"""One thread count per process for BLAS, OpenMP, torch and (when asked) numba.

Why. numpy's OpenBLAS starts a thread per core in every process, and those threads spin while
they wait for work. On a machine whose cores are shared (a tournament's ``--workers 2``, the
trainer next to another job) they spin against the busy cores: a ``(80, 3174) @ (3174, 128)``
product, a ``ppo:`` agent's forward pass, ran 6 times a second with 2 BLAS threads and 460 times
with 1, on the same 2-core machine in the same minute. torch's own thread count
(``torch.set_num_threads``) does not reach numpy's BLAS, so both are set here, together, from
one number.

Every process the suite starts calls :func:`set_threads` first: the trainer and the behaviour
cloner (their ``threads`` config key), the RLlib driver, vector-env workers, and the worker
processes of tournaments and evaluation (``--threads``). ``None`` means the process's share of
the cores: the cores this process may run on (its CPU affinity) divided by the processes the
caller runs at once, at least 1.

The limit is kept for the process's lifetime (:data:`_limiter` holds the threadpoolctl object),
and applies to the thread pools already loaded: call it after numpy (and torch, where used) are
imported. torch is never imported from here: a process that does not use it does not pay for it.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["available_cores", "check_threads", "core_share", "set_threads"]

#: The threadpoolctl limiter of this process (``None`` until :func:`set_threads` runs).
_limiter: Any = None


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity (all cores where there is none)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def core_share(processes: int = 1) -> int:
    """This process's share of :func:`available_cores` when ``processes`` run at once."""
    _check_positive(processes, "processes")
    return max(1, available_cores() // processes)


def check_threads(threads: Any, name: str = "threads") -> None:
    """``ValueError`` naming ``name`` unless ``threads`` is a positive integer or ``None``."""
    if threads is not None:
        _check_positive(threads, name, " or null (this process's share of the cores)")


def set_threads(threads: int | None = None, processes: int = 1, numba: bool = False) -> int:
    """Limit this process's BLAS/OpenMP pools and torch (if imported) to ``threads`` threads.

    ``threads=None`` takes :func:`core_share` of ``processes``. ``numba=True`` sets numba's
    thread count too (capped at its pool): for worker processes whose compiled engines would
    otherwise each start a thread per core. Returns the count applied.
    """
    from threadpoolctl import threadpool_limits

    global _limiter
    check_threads(threads)
    count = core_share(processes) if threads is None else threads
    _limiter = threadpool_limits(limits=count)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(count)
    if numba:
        import numba as nb

        nb.set_num_threads(min(count, nb.config.NUMBA_NUM_THREADS))
    return count


def _check_positive(value: Any, name: str, alternative: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer{alternative}, got {value!r}")
