"""The suite's core: the rules-engine contract, the generic AEC env, the registry, records."""

from loco_envs.core.game import Game, IllegalActionError
from loco_envs.core.options import Option, int_range, probability, validate_options
from loco_envs.core.records import read_record, replay
from loco_envs.core.registry import available_envs, make, raw_env_class, wrap
from loco_envs.core.rewards import rank_rewards, score_rewards
from loco_envs.core.rules_env import RulesAECEnv

__all__ = [
    "Game",
    "IllegalActionError",
    "Option",
    "RulesAECEnv",
    "available_envs",
    "int_range",
    "make",
    "probability",
    "rank_rewards",
    "raw_env_class",
    "read_record",
    "replay",
    "score_rewards",
    "validate_options",
    "wrap",
]
