"""Does the referee stay responsive while the computer thinks?

    .venv/bin/python bench/opponent_latency.py [--moves N] [--game G] [--level L] [--seed S]

A person's moves (a random legal game of ``--game``, its board views one by one) go through a
real ``RefereeLoop`` and journal, as the service runs them; each move's decision latency is the
wall time from the view's submission to its ``accepted`` decision. Measured twice: with nothing
else running, and with the service's own ``Opponent`` searching the whole time (a DRIFT
position at ``--level``, asked again as soon as it answers, as a hint would be): in its worker
process (as the service runs it), and for comparison on a thread of this process. Prints p50 / p95 / max in ms and CPU time per decision (the referee thread's own,
``time.thread_time``) for both, and how many searches the opponent finished meanwhile.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from decisions import Decision, StableView, StartGame, Thinking  # noqa: E402
from rules import Fidelity, Verdict, explain, get_game  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.opponent import Opponent, OpponentSettings  # noqa: E402
from tableref.referee import Referee, RefereeLoop  # noqa: E402


def person_views(game: str, count: int, seed: int) -> list:
    rng = random.Random(seed)
    g = get_game(game)
    s, views = g.default_setup(), []
    while len(views) < count:
        if s.is_game_over():
            s = g.default_setup()
            views.append(None)  # a new game: the referee is restarted there
            continue
        # Only moves the board shows unmistakably: a move that needs a question is not a decision.
        moves = list(s.legal_moves())
        rng.shuffle(moves)
        for m in moves:
            after = s.successor(m)
            e = explain(s, after.view(Fidelity.KIND), Fidelity.KIND)
            if e.verdict is Verdict.LEGAL:
                break
        s = after
        views.append(s.view(Fidelity.KIND))
    return views


def measure(game: str, views: list, *, thinking: bool, level: int, process: bool = True
            ) -> tuple[list[float], list[float], int]:
    latencies: list[float] = []
    cpu: list[float] = []
    searches = [0]
    with tempfile.TemporaryDirectory() as tmp:
        journal = Journal(Path(tmp) / "j.sqlite3")
        referee = Referee.start(journal, game, fidelity=Fidelity.KIND, setup="default", resume=False)
        loop = RefereeLoop(referee, latest_view_only=False)
        done = threading.Event()
        cpu_at = [0.0]

        def on_decision(d: Decision) -> None:
            if d.kind in ("accepted", "illegal", "new_game"):
                cpu.append(time.thread_time() - cpu_at[0])
                done.set()


        original = referee.handle

        def handle(item):  # the referee thread's CPU per decision
            cpu_at[0] = time.thread_time()
            return original(item)

        referee.handle = handle  # type: ignore[method-assign]
        referee.subscribe(on_decision)
        opponent = None
        if thinking:
            drift = get_game("drift")
            position = drift.default_setup({"players": "red:circle,blue:square"})
            asked = Thinking(1, 0, position.to_move, level, 1, "drift", position.to_dict(), "hint", state=position)

            def again(_command) -> None:
                searches[0] += 1
                if not stop.is_set():
                    opponent.on_decision(asked)

            stop = threading.Event()
            opponent = Opponent(again, OpponentSettings(process=process))
            opponent.start()
            opponent.on_decision(asked)
            deadline = time.monotonic() + 60
            while searches[0] < 1 and time.monotonic() < deadline:
                time.sleep(0.05)  # the worker spawned and one search done: the next is under way
            first = searches[0]
        loop.start()
        for view in views:
            if view is None:  # that game is over: a new one, set up on the board
                done.clear()
                start = get_game(game).default_setup().view(Fidelity.KIND)
                loop.submit(StartGame(game, {}, "default", board=start))
                done.wait(30)
                continue
            done.clear()
            t0 = time.perf_counter()
            loop.submit(StableView(view))
            if not done.wait(30):
                raise SystemExit("no decision within 30 s")
            latencies.append(time.perf_counter() - t0)
        if opponent is not None:
            searches[0] -= first
            stop.set()
            opponent.stop()
        loop.stop(10)
        journal.close()
    return latencies, cpu, searches[0]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moves", type=int, default=200)
    ap.add_argument("--game", default="gyges")
    ap.add_argument("--level", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    views = person_views(args.game, args.moves, args.seed)
    print(f"# decision latency of a person's move ({args.game}, {args.moves} moves, seed {args.seed}); "
          f"the opponent searching DRIFT at level {args.level} in its worker process and, for comparison, on a thread")
    print(f"{'':<22} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'CPU ms/decision':>16} {'searches':>9}")
    for label, thinking, process in (("nothing else running", False, True), ("thinking (its process)", True, True),
                                     ("thinking (a thread)", True, False)):
        lat, cpu, searches = measure(args.game, views, thinking=thinking, level=args.level, process=process)
        print(f"{label:<24} {pct(lat, .5) * 1e3:8.1f} {pct(lat, .95) * 1e3:8.1f} {max(lat) * 1e3:8.1f} "
              f"{statistics.mean(cpu) * 1e3:16.1f} {searches:9d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
