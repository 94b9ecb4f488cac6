"""Annihilation: turn enumeration and explain latency (target: explain p99 <= 20 ms).

    python3 bench/annihilation_explain.py [--games N] [--seed S]

Plays random games (half of them biased towards self-emissions, which crowd the board and
make the longest chains), and for every position times, on a cold copy of the position:

* ``turns``   — enumerating every whole turn with its chain (``legal_moves``);
* ``explain`` — explaining the board after one random legal turn, per fidelity
  (the referee's hot path: enumeration included, since the referee meets each position cold);
* ``partial`` — explaining the board part-way through that turn (the changed spaces lifted
  empty), which also tries two-turn sequences before answering *partial*.

Prints n, p50, p99 and max in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, View, explain, get_game  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def cold(state):
    return type(state).from_dict(state.to_dict())


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    game = get_game("annihilation")
    rng = random.Random(args.seed)
    rows: dict[str, list[float]] = {"turns": [], "partial kind": []}
    rows.update({f"explain {f.value}": [] for f in Fidelity})
    counts: list[int] = []
    for g in range(args.games):
        state = game.start()
        emit_bias = g % 2 == 1
        plies = 0
        while not state.is_game_over() and plies < 300:
            rows["turns"].append(timed(lambda: cold(state).legal_moves()))
            moves = state.legal_moves()
            counts.append(len(moves))
            emits = [m for m in moves if m.kind == "emit"]
            move = rng.choice(emits if emit_bias and emits and rng.random() < 0.8 else moves)
            after = state.successor(move)
            for f in Fidelity:
                view = after.view(f)
                c = cold(state)
                rows[f"explain {f.value}"].append(timed(lambda: explain(c, view, f)))
            before = state.view(Fidelity.KIND)
            changed = before.diff(after.view(Fidelity.KIND))
            lifted = View({s: t for s, t in before.items() if s not in changed})
            c = cold(state)
            rows["partial kind"].append(timed(lambda: explain(c, lifted, Fidelity.KIND)))
            state = after
            plies += 1
    print(f"positions: {len(counts)}, turns per position: median {statistics.median(counts):.0f}, max {max(counts)}")
    print(f"{'what':<20} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, ts in rows.items():
        print(f"{name:<20} {len(ts):>6} {statistics.median(ts):>8.2f} {pct(ts, 99):>8.2f} {max(ts):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
