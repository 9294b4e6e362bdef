"""``python -m train CONFIG.yaml [--key value ...]``: see :mod:`train.ppo`."""

from __future__ import annotations

import os
import sys

# Before numpy is imported: the snapshots' small matrix products run in this process between
# torch's, and OpenBLAS's own thread pool only adds contention there (4x slower measured on
# the shared 2-core machine). Torch's threads are set by --torch-threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

from loco_envs.train.ppo import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
