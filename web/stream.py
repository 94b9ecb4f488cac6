"""Server-sent events: every change to the live table, resumable with ``Last-Event-ID``.

A client that connects fresh (or whose last event id is from before a restart, or so old
the log no longer holds what followed) first gets a ``snapshot`` event with the whole live
table; a client that reconnects in time gets exactly the events it missed, in order. Every
event carries the full live snapshot under ``live``, so a client can always just redraw.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from .broadcast import Broadcaster, Event, to_json
from .live import LiveTable

bp = Blueprint("stream", __name__)


def _format(kind: str, event_id: str, payload: str) -> str:
    return f"id: {event_id}\nevent: {kind}\ndata: {payload}\n\n"


def _event(e: Event) -> str:
    return _format(e.kind, e.id, e.payload)


def event_stream(table: LiveTable, last_event_id: str | None, heartbeat: float) -> Iterator[str]:
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
        backlog = b.wait(seq, heartbeat)


@bp.get("/api/events")
def events() -> Response:
    table: LiveTable = current_app.extensions["tableref_table"]
    last = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    heartbeat = float(current_app.config.get("TABLEREF_HEARTBEAT", 15.0))
    return Response(
        event_stream(table, last, heartbeat),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
