"""Loco Momo's compiled batch engine (numba): N games in preallocated arrays, exact to
:mod:`loco_envs.momo.rules` (the contract: :mod:`loco_envs.compiled`).

- :mod:`~loco_envs.momo.compiled.state`: the batch-state layout (:class:`MomoState`, one row
  per game), the options (:class:`MomoConfig`), and the moves between a row and a Python
  :class:`~loco_envs.momo.rules.MomoGame`.
- :mod:`~loco_envs.momo.compiled.engine`: the rules (K-xx), one ``@njit`` function per rule or
  phase, and the ``prange`` batch forms (``reset_batch``, ``play_batch``, ``masks_batch``).
- :mod:`~loco_envs.momo.compiled.encode`: observations (:mod:`loco_envs.momo.observation`) and
  the ``momo_actions`` per-action features (:func:`loco_envs.momo.features.momo_actions`).
- :mod:`~loco_envs.momo.compiled.bots`: ``momo/heuristic`` (:mod:`agents.momo`) and ``random``.

The solo game (``num_players=1``, K-40; ``gymnasium.make("loco_envs/MomoSolo-v0")`` plays the
same ``MomoGame`` from ``default_rng(seed)``) is a batch whose config has one player.
"""
