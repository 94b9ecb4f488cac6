"""Serving the club page: uvicorn (a production ASGI server) in its own thread.

Waitress or any WSGI server holds one thread per open response, so 500 spectators' event
streams would need 500 threads. Here the event stream (``/api/events``) is served by the
event loop itself — each spectator is a coroutine with a bounded queue — and every other
request goes to the Flask app through a2wsgi's pool of ``threads`` workers.

A spectator too slow to keep up (its queue full) is not buffered without bound: what it
missed is dropped and it is sent a fresh snapshot instead, as a late joiner is.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
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
    gets at most 1/``every`` events a second however busy the club, each encoded once for all;
    in a quiet moment an update goes at once."""

    def __init__(self, snapshot: Callable[[], dict[str, Any]], *, capacity: int = 64, every: float = 0.1) -> None:
        self.snapshot, self.capacity, self.every = snapshot, capacity, every
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: set[_Client] = set()
        self.seq = 0
        self.dropped = 0  # spectators resent a snapshot because they fell behind
        self._lock = threading.Lock()
        self._boards: dict[str, Any] = {}
        self._commits: list[float] = []
        self._scheduled = False
        self._last_flush = 0.0

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

    def _flush(self) -> None:
        self._last_flush = time.monotonic()
        with self._lock:
            boards, commits = list(self._boards.values()), self._commits
            self._boards, self._commits, self._scheduled = {}, [], False
        self.seq += 1
        # The commit times go first, so a watcher can read them without parsing the tables.
        self._deliver(_sse("boards", {"commits": commits, "sent": time.time(), "boards": boards}, self.seq))

    def _deliver(self, frame: bytes) -> None:
        for c in self.clients:
            if c.queue.full():
                c.behind = True
                self.dropped += 1
            else:
                c.queue.put_nowait(frame)


class _Client:
    __slots__ = ("queue", "behind")

    def __init__(self, capacity: int) -> None:
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(capacity)
        self.behind = False


def asgi_app(flask_app: Any, fanout: Fanout, *, threads: int = 16, heartbeat: float = HEARTBEAT) -> Any:
    from a2wsgi import WSGIMiddleware

    wsgi = WSGIMiddleware(flask_app, workers=threads)

    async def events(scope: dict, receive: Callable, send: Callable) -> None:
        fanout.loop = asyncio.get_running_loop()
        client = _Client(fanout.capacity)
        fanout.clients.add(client)
        gone = asyncio.Event()

        async def watch() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    return

        watcher = asyncio.create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
                (b"x-accel-buffering", b"no"), (b"x-content-type-options", b"nosniff")]})
            await send({"type": "http.response.body", "body": b"retry: 2000\n\n" +
                        _sse("snapshot", {"club": fanout.snapshot(), "sent": time.time()}), "more_body": True})
            while not gone.is_set():
                try:
                    frame = await asyncio.wait_for(client.queue.get(), heartbeat)
                except asyncio.TimeoutError:
                    frame = b": keepalive\n\n"
                if client.behind:  # it missed something: the whole club again
                    client.behind = False
                    while not client.queue.empty():
                        client.queue.get_nowait()
                    frame = _sse("snapshot", {"club": fanout.snapshot(), "sent": time.time()})
                await send({"type": "http.response.body", "body": frame, "more_body": True})
        except OSError:
            pass
        finally:
            fanout.clients.discard(client)
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
                                log_level="warning", lifespan="off", access_log=False,
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
