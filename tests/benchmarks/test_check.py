"""The rating regression check: recording baselines, comparing reruns, the readable diff."""

from __future__ import annotations

import json
import math

import pytest

from loco_envs.benchmarks import check as C
from loco_envs.benchmarks import ratings as R


def duel(n_games: int, a_wins: int, a: str = "h", b: str = "random") -> list[dict]:
    """Duels with ``a_wins`` of ``n_games`` won by ``a``, wins spread evenly, seats alternating."""
    records = []
    for g in range(n_games):
        seats = [a, b] if g % 2 == 0 else [b, a]
        a_won = (g + 1) * a_wins // n_games > g * a_wins // n_games
        ranks = [0, 1] if (seats[0] == a) == a_won else [1, 0]
        records.append({"env": "moco_v0", "version": "0.1.0", "options": {}, "num_players": 2,
                        "game": g, "seed": g, "agents": [a, b], "seats": seats, "ranks": ranks,
                        "scores": [0.0, 0.0]})
    return records


def skeleton(agents=("moco/heuristic", "random"), games=20, **extra) -> dict:
    return {"name": "demo", "about": "test",
            "tournament": {"env_id": "moco_v0", "players": 2, "games": games, "seed": 0,
                           "agents": list(agents), "options": {}},
            "bootstrap": 100, **extra}


def test_recorded_interval_doubles_the_bootstrap_half_widths_plus_margin():
    base = C.record_baseline(skeleton(agents=("h", "random"), margin=10), duel(200, 150))
    entry = base["ratings"]["h"]
    low95, high95 = entry["ci95"]
    elo = entry["elo"]
    assert elo == pytest.approx(1000 + 400 * math.log10(150.5 / 50.5), abs=0.05)
    assert entry["interval"][0] == pytest.approx(elo - 2 * (elo - low95) - 10, abs=0.2)
    assert entry["interval"][1] == pytest.approx(elo + 2 * (high95 - elo) + 10, abs=0.2)
    assert base["ratings"]["random"]["interval"] == [1000.0, 1000.0]
    assert base["order"] == ["h", "random"]
    assert base["order_confidence"] == 1.0


def test_a_sweep_gets_an_open_interval_from_the_rule_of_three():
    base = C.record_baseline(skeleton(agents=("h", "random"), margin=0), duel(100, 100))
    low, high = base["ratings"]["h"]["interval"]
    assert high is None
    # Three of its 100 wins turned into losses (prior 1: half a win each way on top).
    assert low == pytest.approx(1000 + 400 * math.log10(97.5 / 3.5), abs=0.05)


def test_an_unchanged_rerun_passes():
    records = duel(200, 150)
    base = C.record_baseline(skeleton(agents=("h", "random")), records)
    outcome = C.compare(base, records)
    assert outcome.ok, C.report(outcome)
    assert "demo: ok" in C.report(outcome)


def test_a_weaker_agent_fails_with_a_readable_diff():
    base = C.record_baseline(skeleton(agents=("h", "random")), duel(200, 150))
    outcome = C.compare(base, duel(200, 110))
    assert not outcome.ok
    text = C.report(outcome)
    assert text.splitlines()[0].startswith("demo: FAIL")
    h_line = next(line for line in text.splitlines() if line.strip().startswith("h "))
    assert "BELOW by" in h_line
    assert "anchor" in text


def test_a_broken_order_fails():
    records = duel(200, 150, a="x", b="y")  # no random: x is the anchor
    base = C.record_baseline(skeleton(agents=("x", "y")), records)
    base["ratings"]["y"]["interval"] = [None, None]  # only the order can fail now
    outcome = C.compare(base, duel(200, 40, a="x", b="y"))
    assert outcome.problems == ["order changed"]
    text = C.report(outcome)
    assert "order recorded: x > y" in text and "now:      y > x" in text


def test_a_new_or_missing_agent_fails():
    base = C.record_baseline(skeleton(agents=("h", "random")), duel(50, 40))
    outcome = C.compare(base, duel(50, 40, a="g"))
    assert "g: not in the baseline" in outcome.problems
    assert "h: missing from the rerun" in outcome.problems


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{oops", "not JSON"),
        (json.dumps({"name": "x"}), "lacks 'tournament'"),
        (json.dumps({"name": "x", "tournament": {"env_id": "moco_v0"}}), "'tournament' lacks"),
        (json.dumps(skeleton(agents=("nobody", "random"))), "unknown agent spec"),
        (json.dumps(skeleton(ratings={"random": {"elo": 1000}}, order=["random"])),
         "'ratings.random.interval'"),
    ],
)
def test_bad_baseline_files_are_named(tmp_path, data, message):
    path = tmp_path / "bad.json"
    path.write_text(data)
    with pytest.raises(ValueError, match=message):
        C.load_baseline(path)


def test_command_line_update_then_check_then_catch_a_regression(tmp_path, capsys):
    folder = tmp_path / "baselines"
    folder.mkdir()
    (folder / "demo.json").write_text(json.dumps(skeleton()))
    args = ["--baselines", str(folder), "--workers", "1", "--no-progress",
            "--out", str(tmp_path / "runs")]
    assert C.main(args) == 2  # nothing recorded yet
    assert "--update" in capsys.readouterr().err
    assert C.main([*args, "--update"]) == 0
    recorded = json.loads((folder / "demo.json").read_text())
    assert recorded["order"] == ["moco/heuristic", "random"]
    assert (tmp_path / "runs" / "demo" / "records.jsonl").exists()
    assert C.main(args) == 0
    assert "rating check passed (1 baselines)" in capsys.readouterr().out
    recorded["ratings"]["moco/heuristic"]["interval"] = [3000.0, None]
    (folder / "demo.json").write_text(json.dumps(recorded))
    assert C.main(args) == 1
    out = capsys.readouterr().out
    assert "demo: FAIL" in out and "BELOW by" in out and "rating check FAILED for demo" in out


def test_only_names_an_unknown_baseline(tmp_path, capsys):
    (tmp_path / "a.json").write_text(json.dumps(skeleton()))
    assert C.main(["--baselines", str(tmp_path), "--only", "zzz"]) == 2
    assert "no baseline ['zzz']" in capsys.readouterr().err


def test_shipped_baselines_are_well_formed_and_small():
    paths = C.baseline_paths(C.BASELINES)
    assert {p.stem for p in paths} >= {"loco_2p", "loco_4p", "moco_2p", "momo_2p", "mampfos_3p"}
    for path in paths:
        base = C.load_baseline(path)
        assert base["order"][0] != "random" and base["order"][-1] == "random"
        assert base["tournament"]["games"] <= 1200
        assert base["order_confidence"] >= C.MIN_ORDER_CONFIDENCE


@pytest.mark.slow
def test_shipped_baselines_pass():
    assert C.main(["--no-progress", "--workers", "2"]) == 0


def test_ratings_from_the_check_match_the_library():
    records = duel(40, 30)
    fit = R.bootstrap_fit(records, bootstrap=0)
    base = C.record_baseline(skeleton(agents=("h", "random")), records)
    assert base["ratings"]["h"]["elo"] == pytest.approx(fit.elo[0], abs=0.05)
