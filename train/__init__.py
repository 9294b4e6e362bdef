"""Self-play training for the suite's games: masked PPO against a pool of bots and snapshots.

=========================  ===================================================================
module                     its one job
=========================  ===================================================================
:mod:`train.ppo`           the trainer: ``Args`` (one field per hyperparameter), ``train``, CLI
:mod:`train.selfplay`      ``SelfPlayVecEnv``: the learner's seat in N games, an SB3 ``VecEnv``
:mod:`train.pool`          ``OpponentPool``: who plays the other seats (bots, frozen snapshots)
:mod:`train.checkpoints`   checkpoint files (atomic), the newest whole one for ``--resume``
:mod:`train.evaluate`      win rates and Elo of a policy through the tournament runner
:mod:`train.config`        YAML config or shipped name -> ``BaseArgs`` subclass, ``--key value``
                           overrides, one validation of the shared keys, clear errors
=========================  ===================================================================

``python -m train configs/loco_quick.yaml`` trains; ``agents.make("ppo:<run>/checkpoints/
final.npz")`` plays (numpy only, :mod:`agents.ppo`). Training needs the ``train`` extra (torch,
stable-baselines3, sb3-contrib, tensorboard).
"""
