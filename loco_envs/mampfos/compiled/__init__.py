"""Los Mampfos's compiled (numba) batch engine, exact to :mod:`loco_envs.mampfos.rules`.

The contract is :mod:`loco_envs.compiled`: ``state`` (the batch's arrays and their moves to and
from ``MampfosGame``), ``engine`` (the rules, ``P-xx`` ids in the comments, and the batch forms),
``encode`` (the observation, with the same secrecy: a millwheel stays hidden until the
share-out) and ``bots`` (``random`` and ``mampfos/heuristic``). Los Mampfos has no per-action
features. ``tests/compiled/test_mampfos_*.py`` hold the two engines equal.
"""
