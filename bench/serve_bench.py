"""`tableref serve`: start-up time and resident memory.

    .venv/bin/python bench/serve_bench.py [--runs N] [--requests N] [--config FILE]

Each run starts ``python -m tableref serve`` as a fresh process (a new journal each time, on
a free port), polls ``/api/health`` until it answers — start-up = process start to the first
health answer — then makes a few requests of every kind (page, state, health, journal,
board, replay) and reads the process's resident memory from ``/proc/PID/status`` (VmRSS now,
VmHWM the peak). Then SIGTERM, and the time to a clean exit. Prints each run and the median.
Targets (a Raspberry Pi, issue 11): start-up ≤ 3 s, resident memory ≤ 200 MB.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_TARGET = 3.0  # seconds
RSS_TARGET = 200.0  # MB


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int) -> dict[str, float]:
    """A process's resident memory now and at its peak (VmRSS, VmHWM, in MB) and its thread
    count (Threads), from ``/proc/PID/status``."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
        elif key == "Threads":
            out[key] = int(value)
    return out


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    status = proc_status(pid)
    return status["VmRSS"], status["VmHWM"]


def one_run(config: Path | None, requests: int, workdir: Path) -> tuple[float, float, float, float]:
    port = free_port()
    argv = [sys.executable, "-m", "tableref", "serve", "--port", str(port),
            "--journal", str(workdir / "journal.sqlite3")]
    if config is not None:
        argv += ["--config", str(config)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=workdir)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"serve exited {proc.returncode}: {proc.stderr.read().decode()}")
            try:
                urllib.request.urlopen(f"{url}/api/health", timeout=1).read()
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.01)
            if time.perf_counter() - t0 > 30:
                raise SystemExit("serve did not answer /api/health within 30 s")
        startup = time.perf_counter() - t0
        for _ in range(requests):
            for path in ("/", "/api/state", "/api/health", "/api/journal", "/api/journal/1", "/api/board/gyges",
                         "/replay/1", "/static/live.js"):
                urllib.request.urlopen(url + path, timeout=5).read()
        rss, peak = memory_mb(proc.pid)
        t1 = time.perf_counter()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(20)
        stop = time.perf_counter() - t1
        if code != 0:
            raise SystemExit(f"serve exited {code} on SIGTERM: {proc.stderr.read().decode()}")
        return startup, rss, peak, stop
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh starts to measure (default 5)")
    ap.add_argument("--requests", type=int, default=5, help="rounds of requests before reading memory (default 5)")
    ap.add_argument("--config", type=Path, default=None, help="serve this config (default: the simulated board)")
    args = ap.parse_args()
    results = []
    print(f"tableref serve {'--config ' + str(args.config) if args.config else '(simulated board)'}: "
          f"{args.runs} runs, {args.requests} rounds of 8 requests each")
    print(f"{'run':>4} {'start-up s':>11} {'RSS MB':>8} {'peak MB':>8} {'stop s':>7}")
    for i in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
            r = one_run(args.config.resolve() if args.config else None, args.requests, Path(tmp))
        results.append(r)
        print(f"{i + 1:>4} {r[0]:>11.2f} {r[1]:>8.1f} {r[2]:>8.1f} {r[3]:>7.2f}", flush=True)
    startup, rss, peak, stop = (statistics.median(col) for col in zip(*results))
    print(f"{'med':>4} {startup:>11.2f} {rss:>8.1f} {peak:>8.1f} {stop:>7.2f}")
    print(f"start-up {startup:.2f} s (target <= {START_TARGET:g} s: {'ok' if startup <= START_TARGET else 'MISSED'}); "
          f"resident {rss:.1f} MB, peak {peak:.1f} MB (target <= {RSS_TARGET:g} MB: "
          f"{'ok' if peak <= RSS_TARGET else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
