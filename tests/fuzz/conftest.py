"""Write the fuzz targets' example counts when ``FUZZ_REPORT`` names a folder."""

from __future__ import annotations

from tests.fuzz.fuzzing import write_report


def pytest_sessionfinish(session, exitstatus) -> None:
    write_report()
