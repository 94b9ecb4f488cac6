"""The remote tables' wire format (tableref/remote/wire.py), pure: bytes in, messages out."""

from __future__ import annotations

import json

import pytest

from tableref.remote.wire import (Have, Join, Left, MAX_PAYLOAD, Move, Over, Refused, Welcome, WireError, decode,
                                  encode, inbox, parse_topic, topic)

MATCH = "table-a.K7M4QX"
T = topic("table-b", "table-a")


@pytest.mark.parametrize("msg", [
    Join("K7M4QX"),
    Refused("K7M4QX", "no such invitation"),
    Welcome(MATCH, "gyges", {}, "default", {"south": "table-a", "north": "table-b"}, "10+5"),
    Welcome(MATCH, "anacund", {"size": 5}, "start", {"A": "table-a", "B": "table-b"}, None),
    Move(MATCH, 1, "a1-a2", {"south": 600000, "north": 600000}),
    Move(MATCH, 7, "b1-c3/d4"),
    Have(MATCH, 0),
    Have(MATCH, 12),
    Have(MATCH, 12, True),
    Over(MATCH, 9, {"winner": "north", "reason": "south loses on time", "scores": {}}),
    Left(MATCH, 0),
    Left(MATCH, 23),
])
def test_every_message_round_trips(msg):
    to, sender, back = decode(T, encode(msg))
    assert (to, sender, back) == ("table-b", "table-a", msg)
    assert json.loads(encode(msg))["v"] == 1


def test_topics():
    assert T == "tableref/remote/v1/table-b/table-a"
    assert parse_topic(T) == ("table-b", "table-a")
    assert inbox("table-b") == "tableref/remote/v1/table-b/+"
    for bad in ("tableref/remote/v1/table-b", "tableref/v1/table-b/journal", "tableref/remote/v1/a/b/c",
                "tableref/remote/v2/a/b", "tableref/remote/v1/a b/c", "tableref/remote/v1/+/c"):
        with pytest.raises(WireError, match="not a tableref/remote/v1"):
            parse_topic(bad)


def _raw(**data) -> bytes:
    return json.dumps({"v": 1, **data}).encode()


@pytest.mark.parametrize("payload, says", [
    (b"\xff\xfe", "not JSON"),
    (b"[1, 2]", "expected a JSON object"),
    (b"NaN", "not JSON"),
    (_raw(type="move", match=MATCH, ply=1, move="a1-a2", times={"south": float("inf")}).replace(b"Infinity", b"1e999"),
     "times"),
    (json.dumps({"v": 2, "type": "have", "match": MATCH, "ply": 1}).encode(), "version 2"),
    (_raw(type="chat", text="hi"), "unknown type 'chat'"),
    (_raw(type="have", match=MATCH), "ply missing"),
    (_raw(type="have", match=MATCH, ply="3"), "ply must be an integer"),
    (_raw(type="have", match=MATCH, ply=True), "ply must be an integer"),
    (_raw(type="have", match=MATCH, ply=-1), "ply -1 out of range"),
    (_raw(type="have", match=MATCH, ply=1, extra=1), "unknown field"),
    (_raw(type="have", match="nodot", ply=1), "match 'nodot'"),
    (_raw(type="move", match=MATCH, ply=0, move="a1-a2"), "ply >= 1"),
    (_raw(type="move", match=MATCH, ply=1, move=""), "ply >= 1"),
    (_raw(type="move", match=MATCH, ply=1, move="a1-a2", times={"south": "ten"}), "times"),
    (_raw(type="join", code="k7m4qx"), "code 'k7m4qx'"),
    (_raw(type="join", code="K7M4QX/../x"), "code"),
    (_raw(type="welcome", match=MATCH, game="gyges", options={}, setup="mine", sides={"south": "table-a"}), "setup"),
    (_raw(type="welcome", match=MATCH, game="gyges", options={}, setup="start", sides={}), "sides"),
    (_raw(type="welcome", match=MATCH, game="gyges", options={}, setup="start", sides={"south": "a/b"}), "sides"),
    (_raw(type="over", match=MATCH, ply=3, outcome={"winner": "x", "why": 1}), "outcome"),
    (_raw(type="left", match=MATCH), "ply missing"),
    (_raw(type="left", match=MATCH, ply=-1), "ply -1 out of range"),
])
def test_a_malformed_payload_is_one_clear_error(payload, says):
    with pytest.raises(WireError) as err:
        decode(T, payload)
    assert says in str(err.value)
    assert str(err.value).startswith(T)


def test_an_oversized_payload_is_refused_before_it_is_read():
    with pytest.raises(WireError, match=f"at most {MAX_PAYLOAD}"):
        decode(T, b" " * (MAX_PAYLOAD + 1))


def test_a_remote_seat_reads_back_from_its_text():
    from decisions import Seats, parse_seat
    from decisions.seats import Seat, SeatError

    seat = parse_seat("remote:table-b:table-a.K7M4QX")
    assert seat == Seat.remote("table-b", "table-a.K7M4QX") and seat.is_remote and not seat.plays_on_this_board
    assert parse_seat(seat.text()) == seat
    seats = Seats.from_dict({"north": seat.text()})
    assert seats.is_remote("north") and seats.plays_here("south") and not seats.computers
    assert seats.remotes == {"north": seat}
    for bad in ("remote:", "remote:table b:x.ABCD", "remote:table-b:nocode", "remote:table-b:table-a.k7"):
        with pytest.raises(SeatError):
            parse_seat(bad)
