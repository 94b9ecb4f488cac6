"""DRIFT explain latency: how long the referee takes to explain one move.

    python3 bench/drift_explain.py [--games N] [--plies P] [--seed S] [--players K]

Plays random games from the default setup (K players, default 3) and, before every move,
explains the board after that move from a cold copy of the position (no cached moves or views:
what the referee pays the first time it sees a new board). Prints p50 / p99 / max in
milliseconds per kind of move and fidelity, the same for a board part-way through the move
(a piece lifted: ``partial``) and for a board no legal move explains (a piece put two spaces
beyond its reach: ``illegal``, which also pays for the two-move search), and legal-move
generation per position. Target: p99 ≤ 20 ms per move.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, Verdict, View, explain, get_game  # noqa: E402
from rules.games.drift_geometry import geometry  # noqa: E402

PLAYERS = {2: "red:circle,blue:hexagon", 3: "red:circle,blue:square,green:hexagon",
           4: "red:circle,blue:triangle,green:square,yellow:hexagon",
           6: "red:circle,blue:triangle,green:square,yellow:pentagon,white:hexagon,black:star"}


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def timed(state, view, fidelity) -> tuple[float, Verdict]:
    cold = type(state).from_dict(state.to_dict())
    t0 = time.perf_counter()
    e = explain(cold, view, fidelity)
    return (time.perf_counter() - t0) * 1000, e.verdict


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--plies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, default=3, choices=sorted(PLAYERS))
    args = ap.parse_args()
    game = get_game("drift")
    geo = geometry()
    rng = random.Random(args.seed)
    times: dict[tuple[str, str], list[float]] = {}
    gen: list[float] = []
    plies = 0
    for _ in range(args.games):
        state = game.default_setup({"players": PLAYERS[args.players]})
        for _ in range(args.plies):
            if state.is_game_over():
                break
            fresh = type(state).from_dict(state.to_dict())
            t0 = time.perf_counter()
            moves = fresh.legal_moves()
            gen.append((time.perf_counter() - t0) * 1000)
            move = rng.choice(moves)
            after = state.successor(move)
            kind = move.kind + ("+end" if move.after_end else "")
            for f in Fidelity:
                view = after.view(f)
                ms, verdict = timed(state, view, f)
                if verdict not in (Verdict.LEGAL, Verdict.AMBIGUOUS, Verdict.UNCHANGED):
                    raise SystemExit(f"{state.move_text(move)} explained as {verdict.value}")
                times.setdefault((kind, f.value), []).append(ms)
            if move.kind == "step" and not move.after_end:
                before = state.view(Fidelity.KIND)
                src = geo.ids[state.locs[move.piece]]
                lifted = View({s: t for s, t in before.items() if s != src})
                times.setdefault(("part-way", "kind"), []).append(timed(state, lifted, Fidelity.KIND)[0])
                far = [s for s in geo.land_rings["inner"] if geo.ids[s] not in before]
                if far:
                    wrong = dict(lifted.items())
                    wrong[geo.ids[far[0]]] = before[src]
                    ms, verdict = timed(state, View(wrong), Fidelity.KIND)
                    times.setdefault((f"beyond:{verdict.value}", "kind"), []).append(ms)
            state = after
            plies += 1
    print(f"{args.games} games, {plies} moves, {args.players} players")
    print(f"{'move':<18} {'fidelity':<10} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    every: list[float] = []
    for (kind, f), ts in sorted(times.items()):
        if not kind.startswith(("part-way", "beyond")):
            every += ts
        print(f"{kind:<18} {f:<10} {len(ts):>6} {statistics.median(ts):>8.2f} {pct(ts, 99):>8.2f} {max(ts):>8.2f}")
    print(f"{'every move':<18} {'':<10} {len(every):>6} {statistics.median(every):>8.2f} "
          f"{pct(every, 99):>8.2f} {max(every):>8.2f}")
    print(f"{'movegen':<18} {'':<10} {len(gen):>6} {statistics.median(gen):>8.2f} {pct(gen, 99):>8.2f} {max(gen):>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
