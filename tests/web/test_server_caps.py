"""The service's HTTP server (waitress, tableref/http_server.py) against real sockets: the cap
on event streams, idle and stalled clients cut off, the page answering past 200 idle
connections, events sent at once."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time

import pytest

from tableref.config import ConfigError, load_config
from tableref.http_server import HttpServer, ServerLimits
from web.stream import stream_slots
from tableref.serve import Service
from webhelp import FAST_SCRYPT


@pytest.fixture
def served(tmp_path):
    """Start a service with the given limits; yields a function returning (service, port)."""
    started = []

    def start(**limits):
        svc = Service(tmp_path / f"j{len(started)}.sqlite3", tmp_path / "admin.json", threaded=False, settle=0,
                      readings=1, pin_hash=FAST_SCRYPT, heartbeat=5.0).start()
        started.append(svc)
        url = svc.serve_http("127.0.0.1", 0, ServerLimits(**limits))
        return svc, int(url.rstrip("/").rsplit(":", 1)[1])

    yield start
    for svc in started:
        svc.close()


def open_stream(port: int, *, rcvbuf: int | None = None) -> socket.socket:
    """An event stream's socket, its headers and first bytes read (``retry:`` and the snapshot)."""
    s = socket.socket()
    if rcvbuf is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n")
    got = b""
    while b"event: snapshot" not in got:
        chunk = s.recv(65536)
        assert chunk, got
        got += chunk
    assert got.startswith(b"HTTP/1.1 200"), got[:200]
    return s


def get(port: int, path: str, timeout: float = 5) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path)
    r = conn.getresponse()
    r.body = r.read()
    conn.close()
    return r


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_a_stream_beyond_the_cap_is_refused_with_503_and_retry_after(served):
    svc, port = served(max_streams=3, threads=2)
    streams = [open_stream(port) for _ in range(3)]
    try:
        r = get(port, "/api/events")
        assert r.status == 503 and r.getheader("Retry-After") == "10"
        assert json.loads(r.body)["error"].startswith("too many viewers: 3 live updates are open")
        assert get(port, "/").status == 200 and get(port, "/api/state").status == 200  # pages unaffected
        slots = stream_slots(svc.app)
        assert (slots.open, slots.refused) == (3, 1)
        streams.pop().close()  # a viewer leaves: its slot comes back within a second, no write needed
        assert wait_until(lambda: slots.open == 2, 3), slots.open
        streams.append(open_stream(port))
    finally:
        for s in streams:
            s.close()


def test_idle_and_half_sent_connections_are_closed_after_the_idle_timeout(served):
    _, port = served(idle_timeout=1)
    idle, half = socket.create_connection(("127.0.0.1", port)), socket.create_connection(("127.0.0.1", port))
    half.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")  # a slow client that never finishes its request
    t0 = time.monotonic()
    for s in (idle, half):
        s.settimeout(6)
        assert s.recv(100) == b""  # closed by the server
        s.close()
    assert time.monotonic() - t0 < 4


def test_the_page_loads_while_200_idle_connections_are_open(served):
    svc, port = served()
    before = threading.active_count()
    idle = []
    try:
        for i in range(200):
            s = socket.create_connection(("127.0.0.1", port))
            if i % 2:
                s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")  # half the requests half-sent
            idle.append(s)
        t0 = time.monotonic()
        r = get(port, "/", timeout=5)
        assert r.status == 200 and b"<html" in r.body.lower()
        assert time.monotonic() - t0 < 2
        assert get(port, "/api/state").status == 200
        assert threading.active_count() == before  # idle connections cost no thread
        assert svc._server.open_connections() >= 200
    finally:
        for s in idle:
            s.close()


def test_an_event_reaches_a_stream_at_once_after_publish(served):
    svc, port = served()
    s = open_stream(port)
    try:
        delays = []
        for i in range(20):
            t0 = time.perf_counter()
            svc.table.broadcaster.publish("board", {"live": {"n": i}})
            got = b""
            while b"event: board" not in got:
                got += s.recv(65536)
            delays.append(time.perf_counter() - t0)
        delays.sort()
        assert delays[len(delays) // 2] < 0.05 and delays[-1] < 0.5, delays  # not held for a buffer to fill
    finally:
        s.close()


def test_a_stalled_reader_is_cut_off_and_its_worker_freed(served):
    svc, port = served(idle_timeout=1, max_streams=2)
    s = open_stream(port, rcvbuf=4096)  # then never reads again
    try:
        slots = stream_slots(svc.app)
        big = {"live": {"pad": "x" * 200_000}}
        stop = threading.Event()

        def publish() -> None:  # more than the socket buffers hold, so bytes wait at the server
            while not stop.wait(0.05):
                svc.table.broadcaster.publish("board", big)

        pub = threading.Thread(target=publish, daemon=True)
        pub.start()
        try:
            assert wait_until(lambda: slots.open == 0, 10), "the stalled stream still holds its worker"
        finally:
            stop.set()
            pub.join(2)
        assert svc._server.reaped >= 1
        assert get(port, "/").status == 200
    finally:
        s.close()


def test_the_server_refuses_a_taken_port_and_stops_twice(served):
    svc, port = served()
    other = HttpServer(svc.app, "127.0.0.1", port)
    before = threading.active_count()
    with pytest.raises(OSError):
        other.start()
    assert threading.active_count() == before  # no workers left behind
    other.stop()
    server = svc._server
    server.stop()
    server.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


GAME = '[game]\nname = "gyges"\n'


def test_web_limits_are_read_from_the_config_and_checked(tmp_path):
    cfg = tmp_path / "t.toml"
    cfg.write_text(GAME + "[web]\nthreads = 4\nmax_streams = 10\nidle_timeout = 12.5\nconnections = 100\n")
    web = load_config(cfg).web
    assert (web.threads, web.max_streams, web.idle_timeout, web.connections) == (4, 10, 12.5, 100)
    for line, key in (("max_streams = 0", "web.max_streams"), ("idle_timeout = 0.5", "web.idle_timeout"),
                      ("connections = 5", "web.connections"), ("threads = \"many\"", "web.threads")):
        cfg.write_text(f"{GAME}[web]\n{line}\n")
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            load_config(cfg)
