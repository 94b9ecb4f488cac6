"""`tableref serve` over an evening: resident memory while games are played and viewers come and go.

    .venv/bin/python bench/soak_memory.py [--minutes 3] [--rate 2] [--viewers 20] [--game-length 60]

Starts ``python -m tableref serve`` (simulated board, a fresh journal, a free port) as its own
process and plays through the page's own API, as a club would: ``--rate`` moves a second
(random legal one-step moves of Gygès on the simulated board, each waiting for its decision, a new game every
``--game-length`` moves, an undo now and then), while up to ``--viewers`` event streams open,
read a few events and close. Every 10 s it reads the server's VmRSS, open files and threads
from ``/proc``, the journal's size on disk (with its WAL), and times a load of the page; it
prints the samples, the figures after the first minute (warm-up: the event log fills) and
each one's slope from there to the end (least squares, per hour); at the end it checks that
every game is journalled exactly as the page last showed it (exit 1 if not). Issue 23, item 4: memory
must be flat; issue 20, item 4: open files and threads too, the journal growing only with
the moves, the page answering throughout (``--rate 5 --game-length 40``: an evening's games
compressed into minutes).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serve_bench import ROOT, free_port, proc_status  # noqa: E402
from rules import get_game  # noqa: E402

PIN = "2468"


class Client:
    def __init__(self, url: str) -> None:
        self.url = url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.token = self.get("/api/session")["csrf"]

    def get(self, path: str) -> dict:
        with self.opener.open(self.url + path, timeout=10) as r:
            return json.load(r)

    def post(self, path: str, body: dict | None = None) -> int:
        req = urllib.request.Request(self.url + path, data=json.dumps(body or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-CSRF-Token": self.token})
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code


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


def wait_until(client: Client, ok, timeout: float = 5.0) -> dict | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        snap = client.get("/api/state")
        if ok(snap):
            return snap
        time.sleep(0.05)
    return None


def set_right(client: Client) -> None:
    """Put the board back to the game's position and wait until the referee has seen it."""
    client.post("/api/sim/reset")
    wait_until(client, lambda s: s["board_status"]["kind"] == "ok")


def wait_for_decision(client: Client, ply: int) -> int:
    """Wait until the move is accepted (1); a board judged otherwise is set right (0)."""
    snap = wait_until(client, lambda s: s["ply"] != ply or s["board_status"]["kind"] in ("illegal", "ambiguous"))
    if snap is not None and snap["ply"] != ply:
        return 1
    set_right(client)
    return 0


def simple_moves(state) -> list[tuple[str, str]]:
    out = []
    for m in state.legal_moves():
        text = state.move_text(m)
        if text.count("-") == 1 and "/" not in text and "@" not in text:
            a, b = text.split("-")
            out.append((a, b))
    return out


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--rate", type=float, default=2.0, help="moves a second at most (each waits for its decision)")
    ap.add_argument("--viewers", type=int, default=20)
    ap.add_argument("--game-length", type=int, default=60)
    ap.add_argument("--warm-up", type=float, default=60.0,
                    help="seconds before the slopes are taken (default 60; the event log fills in ~170 moves)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tableref-soak-"))
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "serve", "--port", str(port), "--journal",
                             str(work / "j.sqlite3")], cwd=work, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={"PYTHONPATH": str(ROOT), "HOME": str(work),
                                                            "PATH": "/usr/bin:/bin"})
    stop = threading.Event()
    rng = random.Random(1)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                client = Client(url)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("the service did not answer")
        assert client.post("/api/pin", {"pin": PIN}) == 200
        gygès = get_game("gyges")
        samples: list[Sample] = []
        games = 1
        t0 = time.monotonic()
        next_sample, moves, viewers_started = t0, 0, 0
        seen: dict[int, list[str]] = {}
        live: list[threading.Thread] = []
        while time.monotonic() - t0 < args.minutes * 60:
            now = time.monotonic()
            if now >= next_sample:
                samples.append(sample(now - t0, proc.pid, work / "j.sqlite3", url))
                x = samples[-1]
                print(f"{x.at:6.0f} s  RSS {x.rss_mb:6.1f} MB  files {x.open_files:3d}  threads {x.threads:3d}  "
                      f"journal {x.journal_kb:7.0f} KB  page {x.page_ms:5.0f} ms  moves {moves}  games {games}  "
                      f"viewers {viewers_started} ({len(live)} open)", flush=True)
                next_sample += 10
            live = [t for t in live if t.is_alive()]
            while len(live) < args.viewers:
                t = threading.Thread(target=viewer, args=(port, rng.randint(1, 8), stop), daemon=True)
                t.start()
                live.append(t)
                viewers_started += 1
            snap = client.get("/api/state")
            seen[snap["game_id"]] = list(snap["moves"])  # what the page showed of each game, last
            state = gygès.from_dict(snap["position"])
            choices = simple_moves(state)
            if snap["ply"] >= args.game_length or not choices or snap["outcome"]:
                client.post("/api/new-game", {"game": "gyges", "setup": "default"})
                games += 1
                wait_until(client, lambda s, gid=snap["game_id"]: s["game_id"] != gid)
            elif snap["ply"] and rng.random() < 0.05:
                client.post("/api/undo")
                wait_until(client, lambda s, ply=snap["ply"]: s["ply"] < ply)
                set_right(client)
            else:
                a, b = rng.choice(choices)
                client.post("/api/sim/move", {"space": a, "to": b})
                moves += wait_for_decision(client, snap["ply"])
            time.sleep(1 / args.rate)
        samples.append(sample(time.monotonic() - t0, proc.pid, work / "j.sqlite3", url))
        snap = client.get("/api/state")
        seen[snap["game_id"]] = list(snap["moves"])
        # Nothing lost: every game's journalled moves are what the page last showed of it.
        lost = [gid for gid, shown in seen.items() if client.get(f"/api/journal/{gid}")["moves"] != shown]
    finally:
        stop.set()
        proc.terminate()
        proc.wait(10)
    warm_at = min(args.warm_up, samples[-1].at / 3)
    after = [x for x in samples if x.at >= warm_at]
    warm, end = after[0], samples[-1]
    print(f"\n{end.at:.0f} s, {moves} moves, {games} games, {viewers_started} viewers; warm-up {warm.at:.0f} s")
    print(f"{'':<12} {'start':>8} {'warm':>8} {'end':>8} {'peak':>8}  slope after warm-up")
    for name, unit, get in (("RSS", "MB", lambda x: x.rss_mb), ("open files", "", lambda x: x.open_files),
                            ("threads", "", lambda x: x.threads), ("journal", "KB", lambda x: x.journal_kb)):
        slope = slope_per_hour([(x.at, get(x)) for x in after])
        print(f"{name:<12} {get(samples[0]):>8.1f} {get(warm):>8.1f} {get(end):>8.1f} {max(map(get, samples)):>8.1f}"
              f"  {slope:+.1f} {unit}/h")
    per_move = (end.journal_kb - samples[0].journal_kb) / max(1, moves)
    pages = [x.page_ms for x in samples]
    ok = [p for p in pages if not math.isnan(p)]
    print(f"journal per move: {per_move:.2f} KB; page: answered {len(ok)}/{len(pages)} samples, "
          f"p50 {sorted(ok)[len(ok) // 2] if ok else float('nan'):.0f} ms, max {max(ok) if ok else float('nan'):.0f} ms")
    print(f"records: {len(seen) - len(lost)} of {len(seen)} games journalled exactly as the page showed them"
          + (f"; DIFFERENT: games {lost}" if lost else ""))
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
