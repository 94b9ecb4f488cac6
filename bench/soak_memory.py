"""`tableref serve` over an evening: the club's tables refereed while games are played, a serial
cable is pulled now and then, a camera bumped, and viewers come and go.

    .venv/bin/python bench/soak_memory.py [--minutes 3] [--rate 2] [--viewers 20] [--game-length 60]
                                          [--tables sim,serial,camera] [--camera-rate 2]
                                          [--churn 5-20 --churn-rate 6 --stay 1-6 --away 2-20] [--counts DIR]

Each table is its own service process (a Pi referees one table from one source; the tables are
bench/soak_tables.py), each with a fresh journal on a free port:

- **sim**: ``python -m tableref serve`` on the simulated board, played through the page's own
  API — random legal one-step Gygès moves, each waiting for its decision, an undo now and then;
- **serial**: ``tableref serve`` on the reference firmware behind a pty, the pieces moved on
  the board, the cable pulled for a random spell every few moves (a move made while it is out,
  every other time), questions answered as players would;
- **camera**: the service over a camera that plays a filmed game (``tableref demo-video``,
  rendered once) again and again on its own clock (``--camera-rate`` × real time), bumped
  mid-game every other game.

A new game every ``--game-length`` moves (the camera: when its film's moves are all in), at most
``--rate`` moves a second a table, while up to ``--viewers`` event streams open on the tables'
pages, read a few events and close. Every 10 s it reads each service's VmRSS, open files and
threads from ``/proc``, its journal's size on disk (with its WAL), and times a load of its page;
it prints the samples, the figures after warm-up (the event log fills) and each one's slope
from there to the end (least squares, per hour); at the end it checks that every game is
journalled exactly as the page last showed it, and that the camera's games are the filmed
moves (exit 1 if not). Issue 23, item 4: memory must be flat; issue 20, item 4: open files and
threads too, the journal growing only with the moves, the page answering throughout
(``--rate 5 --game-length 40``: an evening's games compressed into minutes).

``--churn LOW-HIGH``: viewers as browsers are (bench/soak_viewers.py): each loads the page and
its API, watches the stream, and leaves, is cut off, stalls or comes back with its
``Last-Event-ID``; every response must be 2xx (issue 33, item 13). ``--counts DIR``: at every
sample the service's live objects by type and its allocators' figures, diffed after warm-up.
"""

from __future__ import annotations

import argparse
import http.client
import math
import os
import random
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serve_bench import proc_status
from bench.soak_tables import CameraTable, SerialTable, SimTable, Table
from bench.soak_trace import memory_report
from bench.soak_viewers import Churn

TABLES = {"sim": SimTable, "serial": SerialTable, "camera": CameraTable}


def viewer(port: int, events: int, stop: threading.Event) -> None:
    """One browser: open the event stream, read a few events, go away."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/api/events")
        resp = conn.getresponse()
        seen = 0
        while seen < events and not stop.is_set():
            line = resp.fp.readline()
            if not line:
                break
            seen += line.startswith(b"event:")
    except OSError as exc:
        print("viewer:", exc, file=sys.stderr)
    finally:
        conn.close()


@dataclass(frozen=True)
class Sample:
    at: float  # seconds since the start
    rss_mb: float
    open_files: int
    threads: int
    journal_kb: float
    page_ms: float  # a GET / (nan: it did not answer)


def sample(at: float, pid: int, journal: Path, url: str) -> Sample:
    status = proc_status(pid)
    size = sum(p.stat().st_size for p in journal.parent.glob(journal.name + "*") if p.is_file())
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url + "/", timeout=10) as r:
            r.read()
        page = (time.perf_counter() - t0) * 1000
    except OSError:
        page = float("nan")
    return Sample(at, status["VmRSS"], len(os.listdir(f"/proc/{pid}/fd")), int(status["Threads"]), size / 1024, page)


def slope_per_hour(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value), per hour."""
    if len(points) < 2:
        return float("nan")
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return 3600 * sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else float("nan")


def show(table: Table, x: Sample, viewers: int) -> None:
    extra = "".join(f"  {k} {v}" for k, v in sorted(table.counts.items()))
    print(f"{x.at:6.0f} s  {table.name:<6}  RSS {x.rss_mb:6.1f} MB  files {x.open_files:3d}  threads {x.threads:3d}  "
          f"journal {x.journal_kb:7.0f} KB  page {x.page_ms:5.0f} ms  moves {table.moves}  games {table.games}  "
          f"viewers {viewers}{extra}", flush=True)


def summary(table: Table, warm_up: float) -> bool:
    """Print one table's figures; False if anything was lost or refereed wrong."""
    samples = table.samples
    warm_at = min(warm_up, samples[-1].at / 3)
    after = [x for x in samples if x.at >= warm_at]
    warm, end = after[0], samples[-1]
    print(f"\n[{table.name}] {end.at:.0f} s, {table.moves} moves, {table.games} games; warm-up {warm.at:.0f} s"
          + "".join(f"; {k} {v}" for k, v in sorted(table.counts.items())))
    print(f"{'':<12} {'start':>8} {'warm':>8} {'end':>8} {'peak':>8}  slope after warm-up")
    for name, unit, get in (("RSS", "MB", lambda x: x.rss_mb), ("open files", "", lambda x: x.open_files),
                            ("threads", "", lambda x: x.threads), ("journal", "KB", lambda x: x.journal_kb)):
        slope = slope_per_hour([(x.at, get(x)) for x in after])
        print(f"{name:<12} {get(samples[0]):>8.1f} {get(warm):>8.1f} {get(end):>8.1f} {max(map(get, samples)):>8.1f}"
              f"  {slope:+.1f} {unit}/h")
    per_move = (end.journal_kb - samples[0].journal_kb) / max(1, table.moves)
    pages = [x.page_ms for x in samples]
    ok = [p for p in pages if not math.isnan(p)]
    print(f"journal per move: {per_move:.2f} KB; page: answered {len(ok)}/{len(pages)} samples, "
          f"p50 {sorted(ok)[len(ok) // 2] if ok else float('nan'):.0f} ms, max {max(ok) if ok else float('nan'):.0f} ms")
    lost, wrong = table.lost(), table.wrong()
    print(f"records: {len(table.seen) - len(lost)} of {len(table.seen)} games journalled exactly as the page showed "
          f"them" + (f"; DIFFERENT: games {lost}" if lost else ""))
    if isinstance(table, CameraTable):
        print(f"camera: bumped {table.bumped()} times; {len(table.seen) - len(wrong)} of {len(table.seen)} games "
              f"refereed exactly as filmed" + (f"; WRONG: games {wrong}" if wrong else ""))
    if table.trace is not None:
        print(memory_report(table.trace / table.name, sum(1 for x in samples if x.at < warm.at)))
    for error in table.errors[:5]:
        print(f"trouble: {error}")
    print(f"troubles: {len(table.errors)}")
    return not lost and not wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--rate", type=float, default=2.0, help="moves a second at most (each waits for its decision)")
    ap.add_argument("--viewers", type=int, default=20)
    ap.add_argument("--game-length", type=int, default=60)
    ap.add_argument("--tables", default="sim,serial,camera",
                    help="the tables to referee, each its own service: sim, serial, camera (default all three)")
    ap.add_argument("--camera-rate", type=float, default=2.0, help="the camera's film, times real time (default 2)")
    ap.add_argument("--camera-moves", type=int, default=6, help="moves in the camera's filmed game (default 6)")
    ap.add_argument("--pull-every", type=int, default=6, help="the serial cable pulled every N moves (default 6)")
    ap.add_argument("--warm-up", type=float, default=60.0,
                    help="seconds before the slopes are taken (default 60; the event log fills in ~170 moves)")
    ap.add_argument("--churn", default=None, metavar="LOW-HIGH",
                    help="instead of --viewers: browsers that load the page, watch, and leave, are cut off, "
                         "stall or resume (bench/soak_viewers.py), LOW to HIGH at a time")
    ap.add_argument("--churn-rate", type=float, default=2.0, help="--churn: viewers arriving a second at most")
    ap.add_argument("--stay", default="2-20", metavar="A-B", help="--churn: seconds each viewer watches (default 2-20)")
    ap.add_argument("--away", default="0.5-3", metavar="A-B",
                    help="--churn: seconds a stalled viewer leaves its stream unread, a resuming one is gone (default 0.5-3)")
    ap.add_argument("--trace", type=Path, default=None,
                    help="run the services under tracemalloc, a snapshot at every sample, into "
                         "this directory; print what grew after warm-up (slow: for finding a leak, not for slopes)")
    ap.add_argument("--counts", type=Path, default=None,
                    help="as --trace without tracemalloc (so the slopes hold): at every sample the live objects "
                         "by type and the allocators' figures (glibc's mallinfo2, CPython's arenas)")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.tables.split(",") if n.strip()]
    unknown = [n for n in names if n not in TABLES]
    if unknown or not names:
        ap.error(f"--tables: unknown {unknown or 'none given'}; choose from {', '.join(TABLES)}")
    work = Path(tempfile.mkdtemp(prefix="tableref-soak-"))
    tables: list[Table] = []
    for i, name in enumerate(names):
        if name == "sim":
            tables.append(SimTable(work, game_length=args.game_length, seed=1 + i))
        elif name == "serial":
            tables.append(SerialTable(work, game_length=args.game_length, seed=1 + i, pull_every=args.pull_every))
        else:
            tables.append(CameraTable(work, game_length=args.camera_moves, seed=1 + i, rate=args.camera_rate))
    if args.counts is not None:
        os.environ["SOAK_TRACEMALLOC"] = "0"  # the services' (soak_trace.install)
    for table in tables:
        table.trace = args.trace or args.counts
    stop = threading.Event()
    rng = random.Random(1)
    churn = None
    if args.churn:
        low, high = (int(x) for x in args.churn.split("-"))
        a, b = (float(x) for x in args.stay.split("-"))
        c, d = (float(x) for x in args.away.split("-"))
        churn = Churn([t.port for t in tables], low=low, high=high, rate=args.churn_rate, stay=(a, b), away=(c, d))
    players: list[threading.Thread] = []
    viewers_started = 0
    try:
        for table in tables:
            table.start()
        t0 = time.monotonic()
        players = [threading.Thread(target=t.play, args=(stop, args.rate), name=t.name, daemon=True) for t in tables]
        for p in players:
            p.start()
        next_sample = t0
        live: list[threading.Thread] = []
        while time.monotonic() - t0 < args.minutes * 60:
            now = time.monotonic()
            if now >= next_sample:
                for table in tables:
                    assert table.proc is not None
                    table.samples.append(sample(now - t0, table.proc.pid, table.journal, table.url))
                    show(table, table.samples[-1], churn.seen.started if churn else viewers_started)
                    table.snapshot_memory()
                next_sample += 10
            if churn is not None:
                churn.tick(stop)
            live = [t for t in live if t.is_alive()]
            while churn is None and len(live) < args.viewers:
                port = rng.choice(tables).port
                t = threading.Thread(target=viewer, args=(port, rng.randint(1, 8), stop), daemon=True)
                t.start()
                live.append(t)
                viewers_started += 1
            time.sleep(0.2)
        stop.set()
        for p in players:
            p.join(30)
        for table in tables:
            assert table.proc is not None
            table.samples.append(sample(time.monotonic() - t0, table.proc.pid, table.journal, table.url))
            table.snapshot_memory()
        time.sleep(3 if args.trace else 0)  # the last snapshots written
        print(f"\n{len(tables)} tables, {churn.seen.started if churn else viewers_started} viewers")
        good = [summary(table, args.warm_up) for table in tables]
        if churn is not None:
            churn.join(10)
            print(churn.seen.line())
            for error in churn.seen.errors[:5]:
                print(f"viewer trouble: {error}")
            good.append(churn.seen.failures() == 0)
    finally:
        stop.set()
        for table in tables:
            table.stop()
    return 0 if all(good) else 1


if __name__ == "__main__":
    raise SystemExit(main())
