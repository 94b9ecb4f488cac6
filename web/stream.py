"""Server-sent events: every change to the live table, resumable with ``Last-Event-ID``.

A client that connects fresh (or whose last event id is from before a restart, or so old
the log no longer holds what followed) first gets a ``snapshot`` event with the whole live
table; a client that reconnects in time gets exactly the events it missed, in order. Every
event carries the full live snapshot under ``live``, so a client can always just redraw.

Each open stream holds one of the HTTP server's workers (tableref/http_server.py), so at
most ``TABLEREF_MAX_STREAMS`` are open at once (``[web] max_streams``; ``None``: no cap):
one more is refused with a 503 and ``Retry-After`` rather than queued behind the others.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from .broadcast import Broadcaster, Event, to_json
from .live import LiveTable

bp = Blueprint("stream", __name__)

RETRY_AFTER = 10  # seconds a refused viewer is asked to wait (the page then tries again)


class StreamSlots:
    """How many event streams are open, against a cap (``None``: none). Thread-safe."""

    def __init__(self, cap: int | None) -> None:
        self.cap, self.open, self.refused = cap, 0, 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            if self.cap is not None and self.open >= self.cap:
                self.refused += 1
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


_slots_lock = threading.Lock()


def stream_slots(app: Any) -> StreamSlots:
    with _slots_lock:
        slots = app.extensions.get("tableref_streams")
        if slots is None:
            slots = app.extensions["tableref_streams"] = StreamSlots(app.config.get("TABLEREF_MAX_STREAMS"))
        return slots


def _format(kind: str, event_id: str, payload: str) -> str:
    return f"id: {event_id}\nevent: {kind}\ndata: {payload}\n\n"


def _event(e: Event) -> str:
    return _format(e.kind, e.id, e.payload)


GONE_CHECK = 1.0  # seconds between looks at whether a quiet stream's client has gone


def _wait(b: Broadcaster, seq: int, heartbeat: float, gone: Callable[[], bool] | None) -> list[Event] | None | bool:
    """``Broadcaster.wait``, looking every second whether the client has left (``False``: it has)."""
    if gone is None or heartbeat <= GONE_CHECK:
        return b.wait(seq, heartbeat)
    deadline = time.monotonic() + heartbeat
    while True:
        left = deadline - time.monotonic()
        got = b.wait(seq, min(GONE_CHECK, max(0.0, left)))
        if got or got is None or b.closed or left <= GONE_CHECK:
            return got
        if gone():
            return False


def event_stream(table: LiveTable, last_event_id: str | None, heartbeat: float,
                 gone: Callable[[], bool] | None = None) -> Iterator[str]:
    """``gone``: tells whether the client has disconnected (waitress's ``waitress.client_disconnected``),
    so a viewer who left frees its slot within a second, not at the next heartbeat's failed write."""
    b: Broadcaster = table.broadcaster
    seq = b.parse_id(last_event_id)
    backlog = b.after(seq) if seq is not None else None
    yield "retry: 2000\n\n"
    while True:
        if backlog is None:
            # A late joiner, or one too far behind: the whole table, then live from here.
            seq = b.last_seq
            yield _format("snapshot", f"{b.run}-{seq}", to_json({"live": table.snapshot()}))
        else:
            for e in backlog:
                yield _event(e)
                seq = e.seq
            if not backlog:
                yield ": keepalive\n\n"  # lets a dead connection be noticed and closed
        if b.closed:
            return
        backlog = _wait(b, seq, heartbeat, gone)
        if backlog is False:
            return


@bp.get("/api/events")
def events() -> Response:
    table: LiveTable = current_app.extensions["tableref_table"]
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    heartbeat = float(current_app.config.get("TABLEREF_HEARTBEAT", 15.0))
    slots = stream_slots(current_app)
    if not slots.take():
        body = to_json({"error": f"too many viewers: {slots.cap} live updates are open, the most this table "
                                 f"serves; try again in {RETRY_AFTER} s"})
        return Response(body, status=503, mimetype="application/json",
                        headers={"Retry-After": str(RETRY_AFTER), "Cache-Control": "no-store"})
    response = Response(
        event_stream(table, last, heartbeat, request.environ.get("waitress.client_disconnected")),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    # Given back when the server closes the response: the stream ended, or its client went.
    response.call_on_close(slots.give_back)
    return response
