"""How strong ISMCTS is: duplicate matches of ``<game>/ismcts`` at a few budgets against bots.

``python -m benchmarks.search_strength --budgets 50 200 800 --games 100 40 12
--rollout heuristic --opponents heuristic ppo``

For each game (LOCO 2p, Moco! 2p, Loco Momo 2p, Los Mampfos 3p by default), each iteration
budget and each opponent, a tournament of the runner (:mod:`benchmarks.tournament`: one ISMCTS
seat, the opponent in the others, rotating through the seats on a shared deal, so the duplicate
format takes the luck of the deal out) is played, and the table gives ISMCTS's score share (a
win 1, a shared first place 1/ties, else 0: 1/n is chance level) with a 95% bootstrap interval
over the deals, and ISMCTS's searched decisions per second (decisions with one legal action
are played without search and not counted), timed on ``--speed-decisions`` decisions of random
games before the matches. ``--games`` is one count for every budget or one per budget (a big
budget costs more per game, so it gets fewer), each rounded up to a multiple of the players.
Games are capped at ``max_decisions`` 3000 (a capped game counts as a tie). The seconds each
game's rows took are printed after them, for sizing a run.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

import numpy as np

from loco_envs import agents
from loco_envs.benchmarks import tournament as T

GAMES = {"loco_v0": 2, "moco_v0": 2, "momo_v0": 2, "mampfos_v0": 3}


def speed(env_id: str, num_players: int, spec: str, decisions: int = 30, seed: int = 0
          ) -> float:
    """Searched decisions per second of ``spec`` on positions of random games."""
    import loco_envs

    env = loco_envs.make(env_id, wrapped=False, num_players=num_players)
    bot, rng = agents.make(spec), np.random.default_rng(seed)
    env.reset(seed=seed)
    game, spent, done = env.game, 0.0, 0
    while done < decisions:
        if game.terminal:
            env.reset(seed=int(rng.integers(2**31)))
            game = env.game
            continue
        mask = game.legal_mask()
        if mask.sum() > 1 and game.current_seat == 0:
            start = time.perf_counter()
            action = bot.act(game.view(0), mask, rng)
            spent += time.perf_counter() - start
            done += 1
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        game.apply(action)
    return done / spent


def score_share(records: list[dict], spec: str, rng: np.random.Generator,
                bootstrap: int = 1000) -> tuple[float, float, float]:
    """ISMCTS's mean score share, and a 95% bootstrap interval over the deals."""
    by_deal: dict[int, list[float]] = {}
    for r in records:
        seat = r["seats"].index(spec)
        firsts = [s for s, rank in enumerate(r["ranks"]) if rank == 0]
        by_deal.setdefault(r["seed"], []).append(1 / len(firsts) if seat in firsts else 0.0)
    deals = np.array([np.mean(v) for v in by_deal.values()])
    means = deals[rng.integers(len(deals), size=(bootstrap, len(deals)))].mean(axis=1)
    return float(deals.mean()), float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def match(env_id: str, n: int, spec: str, other: str, games: int, seed: int,
          workers: int) -> list[dict]:
    """The records of one duplicate match: ``spec`` in one seat, ``other`` in the rest."""
    t = T.Tournament(env_id, n, (spec,) + (other,) * (n - 1), games, seed)
    tasks = [(env_id, seats, deal, g, {}, None, 3000) for g, deal, seats in T.schedule(t)]
    if workers > 1:  # the game-by-game runner: every bot reads its view
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            return pool.starmap(T.play_game, tasks)
    return [T.play_game(*task) for task in tasks]


def games_per_budget(games: list[int], budgets: list[int], n: int) -> list[int]:
    """One game count per budget, each rounded up to a multiple of ``n`` (the seat rotation);
    ``ValueError`` names ``--games`` when the counts do not match the budgets."""
    if len(games) not in (1, len(budgets)) or min(games) < 1:
        raise ValueError(f"--games: give one positive count or one per budget "
                         f"({len(budgets)}), got {games}")
    counts = games * len(budgets) if len(games) == 1 else games
    return [-(-count // n) * n for count in counts]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, nargs="+", default=[40],
                   help="games per match: one count, or one per budget (rounded up to a "
                        "multiple of the players)")
    p.add_argument("--budgets", type=int, nargs="+", default=[50, 200])
    p.add_argument("--opponents", nargs="+", default=["heuristic"],
                   choices=("heuristic", "ppo", "random"), help="each game's bot of that name")
    p.add_argument("--envs", nargs="+", default=list(GAMES))
    p.add_argument("--rollout", choices=("random", "heuristic"), default="random",
                   help="ISMCTS's playout policy")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--speed-decisions", type=int, default=60,
                   help="searched decisions timed for the decisions/s column")
    p.add_argument("--out", default=None, help="also write the table (markdown) here")
    return p


def main(argv: list[str] | None = None) -> None:
    p = build_parser()
    args = p.parse_args(argv)
    unknown = sorted(set(args.envs) - set(GAMES))
    if unknown:
        p.error(f"--envs: unknown {unknown}; known: {list(GAMES)}")
    if min(args.budgets) < 1:
        p.error(f"--budgets must be positive iteration counts, got {args.budgets}")
    if args.speed_decisions < 1:
        p.error(f"--speed-decisions must be positive, got {args.speed_decisions}")
    rows = ["| game | players | ISMCTS iterations | rollout | opponent | games | ISMCTS score "
            "share [95% CI] | chance | decisions/s |", "|---|---|---|---|---|---|---|---|---|"]
    rng = np.random.default_rng(args.seed)
    for env_id in args.envs:
        n, game, start = GAMES[env_id], env_id.removesuffix("_v0"), time.perf_counter()
        try:
            counts = games_per_budget(args.games, args.budgets, n)
        except ValueError as exc:
            p.error(str(exc))
        for budget, games in zip(args.budgets, counts, strict=True):
            spec = f"{game}/ismcts:iterations={budget}" + (
                ",rollout=heuristic" if args.rollout == "heuristic" else "")
            rate = speed(env_id, n, spec, args.speed_decisions, args.seed)
            for opp in args.opponents:
                other = "random" if opp == "random" else f"{game}/{opp}"
                records = match(env_id, n, spec, other, games, args.seed, args.workers)
                share, low, high = score_share(records, spec, rng)
                rows.append(f"| {game} | {n} | {budget} | {args.rollout} | {other} | "
                            f"{len(records)} | "
                            f"{share:.3f} [{low:.3f}, {high:.3f}] | {1 / n:.3f} | {rate:.1f} |")
                print(rows[-1], flush=True)
        print(f"{game}: {time.perf_counter() - start:.0f} s", flush=True)
    table = "\n".join(rows)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
