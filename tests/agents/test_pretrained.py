"""The shipped trained agents (``<game>/ppo``, ``loco/ppo-4p``): files, provenance, play
without torch."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import loco_envs
from loco_envs import agents
from loco_envs.policy import load_policy

SPECS = sorted(agents.PRETRAINED)


def test_every_game_has_a_shipped_agent():
    games = {env_id.removesuffix("_v0") for env_id in loco_envs.available_envs()}
    assert {spec.split("/")[0] for spec in SPECS} == games
    assert set(SPECS) <= set(agents.available_specs())


@pytest.mark.parametrize("spec", SPECS)
def test_pretrained_file_records_how_it_was_trained(spec):
    _, doc = load_policy(agents.PRETRAINED_DIR / agents.PRETRAINED[spec])
    assert doc["env_id"] == spec.split("/")[0] + "_v0"
    assert agents.PRETRAINED[spec].endswith(f"_{doc['env_options']['num_players']}p")
    prov = doc["provenance"]
    assert isinstance(prov["config"], dict) and prov["config"]["method"]
    assert isinstance(prov["seed"], int) and prov["decisions"] > 0
    table = prov["evaluation"]
    assert table["games_per_opponent"] >= 1000
    for spec_vs, row in table["win_rate"].items():
        assert spec_vs == "random" or spec_vs.startswith(spec.split("/")[0] + "/")
        assert 0 <= row["low"] <= row["rate"] <= row["high"] <= 1


@pytest.mark.parametrize("spec", SPECS)
def test_pretrained_bot_plays_legal_moves_from_views(spec):
    bot = agents.make(spec)
    assert bot.name == spec
    _, doc = load_policy(agents.PRETRAINED_DIR / agents.PRETRAINED[spec])
    env = loco_envs.make(doc["env_id"], wrapped=False, **doc["env_options"], max_decisions=400)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not env.over:
        agent = env.agent_selection
        mask = env.game.legal_mask()
        action = bot.act(env.view(agent), mask, rng)
        assert mask[action] == 1
        env.step(action)


BLOCK_TORCH = textwrap.dedent("""
    import sys

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "stable_baselines3", "sb3_contrib"):
                raise ImportError(f"{name} is blocked in this test")
            return None

    sys.meta_path.insert(0, NoTorch())
    import json
    import numpy as np
    import agents, loco_envs

    out = {}
    for spec, name in agents.PRETRAINED.items():
        bot = agents.make(spec)
        doc = json.loads((agents.PRETRAINED_DIR / f"{name}.json").read_text())
        env = loco_envs.make(doc["env_id"], wrapped=False, **doc["env_options"],
                             max_decisions=300)
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        moves = 0
        while not env.over:
            env.step(bot.act(env.view(env.agent_selection), env.game.legal_mask(), rng))
            moves += 1
        out[spec] = moves
    blocked = [m for m in sys.modules if m.split(".")[0] in ("torch", "stable_baselines3")]
    print(json.dumps({"moves": out, "blocked_modules_loaded": blocked}))
""")


def test_pretrained_bots_load_and_play_with_numpy_alone():
    """A subprocess where importing torch (or SB3) fails, as on a machine without it."""
    done = subprocess.run([sys.executable, "-c", BLOCK_TORCH], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["blocked_modules_loaded"] == []
    assert set(result["moves"]) == set(SPECS)
    assert all(moves > 0 for moves in result["moves"].values())


@pytest.mark.parametrize("spec", SPECS)
def test_play_offers_the_shipped_agent_as_an_opponent(spec):
    from loco_envs import play
    from tests.cli.helpers import Script, console

    _, doc = load_policy(agents.PRETRAINED_DIR / agents.PRETRAINED[spec])
    players = str(doc["env_options"]["num_players"])
    con, buffer = console()
    status = play.main([doc["env_id"], "--players", players, "--opponents", spec, "--seed", "2"],
                       input_fn=Script(["quit"]), console=con)
    assert status == 0
    assert f": {spec}" in buffer.getvalue()  # a seat of the table is the shipped agent
    assert spec in play.build_parser().epilog


def test_play_refuses_a_shipped_agent_at_another_player_count(capsys):
    from loco_envs import play
    from tests.cli.helpers import Script, console

    with pytest.raises(SystemExit) as exit_info:
        play.main(["loco_v0", "--players", "3", "--opponents", "loco/ppo"],
                  input_fn=Script([]), console=console()[0])
    assert exit_info.value.code == 2
    assert "loco/ppo was trained for another number of players than 3" in capsys.readouterr().err
