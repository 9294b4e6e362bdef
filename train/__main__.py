"""``python -m train CONFIG.yaml [--key value ...]``: see :mod:`train.ppo`."""

from __future__ import annotations

import sys

from train.ppo import main

if __name__ == "__main__":
    sys.exit(main())
