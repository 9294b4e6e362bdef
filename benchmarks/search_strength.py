"""How strong ISMCTS is: duplicate matches of ``<game>/ismcts`` at a few budgets against bots.

``python -m benchmarks.search_strength --games 20 --budgets 25 75 [--rollout heuristic]``

For each game (LOCO 2p, Moco! 2p, Loco Momo 2p, Los Mampfos 3p by default), each iteration
budget and each opponent, a tournament of the runner (:mod:`benchmarks.tournament`: one ISMCTS
seat, the opponent in the others, rotating through the seats on a shared deal, so the duplicate
format takes the luck of the deal out) is played, and the table gives ISMCTS's score share (a
win 1, a shared first place 1/ties, else 0: 1/n is chance level) with a 95% bootstrap interval
over the deals, and ISMCTS's searched decisions per second (decisions with one legal action
are played without search and not counted). Games are capped at ``max_decisions`` 3000 (a
capped game counts as a tie).
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


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=40, help="games per match (a multiple of n)")
    p.add_argument("--budgets", type=int, nargs="+", default=[30, 100])
    p.add_argument("--opponents", nargs="+", default=["heuristic"],
                   help="'heuristic', 'ppo', 'random' (of each game)")
    p.add_argument("--envs", nargs="+", default=list(GAMES))
    p.add_argument("--rollout", choices=("random", "heuristic"), default="random",
                   help="ISMCTS's playout policy")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the table (markdown) here")
    args = p.parse_args(argv)
    rows = ["| game | players | ISMCTS iterations | rollout | opponent | games | ISMCTS score "
            "share [95% CI] | chance | decisions/s |", "|---|---|---|---|---|---|---|---|---|"]
    rng = np.random.default_rng(args.seed)
    for env_id in args.envs:
        n, game = GAMES[env_id], env_id.removesuffix("_v0")
        for budget in args.budgets:
            spec = f"{game}/ismcts:iterations={budget}" + (
                ",rollout=heuristic" if args.rollout == "heuristic" else "")
            rate = speed(env_id, n, spec)
            for opp in args.opponents:
                other = "random" if opp == "random" else f"{game}/{opp}"
                t = T.Tournament(env_id, n, (spec,) + (other,) * (n - 1), args.games, args.seed)
                tasks = [(env_id, seats, seed, g, {}, None, 3000)
                         for g, seed, seats in T.schedule(t)]
                if args.workers > 1:  # the game-by-game runner: every bot reads its view
                    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
                        records = pool.starmap(T.play_game, tasks)
                else:
                    records = [T.play_game(*task) for task in tasks]
                share, low, high = score_share(records, spec, rng)
                rows.append(f"| {game} | {n} | {budget} | {args.rollout} | {other} | "
                            f"{len(records)} | "
                            f"{share:.3f} [{low:.3f}, {high:.3f}] | {1 / n:.3f} | {rate:.1f} |")
                print(rows[-1], flush=True)
    table = "\n".join(rows)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
