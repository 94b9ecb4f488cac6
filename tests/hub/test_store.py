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


def test_unseen_states_in_order_only_with_their_events_and_an_ack_old_boards_read(tmp_path):
    import json

    import pytest

    from tableref.hub.protocol import ProtocolError, UnseenState, decode, encode

    store = HubStore(tmp_path / "hub.sqlite3")
    try:
        store.apply([("t1", GameHeader(1, "anacund", {}, "kind", {}, 1.0)), ("t1", _ev(0, move="a"))])
        group = {"ply": 0, "count": 2, "alternatives": ["a b", "c d"], "chosen": None}
        chosen = UnseenState(1, 2, [{**group, "chosen": 1}], [{"seq": 0, "move": "c", "position": {"at": "c"}},
                                                              {"seq": 1, "move": "d", "position": {"at": "d"}}])
        # event 1 has not come: nothing rewritten, and the ack does not claim the state
        [(_, ack)] = store.apply([("t1", chosen)])
        assert ack.unseen is None and store.positions("t1", 1)[0]["move"] == "a"
        store.apply([("t1", _ev(1, move="b"))])
        [(_, ack)] = store.apply([("t1", chosen)])
        assert ack.unseen == chosen.key
        assert [p["move"] for p in store.positions("t1", 1)] == ["c", "d"]
        assert store.export("t1", 1)["unseen"] == [{**group, "chosen": 1}]
        # the open state, older, arriving late: ignored
        [(_, ack)] = store.apply([("t1", UnseenState(1, 2, [group], []))])
        assert ack.unseen == chosen.key and store.export("t1", 1)["moves"] == ["c", "d"]
        # an undo into the group ends it on the board: the newer, empty state
        store.apply([("t1", _ev(2, "undo")), ("t1", UnseenState(1, 3, [], []))])
        assert "unseen" not in store.export("t1", 1)
    finally:
        store.close()
    # an ack with no unseen key is the ack a board from before the unseen message reads
    assert "unseen" not in json.loads(encode(Ack(1, True, 0)))
    bad = {"v": 1, "type": "unseen", "game": 1, "events": 2, "groups": [{"ply": 0}], "rewritten": []}
    with pytest.raises(ProtocolError, match=r"tableref/v1/t1/journal: unseen: groups\[0\]"):
        decode("tableref/v1/t1/journal", json.dumps(bad).encode())
