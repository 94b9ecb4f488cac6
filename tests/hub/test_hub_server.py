"""The club page's server (uvicorn): many event streams on the event loop, not a thread each;
updates merged; a spectator too slow is sent a snapshot rather than buffered without bound."""

from __future__ import annotations

import socket
import threading
import time

from flask import Flask

from hub_web.server import Fanout, HubServer


def _open_stream(port: int) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    return s


def _read_until(s: socket.socket, needle: bytes, timeout: float = 5.0) -> bytes:
    parts, end = [b""], time.monotonic() + timeout
    while time.monotonic() < end:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        parts.append(chunk)
        if needle in parts[-2][-len(needle):] + chunk:  # only the new bytes are searched
            return b"".join(parts)
    data = b"".join(parts)
    assert needle in data, data[-300:]
    return data


def test_a_hundred_streams_share_the_event_loop_and_get_every_update():
    app = Flask("t")
    app.get("/ping")(lambda: "pong")
    fanout = Fanout(lambda: {"boards": []}, every=0.05)
    server = HubServer(app, fanout, "127.0.0.1", 0, threads=4)
    url = server.start()
    port = server.port
    before = threading.active_count()
    streams = [_open_stream(port) for _ in range(100)]
    try:
        for s in streams:
            _read_until(s, b"event: snapshot")
        assert threading.active_count() <= before + 2  # not a thread per spectator
        for i in range(5):  # five quick updates: merged, none lost
            fanout.publish("boards", {"boards": [{"name": f"table-0{i}"}], "commits": [float(i)]})
        for s in streams:
            data = _read_until(s, b"table-04")
            assert all(f"table-0{i}".encode() in data for i in range(5))
        import urllib.request
        assert urllib.request.urlopen(url + "ping", timeout=5).read() == b"pong"  # pages still served
    finally:
        for s in streams:
            s.close()
        server.stop()
        server.stop()


def test_a_spectator_that_falls_behind_gets_a_snapshot_not_a_growing_buffer():
    fanout = Fanout(lambda: {"boards": ["whole"]}, capacity=2, every=0.0)
    server = HubServer(Flask("t"), fanout, "127.0.0.1", 0, threads=2)
    server.start()
    slow = _open_stream(server.port)
    try:
        _read_until(slow, b"event: snapshot")
        big = "x" * 20000
        for i in range(1000):  # 20 MB: far more than the sockets and the queue hold, while it does not read
            fanout.publish("boards", {"boards": [{"name": f"t{i}", "pad": big}]})
            time.sleep(0.001)
        time.sleep(0.5)
        assert len(fanout.frames) == 2  # the ring holds what it holds, not what the spectator missed
        data = _read_until(slow, b'"whole"', timeout=30)  # then it is sent the club anew
        assert b"event: snapshot" in data
        assert fanout.dropped > 0
    finally:
        slow.close()
        server.stop()
