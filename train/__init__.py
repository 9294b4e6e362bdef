"""Self-play training for the suite's games: masked PPO against a pool of bots and snapshots.

=======================  ====================================================================
module                   what it holds
=======================  ====================================================================
:mod:`train.ppo`         the trainer: ``Args`` (one field per hyperparameter), ``train``, CLI
:mod:`train.selfplay`    ``SelfPlayEnv``: one seat of a game as a Gymnasium env
:mod:`train.pool`        ``OpponentPool``: bots and frozen snapshots for the other seats
:mod:`train.policy`      checkpoints (zip + JSON sidecar), the numpy actor, the ``ppo:`` bot
:mod:`train.evaluate`    win rates and Elo of a checkpoint through the tournament runner
:mod:`train.config`      YAML config -> dataclass, ``--key value`` overrides, clear errors
=======================  ====================================================================

``python -m train configs/loco_quick.yaml`` trains; ``agents.make("ppo:<checkpoint>")`` plays.
Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib, tensorboard).
"""
