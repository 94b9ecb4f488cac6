"""Shared by the fault drills: the quick/full setting and a minimal SSE client.

``TABLEREF_DRILLS=full`` runs every drill at full strength (50 kills, a 10 s browser gap,
a 5 s flood, 20 cable pulls); the default is a quick setting that keeps the suite fast:

    TABLEREF_DRILLS=full python3 -m pytest tests/drills -q
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
from dataclasses import dataclass
from typing import Any

FULL = os.environ.get("TABLEREF_DRILLS", "").strip().lower() == "full"


def strength(quick: float, full: float) -> float:
    return full if FULL else quick


@dataclass(frozen=True)
class SseEvent:
    id: str
    kind: str
    data: dict[str, Any]


class SseClient:
    """Reads ``/api/events`` over a real socket in a thread, as a browser's EventSource does."""

    def __init__(self, port: int, last_event_id: str | None = None) -> None:
        self.events: list[SseEvent] = []
        self._cond = threading.Condition()
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        self._conn.request("GET", "/api/events", headers=headers)
        self._sock = self._conn.sock  # getresponse() lets go of it for a stream that ends on close
        resp = self._conn.getresponse()
        assert resp.status == 200, resp.status
        self._thread = threading.Thread(target=self._read, args=(resp,), daemon=True)
        self._thread.start()

    def _read(self, resp: http.client.HTTPResponse) -> None:
        fields: dict[str, str] = {}
        try:
            for raw in resp:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith(":"):
                    continue
                if line:
                    key, _, value = line.partition(": ")
                    fields[key] = value
                    continue
                if "event" in fields:
                    with self._cond:
                        self.events.append(SseEvent(fields["id"], fields["event"], json.loads(fields["data"])))
                        self._cond.notify_all()
                fields = {}
        except (OSError, ValueError, http.client.HTTPException):
            return  # dropped by close(), or the server ended the stream

    def wait_for(self, count: int, timeout: float = 10.0) -> list[SseEvent]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.events) >= count, timeout):
                raise AssertionError(f"only {len(self.events)} of {count} events arrived in {timeout} s")
            return list(self.events)

    def close(self) -> None:
        """Drop the connection, as a browser does when the phone sleeps or the Wi-Fi goes."""
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # unblock the reader at once
        except OSError:
            pass  # already gone: the server ended the stream
        self._sock.close()
        self._conn.close()
        self._thread.join(5)
