"""A seeded LOCO match between bots, narrated move by move (``make run``).

    python -m loco_envs.demo --players 4 --rounds 3 --seed 7
    python -m loco_envs.demo --agents loco/heuristic-strong,random --table   # draw every move

Each decision is printed as ``round | seat: action``; the table is drawn at every new round and
at the end (every move with ``--table``). The match is saved as a game record and replayed to
check it, and the final standings are printed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import loco_envs
from loco_envs import agents

DEFAULT_AGENTS = "loco/heuristic-strong,loco/heuristic,random"


def seat_agents(specs: list[str], num_players: int) -> list[str]:
    """Fill the seats by cycling through the specs."""
    return [specs[i % len(specs)] for i in range(num_players)]


def play(num_players: int, rounds: int, seed: int, specs: list[str], table: bool,
         record: Path) -> loco_envs.core.RulesAECEnv:
    env = loco_envs.make("loco_v0", wrapped=False, num_players=num_players, rounds=rounds)
    env.reset(seed=seed)
    bots = [agents.make(spec) for spec in seat_agents(specs, num_players)]
    rng = np.random.default_rng(seed)
    game = env.game
    for seat, bot in enumerate(bots):
        print(f"p{seat} = {bot.name}")
    shown_round = 0
    while not game.terminal:
        if table or game.round != shown_round:
            print("\n" + game.render_text(None) + "\n")
            shown_round = game.round
        agent = env.agent_selection
        action = bots[game.current_seat].act(env.view(agent), env.observe(agent)["action_mask"],
                                             rng)
        print(f"round {game.round} | p{game.current_seat}: {env.action_to_str(action)}")
        env.step(action)
    print("\n" + game.render_text(None, reveal_all=True))
    env.save_record(record)
    loco_envs.replay(record)
    print(f"\nrecord written to {record} and replayed: it reproduces the match")
    return env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A seeded, narrated LOCO match between bots.")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agents", default=DEFAULT_AGENTS,
                        help="comma-separated agent specs, cycled over the seats")
    parser.add_argument("--table", action="store_true", help="draw the table after every move")
    parser.add_argument("--record", type=Path, default=Path("records/demo.jsonl"))
    args = parser.parse_args(argv)
    try:
        play(args.players, args.rounds, args.seed, args.agents.split(","), args.table,
             args.record)
    except ValueError as exc:
        parser.error(str(exc))


if __name__ == "__main__":
    main()
