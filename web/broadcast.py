"""An in-process broadcaster: numbered events kept in a bounded log that SSE clients read.

Each event has an id ``<run>-<seq>``. A client that reconnects with ``Last-Event-ID`` gets
every event it missed, if the log still holds them and the id is from this run of the
server; otherwise (``None`` from :meth:`Broadcaster.after`) it must be sent a snapshot.
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


class Broadcaster:
    """Thread-safe: the referee thread publishes, request threads wait and read."""

    def __init__(self, capacity: int = 500) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity!r}")
        # A new run token per server start, so an id from before a restart is never
        # mistaken for one of this run's (sequence numbers start again at 0).
        self.run = secrets.token_hex(4)
        self._log: deque[Event] = deque(maxlen=capacity)
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
    def closed(self) -> bool:
        return self._closed

    def publish(self, kind: str, data: dict[str, Any]) -> Event:
        payload = to_json(data)  # outside the lock: readers are not held up by it
        with self._cond:
            self._seq += 1
            event = Event(self.run, self._seq, kind, payload)
            self._log.append(event)
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
