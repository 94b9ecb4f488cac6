"""End to end: a board change to the referee's decision arriving at a browser-like SSE client.

    python3 bench/sse_latency.py [--trials N] [--settle S]

A whole ``tableref serve`` Service (journal, referee thread, the board scanner every 0.1 s,
the HTTP server on a free port) with the simulated board; a client reads ``/api/events``
over a real socket as a browser's EventSource does. Each trial edits the simulated board
(a plain Gygès move, then back: the referee accepts, then takes back) and times from the
edit to the ``decision`` event reaching the client. The settle time is part of the design
(a board is judged only once it holds still), so the figure that counts is the total minus
the settle time: one scan interval of waiting plus the rules, the journal and the stream.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, Verdict, explain, get_game  # noqa: E402


@dataclass(frozen=True)
class Arrival:
    kind: str  # the decision's kind (accepted, taken_back, ...)
    at: float  # time.monotonic() when the client had the whole event


class SseClient:
    """A minimal EventSource: reads ``/api/events`` in a thread, noting when each decision arrives."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.arrivals: list[Arrival] = []
        self._cond = threading.Condition()
        self._conn: http.client.HTTPConnection | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> "SseClient":
        self._conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
        self._conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        resp = self._conn.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"/api/events answered {resp.status}")
        self._thread = threading.Thread(target=self._read, args=(resp,), name="sse-client", daemon=True)
        self._thread.start()
        return self

    def _read(self, resp: http.client.HTTPResponse) -> None:
        event, data = "", []
        try:
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif not line:
                    if event == "decision" and data:
                        kind = json.loads("".join(data))["decision"]["kind"]
                        with self._cond:
                            self.arrivals.append(Arrival(kind, time.monotonic()))
                            self._cond.notify_all()
                    event, data = "", []
        except (OSError, ValueError, http.client.HTTPException):
            return  # the server closed the stream: the bench is over

    def wait_for(self, count: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: len(self.arrivals) >= count, timeout)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def plain_move():
    """A Gygès position and a plain move from it that explains as legal at kind fidelity."""
    state = get_game("gyges").default_setup()
    for m in state.legal_moves():
        after = state.successor(m)
        if "/" not in state.move_text(m) and explain(state, after.view(Fidelity.KIND), Fidelity.KIND).verdict \
                is Verdict.LEGAL:
            return state, after
    raise RuntimeError("no plain move from the default setup")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def measure(trials: int = 20, settle: float = 0.6, scan_interval: float = 0.1) -> dict[str, float]:
    """Run the trials; figures in milliseconds (``after_settle_*``: total minus the settle)."""
    import logging

    from tableref.serve import Service

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    before, after = plain_move()
    views = [before.view(Fidelity.KIND), after.view(Fidelity.KIND)]
    totals: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        service = Service(os.path.join(tmp, "j.sqlite3"), os.path.join(tmp, "admin.json"), game="gyges",
                          setup="default", settle=settle, scan_interval=scan_interval, new=True,
                          pin_hash="scrypt:1024:8:1")
        with service:
            url = service.serve_http("127.0.0.1", 0)
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            client = SseClient("127.0.0.1", port).start()
            try:
                time.sleep(settle + 3 * scan_interval)  # the start position settles first
                for i in range(trials):
                    expected = len(client.arrivals) + 1
                    t0 = time.monotonic()
                    service.table.sim.reset(views[(i + 1) % 2])  # the sensor now reads the new board
                    if not client.wait_for(expected, settle + 10):
                        raise RuntimeError(f"trial {i}: no decision reached the client")
                    got = client.arrivals[expected - 1]
                    if got.kind not in ("accepted", "taken_back"):
                        raise RuntimeError(f"trial {i}: the client got {got.kind!r}")
                    totals.append((got.at - t0) * 1000)
                    time.sleep(0.05)
            finally:
                client.close()
    after_settle = [t - settle * 1000 for t in totals]
    return {
        "trials": float(len(totals)), "settle_ms": settle * 1000, "scan_ms": scan_interval * 1000,
        "total_p50": statistics.median(totals), "total_p99": pct(totals, 99),
        "after_settle_p50": statistics.median(after_settle), "after_settle_p99": pct(after_settle, 99),
        "after_settle_max": max(after_settle),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--settle", type=float, default=0.6)
    args = ap.parse_args(argv)
    r = measure(args.trials, args.settle)
    print(f"board change to decision at an SSE client, {r['trials']:.0f} trials "
          f"(settle {r['settle_ms']:.0f} ms, scan every {r['scan_ms']:.0f} ms):")
    print(f"  total p50 {r['total_p50']:.1f} ms, p99 {r['total_p99']:.1f} ms; after the settle: "
          f"p50 {r['after_settle_p50']:.1f} ms, p99 {r['after_settle_p99']:.1f} ms, max {r['after_settle_max']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
