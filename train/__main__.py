"""``python -m train CONFIG [--key value ...]``: see :mod:`train.ppo`.

CONFIG is a YAML file or a shipped config's name (``loco_quick``), found from any folder; from
an installed wheel the command is ``python -m loco_envs.train loco_quick``. The config key
``threads`` sets BLAS's and torch's threads together (:mod:`loco_envs.core.threads`).
"""

from __future__ import annotations

import sys

from loco_envs.train.ppo import main

if __name__ == "__main__":
    sys.exit(main())
