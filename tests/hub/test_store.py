"""The hub's store on its own: idempotent, acknowledgements without gaps, a late copy of a
header never takes the players' names away, an undo after the end reopens the game."""

from __future__ import annotations

from tableref.hub.protocol import Ack, GameEnd, GameEvent, GameHeader
from tableref.hub.store import HubStore


def _ev(seq, kind="move", move="m"):
    return GameEvent(1, seq, kind, move if kind == "move" else None, {"at": seq}, 100.0 + seq)


def test_idempotent_acks_without_gaps_late_headers_and_reopening(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    try:
        bare = GameHeader(1, "anacund", {}, "kind", {}, 1.0)
        named = GameHeader(1, "anacund", {}, "kind", {}, 1.0, {"A": "Ada", "B": "Bo"}, 1)
        assert store.apply([("t1", _ev(0)), ("t1", _ev(2))]) == [("t1", Ack(1, False, 0, None))]  # a gap at 1
        assert store.apply([("t1", bare), ("t1", _ev(1)), ("t1", _ev(1))]) == [("t1", Ack(1, True, 2, None))]
        assert [e.seq for e in store.last_new] == [1]  # the repeat is stored once, reported once
        store.apply([("t1", named), ("t1", bare)])  # the bare copy comes late
        assert store.games("t1")[0].players == {"A": "Ada", "B": "Bo"}
        [(_, ack)] = store.apply([("t1", GameEnd(1, 3, {"winner": "A", "reason": "r", "scores": {}}, 5.0))])
        assert ack.end == '3:{"reason": "r", "scores": {}, "winner": "A"}'
        assert store.games("t1")[0].finished
        store.apply([("t1", _ev(3, "undo"))])  # an undo after the end reopens the game
        row = store.games("t1")[0]
        assert not row.finished and row.outcome is None and row.moves == 2
        assert store.event_count() == 4
    finally:
        store.close()


def test_a_store_that_is_not_sqlite_is_one_clear_error(tmp_path):
    import pytest

    from tableref.hub.store import StoreError

    bad = tmp_path / "hub.sqlite3"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable hub store"):
        HubStore(bad)


def test_a_journal_replaced_under_the_same_name_is_not_taken_for_repeats(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    try:
        store.apply([("t1", GameHeader(1, "anacund", {}, "kind", {}, 1.0)), ("t1", _ev(0))])
        # a new SD card: game 1 again, begun later, with other moves
        fresh = GameHeader(1, "anacund", {}, "kind", {}, 999.0)
        assert store.apply([("t1", fresh), ("t1", _ev(0))]) == [("t1", Ack(1, False, -1))]
        assert store.replaced == {("t1", 1)}
        assert store.apply([("t1", _ev(1))]) == [("t1", Ack(1, False, -1))]  # nothing of it acknowledged
        assert store.event_count() == 1  # nor stored into the old game's record
    finally:
        store.close()
