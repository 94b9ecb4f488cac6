"""`tableref serve` over an evening: resident memory while games are played and viewers come and go.

    .venv/bin/python bench/soak_memory.py [--minutes 3] [--rate 2] [--viewers 20] [--game-length 60]

Starts ``python -m tableref serve`` (simulated board, a fresh journal, a free port) as its own
process and plays through the page's own API, as a club would: ``--rate`` moves a second
(random legal one-step moves of Gygès on the simulated board, each waiting for its decision, a new game every
``--game-length`` moves, an undo now and then), while up to ``--viewers`` event streams open,
read a few events and close. Every 10 s it reads the server's VmRSS from ``/proc``; it prints
the samples, the figure after the first minute (warm-up: the event log fills) and the growth
from there to the end, in MB per hour. Issue 23, item 4: the figure must be flat.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serve_bench import ROOT, free_port, memory_mb  # noqa: E402
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=3.0)
    ap.add_argument("--rate", type=float, default=2.0, help="moves a second at most (each waits for its decision)")
    ap.add_argument("--viewers", type=int, default=20)
    ap.add_argument("--game-length", type=int, default=60)
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
        samples: list[tuple[float, float]] = []
        t0 = time.monotonic()
        next_sample, moves, viewers_started = t0, 0, 0
        live: list[threading.Thread] = []
        while time.monotonic() - t0 < args.minutes * 60:
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - t0, memory_mb(proc.pid)[0]))
                print(f"{now - t0:6.0f} s  RSS {samples[-1][1]:6.1f} MB  moves {moves}  viewers {viewers_started} ({len(live)} open)",
                      flush=True)
                next_sample += 10
            live = [t for t in live if t.is_alive()]
            while len(live) < args.viewers:
                t = threading.Thread(target=viewer, args=(port, rng.randint(1, 8), stop), daemon=True)
                t.start()
                live.append(t)
                viewers_started += 1
            snap = client.get("/api/state")
            state = gygès.from_dict(snap["position"])
            choices = simple_moves(state)
            if snap["ply"] >= args.game_length or not choices or snap["outcome"]:
                client.post("/api/new-game", {"game": "gyges", "setup": "default"})
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
        samples.append((time.monotonic() - t0, memory_mb(proc.pid)[0]))
    finally:
        stop.set()
        proc.terminate()
        proc.wait(10)
    warm = next((s for s in samples if s[0] >= 60), samples[0])
    end = samples[-1]
    hours = max(end[0] - warm[0], 1e-9) / 3600
    print(f"\nstart {samples[0][1]:.1f} MB · after warm-up ({warm[0]:.0f} s) {warm[1]:.1f} MB · end {end[1]:.1f} MB"
          f" · peak {max(s[1] for s in samples):.1f} MB")
    print(f"growth after warm-up: {(end[1] - warm[1]) / hours:+.1f} MB/h over {end[0] - warm[0]:.0f} s, "
          f"{moves} moves, {viewers_started} viewers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
