"""A local Ray for each test that asks for one: two CPUs, shut down when the test ends.

The Ray tests are ``slow`` (starting Ray takes seconds) and run with ``make test-ray`` or
``make test-slow``; without the ``ray`` extra they are skipped with the reason.
"""

from __future__ import annotations

import pytest


@pytest.fixture
def ray_local():
    """``ray.init(num_cpus=2)`` on this machine; ``ray.shutdown()`` after the test, always."""
    ray = pytest.importorskip("ray", reason="the ray extra is not installed: "
                                            "pip install -e '.[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()
