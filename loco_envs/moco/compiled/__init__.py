"""Moco!'s compiled batch engine (numba): N games in preallocated arrays, exact to
:mod:`loco_envs.moco.rules` (the contract: :mod:`loco_envs.compiled`).

- :mod:`~loco_envs.moco.compiled.state`: the batch-state layout (:class:`MocoState`, one row
  per game), the options (:class:`MocoConfig`), and the moves between a row and a Python
  :class:`~loco_envs.moco.rules.MocoGame`;
- :mod:`~loco_envs.moco.compiled.engine`: the rules (deal, mask, play, scores) and their batch
  forms over games;
- :mod:`~loco_envs.moco.compiled.encode`: the observation and the ``moco_actions`` features;
- :mod:`~loco_envs.moco.compiled.bots`: ``moco/heuristic`` and the random bot.
"""
