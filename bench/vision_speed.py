"""Camera speed on one core at 1280x720: watching (lock tracking + motion gate) per frame,
a full board read, and the first lock (a full marker search).

    python bench/vision_speed.py [--frames 300] [--reads 60] [--games g1,g2]

``cv2.setNumThreads(1)``: one core, as on a Pi sharing its cores with the service. Frames
are rendered beforehand (not timed). The ratio is against Chesscog's published 2.1 s per
board on an i5 CPU.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from rules import Fidelity, game_names  # noqa: E402
from vision.lock import BoardLock  # noqa: E402
from vision.motion import MotionGate  # noqa: E402
from vision.sessions import Session, random_position  # noqa: E402
from bench.vision_accuracy import CAMERA_GAMES, start_of  # noqa: E402

CHESSCOG_MS = 2100.0


def bench_game(game: str, n_frames: int, n_reads: int) -> dict[str, float]:
    s = Session.create(game, 3)
    view = random_position(game, 5, 30, start_of(game)).view(Fidelity.KIND)
    effects = s.effects(hard=False)
    top = np.clip(s.renderer.top_down(view), 0, 255).astype(np.uint8)
    clean = s.renderer.frame(view, s.pose, effects, s.rng, top=top, noise=False)
    frames = [s.renderer.reshoot(clean, effects, s.rng, 0.3) for _ in range(32)]

    lock, gate = BoardLock(s.sheet), MotionGate(s.sheet)
    first = []
    for f in frames[:6]:  # the first lock: two full searches
        lock.reset()
        t0 = time.perf_counter()
        g = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
        lock.update(g)
        lock.update(g)
        first.append((time.perf_counter() - t0) / 2)
    watch = []
    for k in range(n_frames):
        f = frames[k % len(frames)]
        t0 = time.perf_counter()
        status = lock.update(cv2.cvtColor(f, cv2.COLOR_BGR2GRAY))
        gate.update(f, status.H, k / 30)
        watch.append(time.perf_counter() - t0)
    assert status.readable
    reader = s.reader()
    reads = []
    for k in range(n_reads):
        f = frames[k % len(frames)]
        t0 = time.perf_counter()
        got = reader.read(f, status.H)
        reads.append(time.perf_counter() - t0)
    return {
        "watch_ms": 1000 * float(np.median(watch)), "watch_fps": 1.0 / float(np.median(watch)),
        "watch_p95_ms": 1000 * float(np.percentile(watch, 95)),
        "read_p50": 1000 * float(np.median(reads)), "read_p95": 1000 * float(np.percentile(reads, 95)),
        "read_max": 1000 * float(np.max(reads)), "lock_ms": 1000 * float(np.median(first)),
        "complete": float(got.complete and view.matches(got.view)), "pieces": float(sum(len(t) for t in view.values())),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=300, help="watched frames per game (default 300)")
    ap.add_argument("--reads", type=int, default=60, help="full reads per game (default 60)")
    ap.add_argument("--games", default=None)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    games = args.games.split(",") if args.games else [g for g in CAMERA_GAMES if g in game_names()]
    load = os.getloadavg()
    print(f"one core (cv2.setNumThreads(1)), 1280x720 (drift 1920x1080); load average {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'game':<13} {'pieces':>6} {'watch ms':>9} {'fps':>6} {'p95 ms':>7} {'read p50':>9} {'p95':>7} "
          f"{'max':>7} {'lock ms':>8} {'x Chesscog':>11}")
    for g in games:
        r = bench_game(g, args.frames, args.reads)
        print(f"{g:<13} {r['pieces']:>6.0f} {r['watch_ms']:>9.2f} {r['watch_fps']:>6.0f} {r['watch_p95_ms']:>7.2f} "
              f"{r['read_p50']:>9.1f} {r['read_p95']:>7.1f} {r['read_max']:>7.1f} {r['lock_ms']:>8.1f} "
              f"{CHESSCOG_MS / r['read_p50']:>10.0f}x" + ("" if r["complete"] else "  (read incomplete)"),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
