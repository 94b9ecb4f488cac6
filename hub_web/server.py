"""Serving the club page: uvicorn (a production ASGI server) in its own thread.

Waitress or any WSGI server holds one thread per open response, so 500 spectators' event
streams would need 500 threads. Here the event stream (``/api/events``) is served by the
event loop itself — each spectator is a coroutine reading a ring of frames shared by all —
and every other request goes to the Flask app through a2wsgi's pool of ``threads`` workers.

A spectator too slow to keep up (fallen out of the ring) is not buffered without bound: it
is sent a fresh snapshot instead, as a late joiner is.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

HEARTBEAT = 15.0


def _sse(kind: str, data: Any, event_id: int | None = None) -> bytes:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Fanout:
    """Events from any thread to every spectator's coroutine. ``publish`` never blocks.

    Updates are merged (the tables that changed, the latest of each; the commit times of every
    move) and sent as one event, at most one per ``every`` seconds: at 200 tables a spectator
    gets at most 1/``every`` events a second however busy the club; in a quiet moment an update
    goes at once.

    Each event is encoded once, into a ring of the last ``capacity`` frames shared by every
    spectator, and one shared future wakes them all (no queue, no timer per spectator: with 500
    spectators those were most of the hub's time, see docs/performance.md). A spectator sends
    every frame it has not sent yet in one write; one that fell out of the ring (too slow to
    keep up) is sent a fresh snapshot instead, as a late joiner is. A snapshot is encoded once
    per event too, however many spectators join at once."""

    def __init__(self, snapshot: Callable[[], dict[str, Any]], *, capacity: int = 64, every: float = 0.1,
                 heartbeat: float = HEARTBEAT) -> None:
        self.snapshot, self.capacity, self.every, self.heartbeat = snapshot, capacity, every, heartbeat
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients = 0  # spectators connected
        self.seq = 0  # the newest frame's number
        self.dropped = 0  # spectators resent a snapshot because they fell behind
        self.frames: deque[tuple[int, bytes]] = deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._boards: dict[str, Any] = {}
        self._commits: list[float] = []
        self._scheduled = False
        self._last_flush = 0.0
        self._next: asyncio.Future[None] | None = None
        self._snap: tuple[int, bytes] | None = None
        self._beat: asyncio.TimerHandle | None = None

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        loop = self.loop
        if loop is None or not self.clients:
            return
        with self._lock:
            for b in data.get("boards", ()):
                self._boards[b["name"]] = b
            self._commits.extend(data.get("commits", ()))
            if self._scheduled:
                return
            self._scheduled = True
        # At once if nothing was sent for ``every`` s (a quiet club: no added delay); else when
        # ``every`` s have passed since the last event (a busy one: at most 1/every a second).
        wait = max(0.0, self._last_flush + self.every - time.monotonic())
        try:
            loop.call_soon_threadsafe(loop.call_later, wait, self._flush)
        except RuntimeError:  # the loop has closed: the server is stopping
            pass

    # -- on the event loop ------------------------------------------------------------------------

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is not loop:
            self.loop, self._next = loop, loop.create_future()
            self._beat = loop.call_later(self.heartbeat, self._keepalive)

    def _flush(self) -> None:
        self._last_flush = time.monotonic()
        with self._lock:
            boards, commits = list(self._boards.values()), self._commits
            self._boards, self._commits, self._scheduled = {}, [], False
        # The commit times go first, so a watcher can read them without parsing the tables.
        self._push(_sse("boards", {"commits": commits, "sent": time.time(), "boards": boards}, self.seq + 1))

    def _keepalive(self) -> None:
        """A comment line to every stream when nothing else went for ``heartbeat`` s (proxies
        and browsers keep it open); one timer for all."""
        assert self.loop is not None
        if time.monotonic() - self._last_flush >= self.heartbeat * 0.9 and self.clients:
            self._last_flush = time.monotonic()
            self._push(b": keepalive\n\n")
        self._beat = self.loop.call_later(self.heartbeat, self._keepalive)

    def _push(self, frame: bytes) -> None:
        self.seq += 1
        self.frames.append((self.seq, frame))
        woken, self._next = self._next, self.loop.create_future()  # type: ignore[union-attr]
        if woken is not None and not woken.done():
            woken.set_result(None)

    def snapshot_frame(self) -> tuple[int, bytes]:
        """(seq, frame): the whole club now; the frames after ``seq`` follow it."""
        if self._snap is None or self._snap[0] != self.seq:
            self._snap = (self.seq, _sse("snapshot", {"club": self.snapshot(), "sent": time.time()}))
        return self._snap

    def since(self, seen: int) -> tuple[int, bytes]:
        """(seq, what a spectator that has sent frames up to ``seen`` sends next): the frames
        after it in one write, or a snapshot if it fell behind the ring."""
        frames = self.frames
        if not frames or seen >= self.seq:
            return seen, b""
        first = self.seq - len(frames) + 1
        if seen + 1 < first:
            self.dropped += 1
            return self.snapshot_frame()
        return self.seq, b"".join(f for _, f in itertools.islice(frames, seen + 1 - first, None))

    async def next(self) -> None:
        """Until the next frame (every spectator awaits the same future)."""
        assert self._next is not None
        await asyncio.shield(self._next)

    def close(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None


def asgi_app(flask_app: Any, fanout: Fanout, *, threads: int = 16) -> Any:
    from a2wsgi import WSGIMiddleware

    wsgi = WSGIMiddleware(flask_app, workers=threads)

    async def events(scope: dict, receive: Callable, send: Callable) -> None:
        fanout.attach(asyncio.get_running_loop())
        stream = asyncio.current_task()

        async def watch() -> None:  # a spectator gone: its stream stops wherever it waits
            while (await receive())["type"] != "http.disconnect":
                pass
            if stream is not None:
                stream.cancel()

        fanout.clients += 1
        watcher = asyncio.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"), (b"x-content-type-options", b"nosniff")]})
            seen, frame = fanout.snapshot_frame()
            await send({"type": "http.response.body", "body": b"retry: 2000\n\n" + frame, "more_body": True})
            while True:
                if seen >= fanout.seq:
                    await fanout.next()
                seen, body = fanout.since(seen)
                if body:
                    await send({"type": "http.response.body", "body": body, "more_body": True})
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            fanout.clients -= 1
            watcher.cancel()

    async def app(scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope["path"] == "/api/events":
            await events(scope, receive, send)
        elif scope["type"] == "http":
            await wsgi(scope, receive, send)

    return app


class HubServer:
    """uvicorn in a thread: ``start()`` returns once it listens; ``stop()`` safe twice."""

    def __init__(self, flask_app: Any, fanout: Fanout, host: str, port: int, *, threads: int = 16) -> None:
        import uvicorn

        self.fanout = fanout
        config = uvicorn.Config(asgi_app(flask_app, fanout, threads=threads), host=host, port=port,
                                log_level="warning", log_config=None,  # the hub's own timestamped lines
                                lifespan="off", access_log=False,
                                timeout_graceful_shutdown=2, backlog=1024)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    def start(self, timeout: float = 10.0) -> str:
        self._thread = threading.Thread(target=self.server.run, name="hub-http", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the club page could not listen on {self.server.config.host}:"
                              f"{self.server.config.port} (in use?)")
            time.sleep(0.02)
        sock = self.server.servers[0].sockets[0].getsockname()
        self.port = sock[1]
        host = self.server.config.host
        shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
        return f"http://{shown}:{self.port}/"

    def stop(self) -> None:
        if self._thread is not None:
            self.server.should_exit = True
            self._thread.join(10)
            self._thread = None
            self.fanout.close()
