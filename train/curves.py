"""Learning curves: win rate against each evaluation bot over training decisions, with intervals.

Each point is one saved policy of a run (data-only ``.npz`` + ``.json`` files, :mod:`agents.ppo`)
played through the tournament runner against each opponent, seats rotated on every deal (the
duplicate format), with the runner's 95% bootstrap interval over deals. The x value is the
policy's ``provenance.decisions`` (learner decisions trained on), or the number given after a
colon (``path.npz:300000``), e.g. to put a behaviour-cloning warm start at 0::

    python -m train.curves --title "loco_full" --opponents random loco/heuristic \\
        --games 400 --out docs/curves/loco_full.png runs/bc/loco.npz:0 runs/x/checkpoints/*.npz

writes the PNG and, beside it, a JSON of the points (``<out>.json``) to redraw it from
(``--from-json``) without playing again.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["evaluate_points", "main", "plot"]


def _policy_and_x(item: str) -> tuple[str, int]:
    path, sep, x = item.rpartition(":")
    if sep and x.isdigit():
        return path, int(x)
    from loco_envs.policy import load_policy

    _, doc = load_policy(item)
    decisions = doc["provenance"].get("decisions")
    if decisions is None:
        raise ValueError(f"{item}: its JSON records no decisions; give them as {item}:<n>")
    return item, int(decisions)


def evaluate_points(policies: Sequence[str], opponents: Sequence[str], games: int, seed: int,
                    workers: int) -> dict[str, Any]:
    """``{"env_id", "num_players", "games", "points": [{x, policy, win_rate: {spec: ...}}]}``."""
    from loco_envs.policy import load_policy
    from loco_envs.train.evaluate import evaluate

    points = []
    env_id = num_players = options = None
    for item in policies:
        path, x = _policy_and_x(item)
        _, doc = load_policy(path)
        options = {k: v for k, v in doc["env_options"].items() if k != "num_players"}
        env_id, num_players = doc["env_id"], doc["env_options"]["num_players"]
        result = evaluate(path, env_id, num_players, list(opponents), games, seed=seed,
                          options=options, workers=workers, bootstrap=500)
        points.append({"x": x, "policy": path, "win_rate": {
            spec: {"rate": r, "low": lo, "high": hi}
            for spec, (r, lo, hi) in result.win_rates.items()}})
        print(f"{x:>10} {path}: " + ", ".join(f"{s} {r:.3f} ({lo:.3f}-{hi:.3f})" for s, (
            r, lo, hi) in result.win_rates.items()), file=sys.stderr)
    points.sort(key=lambda p: p["x"])
    return {"env_id": env_id, "num_players": num_players, "options": options, "games": games,
            "seed": seed, "points": points}


def plot(data: dict[str, Any], out: Path, title: str) -> Path:
    """The curves of ``data`` (see :func:`evaluate_points`) as a PNG at ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    points = data["points"]
    xs = [p["x"] for p in points]
    for spec in points[0]["win_rate"]:
        rates = [p["win_rate"][spec]["rate"] for p in points]
        lows = [p["win_rate"][spec]["low"] for p in points]
        highs = [p["win_rate"][spec]["high"] for p in points]
        line, = ax.plot(xs, rates, marker="o", label=f"vs {spec}")
        ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.2)
    par = 1 / data["num_players"]
    ax.axhline(par, color="grey", linestyle=":", linewidth=1, label=f"par ({par:.2f})")
    warm = " (0: the behaviour-cloned warm start)" if 0 in xs else ""
    ax.set_xlabel(f"learner decisions trained on{warm}")
    ax.set_ylabel("win share (95% bootstrap interval)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{title}: {data['env_id']}, {data['num_players']} players, "
                 f"{data['games']} games per point and opponent", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m train.curves", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("policies", nargs="*", help="policy files, optionally PATH:decisions")
    parser.add_argument("--opponents", nargs="+", default=["random"])
    parser.add_argument("--games", type=int, default=400, help="games per point and opponent")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--title", default="learning curve")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--from-json", type=Path, default=None,
                        help="redraw from a points JSON instead of playing")
    args = parser.parse_args(argv)
    try:
        if args.from_json is not None:
            data = json.loads(args.from_json.read_text())
        else:
            if not args.policies:
                raise ValueError("give at least one policy (or --from-json)")
            data = evaluate_points(args.policies, args.opponents, args.games, args.seed,
                                   args.workers)
            args.out.with_suffix(".json").parent.mkdir(parents=True, exist_ok=True)
            args.out.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(plot(data, args.out, args.title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
