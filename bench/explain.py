"""Explain latency: how long the referee takes to explain one move, per game and fidelity.

    .venv/bin/python bench/explain.py [--games N] [--seed S]

Plays random games, and for every position explains the board after one random legal move
(the referee's hot path), printing p50 / p99 / max in milliseconds, and legal-move
generation time per position. The ``mixed`` row is the kind view with about 40 % of its
occupied spaces read OCCUPIED (seen, not named: issue 16's mixed fidelity).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import OCCUPIED, Fidelity, View, explain, game_names, get_game  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"{'game':<8} {'fidelity':<10} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name in game_names():
        game = get_game(name)
        gen: list[float] = []
        times: dict[Fidelity, list[float]] = {f: [] for f in Fidelity}
        mixed: list[float] = []
        rng = random.Random(args.seed)
        for _ in range(args.games):
            state = game.default_setup()
            plies = 0
            while not state.is_game_over() and plies < 300:
                fresh = type(state).from_dict(state.to_dict())  # no cached moves
                t0 = time.perf_counter()
                moves = fresh.legal_moves()
                gen.append((time.perf_counter() - t0) * 1000)
                move = rng.choice(moves)
                after = state.successor(move)
                for f in Fidelity:
                    cold = type(state).from_dict(state.to_dict())
                    view = after.view(f)
                    t0 = time.perf_counter()
                    explain(cold, view, f)
                    times[f].append((time.perf_counter() - t0) * 1000)
                cold = type(state).from_dict(state.to_dict())
                kind = after.view(Fidelity.KIND)
                view = View({sp: ((OCCUPIED,) * len(t) if rng.random() < 0.4 else t) for sp, t in kind.items()})
                t0 = time.perf_counter()
                explain(cold, view, Fidelity.KIND)
                mixed.append((time.perf_counter() - t0) * 1000)
                state = after
                plies += 1
        for f, ts in times.items():
            print(f"{name:<8} {f.value:<10} {len(ts):>6} {statistics.median(ts):>8.2f} {pct(ts, 99):>8.2f} {max(ts):>8.2f}")
        print(f"{name:<8} {'mixed':<10} {len(mixed):>6} {statistics.median(mixed):>8.2f} {pct(mixed, 99):>8.2f} {max(mixed):>8.2f}")
        print(f"{name:<8} {'movegen':<10} {len(gen):>6} {statistics.median(gen):>8.2f} {pct(gen, 99):>8.2f} {max(gen):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
