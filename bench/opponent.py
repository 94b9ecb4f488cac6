"""The computer opponent's strength and think time (engine/, issue 30).

    .venv/bin/python bench/opponent.py [--games N] [--seed S] [--only GAME,…] [--pairings 1-random,2-1,…]
                                       [--speed 0.25] [--max-seconds T] [--max-turns 300] [--jobs J] [--deadline T]
                                       [--markdown] [--json FILE]
    .venv/bin/python bench/opponent.py --think [--cpu-budget 0.25] [--quick]   # think time per level

Strength: per game, each pairing ``A-B`` plays up to ``--games`` games (sides alternated: A
moves first in the even games), or fewer when ``--max-seconds`` runs out (the count is printed).
A's score counts a win 1, a draw ½, a loss 0, with its 95 % Wilson interval. A game that reaches
``--max-turns`` turns (all players') is scored by the game's own measure (``scores()``: the
higher score wins; k players level at the top share it, 1/k each). DRIFT is played two-handed
(``drift``) and three-handed (``drift3``: A in one seat, rotated game by game, against two copies
of B; A scores 1 only when it wins — chance is ⅓). Levels play at a Pi 4's pace by default: ``--speed 0.25`` turns a
level's time cap of T s into T × 0.25 CPU seconds here (``time.process_time``), with the node
budget unchanged; ``--speed 0`` drops the time cap (node budgets only: deterministic per seed).
The Elo-style ladder chains the pairings from the random player (0): each step adds
400·log10(p / (1 − p)) for the pairing's score p (clipped to ½ game from 0 and 1).

Think time (``--think``): each level plays itself from the start for a few turns per game;
each turn's CPU seconds (``time.process_time``) and clock seconds (``time.monotonic``, the
clock the engine is given, as the service would on a Pi) give p50/p95. ``--cpu-budget 0.25``
runs that inside a cgroup CPU quota of a quarter of one core (bench/budget.py; root), which is
how a Pi 4 core is approximated; ``python -m bench --cpu-budget 0.25`` prints these rows too.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import LEVELS, Engine, GreedyPlayer, Limit, RandomPlayer, get_level, knowledge_for  # noqa: E402
from rules import get_game  # noqa: E402

TOP = LEVELS[-1].number
SETUPS = {  # name -> (game, options)
    "gyges": ("gyges", None),
    "annihilation": ("annihilation", None),
    "anacund": ("anacund", None),
    "annelids": ("annelids", None),
    "drift": ("drift", {"players": "red:circle,blue:square"}),
    "drift3": ("drift", {"players": "red:circle,blue:square,green:hexagon"}),
}
DEFAULT_PAIRINGS = ["1-random"] + [f"{k}-{k - 1}" for k in range(2, TOP + 1)] + [f"{TOP}-greedy"]


def start(setup: str):
    game, options = SETUPS[setup]
    g = get_game(game)
    return g.default_setup(g.parse_options(options) if options else None)


class Seat:
    """A player of the bench: a level (at the bench's pace) or a baseline."""

    def __init__(self, name: str, speed: float) -> None:
        self.name = name
        if name == "random":
            self.player, self.limit = RandomPlayer(), None
        elif name == "greedy":
            self.player, self.limit = GreedyPlayer(), None
        else:
            self.player, self.limit = Engine(get_level(int(name))), None
        self.speed = speed

    def play(self, state, rng):
        limit = self.limit
        if isinstance(self.player, Engine):  # the level's limit in this game, at the bench's pace
            own = self.player.limit_for(state)
            t = own.time
            limit = Limit(nodes=own.nodes, time=None if not self.speed or t is None else t * self.speed)
        return self.player.play(state, limit, rng=rng, clock=time.process_time)


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = score / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def play_game(setup: str, seats: dict[str, Seat], rng: random.Random, max_turns: int,
              think: dict[str, list[float]]) -> tuple[dict[str, float], bool]:
    """One game; each colour's result (1 win, ½ draw, 0 loss) and whether it hit the cap."""
    state = start(setup)
    turns = 0
    while not state.is_game_over() and turns < max_turns:
        seat = seats[state.to_move]
        c0 = time.process_time()
        result = seat.play(state, rng)
        think.setdefault(seat.name, []).append(time.process_time() - c0)
        for move in result.moves:
            state = state.successor(move)
        turns += 1
    out = state.outcome()
    colours = list(seats)
    if out is not None:
        if out.winner is None:
            return shared_result(colours, colours), False
        return {c: float(c == out.winner) for c in colours}, False
    scores = state.scores()
    top = max(scores.get(c, 0) for c in colours)
    return shared_result(colours, [c for c in colours if scores.get(c, 0) == top]), True


def shared_result(colours: list[str], leaders: list[str]) -> dict[str, float]:
    """A game's one win shared by its leaders (1/k each of k): a draw of two is ½ each, and a
    three-handed game's results still add up to one, so chance stays ⅓ (three tied: ⅓, not ½)."""
    return {c: 1.0 / len(leaders) if c in leaders else 0.0 for c in colours}


def one_game(setup: str, a: str, b: str, k: int, seed: int, speed: float,
             max_turns: int) -> tuple[float, bool, dict[str, list[float]]]:
    """Game ``k`` of a pairing: A's result, whether it hit the cap, CPU seconds per turn by seat."""
    first = start(setup)
    colours = list(knowledge_for(first.game_name).players(first))
    seat_a, seat_b = Seat(a, speed), Seat(b, speed)
    mine = colours[k % len(colours)]  # sides alternated (DRIFT three-handed: A's seat rotates)
    seats = {c: (seat_a if c == mine else seat_b) for c in colours}
    think: dict[str, list[float]] = {}
    result, hit = play_game(setup, seats, random.Random(seed * 100_003 + k), max_turns, think)
    return result[mine], hit, think


def pairing(setup: str, a: str, b: str, games: int, seed: int, speed: float, max_turns: int,
            max_seconds: float | None, think: dict[str, list[float]], jobs: int = 1) -> dict[str, Any]:
    """Up to ``games`` games, ``jobs`` at a time in worker processes; game k is the same game
    whatever ``jobs`` is (its seed is the pairing's seed and k). Past ``max_seconds`` no game is
    started; those under way finish and count."""
    score, wins, draws, capped, n = 0.0, 0, 0, 0, 0
    t0 = time.monotonic()

    def count(outcome: tuple[float, bool, dict[str, list[float]]]) -> None:
        nonlocal score, wins, draws, capped, n
        r, hit, times = outcome
        score += r
        wins += r == 1.0
        draws += 0.0 < r < 1.0  # a win shared at the top (½ of two, ⅓ of three)
        capped += hit
        n += 1
        for name, v in times.items():
            think.setdefault(name, []).extend(v)

    def more(started: int) -> bool:
        return started < games and not (max_seconds is not None and started and time.monotonic() - t0 > max_seconds)

    if jobs <= 1:
        k = 0
        while more(k):
            count(one_game(setup, a, b, k, seed, speed, max_turns))
            k += 1
    else:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        with ProcessPoolExecutor(jobs) as pool:
            pending, k = set(), 0
            while True:
                while len(pending) < jobs and more(k):
                    pending.add(pool.submit(one_game, setup, a, b, k, seed, speed, max_turns))
                    k += 1
                if not pending:
                    break
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    count(f.result())
    lo, hi = wilson(score, n)
    return {"setup": setup, "a": a, "b": b, "games": n, "score": score, "rate": score / n if n else float("nan"),
            "lo": lo, "hi": hi, "wins": wins, "draws": draws, "losses": n - wins - draws, "capped": capped,
            "seconds": round(time.monotonic() - t0, 1)}


def elo(p: float, n: int) -> float:
    p = min(max(p, 0.5 / n), 1 - 0.5 / n)
    return 400 * math.log10(p / (1 - p))


def ladder(results: list[dict[str, Any]]) -> dict[str, float]:
    """Ratings chained from the random player (0) along the pairings that reach it."""
    rating = {"random": 0.0}
    for _ in range(len(results)):
        for r in results:
            if not r["games"]:
                continue
            d = elo(r["rate"], r["games"])
            if r["b"] in rating and r["a"] not in rating:
                rating[r["a"]] = rating[r["b"]] + d
            elif r["a"] in rating and r["b"] not in rating:
                rating[r["b"]] = rating[r["a"]] - d
    return rating


def target_of(a: str, b: str, setup: str) -> str:
    if setup == "drift3":
        return "— (chance ⅓)"
    if b == "random":
        return "≥ 95 %"
    if b == "greedy":
        return "≥ 80 %"
    return "≥ 60 %"


def met(r: dict[str, Any]) -> str:
    t = target_of(r["a"], r["b"], r["setup"])
    if not t.startswith("≥"):
        return "—"
    return "met" if r["rate"] >= float(t.split()[1]) / 100 else "MISSED"


def name_of(x: str) -> str:
    return x if x in ("random", "greedy") else f"L{x}"


def print_strength(results: list[dict[str, Any]], think: dict[str, dict[str, list[float]]], markdown: bool) -> None:
    by_setup: dict[str, list[dict[str, Any]]] = {}
    for r in results:
        by_setup.setdefault(r["setup"], []).append(r)
    for setup, rows in by_setup.items():
        print(f"\n### {setup}\n" if markdown else f"\n{setup}")
        if markdown:
            print("| pairing | games | score | 95 % interval | W-D-L | capped | target | |")
            print("|---|---|---|---|---|---|---|---|")
        for r in rows:
            cells = (f"{name_of(r['a'])} vs {name_of(r['b'])}", str(r["games"]), f"{100 * r['rate']:.0f} %",
                     f"{100 * r['lo']:.0f}–{100 * r['hi']:.0f} %", f"{r['wins']}-{r['draws']}-{r['losses']}",
                     str(r["capped"]), target_of(r["a"], r["b"], setup), met(r))
            print("| " + " | ".join(cells) + " |" if markdown else "  " + "  ".join(c.ljust(14) for c in cells))
        rating = ladder(rows)
        order = sorted(rating, key=lambda k: rating[k])
        print(("\nladder: " if markdown else "  ladder: ") + ", ".join(f"{name_of(k)} {rating[k]:+.0f}" for k in order))
        times = think.get(setup, {})
        if times:
            parts = [f"{name_of(k)} p50 {statistics.median(v):.3f} / p95 {pct(v, 95):.3f} s (n {len(v)})"
                     for k, v in sorted(times.items()) if k not in ("random", "greedy")]
            print(("\nCPU per turn here: " if markdown else "  CPU per turn here: ") + "; ".join(parts))


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


# -- think time -------------------------------------------------------------------------------------


def think_times(quick: bool, levels: list[int] | None = None, setups: list[str] | None = None,
                pace: float | None = None) -> dict[str, Any]:
    """Each level playing itself from the start; per turn CPU and clock seconds. The engine's
    clock is time.monotonic, as the service's would be on a Pi; with ``pace`` (0.25: a Pi 4
    core at full speed here) it is instead this process's CPU time ÷ pace, a Pi's seconds."""
    clock = time.monotonic if pace is None else (lambda: time.process_time() / pace)
    out: dict[str, Any] = {}
    turns = 6 if quick else 10
    for setup in setups or list(SETUPS):
        for lv in levels or [1, TOP]:
            engine = Engine(lv)
            cpu, wall = [], []
            for g in range(1 if quick else 2):
                rng = random.Random(1000 + g)
                state = start(setup)
                for _ in range(2 * g):  # the second game from a random opening
                    state = state.successor(rng.choice(state.legal_moves()))
                for _ in range(turns):
                    if state.is_game_over():
                        break
                    c0, t0 = time.process_time(), time.monotonic()
                    result = engine.play(state, rng=rng, clock=clock)
                    cpu.append(time.process_time() - c0)
                    wall.append(time.monotonic() - t0)
                    for m in result.moves:
                        state = state.successor(m)
            out[f"{setup} L{lv}"] = {"n": len(cpu), "cpu_p50": statistics.median(cpu), "cpu_p95": pct(cpu, 95),
                                     "wall_p50": statistics.median(wall), "wall_p95": pct(wall, 95)}
    return out


THINK_TARGET = {1: 0.5, TOP: 3.0}  # seconds p95 on a Pi 4 core (issue 30)


def think_rows(share: float | None, figures: dict[str, Any]) -> list[str]:
    lines = []
    for key, f in figures.items():
        lv = int(key.rsplit("L", 1)[1])
        t = THINK_TARGET.get(lv)
        verdict = "—" if t is None or share is None else ("met" if f["wall_p95"] <= t else "MISSED")
        lines.append(f"  {key:<18} clock p50 {f['wall_p50']:.2f} · p95 {f['wall_p95']:.2f} s   "
                     f"CPU p50 {f['cpu_p50']:.3f} · p95 {f['cpu_p95']:.3f} s   (n {f['n']})   "
                     f"target {'≤ %g s p95' % t if t else '—'}  {verdict}")
    return lines


def think_in_budget(share: float, quick: bool, levels: list[int] | None = None,
                    setups: list[str] | None = None) -> dict[str, Any]:
    """The think-time probe in a fresh process inside a cgroup quota (bench/budget.py's Group)."""
    from bench.budget import Group

    try:
        group = Group.make(share, f"tableref-bench-opponent-{share:g}".replace(".", "_"))
    except OSError as exc:
        return {"error": str(exc)}
    try:
        cmd = [sys.executable, str(Path(__file__)), "--think-probe", json.dumps(group.__dict__)]
        cmd += ["--levels", ",".join(map(str, levels))] if levels else []
        cmd += ["--only", ",".join(setups)] if setups else []
        proc = subprocess.run(cmd + (["--quick"] if quick else []), cwd=ROOT, capture_output=True, text=True,
                              timeout=3600)
        if proc.returncode != 0:
            return {"error": f"exited {proc.returncode}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}"}
        return json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        time.sleep(0.2)
        group.remove()


def print_think(share: float | None, quick: bool, levels: list[int] | None = None,
                setups: list[str] | None = None) -> int:
    if share is None:
        figures = think_times(quick, levels, setups)
    else:
        figures = think_in_budget(share, quick, levels, setups)
        if "error" in figures:
            print(f"opponent think time at {share:g} of a core: not measured: {figures['error']}")
            return 1
    where = "full speed" if share is None else f"{share:g} of one core (cgroup quota)"
    print(f"opponent think time per turn, {where}:")
    print("\n".join(think_rows(share, figures)))
    return 0


# -- main -------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100, help="games per pairing (default 100)")
    ap.add_argument("--seed", type=int, default=None, help="default: from the clock, printed")
    ap.add_argument("--only", default="", help=f"comma-separated: {', '.join(SETUPS)}")
    ap.add_argument("--pairings", default=",".join(DEFAULT_PAIRINGS), help="A-B,… (levels, random, greedy)")
    ap.add_argument("--speed", type=float, default=0.25, help="level time caps × this, in CPU s here (0: none)")
    ap.add_argument("--max-turns", type=int, default=300, help="a game's cap in turns (all players')")
    ap.add_argument("--max-seconds", type=float, default=None, help="stop a pairing after this long (games counted)")
    ap.add_argument("--deadline", type=float, default=None,
                    help="seconds for each game's whole table: a pairing gets an equal share of what is left")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once, in worker processes")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--think", action="store_true", help="think time per level per game instead")
    ap.add_argument("--cpu-budget", type=float, default=None, help="with --think: inside a cgroup quota")
    ap.add_argument("--levels", type=lambda t: [int(x) for x in t.split(",")], default=None,
                    help="with --think: which levels (default 1 and the top)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--think-probe", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    if args.think_probe:
        from bench.budget import Group

        Group(**json.loads(args.think_probe)).enter_process()
        print(json.dumps(think_times(args.quick, levels=args.levels, setups=only or None)), flush=True)
        return 0
    if args.think:
        return print_think(args.cpu_budget, args.quick, args.levels, only or None)
    seed = args.seed if args.seed is not None else int(time.time()) % 100_000
    setups = [s.strip() for s in args.only.split(",") if s.strip()] or list(SETUPS)
    pairs = [tuple(p.split("-")) for p in args.pairings.split(",") if p.strip()]
    print(f"seed {seed}; up to {args.games} games a pairing; speed {args.speed:g} "
          f"(level time caps × {args.speed:g} in CPU s); cap {args.max_turns} turns", flush=True)
    results, think = [], {}
    for setup in setups:
        t_setup = time.monotonic()
        for i, (a, b) in enumerate(pairs):
            max_seconds = args.max_seconds
            if args.deadline is not None:  # the time a cheap pairing leaves goes to those after it
                share = (args.deadline - (time.monotonic() - t_setup)) / (len(pairs) - i)
                max_seconds = share if max_seconds is None else min(max_seconds, share)
            r = pairing(setup, a, b, args.games, seed, args.speed, args.max_turns, max_seconds,
                        think.setdefault(setup, {}), args.jobs)
            results.append(r)
            print(f"  {setup} {name_of(a)} vs {name_of(b)}: {r['games']} games, {100 * r['rate']:.0f} % "
                  f"[{100 * r['lo']:.0f}–{100 * r['hi']:.0f}], capped {r['capped']}, {r['seconds']} s",
                  file=sys.stderr, flush=True)
    print_strength(results, think, args.markdown)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seed": seed, "speed": args.speed, "max_turns": args.max_turns,
                                         "results": results,
                                         "think": {s: {k: {"n": len(v), "p50": statistics.median(v), "p95": pct(v, 95)}
                                                       for k, v in d.items() if v} for s, d in think.items()}},
                                        indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
