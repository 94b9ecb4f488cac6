"""The service's HTTP server: waitress, in its own thread, with bounded threads and timeouts.

Why waitress (docs/deploy.md): pure Python (nothing to compile on a Pi), one event loop
holds every connection while it is idle or still sending its request, and a fixed pool of
worker threads runs the Flask app. An idle or half-sent connection costs a socket, not a
thread; a page request takes a worker only once it has fully arrived.

An open event stream (``/api/events``) holds a worker for its whole life, so the pool is
``threads`` (pages and API) + ``max_streams`` (streams; ``web/stream.py`` refuses the one
beyond with a 503 and ``Retry-After``): a full house of viewers never takes the page's
workers away.

Timeouts: a connection that sends nothing and is sent nothing for ``idle_timeout`` seconds
is closed (waitress's ``channel_timeout``). Waitress never closes a connection whose
response is still running, so a stalled reader of an event stream (bytes waiting, none
taken for ``idle_timeout`` seconds) would hold its worker for ever; :class:`HttpServer`
closes it too (``_reap``), which frees the worker at its next write.

Events reach the browser at once: waitress's ``send_bytes`` is 1, so each chunk the stream
yields is sent from the worker thread as it is written (``tests/web/test_server_caps.py``
times it).

The workers are :class:`tableref.http_workers.Workers`: the worker that went idle last takes a
task, and one that served an event stream is replaced by a new thread, so that glibc's per-thread
caches of freed memory do not fill across the whole pool over an evening.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerLimits:
    """``[web]``'s limits (tableref.config validates them; docs/deploy.md)."""

    threads: int = 6  # workers for pages and the API
    max_streams: int = 64  # open event streams at once; each holds a worker
    idle_timeout: float = 30.0  # seconds a connection may send and take nothing
    connections: int = 500  # open connections at once; beyond it new ones wait in the backlog
    max_body: int = 2 * 1024 * 1024  # bytes of a request body (Flask's MAX_CONTENT_LENGTH agrees)

    def __post_init__(self) -> None:
        for name, least in (("threads", 1), ("max_streams", 1), ("connections", 2), ("max_body", 1)):
            if getattr(self, name) < least:
                raise ValueError(f"{name} must be >= {least}, got {getattr(self, name)!r}")
        if not self.idle_timeout >= 1:
            raise ValueError(f"idle_timeout must be >= 1 s, got {self.idle_timeout!r}")


def shown_url(host: str, port: int) -> str:
    """The URL to print for a server listening on ``host``:``port`` (a wildcard shows as 127.0.0.1)."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def _map_of(server: Any) -> dict[int, Any]:
    # One listening socket: a TcpWSGIServer (``_map``); several: a MultiSocketServer (``map``).
    found = getattr(server, "map", None)
    return found if found is not None else server._map


class HttpServer:
    """A WSGI app served by waitress in a thread. ``start()`` binds (``OSError`` if it cannot)
    and returns the URL; ``stop()`` closes every connection and the workers, safe twice."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, limits: ServerLimits | None = None,
                 *, name: str = "http") -> None:
        self.app, self.host, self.port = app, host, port
        self.limits = limits or ServerLimits()
        self.name = name
        self.reaped = 0  # stalled connections closed mid-response
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def server_port(self) -> int:
        return self._server.effective_port if self._server is not None else self.port

    def start(self) -> str:
        from waitress.server import create_server

        from .http_workers import Workers

        lim = self.limits
        timeout = max(1, round(lim.idle_timeout))
        # Our own dispatcher, its workers started only once the port is ours: create_server would
        # start them first and leave them running when the port is taken.
        dispatcher = Workers()
        self._server = create_server(
            self.app, _dispatcher=dispatcher, host=self.host, port=self.port, ident="tableref",
            threads=lim.threads + lim.max_streams, connection_limit=lim.connections,
            channel_timeout=timeout, cleanup_interval=max(1, min(timeout // 2, 30)),
            max_request_body_size=lim.max_body, max_request_header_size=64 * 1024,
            # poll(), not select(): select cannot watch a descriptor numbered past 1023.
            asyncore_use_poll=True, asyncore_loop_timeout=1,
            # A stalled reader's buffered bytes: past this, its worker waits (then is reaped).
            outbuf_high_watermark=1024 * 1024,
            # Keep reading a connection while its response runs, so a viewer who leaves is seen at once
            # (``waitress.client_disconnected``, which web/stream.py polls).
            channel_request_lookahead=1, expose_tracebacks=False, log_socket_errors=False,
        )
        dispatcher.set_thread_count(lim.threads + lim.max_streams)
        for srv in self._listeners():
            srv.maintenance = self._maintenance_of(srv)
        self._thread = threading.Thread(target=self._server.run, name=self.name, daemon=True)
        self._thread.start()
        return shown_url(self.host, self.server_port)

    def _listeners(self) -> list[Any]:
        from waitress.server import BaseWSGIServer

        return [d for d in list(_map_of(self._server).values()) if isinstance(d, BaseWSGIServer)]

    def _maintenance_of(self, srv: Any) -> Any:
        original = srv.maintenance

        def maintenance(now: float) -> None:  # runs on the server's loop thread
            original(now)
            self._reap(srv, now)

        return maintenance

    def _reap(self, srv: Any, now: float) -> None:
        cutoff = now - srv.adj.channel_timeout
        for channel in list(srv.active_channels.values()):
            if channel.requests and channel.total_outbufs_len and channel.last_activity < cutoff:
                # Closed here: ``will_close`` would wait for a write that its full socket never allows.
                # The worker waiting to write is woken and its write fails (ClientDisconnected).
                channel.handle_close()
                self.reaped += 1

    def open_connections(self) -> int:
        return sum(len(s.active_channels) for s in self._listeners()) if self._server is not None else 0

    def stop(self, timeout: float = 5.0) -> None:
        server, thread = self._server, self._thread
        self._server = self._thread = None
        if server is None:
            return
        done = threading.Event()
        trigger = server.trigger

        def close_all() -> None:  # on the loop thread: no channel is touched by two threads
            from waitress import wasyncore
            from waitress.channel import HTTPChannel

            for d in list(_map_of(server).values()):
                try:
                    if d is trigger:
                        # Out of the loop's map but left open: a worker finishing a request still
                        # pulls it, and a closed descriptor's number may already be another file's.
                        d.del_channel()
                    elif isinstance(d, HTTPChannel):
                        d.handle_close()
                    else:  # a listening socket; not its own close(), which closes the trigger too
                        wasyncore.dispatcher.close(d)
                except OSError:
                    pass
            done.set()

        if thread is not None and thread.is_alive():
            trigger.pull_trigger(close_all)
            thread.join(timeout)  # the loop ends once its map is empty
        elif thread is None:  # never ran: nothing else touches the channels
            close_all()
        if not done.is_set():
            log.warning("the HTTP server's loop did not stop within %.0f s", timeout)
        server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout)
        if done.is_set():
            try:
                trigger.close()  # every worker has stopped: nothing pulls it any more
            except OSError:
                pass

    def __enter__(self) -> "HttpServer":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
