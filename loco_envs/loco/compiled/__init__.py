"""LOCO's compiled batch engine (numba): N games in preallocated arrays, exact to
:mod:`loco_envs.loco.rules`.

- :mod:`~loco_envs.loco.compiled.state`: the batch-state layout (:class:`LocoState`, one row
  per game), the options (:class:`LocoConfig`), and the moves between a row and a Python
  :class:`~loco_envs.loco.rules.LocoGame` (state dicts, records and replay go through those).
"""
