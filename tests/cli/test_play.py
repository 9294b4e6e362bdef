"""``python -m loco_envs.play``: the person's game, driven by scripted input."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import loco_envs
from loco_envs import play
from loco_envs.loco.state import position
from tests.cli.helpers import Script, ScriptedBot, console

GAMES = ["loco_v0", "moco_v0", "momo_v0", "mampfos_v0"]


def run_main(argv: list[str], script: Script) -> tuple[int, str]:
    con, buffer = console()
    status = play.main(argv, input_fn=script, console=con)
    return status, buffer.getvalue()


# --- every game, through the command line -------------------------------------------------
@pytest.mark.parametrize("env_id", GAMES)
def test_bad_input_is_explained_and_quit_leaves(env_id):
    script = Script(["nonsense move", "999", "", "help", "table", "1", "quit"])
    status, out = run_main([env_id, "--seed", "3"], script)
    assert status == 0
    assert "'nonsense move' is not a move" in out
    assert "there is no move number 999" in out
    assert "Type a move number" in out  # the empty line
    assert "Type the number of a move or its name" in out  # help
    assert out.count("your move") >= 3  # the table is drawn again on 'table' and next turn
    assert "you: " in out  # the move '1' was played
    assert out.rstrip().endswith("You left the game.")
    assert "Final scores" not in out
    assert len(script.answers) == 0


@pytest.mark.parametrize("env_id", GAMES)
def test_a_whole_game_ends_with_scores_and_ranks(env_id, tmp_path):
    record = tmp_path / "game.jsonl"
    status, out = run_main([env_id, "--seed", "5", "--opponents", "random",
                            "--record", str(record)], Script([], then="1"))
    assert status == 0
    assert "game over" in out and "Final scores" in out
    assert ("You win!" in out or "You share the win!" in out or "You finish #" in out)
    assert "random" in out  # the opponents' moves are named after their bots
    assert loco_envs.core.replay(record).game.terminal  # the record reproduces the game


def test_a_move_is_accepted_by_name_case_and_spacing_ignored():
    # Seed 3: p2 opens with y8, then p0 holds r8 and y6.
    script = Script(["  PLAY   Y6 ", "quit"])
    status, out = run_main(["loco_v0", "--players", "3", "--seed", "3"], script)
    assert status == 0
    assert "you: play y6" in out


def test_abbreviations_and_the_rule_behind_an_illegal_move():
    script = Script(["play r1", "7", "y", "quit"])
    status, out = run_main(["loco_v0", "--players", "3", "--seed", "3"], script)
    assert "'play r1' is not one of your legal moves (L-20: play r1 needs 1 x r1" in out
    assert "there is no move number 7: choose 1 to 3." in out
    assert "you: play y6" in out  # 'y' abbreviates the one legal move 'play y6'
    status, out = run_main(["loco_v0", "--players", "3", "--seed", "3"], Script(["dr", "quit"]))
    assert "you: draw" in out


def test_match_move_accepts_numbers_names_and_unique_abbreviations():
    names = ["play g5", "play g5 x2", "play g+2", "colour b", "draw"]
    assert play.match_move("1", names) == (0, None)
    assert play.match_move("g5", names) == (0, None)
    assert play.match_move("G5 X2", names) == (1, None)
    assert play.match_move("col b", names) == (3, None)
    assert play.match_move("dr", names) == (4, None)
    index, why = play.match_move("play g", names)
    assert index is None and "could be play g5, play g5 x2, play g+2" in why
    assert play.match_move("6", names)[1] == "there is no move number 6: choose 1 to 5."
    assert play.match_move("xyz", names) == (None, None)


def test_end_of_input_counts_as_a_quit():
    status, out = run_main(["moco_v0", "--seed", "1"], Script([]))
    assert status == 0 and "You left the game." in out


def test_solo_momo_needs_no_opponents():
    status, out = run_main(["momo_v0", "--players", "1", "--seed", "2"], Script([], then="1"))
    assert status == 0
    assert "You scored" in out


def test_options_and_rounds_reach_the_env(tmp_path):
    record = tmp_path / "r.jsonl"
    status, _ = run_main(["loco_v0", "--rounds", "3", "--option", "photo_finish=seat",
                          "--seed", "4", "--record", str(record)], Script(["quit"]))
    header = json.loads(record.read_text().splitlines()[0])
    assert status == 0
    assert header["options"]["rounds"] == 3 and header["options"]["photo_finish"] == "seat"
    assert header["seed"] == 4
    status, _ = run_main(["mampfos_v0", "--option", "memory=recall", "--seed", "4", "--record",
                          str(record)], Script(["quit"]))
    assert json.loads(record.read_text().splitlines()[0])["options"]["memory"] == "recall"


# --- argument errors ------------------------------------------------------------------------
@pytest.mark.parametrize(("argv", "message"), [
    (["uno_v0"], "invalid choice: 'uno_v0'"),
    (["loco_v0", "--players", "11"], "--players 11: loco_v0 takes 2 to 10 players"),
    (["moco_v0", "--players", "1"], "--players 1: moco_v0 takes 2 to 5 players"),
    (["loco_v0", "--players", "3", "--seat", "3"], "--seat 3: choose a seat from 0 to 2"),
    (["loco_v0", "--opponents", "nobody"], "unknown agent spec 'nobody'"),
    (["loco_v0", "--opponents", "random,,random"], "an empty agent spec"),
    (["loco_v0", "--opponents", "moco/heuristic"], "'moco/heuristic' is a bot for moco"),
    (["loco_v0", "--opponents", "ppo:runs/none.pt"], "agent spec 'ppo:runs/none.pt'"),
    (["loco_v0", "--option", "colours=5"], "unknown option(s) ['colours']"),
    (["loco_v0", "--option", "rounds"], "expected KEY=VALUE"),
    (["loco_v0", "--rounds", "2"], "option 'rounds' must be one of [1, 3, 5, 7]"),
    (["moco_v0", "--rounds", "3"], "unknown option(s) ['rounds']"),
])
def test_bad_arguments_are_argparse_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        play.main(argv, input_fn=Script([]), console=console()[0])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_opponent_specs_are_cycled_over_the_other_seats():
    status, out = run_main(["loco_v0", "--players", "4", "--seat", "2", "--opponents",
                            "random,loco/heuristic", "--seed", "1"], Script(["quit"]))
    assert "p0: random\np1: loco/heuristic\np2: you\np3: random" in out


# --- the LOCO races, from injected positions --------------------------------------------------
def loco_env(state: dict):
    env = loco_envs.make("loco_v0", wrapped=False, num_players=len(state["hands"]))
    env.reset(seed=0, options={"state": state})
    return env


def play_loco(env, bots: dict, answers: list[str]) -> tuple[str, str]:
    con, buffer = console()
    outcome = play.play_game(env, 0, bots, console=con, input_fn=Script(answers),
                             rng=np.random.default_rng(0))
    return outcome, buffer.getvalue()


def test_slap_window_is_offered_and_explained():
    state = position([["y+2", "r3", "g7"], ["y+2", "b4", "b5"], ["r8", "g9", "b1"]], ["y5"],
                     actor=1)
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "play y+2"), 2: ScriptedBot(env, "draw", "pass")}
    outcome, out = play_loco(env, bots, ["slap y+2", "quit"])
    assert outcome == "quit"
    prompt = out.index("p1 played y+2 - you hold y+2: slap it?")
    assert out.index("p1 (scripted): play y+2") < prompt
    assert "1 slap y+2" in out and "2 pass" in out
    assert "you: slap y+2 (kept hidden until everyone has chosen)" in out
    assert "Your slap lands!" in out
    # The slap landed as p0's play: the +2 penalty grew to 4 and moved on to p1, who draws it.
    assert out.index("Your slap lands!") < out.index("p1 (scripted): draw (4 cards)")


def test_a_bot_in_a_slap_window_gives_nothing_away():
    # p1 plays r5; p3 also holds r5 and passes: nobody may learn that p3 was asked.
    state = position([["g2", "g3"], ["r5", "b4", "b5"], ["b7", "b8"], ["r5", "y1"]], ["r9"],
                     actor=1)
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "play r5"), 2: ScriptedBot(env, "draw", "pass"),
            3: ScriptedBot(env, "pass")}
    _, out = play_loco(env, bots, ["quit"])
    assert "p1 (scripted): play r5" in out
    window = out[out.index("p1 (scripted): play r5"):out.index("p2 (scripted): draw")]
    assert window == "p1 (scripted): play r5\n"  # not a word of p3's decision to pass


def test_a_bot_that_wins_a_slap_race_is_named_once_the_window_closes():
    state = position([["g2", "g3"], ["r5", "b4", "b5"], ["b7", "b8"], ["r5", "y1", "y2"]],
                     ["r9"], actor=1)
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "play r5"), 2: ScriptedBot(env, "draw", "pass"),
            3: ScriptedBot(env, "slap r5")}
    _, out = play_loco(env, bots, ["quit"])
    assert "p1 (scripted): play r5\np3 slaps r5 on top, first!\n" in out
    assert "slap r5" not in out  # the bot's choice itself is never printed


def test_loco_call_and_the_opponents_contre_loco():
    state = position([["y7", "g3"], ["b4", "b5", "b6"], ["r8", "g9", "b1"]], ["y5"])
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "contre"), 2: ScriptedBot(env, "contre")}
    outcome, out = play_loco(env, bots, ["play y7", "silent", "quit"])
    assert "You are down to ONE card! Call LOCO! now" in out
    assert "1 loco" in out and "2 silent" in out
    assert "p1 has decided (hidden until everyone has)" in out
    assert "p2 has decided (hidden until everyone has)" in out
    assert "Contre-LOCO! shouted by p1, p2: p0 stayed silent and draws 2 (p0 +2)." in out
    assert "p1 (scripted): contre" not in out


def test_contre_loco_is_offered_when_an_opponent_stays_silent():
    state = position([["r2", "r3", "g7"], ["y7", "g3"], ["r8", "g9", "b1"]], ["y5"], actor=1)
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "play y7", "silent"), 2: ScriptedBot(env, "pass")}
    outcome, out = play_loco(env, bots, ["contre", "quit"])
    before_prompt = out.split("your move")[0]
    assert "p2 has decided (hidden until everyone has)" in before_prompt
    assert "pass" not in before_prompt  # the choice itself stays hidden
    assert "p1 is down to one card and did NOT call LOCO! Shout 'contre'" in out
    assert "Contre-LOCO! shouted by you: p1 stayed silent and draws 2 (p1 +2)." in out


def test_contre_loco_against_an_announced_call_is_a_lost_bet():
    state = position([["r2", "r3", "g7"], ["y7", "g3"], ["r8", "g9", "b1"]], ["y5"], actor=1)
    env = loco_env(state)
    bots = {1: ScriptedBot(env, "play y7", "loco"), 2: ScriptedBot(env, "pass")}
    _, out = play_loco(env, bots, ["contre", "quit"])
    assert "p1 is down to one card and called LOCO!." in out
    assert "a lost bet, shouters draw 1 (p0 +1)" in out


def test_a_state_file_starts_the_cli_from_a_position(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(position([["y7", "g3"], ["b4", "b5", "b6"], ["r8", "g9", "b1"]],
                                        ["y5"])))
    status, out = run_main(["loco_v0", "--state", str(path), "--opponents", "random"],
                           Script(["play y7", "loco", "quit"]))
    assert status == 0
    assert "loco_v0, 3 players" in out
    assert "You are down to ONE card!" in out and "you: loco" in out


def test_a_failing_bot_stops_the_game_without_a_traceback():
    class Broken:
        name = "broken"

        def act(self, view, action_mask, rng):
            raise RuntimeError("no policy")

    env = loco_envs.make("loco_v0", wrapped=False, num_players=2)
    env.reset(seed=1)
    seat = 1 - env.game.current_seat  # let the bot move first
    con, buffer = console()
    outcome = play.play_game(env, seat, {1 - seat: Broken()}, console=con, input_fn=Script([]))
    assert outcome == "error"
    assert "(broken) failed: no policy" in buffer.getvalue()


def test_python_dash_m_runs_the_game_from_stdin():
    done = subprocess.run([sys.executable, "-m", "loco_envs.play", "moco_v0", "--seed", "2"],
                          input="help\nquit\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "your move (P" in done.stdout and "You left the game." in done.stdout
