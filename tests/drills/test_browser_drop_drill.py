"""Drill: a browser loses its event stream for a while, then resumes with ``Last-Event-ID``.

A whole threaded service (referee thread, board scanner, HTTP server on a real socket) and
two SSE clients: one stays connected throughout, the other drops its connection, stays
away while the game goes on (moves, takebacks, board edits: 10 s with
``TABLEREF_DRILLS=full``, 1 s in the quick setting), and reconnects with the last event id
it saw. It must get exactly the events it missed — the same ids, kinds and data, in the same
order, as the client that never left — with no snapshot, and then carry on live.
"""

from __future__ import annotations

import time

import pytest

from drills_common import SseClient, strength
from tableref.serve import Service

GAP = strength(1.0, 10.0)
PIN_HASH = "scrypt:1024:8:1"  # the real scheme, cheaper


@pytest.fixture
def service(tmp_path):
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game="gyges", setup="default",
                  settle=0.05, readings=2, scan_interval=0.02, new=True, pin_hash=PIN_HASH, heartbeat=0.2)
    svc.start()
    url = svc.serve_http("127.0.0.1", 0)
    svc.port = int(url.rstrip("/").rsplit(":", 1)[1])
    yield svc
    svc.close()


def play(service, edits):
    """Edit the simulated board as the page does, one edit at a time, each given time to settle."""
    for src, dst in edits:
        service.table.sim_edit("move", src, to=dst)
        time.sleep(0.15)


def test_browser_away_then_back_gets_exactly_what_it_missed(service):
    stayer = SseClient(service.port)
    leaver = SseClient(service.port)
    assert leaver.wait_for(1)[0].kind == "snapshot"
    play(service, [("b1", "b3")])
    seen = leaver.wait_for(2)
    last_id = seen[-1].id
    leaver.close()

    away_until = time.monotonic() + GAP
    rounds = 0
    while time.monotonic() < away_until or rounds < 2:
        # A move and its takeback (the board shows the earlier position again), and a
        # wrong move put right: decisions of several kinds and board edits between them.
        play(service, [("a6", "a5"), ("a5", "a6"), ("f6", "c3"), ("c3", "f6")])
        rounds += 1

    back = SseClient(service.port, last_event_id=last_id)
    stayed = stayer.events
    start = next(i for i, e in enumerate(stayed) if e.id == last_id) + 1
    missed = stayed[start:]
    assert len(missed) >= 8 * rounds  # every edit and every decision
    got = back.wait_for(len(missed), timeout=10)
    assert "snapshot" not in [e.kind for e in got]
    assert [(e.id, e.kind, e.data) for e in got[: len(missed)]] == [(e.id, e.kind, e.data) for e in missed]
    kinds = {e.data["decision"]["kind"] for e in missed if e.kind == "decision"}
    assert {"accepted", "taken_back", "illegal", "restored"} <= kinds, kinds

    # And then live, like the client that never left.
    before = len(stayer.events)
    play(service, [("a6", "a5")])
    live = stayer.wait_for(before + 2)[before:]
    got = back.wait_for(len(missed) + len(live))
    assert [e.id for e in got[len(missed): len(missed) + len(live)]] == [e.id for e in live]
    # The move's own decision may come an event or two after the edit: wait for it, bounded.
    deadline = time.monotonic() + 10
    while not any(e.data.get("live", {}).get("moves") == ["b1-b3", "a6-a5"] for e in back.events):
        assert time.monotonic() < deadline, "the resumed client never saw the live move accepted"
        time.sleep(0.05)
    stayer.close()
    back.close()
