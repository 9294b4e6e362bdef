"""Throughput of every game under uniform-random legal play.

Three levels are measured for each game and player count, each for a fixed wall time and
repeated; the table shows the median of the repeats:

- ``engine``: the rules engine alone (``legal_mask`` + ``apply``), as a server or search would;
- ``raw env``: the unwrapped PettingZoo AEC env through ``last()``/``step()`` (observations
  encoded every decision);
- ``wrapped env``: the same loop through PettingZoo's standard wrappers (``loco_envs.make``).

When ``rlcard`` is installed, RLCard's 2-player UNO is measured in the same run and the table
gives each LOCO row's ratio to it (the foundation issue's reference point).

A second table measures the vector envs and the compiled engines of the games that have one
(``--vector``), every row in the same run as the Python raw env it is compared with:

- ``make_vec`` with each engine (``python``; ``compiled`` on one thread and on every core) at
  N = 1, 256 and 4096 games, random legal play by the env's own bots (``step(bots=...)``,
  observations encoded at every decision as in training); the ratio is to the Python raw env
  of the same game on one core, and ``per core`` divides by the threads used;
- ``tournament``: ``heuristic-strong`` (or the game's heuristic) against ``heuristic``, games/s
  of :func:`benchmarks.tournament.play_game` on the Python engine against the batched runner on
  the compiled engine and bots, one process.

    python -m benchmarks.throughput                  # every game, default player counts
    python -m benchmarks.throughput --envs loco_v0 --players 2 4 --seconds 2 --repeats 5
    python -m benchmarks.throughput --vector --envs loco_v0 --players 2
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np
from tqdm import tqdm

import loco_envs
from loco_envs.core.registry import raw_env_class

DEFAULT_PLAYERS = {"loco_v0": [2, 4], "moco_v0": [2, 4], "momo_v0": [1, 2, 4], "mampfos_v0": [3]}
LEVELS = ("engine", "raw env", "wrapped env")


def run_for(seconds: float, play_one_game: Callable[[int], int]) -> tuple[float, float]:
    """Play games until ``seconds`` have passed; return (decisions/s, games/s)."""
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += play_one_game(games)
        games += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, games / elapsed


def engine_game(env_id: str, num_players: int, seed: int) -> Callable[[int], int]:
    game_class = raw_env_class(env_id).game_class
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        game = game_class(rng=np.random.default_rng(seed + i), num_players=num_players)
        decisions = 0
        while not game.terminal:
            legal = np.flatnonzero(game.legal_mask())
            game.apply(int(legal[rng.integers(len(legal))]))
            decisions += 1
        return decisions

    return play


def aec_game(env_id: str, num_players: int, seed: int, wrapped: bool) -> Callable[[int], int]:
    env = loco_envs.make(env_id, wrapped=wrapped, num_players=num_players)
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        env.reset(seed=seed + i)
        decisions = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        return decisions

    return play


def rlcard_uno_game(seed: int) -> Callable[[int], int] | None:
    """RLCard's 2-player UNO under the same random policy, or ``None`` without rlcard."""
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": seed})
    rng = np.random.default_rng(seed)

    def play(i: int) -> int:
        state, _ = env.reset()
        decisions = 0
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.integers(len(legal))])
            decisions += 1
        return decisions

    return play


def measure(envs: list[str], players: list[int] | None, seconds: float, repeats: int,
            seed: int) -> tuple[list[dict], dict | None]:
    """All rows of the table, and RLCard UNO's row when rlcard is installed.

    The repeats go round all rows in turn, so a slow spell on a shared machine touches every
    row alike and the ratios stay fair.
    """
    rows: list[dict] = []
    players_of = {env_id: players or DEFAULT_PLAYERS[env_id] for env_id in envs}
    for env_id in envs:
        for n in players_of[env_id]:
            for level in LEVELS:
                if level == "engine":
                    play = engine_game(env_id, n, seed)
                else:
                    play = aec_game(env_id, n, seed, wrapped=level == "wrapped env")
                rows.append({"env": env_id, "players": n, "level": level, "play": play})
    uno = rlcard_uno_game(seed)
    if uno:
        rows.append({"env": "rlcard uno", "players": 2, "level": "engine", "play": uno})
    runs: list[list[tuple[float, float]]] = [[] for _ in rows]
    with tqdm(total=repeats * len(rows), desc="throughput", unit="run") as bar:
        for _ in range(repeats):
            for row, samples in zip(rows, runs, strict=True):
                samples.append(run_for(seconds, row["play"]))
                bar.update()
    for row, samples in zip(rows, runs, strict=True):
        del row["play"]
        row["decisions_per_s"] = statistics.median(d for d, _ in samples)
        row["games_per_s"] = statistics.median(g for _, g in samples)
    uno_row = rows.pop() if uno else None
    return rows, uno_row


def table(rows: list[dict], uno: dict | None) -> str:
    """A Markdown table; LOCO rows carry their ratio to RLCard UNO when it was measured."""
    header = "| env | players | level | decisions/s | games/s |"
    rule = "|---|---:|---|---:|---:|"
    if uno:
        header += " vs RLCard UNO |"
        rule += "---:|"
    lines = [header, rule]
    for row in rows + ([uno] if uno else []):
        line = (f"| {row['env']} | {row['players']} | {row['level']} | "
                f"{row['decisions_per_s']:,.0f} | {row['games_per_s']:,.1f} |")
        if uno:
            ratio = row["decisions_per_s"] / uno["decisions_per_s"]
            line += f" {ratio:.2f}x |" if row["env"] in ("loco_v0", "rlcard uno") else " |"
        lines.append(line)
    return "\n".join(lines)


def vector_play(env_id: str, num_players: int, num_envs: int, engine: str,
                threads: int, seed: int) -> Callable[[int], int]:
    """One vector step of random legal play (the env's own random bot) per call."""
    from loco_envs import agents

    threads_option = {"num_threads": threads} if engine == "compiled" else {}
    vec = loco_envs.make_vec(env_id, num_envs, num_players=num_players, engine=engine,
                             bots=[agents.RandomBot()], **threads_option)
    vec.reset(seed=seed)
    skip, random_bot = np.full(num_envs, -1, np.int64), np.zeros(num_envs, np.int64)

    def step(_: int) -> int:
        vec.step(skip, random_bot)
        return num_envs

    return step


def tournament_games(env_id: str, num_players: int, compiled: bool, seed: int
                     ) -> Callable[[int], int]:
    """A block of tournament games (the strongest scripted bot against the heuristic)."""
    from loco_envs.benchmarks import tournament as T

    game = env_id.split("_v")[0]
    strong = f"{game}/heuristic-strong" if game == "loco" else f"{game}/heuristic"
    lineup = (strong, f"{game}/heuristic")
    block = 256 if compiled else 8

    def play(i: int) -> int:
        t = T.Tournament(env_id, num_players, lineup, block, seed=seed + i)
        if compiled:
            T.play(t, progress=False)
        else:
            for g, deal, seats in T.schedule(t):
                T.play_game(env_id, seats, deal, g)
        return block

    return play


def vector_rows(envs: list[str], players: list[int] | None, seconds: float, repeats: int,
                seed: int, sizes: tuple[int, ...] = (1, 256, 4096)) -> list[dict]:
    """The rows of the vector and compiled-engine table (see the module docstring)."""
    from loco_envs.vector.compiled import compiled_package, default_threads

    cores = default_threads()
    rows: list[dict] = []
    for env_id in envs:
        compiled = compiled_package(env_id) is not None
        for n in players or DEFAULT_PLAYERS[env_id]:
            rows.append({"env": env_id, "players": n, "what": "raw env", "engine": "python",
                         "N": 1, "threads": 1, "play": aec_game(env_id, n, seed, False)})
            setups = [("python", 1)] + ([("compiled", 1)] if compiled else []) + (
                [("compiled", cores)] if compiled and cores > 1 else [])
            for size in sizes:
                for engine, threads in setups:
                    rows.append({"env": env_id, "players": n, "what": "make_vec",
                                 "engine": engine, "N": size, "threads": threads,
                                 "play": vector_play(env_id, n, size, engine, threads, seed)})
            for engine in (["python"] + (["compiled"] if compiled else [])) * (n > 1):
                rows.append({"env": env_id, "players": n, "what": "tournament",
                             "engine": engine, "N": 256 if engine == "compiled" else 1,
                             "threads": cores if engine == "compiled" else 1,
                             "play": tournament_games(env_id, n, engine == "compiled", seed)})
    runs: list[list[float]] = [[] for _ in rows]
    with tqdm(total=repeats * len(rows), desc="vector", unit="run") as bar:
        for _ in range(repeats):
            for row, samples in zip(rows, runs, strict=True):
                row["play"](0)  # warm: compiled code loaded, first deals made
                samples.append(run_for(seconds, row["play"])[0])
                bar.update()
    for row, samples in zip(rows, runs, strict=True):
        del row["play"]
        row["per_s"] = statistics.median(samples)
    return rows


def vector_table(rows: list[dict]) -> str:
    """Markdown: each row against the Python raw env (decisions) or the Python tournament
    (games) of the same game and player count, in total and per thread."""
    lines = ["| env | players | what | engine | N | threads | per second | vs Python | "
             "per core |", "|---|---:|---|---|---:|---:|---:|---:|---:|"]
    base = {(r["env"], r["players"], r["what"] == "tournament"): r["per_s"] for r in rows
            if r["engine"] == "python" and r["what"] in ("raw env", "tournament")}
    for r in rows:
        ratio = r["per_s"] / base[(r["env"], r["players"], r["what"] == "tournament")]
        unit = "games" if r["what"] == "tournament" else "decisions"
        lines.append(f"| {r['env']} | {r['players']} | {r['what']} | {r['engine']} | {r['N']} "
                     f"| {r['threads']} | {r['per_s']:,.0f} {unit} | {ratio:.1f}x | "
                     f"{ratio / r['threads']:.1f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", nargs="+", default=loco_envs.available_envs(),
                        help="env ids to measure")
    parser.add_argument("--players", nargs="+", type=int, default=None,
                        help="player counts (default: a few per game)")
    parser.add_argument("--seconds", type=float, default=1.0, help="wall time of one run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (median shown)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vector", action="store_true",
                        help="measure the vector envs and compiled engines instead")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.envs) - set(loco_envs.available_envs()))
    if unknown:
        parser.error(f"unknown env id(s) {unknown}; available: {loco_envs.available_envs()}")
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be > 0 and --repeats >= 1")
    if args.vector:
        print(vector_table(vector_rows(args.envs, args.players, args.seconds, args.repeats,
                                       args.seed)))
        return
    rows, uno = measure(args.envs, args.players, args.seconds, args.repeats, args.seed)
    print(table(rows, uno))
    if uno is None:
        print("\n(rlcard not installed: `pip install rlcard` adds RLCard's UNO for comparison)")


if __name__ == "__main__":
    main()
