"""The HTTP server's workers (tableref/http_workers.py): the one that went idle last serves a
request, and one that served a long task (an event stream) is replaced by a new thread. Waitress's
own dispatcher woke the one idle longest and kept every thread for good: viewers coming and going
rotated through all 70 workers, and every worker's cache of freed memory (glibc's tcache) filled in
turn — the club evening's memory climbing for hours (issue 33, item 13; docs/performance.md)."""

from __future__ import annotations

import http.client
import threading
import time

from tableref.http_server import HttpServer, ServerLimits
from tableref.http_workers import LastInCondition, Workers


SERVED: list[threading.Thread] = []  # the thread of each request, in order


def which_thread(environ, start_response):
    if environ["PATH_INFO"] == "/slow":
        time.sleep(0.3)  # past recycle_after below: a task as long as an event stream
    start_response("200 OK", [("Content-Type", "text/plain")])
    SERVED.append(threading.current_thread())
    return [threading.current_thread().name.encode()]


def get(port: int, path: str = "/") -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    body = conn.getresponse().read().decode()
    conn.close()
    return body


def test_requests_one_after_another_are_served_by_the_few_workers_idle_the_shortest():
    server = HttpServer(which_thread, limits=ServerLimits(threads=4, max_streams=12))  # 16 workers
    port = int(server.start().rstrip("/").rsplit(":", 1)[1])
    names = []
    try:
        for _ in range(48):  # each on a new connection, as a viewer's page and stream are
            names.append(get(port))
    finally:
        server.stop()
    # The worker that answered may not be waiting again yet when the next request comes: two, or
    # a few on a loaded machine; taken in turn, it was all 16.
    assert len(set(names)) <= 4, sorted(set(names))


def test_a_worker_that_served_a_long_task_is_replaced_by_a_new_thread(monkeypatch):
    monkeypatch.setattr(Workers, "recycle_after", 0.2)
    server = HttpServer(which_thread, limits=ServerLimits(threads=2, max_streams=2))
    port = int(server.start().rstrip("/").rsplit(":", 1)[1])
    try:
        workers = server._server.task_dispatcher
        get(port)
        quick = SERVED[-1]
        time.sleep(0.1)  # idle again, so that the slow request may go to another
        get(port, "/slow")
        slow = SERVED[-1]
        slow.join(5)
        # Its thread has ended (its cache of freed memory given back with it); one of the same
        # name took its place, and the pool is whole.
        assert not slow.is_alive()
        assert workers.recycled == 1
        names = sorted(t.name for t in threading.enumerate() if t.name.startswith("waitress-"))
        assert len(names) == 4 and slow.name in names, names
        assert quick is slow or quick.is_alive()  # a short request's worker stays
        assert get(port).startswith("waitress-")  # and the pool still serves
    finally:
        server.stop()
    deadline = time.monotonic() + 5
    while any(t.name.startswith("waitress-") for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not [t.name for t in threading.enumerate() if t.name.startswith("waitress-")]  # stop() ends them all


def test_a_worker_that_cannot_be_replaced_goes_on_serving(monkeypatch):
    monkeypatch.setattr(Workers, "recycle_after", 0.2)
    server = HttpServer(which_thread, limits=ServerLimits(threads=1, max_streams=1))
    port = int(server.start().rstrip("/").rsplit(":", 1)[1])
    workers = server._server.task_dispatcher

    def no_thread(*args):
        raise RuntimeError("can't start new thread")

    try:
        monkeypatch.setattr(workers, "start_new_thread", no_thread)
        get(port, "/slow")
        slow = SERVED[-1]
        for _ in range(4):  # both workers still answer
            get(port)
        assert workers.recycled == 0 and slow.is_alive()
        assert len({t.name for t in SERVED[-4:]}) <= 2
    finally:
        monkeypatch.undo()
        server.stop()


def test_notify_wakes_the_thread_that_began_waiting_last():
    lock = threading.Lock()
    cond = LastInCondition(lock)
    woken: list[int] = []

    def waiter(n: int) -> None:
        with lock:
            cond.wait(10)
            woken.append(n)

    threads = []
    for n in range(3):
        t = threading.Thread(target=waiter, args=(n,))
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 5
        while len(cond._waiters) < n + 1 and time.monotonic() < deadline:  # waiting, in this order
            time.sleep(0.005)
    with lock:
        cond.notify()
    threads[2].join(5)
    assert woken == [2]
    with lock:
        cond.notify_all()
    for t in threads:
        t.join(5)
    assert sorted(woken) == [0, 1, 2]


def test_a_wait_that_runs_out_says_so():
    lock = threading.Lock()
    cond = LastInCondition(lock)
    with lock:
        assert cond.wait(0.01) is False
        assert cond._waiters == []
