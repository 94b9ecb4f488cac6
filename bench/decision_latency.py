"""Decision time after the hand leaves: scripted camera games of every engine, played slowly.

    .venv/bin/python bench/decision_latency.py [--games N] [--moves M] [--fps F] [--only g1,g2]
                                               [--compare]

For each engine, ``--games`` scripted games of ``--moves`` moves are filmed by the synthetic
camera (``vision.sessions``) from hand scripts (``vision.hand_script``): the hand reaches in,
lifts the piece, pauses 0.4 s over two other pieces on the way (a Gygès bounce chain done
slowly), sets the piece down part-way with the fingers still on it when a legal position
allows (the trap), picks it up, puts it down where it goes and leaves. The film runs through
``CameraSource`` → ``Stabiliser`` → ``Referee`` (a real journal).

A move's decision time is the film time from the first frame without the hand to the frame
whose observation made the stabiliser report the board, plus the wall time this machine
took over that frame (lock, gate, read, stabiliser) and over the referee's handling (explain,
journal). Printed per engine and overall: p50 / p99 / max in ms, moves decided, and wrong or
intermediate accepts (must be 0). ``--compare`` also runs each film the old way (source
settle 0.3 s, stabiliser settle 0.6 s over 3 readings, no hand signal). Exits 1 on any wrong
or intermediate accept, or a board reported with the hand in view; a move the camera could not
read is left undecided (the ``decided`` column), a wait rather than an error.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402

from rules import Fidelity, get_game  # noqa: E402
from tableref.decisions import StableView  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.referee import Referee  # noqa: E402
from tableref.stabiliser import Stabiliser  # noqa: E402
from vision.capture import ArrayCapture  # noqa: E402
from vision.hand_script import HandScript, HandTiming, hand_script  # noqa: E402
from vision.sessions import Session, scripted_game  # noqa: E402
from vision.source import CameraSource  # noqa: E402
from vision.video import script_frames  # noqa: E402

ENGINES = ("gyges", "anacund", "annihilation", "annelids", "drift")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


@dataclass
class Run:
    latencies: list[float] = field(default_factory=list)  # seconds, per decided move
    moves: int = 0
    decided: int = 0
    wrong: int = 0  # accepted moves that are not the script's
    intermediate: int = 0  # a position laid down part-way reported as the board
    with_hand: int = 0  # a board reported while the hand was in view


def start_for(game: str):
    g = get_game(game)
    # Gygès from its default setup (ring moves with bounces; its start is the placements).
    return g.default_setup() if game == "gyges" else g.start()


def play(session: Session, start, played, script: HandScript, fps: float, *, old: bool, run: Run) -> None:
    frames = script_frames(session.renderer, script.items(), pose=session.pose,
                           effects=session.effects(hard=False), seed=7)
    drawing = [0.0]  # wall time spent drawing the film: the camera's, not ours, so left out

    def timed(frames):
        while True:
            t = time.perf_counter()
            img = next(frames, None)
            drawing[0] += time.perf_counter() - t
            if img is None:
                return
            yield img

    source = CameraSource(ArrayCapture(timed(frames), fps=fps), session.reader(), settle_time=0.3 if old else 0.1)
    stab = Stabiliser()
    truth = {round(f.t, 4): f for f in script.frames}
    positions, s = [], start  # judged by position: two notations of one outcome are one move
    for m in played:
        s = s.successor(m)
        positions.append(s)
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "j.sqlite3") as journal:
        referee = Referee.start(journal, start.game_name, fidelity=Fidelity.KIND, start=start)
        observations = source.observations()
        while True:
            t0, drawn = time.perf_counter(), drawing[0]
            obs = next(observations, None)
            if obs is None:
                break
            if old:
                obs = replace(obs, hands_clear_since=None)
            view = stab.feed(obs)
            frame_s = time.perf_counter() - t0 - (drawing[0] - drawn)
            if view is None:
                continue
            f = truth[round(obs.time, 4)]
            run.with_hand += bool(f.hidden)
            run.intermediate += any(v.matches(view) for v in script.intermediates)
            t1 = time.perf_counter()
            out = referee.handle(StableView(view, obs.time))
            handle_s = time.perf_counter() - t1
            for d in out:
                if d.kind != "accepted":
                    continue
                k = d.ply - 1
                if k >= len(positions) or type(start).from_dict(d.position) != positions[k]:
                    run.wrong += 1
                    continue
                run.decided += 1
                left = script.leaves[k]
                run.latencies.append(obs.time - left + frame_s + handle_s)
        run.moves += len(positions)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2, help="scripted games per engine (default 2)")
    ap.add_argument("--moves", type=int, default=4, help="moves per game (default 4)")
    ap.add_argument("--fps", type=float, default=30.0, help="the camera's frame rate (default 30)")
    ap.add_argument("--only", default="", help="comma-separated engines (default: all five)")
    ap.add_argument("--compare", action="store_true", help="also run the old settle-time path")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    engines = [g for g in ENGINES if not args.only or g in args.only.split(",")]
    modes = [("hand", False)] + ([("settle", True)] if args.compare else [])
    print(f"camera at {args.fps:g} fps; {args.games} games x {args.moves} moves per engine; slow moves "
          "(0.4 s pauses over 2 pieces, a part-way set-down with the fingers on it)")
    print(f"{'engine':<13} {'path':<7} {'moves':>5} {'decided':>7} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} "
          f"{'wrong':>5} {'interm.':>7} {'w/hand':>6}")
    totals = {name: Run() for name, _ in modes}
    bad = 0
    for game in engines:
        runs = {name: Run() for name, _ in modes}
        for i in range(args.games):
            session = Session.create(game, 11 + i)
            start = start_for(game)
            _, played = scripted_game(game, 100 + i, args.moves, start=start)
            script = hand_script(start, played, timing=HandTiming(fps=args.fps, lay_down=True), seed=i)
            for name, old in modes:
                play(session, start, played, script, args.fps, old=old, run=runs[name])
        for name, r in runs.items():
            _row(game, name, r)
            t = totals[name]
            t.latencies += r.latencies
            for k in ("moves", "decided", "wrong", "intermediate", "with_hand"):
                setattr(t, k, getattr(t, k) + getattr(r, k))
            bad += r.wrong + r.intermediate + r.with_hand  # a move left undecided is a wait, not an error
    for name, r in totals.items():
        _row("all", name, r)
    return 1 if bad else 0


def _row(game: str, path: str, r: Run) -> None:
    ms = [v * 1000 for v in r.latencies] or [float("nan")]
    print(f"{game:<13} {path:<7} {r.moves:>5} {r.decided:>7} {statistics.median(ms):>7.0f} {pct(ms, 99):>7.0f} "
          f"{max(ms):>7.0f} {r.wrong:>5} {r.intermediate:>7} {r.with_hand:>6}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
