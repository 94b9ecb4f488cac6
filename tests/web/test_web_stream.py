"""Server-sent events: a snapshot for a late joiner, exact resume with Last-Event-ID."""

from __future__ import annotations

import json

import pytest

from web.broadcast import Broadcaster
from web.stream import event_stream
from webhelp import admin_client, move


def parse(chunks):
    """SSE text → list of (id, event, data) for the events in it (comments skipped)."""
    out = []
    for block in "".join(chunks).split("\n\n"):
        fields = {}
        for line in block.splitlines():
            if line.startswith(":") or ":" not in line:
                continue
            k, _, v = line.partition(": ")
            fields[k] = v
        if "event" in fields:
            out.append((fields["id"], fields["event"], json.loads(fields["data"])))
    return out


def read(stream, n):
    """The first ``n`` events of a stream (keep-alives and the retry line skipped)."""
    events = []
    for chunk in stream:
        events += parse([chunk])
        if len(events) >= n:
            return events
    raise AssertionError(f"stream ended after {len(events)} events")


def test_a_late_joiner_gets_the_whole_table_first(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    r = client.get("/api/events", buffered=False)
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-cache"
    stream = r.response
    first = next(iter(stream))
    assert first.startswith(b"retry: ")
    (eid, kind, data), = read((c.decode() for c in stream), 1)
    assert kind == "snapshot" and data["live"]["moves"] == ["b1-b3"]
    assert eid == service.table.broadcaster.last_id
    r.close()


def test_resume_with_last_event_id_gets_exactly_what_was_missed(service):
    client, post = admin_client(service)
    b = service.table.broadcaster
    seen = b.last_id
    move(post, "b1", "b3")  # while the client was away
    move(post, "a6", "a5")
    missed = b.after(b.parse_id(seen))
    r = client.get("/api/events", headers={"Last-Event-ID": seen}, buffered=False)
    events = read((c.decode() for c in r.response), len(missed))
    r.close()
    assert [e[0] for e in events] == [e.id for e in missed]
    assert "snapshot" not in [e[1] for e in events]
    decisions = [d["decision"]["kind"] for _, k, d in events if k == "decision"]
    assert decisions == ["accepted", "accepted"]
    assert events[-1][2]["live"]["moves"] == ["b1-b3", "a6-a5"]


def test_resume_also_works_with_the_query_parameter(service):
    client, post = admin_client(service)
    seen = service.table.broadcaster.last_id
    move(post, "b1", "b3")
    r = client.get(f"/api/events?last_event_id={seen}", buffered=False)
    (eid, kind, _), = read((c.decode() for c in r.response), 1)
    r.close()
    assert kind != "snapshot" and eid == f"{service.table.broadcaster.run}-{int(seen.split('-')[1]) + 1}"


@pytest.mark.parametrize("last", ["00000000-3", "garbage", "x-", "-5"])
def test_an_id_from_another_run_or_garbage_gets_a_snapshot(service, last):
    client = service.app.test_client()
    r = client.get("/api/events", headers={"Last-Event-ID": last}, buffered=False)
    (_, kind, data), = read((c.decode() for c in r.response), 1)
    r.close()
    assert kind == "snapshot" and data["live"]["game"] == "gyges"


def test_events_after_the_snapshot_follow_live(service):
    client, post = admin_client(service)
    stream = event_stream(service.table, None, heartbeat=0.01)
    assert next(stream).startswith("retry")
    assert parse([next(stream)])[0][1] == "snapshot"
    move(post, "b1", "b3")
    kinds = []
    while "decision" not in kinds:
        kinds += [k for _, k, _ in parse([next(stream)])]
    assert kinds[-1] == "decision"


def test_a_client_too_far_behind_gets_a_snapshot_not_a_gap():
    b = Broadcaster(capacity=3)

    class Table:
        broadcaster = b

        @staticmethod
        def snapshot():
            return {"whole": True}

    old = b.last_id
    for i in range(5):
        b.publish("decision", {"n": i})
    stream = event_stream(Table(), old, heartbeat=0.01)
    next(stream)
    (eid, kind, data), = parse([next(stream)])
    assert kind == "snapshot" and data == {"live": {"whole": True}} and eid == b.last_id
    b.close()
    assert list(stream) in ([], [": keepalive\n\n"])  # closing ends the stream


def test_keepalives_while_nothing_happens_and_the_stream_ends_on_close(service):
    stream = event_stream(service.table, service.table.broadcaster.last_id, heartbeat=0.01)
    assert next(stream).startswith("retry")
    assert next(stream) == ": keepalive\n\n"
    service.table.broadcaster.close()
    assert all(c == ": keepalive\n\n" for c in stream)
