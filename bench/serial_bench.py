"""Serial sensor board: frames parsed per second, and change-to-decision latency through a pty.

    .venv/bin/python bench/serial_bench.py [--frames N] [--trials N] [--settle S]

1. parser alone: mixed frames (changes, heartbeats, full scans) through ``FrameParser``;
2. the link through a real pty: a writer pours change frames into the board end as fast as
   the pty takes them; ``SerialBoard`` (pyserial) parses and applies them;
3. change to decision: the simulator (reference firmware, scanning every 5 ms, debounce 3)
   on a pty, ``SerialBoard``, the stabiliser and the referee; a move is made on the virtual
   board (then taken back, and so on) and the time until the referee's decision is measured,
   split into sensor → link (debounce, firmware, pty), link → stable (the settle time) and
   stable → decision (rules and journal). Target: decision ≤ 50 ms after the settle time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from firmware_bridge.protocol import (  # noqa: E402
    Capability,
    Change,
    FrameParser,
    FullScan,
    Heartbeat,
    Hello,
    Reading,
    encode,
)
from firmware_bridge.serial_board import SerialBoard  # noqa: E402
from firmware_bridge.simulator import BoardSimulator  # noqa: E402
from firmware_bridge.wiring import Wiring  # noqa: E402
from rules import Fidelity, explain, get_game  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.referee import Referee  # noqa: E402
from tableref.service import play_observations  # noqa: E402
from tableref.stabiliser import Stabiliser  # noqa: E402

WIRING = Wiring.builtin("gyges")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_parser(n: int) -> None:
    msgs = [Change(((i % 38, Reading(i % 2)),)) if i % 10 else
            (FullScan((Reading.PRESENT,) * 38) if i % 20 == 0 else Heartbeat(i)) for i in range(n)]
    stream = b"".join(encode(i & 0xFF, m) for i, m in enumerate(msgs))
    parser = FrameParser()
    t = time.perf_counter()
    got = 0
    for i in range(0, len(stream), 4096):
        got += len(parser.feed(stream[i:i + 4096]))
    dt = time.perf_counter() - t
    print(f"parser alone:       {got / dt:10,.0f} frames/s  ({len(stream) / dt / 1e6:.1f} MB/s, {got} frames)")


def bench_link(n: int) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    board = SerialBoard(os.ttyname(slave), WIRING, tick=0.02, queue_size=4096)
    frames = [encode(0, Hello("bench", (1, 0, 0), (Capability.OCCUPANCY,) * 42)),
              encode(1, FullScan((Reading.EMPTY,) * 42))]
    frames += [encode((i + 2) & 0xFF, Change(((i % 38, Reading((i // 38) % 2)),))) for i in range(n)]
    stream = b"".join(frames)
    drained = threading.Event()

    def consume() -> None:
        for _ in board.observations():
            pass
        drained.set()

    with board:
        consumer = threading.Thread(target=consume, daemon=True)
        consumer.start()
        time.sleep(0.1)  # let it open the port and ask for a hello
        t = time.perf_counter()
        view = memoryview(stream)
        while view:
            written = os.write(master, view[:4096])
            view = view[written:]
        while board.stats.frames < n + 2 and time.perf_counter() - t < 60:
            time.sleep(0.001)
        dt = time.perf_counter() - t
    drained.wait(5)
    s = board.stats
    print(f"link through a pty: {s.frames / dt:10,.0f} frames/s  ({s.changes} changes applied, "
          f"{s.seq_gaps} gaps, {s.crc_errors} CRC errors, {s.dropped_observations} observations dropped)")
    os.close(master)
    os.close(slave)


def plain_move_pair():
    state = get_game("gyges").default_setup()
    for m in state.legal_moves():
        after = state.successor(m)
        if "/" not in state.move_text(m) and explain(
                state, after.view(Fidelity.OCCUPANCY), Fidelity.OCCUPANCY).verdict.value == "legal":
            return state, after
    raise RuntimeError("no plain move")


def bench_latency(trials: int, settle: float) -> None:
    before, after = plain_move_pair()
    views = [before.view(Fidelity.OCCUPANCY), after.view(Fidelity.OCCUPANCY)]
    marks: dict[str, float] = {}
    seen_at: list[float] = []
    stable_at: list[float] = []
    decided_at: list[float] = []
    changed_at: list[float] = []
    decided = threading.Event()
    with tempfile.TemporaryDirectory() as tmp, BoardSimulator(WIRING, scan_ms=5, debounce=3) as sim, \
            Journal(os.path.join(tmp, "j.sqlite3")) as journal:
        sim.set_view(views[0])
        referee = Referee.start(journal, "gyges", fidelity=Fidelity.OCCUPANCY, start=before)
        board = SerialBoard(str(sim.device_path), WIRING, tick=0.01)
        stabiliser = Stabiliser(settle, 3)

        def on_decision(d) -> None:
            if d.kind in ("accepted", "taken_back"):
                decided_at.append(time.monotonic())
                decided.set()

        def watched():
            for obs in board.observations():
                target = marks.get("target")
                if target is not None and not obs.unreadable and obs.view == target and "seen" not in marks:
                    marks["seen"] = obs.time
                    seen_at.append(obs.time)
                yield obs
                if marks.get("target") is not None and stabiliser.last_stable == target and "stable" not in marks:
                    marks["stable"] = time.monotonic()
                    stable_at.append(marks["stable"])

        def drive() -> None:
            time.sleep(settle + 0.5)  # the start position settles first
            for i in range(trials):
                target = views[(i + 1) % 2]
                decided.clear()
                marks.clear()
                marks["target"] = target
                changed_at.append(time.monotonic())
                sim.set_view(target)
                if not decided.wait(settle + 5):
                    print(f"trial {i}: no decision", file=sys.stderr)
                    break
                time.sleep(0.05)
            board.close()

        referee.subscribe(on_decision)
        board.start()
        driver = threading.Thread(target=drive, daemon=True)
        driver.start()
        play_observations(referee, watched(), stabiliser)
        driver.join()
    n = min(len(changed_at), len(seen_at), len(stable_at), len(decided_at))
    if not n:
        print("change to decision: no trial completed")
        return
    to_link = [(seen_at[i] - changed_at[i]) * 1000 for i in range(n)]
    to_stable = [(stable_at[i] - seen_at[i]) * 1000 for i in range(n)]
    to_decision = [(decided_at[i] - stable_at[i]) * 1000 for i in range(n)]
    total = [(decided_at[i] - changed_at[i]) * 1000 for i in range(n)]
    after_settle = [t - settle * 1000 for t in total]
    print(f"change to decision over {n} moves (settle {settle:.2f} s, scan 5 ms, debounce 3):")
    print(f"  {'stage':<28}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for name, values in (("sensor -> link (debounce)", to_link), ("link -> stable (settle)", to_stable),
                         ("stable -> decision", to_decision), ("total", total), ("total minus settle", after_settle)):
        print(f"  {name:<28}{statistics.median(values):9.1f}{pct(values, 99):9.1f}{max(values):9.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000, help="frames for the throughput runs")
    ap.add_argument("--trials", type=int, default=20, help="moves for the latency run")
    ap.add_argument("--settle", type=float, default=0.6, help="stabiliser settle time (s)")
    args = ap.parse_args()
    bench_parser(args.frames)
    bench_link(args.frames // 5)
    bench_latency(args.trials, args.settle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
