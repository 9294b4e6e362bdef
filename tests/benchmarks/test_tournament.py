"""The tournament runner: seating, seeds, records, bad input, the command line."""

from __future__ import annotations

import json
from collections import Counter

import pytest

import loco_envs
from loco_envs import agents
from loco_envs.benchmarks import ratings as R
from loco_envs.benchmarks import tournament as T


@pytest.fixture
def first_bot(monkeypatch):
    """Register the test-only ``moco/first`` bot (seen by this process only: workers=1)."""
    monkeypatch.setitem(agents.HEURISTICS, "moco/first", ("tests.benchmarks.bots", "FirstLegal"))
    return "moco/first"


# --- seating -------------------------------------------------------------------------------
@pytest.mark.parametrize(("entries", "seats"),
                         [(1, 3), (2, 2), (2, 4), (3, 4), (4, 4), (3, 2), (5, 3), (6, 4)])
def test_every_entry_sits_in_every_seat_equally_often(entries, seats):
    cycle = T.seating_cycle(entries, seats)
    assert all(len(seating) == seats for seating in cycle)
    per_seat = [Counter(seating[s] for seating in cycle) for s in range(seats)]
    for counts in per_seat:
        assert set(counts) == set(range(entries))
        assert len(set(counts.values())) == 1, per_seat
    if entries > seats:  # nobody sits twice in one game
        assert all(len(set(seating)) == seats for seating in cycle)


def test_fewer_agents_than_seats_rotate_the_list():
    assert T.seating_cycle(2, 4) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert T.seating_cycle(4, 4)[1] == (1, 2, 3, 0)


def test_schedule_rotates_seats_and_shares_a_deal_per_cycle(first_bot):
    t = T.Tournament("moco_v0", 4, (first_bot, "random", "random", "random"), 12, seed=1)
    games = T.schedule(t)
    assert [g for g, _, _ in games] == list(range(12))
    seats_of_bot = [seats.index(first_bot) for _, _, seats in games]
    assert seats_of_bot == [0, 3, 2, 1] * 3
    seeds = [seed for _, seed, _ in games]
    assert seeds[0:4] == [seeds[0]] * 4 and seeds[4:8] == [seeds[4]] * 4
    assert len(set(seeds)) == 3
    assert T.schedule(t) == games  # a function of the arguments


# --- playing ---------------------------------------------------------------------------------
def test_play_game_is_reproducible_and_replayable(tmp_path):
    one = T.play_game("moco_v0", ["random", "random", "random"], seed=11, game_index=2,
                      record_path=tmp_path / "g.jsonl")
    two = T.play_game("moco_v0", ["random", "random", "random"], seed=11, game_index=2)
    assert one == two
    assert one["env"] == "moco_v0" and one["version"] == loco_envs.__version__
    assert one["num_players"] == 3 and one["seed"] == 11 and one["game"] == 2
    assert sorted(one["ranks"])[0] == 0 and len(one["scores"]) == 3
    env = loco_envs.replay(tmp_path / "g.jsonl")
    assert [float(s) for s in env.game.final_scores()] == one["scores"]


def test_bots_see_only_views(monkeypatch):
    seen = []

    class Spy:
        name = "spy"

        def act(self, view, mask, rng):
            seen.append(type(view).__name__)
            return int(mask.nonzero()[0][0])

    make = agents.make
    monkeypatch.setattr(agents, "make", lambda spec: Spy() if spec == "spy" else make(spec))
    T.play_game("moco_v0", ["spy", "random"], seed=0)
    assert seen and set(seen) == {"MocoView"}


def test_tournament_records_and_ratings(tmp_path, first_bot):
    t = T.Tournament("moco_v0", 2, (first_bot, "random"), 20, seed=4)
    result = T.run(t, tmp_path / "out", progress=False, bootstrap=50, game_records=True)
    records = R.read_records(tmp_path / "out" / "records.jsonl")
    assert records == result.records
    assert len(records) == 20
    assert all(r["agents"] == [first_bot, "random"] for r in records)
    assert Counter(r["seats"][0] for r in records) == {first_bot: 10, "random": 10}
    assert {p.name for p in (tmp_path / "out").iterdir()} == {
        "records.jsonl", "tournament.json", "ratings.md", "ratings.json", "ratings.png", "games"}
    assert len(list((tmp_path / "out" / "games").iterdir())) == 20
    table = json.loads((tmp_path / "out" / "ratings.json").read_text())
    assert {row["agent"] for row in table} == {first_bot, "random"}
    assert {r.agent: r.elo for r in result.ratings}["random"] == 1000
    duels = (tmp_path / "out" / "ratings.md").read_text().split("## Head to head")[1]
    assert R.head_to_head_table(records, [r.agent for r in result.ratings]) in duels
    assert T.run(t, tmp_path / "again", progress=False, bootstrap=50).records == records


def test_workers_do_not_change_the_records():
    t = T.Tournament("moco_v0", 3, ("random",), 9, seed=2)
    assert T.play(t, workers=2, progress=False) == T.play(t, workers=1, progress=False)


# --- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"env_id": "chess_v0"}, "env id 'chess_v0' is unknown"),
        ({"num_players": 9}, "--players"),
        ({"num_players": "2"}, "--players must be an integer"),
        ({"agents": ("random", "nobody")}, "unknown agent spec 'nobody'"),
        ({"agents": ("random", "loco/heuristic")}, "plays loco, not moco_v0"),
        ({"agents": ()}, "--agents"),
        ({"games": 0}, "--games"),
        ({"seed": -1}, "--seed"),
        ({"options": {"colour": 3}}, "unknown option"),
        ({"options": {"num_players": 3}}, "--players"),
    ],
)
def test_bad_tournament_arguments_are_named(kwargs, message):
    args = {"env_id": "moco_v0", "num_players": 2, "agents": ("random",), "games": 4} | kwargs
    with pytest.raises(ValueError, match=message):
        T.Tournament(**args)


def test_bad_workers_is_named():
    with pytest.raises(ValueError, match="--workers"):
        T.play(T.Tournament("moco_v0", 2, ("random",), 2), workers=0)


def test_parse_option_reads_json_values():
    assert T.parse_option("rounds=3") == ("rounds", 3)
    assert T.parse_option("match=true") == ("match", True)
    assert T.parse_option("photo_finish=seat") == ("photo_finish", "seat")
    with pytest.raises(ValueError, match="key=value"):
        T.parse_option("rounds")


# --- command line --------------------------------------------------------------------------------
def test_command_line_runs_and_rates_again(tmp_path, capsys):
    out = tmp_path / "cli"
    code = T.main(["moco_v0", "--players", "2", "--games", "6", "--agents", "random",
                   "--seed", "1", "--out", str(out), "--bootstrap", "20", "--no-progress"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "| random | 6 |" in printed
    assert (out / "ratings.png").exists()
    code = T.main(["--from-records", str(out / "records.jsonl"), "--bootstrap", "20",
                   "--out", str(tmp_path / "again")])
    assert code == 0
    assert (tmp_path / "again" / "ratings.md").read_text().count("| random | 6 |") == 1


def test_command_line_reports_bad_arguments(capsys):
    code = T.main(["moco_v0", "--players", "7", "--agents", "random", "--no-progress"])
    assert code == 2
    assert "--players" in capsys.readouterr().err
