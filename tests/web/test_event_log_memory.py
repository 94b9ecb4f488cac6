"""The event log's memory is bounded in bytes, and viewers that come and go leave nothing behind
(issue 33, item 13: docs/performance.md, "An evening's viewers")."""

from __future__ import annotations

import gc
from collections import Counter

from web.broadcast import LOG_BYTES, Broadcaster
from web.stream import event_stream


def _resumable(b: Broadcaster) -> list:
    """Every event a client could still be sent from the log (the longest backlog it holds)."""
    oldest = b.last_seq
    while oldest > 0 and b.after(oldest - 1) is not None:
        oldest -= 1
    return b.after(oldest) or []


def test_the_log_holds_at_most_its_bytes_of_large_events() -> None:
    b = Broadcaster()
    table = {"moves": ["a1-b2"] * 2000}  # a whole live table of ~16 KB, as each event carries
    for i in range(600):
        b.publish("decision", {"n": i, "live": table})
    kept = _resumable(b)
    assert sum(len(e.payload) for e in kept) <= LOG_BYTES
    assert b.log_bytes == sum(len(e.payload) for e in kept)
    assert kept[-1].seq == b.last_seq and len(kept) < 500
    # A client a few events behind still gets exactly what it missed; one further back than
    # the log holds gets a snapshot (None), as one from before a restart does.
    assert [e.data["n"] for e in b.after(b.last_seq - 3)] == [597, 598, 599]
    assert b.after(kept[0].seq - 2) is None


def test_the_newest_event_stays_however_large() -> None:
    b = Broadcaster(max_bytes=100)
    b.publish("board", {"x": "y" * 500})
    b.publish("board", {"x": "z" * 500})
    assert [e.data["x"][0] for e in b.after(0) or b.after(1)] == ["z"]


def test_the_event_count_is_still_capped() -> None:
    b = Broadcaster(capacity=3)
    for i in range(10):
        b.publish("board", {"n": i})
    assert b.after(6) is None and [e.data["n"] for e in b.after(7)] == [7, 8, 9]  # seqs 8-10


class _Table:
    """What event_stream reads of a LiveTable."""

    def __init__(self, b: Broadcaster) -> None:
        self.broadcaster = b

    def snapshot(self) -> dict:
        return {"ply": self.broadcaster.last_seq}


def _viewers(table: _Table, n: int) -> None:
    """``n`` viewers: fresh, resuming and far behind; each reads a little and is cut off mid-stream."""
    b = table.broadcaster
    for i in range(n):
        last = [None, f"{b.run}-{max(0, b.last_seq - 2)}", f"{b.run}-1"][i % 3]
        stream = event_stream(table, last, heartbeat=0.0)
        for _ in range(3):
            next(stream)
        b.publish("board", {"i": i, "live": {"moves": ["c3-d4"] * 100}})
        next(stream)
        stream.close()  # the client gone: waitress closes the response's iterator


def test_viewers_that_come_and_go_leave_nothing_behind() -> None:
    table = _Table(Broadcaster())
    _viewers(table, 600)  # the log full: what stays from here on is the steady state
    gc.collect()
    before = Counter(type(o).__name__ for o in gc.get_objects())
    _viewers(table, 600)
    gc.collect()
    after = Counter(type(o).__name__ for o in gc.get_objects())
    grown = {t: after[t] - before[t] for t in after if after[t] - before[t] > 20}
    assert grown == {}
    assert table.broadcaster.log_bytes <= LOG_BYTES
