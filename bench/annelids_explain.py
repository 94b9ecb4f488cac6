"""Annelids explain latency: how long the referee takes to explain one move.

    python3 bench/annelids_explain.py [--games N] [--seed S]

Plays random games from the starting layout (never resigning, so games run to a loss by
last-annelid removal) and, before every move, explains the board after that move from a
cold copy of the position (no cached moves or views: what the referee pays the first time
it sees a new board). Prints p50 / p99 / max in milliseconds per kind of move and fidelity,
and legal-move generation time per position. Target: p99 ≤ 5 ms per placement.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, Verdict, explain, get_game  # noqa: E402
from rules.games.annelids import Resign  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    game = get_game("annelids")
    rng = random.Random(args.seed)
    times: dict[tuple[str, Fidelity], list[float]] = {}
    gen: list[float] = []
    plies = 0
    for _ in range(args.games):
        state = game.start()
        while not state.is_game_over():
            fresh = type(state).from_dict(state.to_dict())
            t0 = time.perf_counter()
            moves = [m for m in fresh.legal_moves() if not isinstance(m, Resign)]
            gen.append((time.perf_counter() - t0) * 1000)
            move = rng.choice(moves)
            after = state.successor(move)
            kind = type(move).__name__.lower()
            for f in Fidelity:
                cold = type(state).from_dict(state.to_dict())
                view = after.view(f)
                t0 = time.perf_counter()
                e = explain(cold, view, f)
                times.setdefault((kind, f), []).append((time.perf_counter() - t0) * 1000)
                if e.verdict not in (Verdict.LEGAL, Verdict.AMBIGUOUS):
                    raise SystemExit(f"{state.move_text(move)} explained as {e.verdict.value}")
            state = after
            plies += 1
    print(f"{args.games} games, {plies} moves")
    print(f"{'move':<10} {'fidelity':<10} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for (kind, f), ts in sorted(times.items(), key=lambda kv: (kv[0][0], kv[0][1].value)):
        print(f"{kind:<10} {f.value:<10} {len(ts):>6} {statistics.median(ts):>8.2f} {pct(ts, 99):>8.2f} {max(ts):>8.2f}")
    print(f"{'movegen':<10} {'':<10} {len(gen):>6} {statistics.median(gen):>8.2f} {pct(gen, 99):>8.2f} {max(gen):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
