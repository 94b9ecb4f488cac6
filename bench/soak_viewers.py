"""Viewers that come and go, as a club evening's phones and laptops do (bench/soak_memory.py ``--churn``).

Each viewer is a browser opening the live page: the page and its files, ``/api/session``,
``/api/state``, ``/api/games``, then the event stream, read for a while; then it leaves in
one of four ways:

- **leave**: the tab closed (the socket closed: FIN);
- **cut**: the phone's Wi-Fi gone (the socket reset mid-stream: RST, nothing read after);
- **stall**: the phone asleep: the stream left unread for a spell (``away``; a small receive
  window, so bytes pile up in the server's buffers, not the test's kernel), then reset;
- **resume**: the connection cut, away for a spell, then the page's ``EventSource``
  reconnecting with its ``Last-Event-ID`` (the missed events replayed), read a while more, then closed.

Every response's status is counted (``Viewers.statuses``): anything but 2xx is a failure.
"""

from __future__ import annotations

import http.client
import random
import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

PAGE = ("/", "/static/style.css", "/static/common.js", "/static/board.js", "/static/live.js",
        "/static/favicon.svg", "/api/session", "/api/state", "/api/games")
ENDINGS = ("leave", "cut", "stall", "resume")


@dataclass
class Viewers:
    """What the viewers saw, for the summary (thread-safe through ``lock``)."""

    started: int = 0
    statuses: Counter = field(default_factory=Counter)
    endings: Counter = field(default_factory=Counter)
    events: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def status(self, code: int) -> None:
        with self.lock:
            self.statuses[code] += 1

    def failures(self) -> int:
        return sum(n for code, n in self.statuses.items() if not 200 <= code < 300)

    def line(self) -> str:
        codes = ", ".join(f"{c}: {n}" for c, n in sorted(self.statuses.items()))
        ends = ", ".join(f"{e} {self.endings[e]}" for e in ENDINGS)
        return (f"viewers: {self.started} ({ends}); {self.events} events read; responses {codes}; "
                f"not 2xx: {self.failures()}; errors {len(self.errors)}")


def _reset(sock: socket.socket) -> None:
    """Close with RST, as a connection dropped by the network looks to the server."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _page(port: int, seen: Viewers) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        for path in PAGE:  # one keep-alive connection, as a browser loads a page
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            seen.status(resp.status)
    finally:
        conn.close()


def _stream(port: int, seconds: float, stop: threading.Event, seen: Viewers, last_id: str | None = None,
            stall: float = 0.0) -> tuple[socket.socket, str | None]:
    """Read the event stream for ``seconds`` (then leave it unread for ``stall``): the open
    socket (a plain one, so that it can be reset) and the last event id read."""
    sock = socket.socket()
    if stall:
        # A phone's small window, not loopback's megabytes: unread events back up into the server.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    resume = f"Last-Event-ID: {last_id}\r\n" if last_id else ""
    sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{resume}\r\n".encode())
    fp = sock.makefile("rb")
    deadline = time.monotonic() + seconds
    status = None
    while not stop.is_set() and (left := deadline - time.monotonic()) > 0:
        sock.settimeout(max(0.05, left))
        try:
            line = fp.readline()
        except TimeoutError:
            break  # its time is up (a file that timed out cannot be read again)
        if not line:
            break
        if status is None:
            status = int(line.split()[1])
            seen.status(status)
            if status != 200:
                break
        elif line.startswith(b"id:"):
            last_id = line[3:].strip().decode()
        elif line.startswith(b"event:"):
            with seen.lock:
                seen.events += 1
    if stall:
        stop.wait(stall)  # not reading: the server's writes back up
    fp.close()  # the socket stays open (makefile's file is a reference of its own)
    return sock, last_id


def viewer(port: int, rng: random.Random, stop: threading.Event, seen: Viewers, stay: tuple[float, float],
           ending: str, away: tuple[float, float] = (0.5, 3.0)) -> None:
    """One browser on the live page: loads it, watches for ``stay`` (a range of seconds), leaves by
    ``ending``; a stalled or resuming one is away for ``away`` seconds."""
    seconds = rng.uniform(*stay)
    try:
        _page(port, seen)
        if ending == "leave":
            sock, _ = _stream(port, seconds, stop, seen)
            sock.close()
        elif ending == "cut":
            sock, _ = _stream(port, seconds, stop, seen)
            _reset(sock)
        elif ending == "stall":
            sock, _ = _stream(port, seconds, stop, seen, stall=rng.uniform(*away))
            _reset(sock)
        else:
            sock, last = _stream(port, seconds / 2, stop, seen)
            _reset(sock)
            stop.wait(rng.uniform(*away))  # out of range, or asleep; then EventSource's retry
            sock, _ = _stream(port, seconds / 2, stop, seen, last_id=last)
            sock.close()
        with seen.lock:
            seen.endings[ending] += 1
    except (OSError, http.client.HTTPException) as exc:
        with seen.lock:
            seen.errors.append(f"{ending}: {type(exc).__name__}: {exc}")


class Churn:
    """Keeps between ``low`` and ``high`` viewers on the pages (the target wandering), each
    arriving at most ``rate`` a second, staying ``stay`` seconds, leaving by a random ending."""

    def __init__(self, ports: list[int], *, low: int, high: int, rate: float, stay: tuple[float, float],
                 away: tuple[float, float] = (0.5, 3.0), seed: int = 7) -> None:
        self.ports, self.low, self.high, self.rate, self.stay, self.away = ports, low, high, rate, stay, away
        self.rng = random.Random(seed)
        self.seen = Viewers()
        self.live: list[threading.Thread] = []
        self.target = low
        self._next = 0.0

    def tick(self, stop: threading.Event) -> None:
        """Called often: the crowd wanders between low and high; new viewers arrive at ``rate``."""
        now = time.monotonic()
        self.live = [t for t in self.live if t.is_alive()]
        if self.rng.random() < 0.02:
            self.target = self.rng.randint(self.low, self.high)
        while len(self.live) < self.target and now >= self._next:
            self._next = max(self._next, now - 1) + 1 / self.rate
            t = threading.Thread(target=viewer, daemon=True, name="viewer",
                                 args=(self.rng.choice(self.ports), random.Random(self.rng.random()), stop, self.seen,
                                       self.stay, self.rng.choice(ENDINGS), self.away))
            t.start()
            self.live.append(t)
            self.seen.started += 1

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for t in self.live:
            t.join(max(0.0, deadline - time.monotonic()))
