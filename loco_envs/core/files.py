"""Files written whole or not at all.

Why. A policy pair, a tournament's ``tournament.json``, a learning curve or a value network may
be read by another process while it is written (a run resumed, a tournament watched), or the
writer may be killed half-way. Writing to a temporary file in the same folder and renaming it
over the old one (``os.replace``, atomic on POSIX and Windows) means a reader sees the old
content or the new, never a torn mix.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes"]


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """``path`` holds either its old content or all of ``data``, whatever happens meanwhile."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
