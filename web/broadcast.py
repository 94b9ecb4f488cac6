"""An in-process broadcaster: numbered events kept in a bounded log that SSE clients read.

Each event has an id ``<run>-<seq>``. A client that reconnects with ``Last-Event-ID`` gets
every event it missed, if the log still holds them and the id is from this run of the
server; otherwise (``None`` from :meth:`Broadcaster.after`) it must be sent a snapshot.

The log is bounded in bytes as well as in events: every event carries the whole live table,
so a backlog longer than a minute or so is worth no more to a client than one snapshot, and
500 whole tables were 4-15 MB held for good (the club-evening soak, docs/performance.md).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Event:
    """One published event, kept as its JSON text: serialised once however many clients
    read it, and a log of text is a fraction of the memory of the dicts it came from."""

    run: str
    seq: int
    kind: str  # the SSE event name: decision | board | source | snapshot
    payload: str  # the data, as compact JSON

    @property
    def id(self) -> str:
        return f"{self.run}-{self.seq}"

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.payload)


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"))


# About a minute of a busy table's events (a Gygès table's are ~8 KB): EventSource comes back
# within seconds of a dropped connection; a client away longer gets one snapshot instead.
LOG_BYTES = 1024 * 1024


class Broadcaster:
    """Thread-safe: the referee thread publishes, request threads wait and read."""

    def __init__(self, capacity: int = 500, max_bytes: int = LOG_BYTES) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity!r}")
        if max_bytes < 1:
            raise ValueError(f"max_bytes must be >= 1, got {max_bytes!r}")
        # A new run token per server start, so an id from before a restart is never
        # mistaken for one of this run's (sequence numbers start again at 0).
        self.run = secrets.token_hex(4)
        self.capacity, self.max_bytes = capacity, max_bytes
        self._log: deque[Event] = deque()
        self._bytes = 0  # the texts' length in the log (compact JSON is ASCII: bytes too)
        self._seq = 0
        self._closed = False
        self._cond = threading.Condition()

    @property
    def last_seq(self) -> int:
        with self._cond:
            return self._seq

    @property
    def last_id(self) -> str:
        return f"{self.run}-{self.last_seq}"

    @property
    def log_bytes(self) -> int:
        """The length of the event texts the log holds (at most ``max_bytes``, or one event)."""
        with self._cond:
            return self._bytes

    @property
    def closed(self) -> bool:
        return self._closed

    def publish(self, kind: str, data: dict[str, Any]) -> Event:
        payload = to_json(data)  # outside the lock: readers are not held up by it
        with self._cond:
            self._seq += 1
            event = Event(self.run, self._seq, kind, payload)
            self._log.append(event)
            self._bytes += len(payload)
            # The oldest go first; the newest always stays, however large.
            while len(self._log) > 1 and (len(self._log) > self.capacity or self._bytes > self.max_bytes):
                self._bytes -= len(self._log.popleft().payload)
            self._cond.notify_all()
            return event

    def parse_id(self, text: str | None) -> int | None:
        """The sequence number of an event id from this run, else ``None``."""
        if not text:
            return None
        run, sep, seq = text.strip().rpartition("-")
        if not sep or run != self.run or not seq.isdigit():
            return None
        n = int(seq)
        return n if n <= self.last_seq else None

    def after(self, seq: int) -> list[Event] | None:
        """Events after ``seq``; ``None`` if some of them have already left the log."""
        with self._cond:
            return self._after(seq)

    def _after(self, seq: int) -> list[Event] | None:
        if seq >= self._seq:
            return []
        if not self._log or self._log[0].seq > seq + 1:
            return None
        return [e for e in self._log if e.seq > seq]

    def wait(self, seq: int, timeout: float) -> list[Event] | None:
        """Block until there are events after ``seq`` (or ``timeout`` seconds pass, or the
        broadcaster closes): the events, ``[]`` on timeout or close, ``None`` on a gap."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._seq > seq, timeout)
            return self._after(seq)

    def close(self) -> None:
        """Wake every waiting client so its stream can end. Safe to call twice."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
