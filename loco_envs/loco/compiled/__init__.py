"""LOCO's compiled batch engine (numba): N games in preallocated arrays, exact to
:mod:`loco_envs.loco.rules`.

- :mod:`~loco_envs.loco.compiled.state`: the batch-state layout (:class:`LocoState`, one row
  per game), the options (:class:`LocoConfig`), and the moves between a row and a Python
  :class:`~loco_envs.loco.rules.LocoGame` (state dicts, records and replay go through those).
- :mod:`~loco_envs.loco.compiled.engine`: the transitions (``new_game``, ``legal_mask``,
  ``is_legal``, ``play``, ``timeout``, ``final_ranks``, ``final_scores``, and the batch forms
  ``reset_batch``, ``masks_batch``, ``play_batch``), one function per rule as in ``rules.py``.
"""
