"""The club hub says which sides the computer played: the board's header carries its seats,
the hub stores them, lists them and exports them; a game of people only is sent as before (a
hub older than the seats reads it)."""

from __future__ import annotations

import json

import pytest

from decisions import parse_seats
from rules import Fidelity, get_game
from tableref.hub.outbox import Outbox
from tableref.hub.protocol import GameHeader, ProtocolError, decode, encode, topic
from tableref.hub.store import HubStore
from tableref.journal import Journal


def test_header_seats_round_trip_and_people_only_is_sent_as_before():
    with_seats = GameHeader(1, "gyges", {}, "kind", {}, 1.0, seats={"north": "computer:3"})
    board, back = decode(topic("t1", "journal"), encode(with_seats))
    assert back == with_seats
    people = json.loads(encode(GameHeader(1, "gyges", {}, "kind", {}, 1.0)))
    assert "seats" not in people
    bad = json.dumps({**json.loads(encode(with_seats)), "seats": {"north": "robot"}}).encode()
    with pytest.raises(ProtocolError):
        decode(topic("t1", "journal"), bad)


def test_outbox_header_store_list_and_export(tmp_path):
    path = tmp_path / "j.sqlite3"
    with Journal(path) as journal:
        record = journal.new_game(get_game("gyges").default_setup(), {}, Fidelity.KIND.value, parse_seats("north:2"))
    outbox = Outbox(path)
    try:
        header = outbox.header(record.id)
    finally:
        outbox.close()
    assert header.seats == {"north": "computer:2"}
    store = HubStore(tmp_path / "hub.sqlite3")
    try:
        store.apply([("t1", header)])
        assert store.games("t1")[0].seats == {"north": "computer:2"}
        assert store.export("t1", record.id)["seats"] == {"north": "computer:2"}
    finally:
        store.close()
