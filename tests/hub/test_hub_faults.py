"""Faults, with a real Mosquitto: the broker killed, a board cut off, a wrong password, a
board publishing under another board's topic, garbage on the hub's topics.

The issue's "one board cut off for 10 minutes of play" is scaled down: the board plays a
whole game and half of the next (~60 moves, ten minutes at one move every 10 s) while cut off,
which takes well under a second here; what is tested is the same: nothing but the journal
holds those moves until the board is back.
"""

from __future__ import annotations

import json
import time

import paho.mqtt.client as mqtt

from tableref.hub.protocol import MAX_PAYLOAD, GameEvent, encode, topic
from tableref.hub.settings import BrokerConfig
from tableref.hub.simulate import SimTable

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import hub_games, journal_games, make_hub, make_tables, secured_broker, wait_all_in

pytestmark = needs_mosquitto


def _raw_client(port, user=None, password=None):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"raw-{time.monotonic_ns()}")
    if user:
        c.username_pw_set(user, password)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def test_broker_killed_and_restarted_mid_round_nothing_lost_or_doubled(broker, tmp_path):
    hub = make_hub(broker.port, tmp_path / "hub")
    tables = make_tables(10, broker.port, tmp_path / "boards")
    try:
        for t in tables:
            for _ in range(10):
                t.step()
        wait_all_in(hub, tables)
        broker.kill()
        for t in tables:  # play goes on while the broker is down: the journal keeps it
            for _ in range(15):
                t.step()
        time.sleep(1.0)
        assert all(not t.publisher.link.connected for t in tables)
        broker.start()
        back = time.monotonic()
        wait_all_in(hub, tables, timeout=10.0)
        caught_up = time.monotonic() - back
        assert caught_up < 10.0
        for t in tables:
            mine = journal_games(t)
            assert hub_games(hub, t.name) == mine
        events = sum(len(g["events"]) for t in tables for g in journal_games(t).values())
        assert hub.store.event_count() == events  # nothing doubled
    finally:
        for t in tables:
            t.stop()
        hub.stop()


def test_a_board_cut_off_then_back_sends_its_games_complete_and_in_order(broker, tmp_path):
    hub = make_hub(broker.port, tmp_path / "hub")
    tables = make_tables(3, broker.port, tmp_path / "boards")
    try:
        lone = tables[0]
        for _ in range(5):
            lone.step()
        wait_all_in(hub, tables)
        lone.cut_off()
        lone.play_game()  # the rest of its game, then half of another, all off the air
        lone.new_game()
        for _ in range(20):
            lone.step()
        for t in tables[1:]:
            t.play_game()
        assert len(hub.store.games(lone.name)) == 1
        lone.reconnect(BrokerConfig(port=broker.port))
        wait_all_in(hub, tables)
        assert hub_games(hub, lone.name) == journal_games(lone)
        rows = hub.store.db.execute("SELECT game, seq, received FROM events WHERE board=? ORDER BY rowid",
                                    (lone.name,)).fetchall()
        assert [(g, s) for g, s, _ in rows] == sorted((g, s) for g, s, _ in rows)  # arrived in order
    finally:
        for t in tables:
            t.stop()
        hub.stop()


def test_wrong_password_is_refused_and_the_board_says_so(tmp_path):
    b = secured_broker(tmp_path)
    hub = make_hub(b.port, tmp_path / "hub", username="hub", password_file=tmp_path / "hub.password")
    (tmp_path / "wrong").write_text("not-the-password\n")
    bad = SimTable("table-01", tmp_path / "t1.sqlite3",
                   BrokerConfig(port=b.port, username="table-01", password_file=tmp_path / "wrong")).start()
    good = SimTable("table-02", tmp_path / "t2.sqlite3",
                    BrokerConfig(port=b.port, username="table-02", password_file=tmp_path / "table-02.password"),
                    resend_after=1.0).start()
    try:
        link = wait_for(lambda: bad.publisher.link.state == "refused" and bad.publisher.link, 10,
                        "the broker to refuse the wrong password")
        assert "not authorised" in link.detail
        for _ in range(5):
            bad.step()
            good.step()
        wait_all_in(hub, [good])
        assert hub.store.games("table-01") == []
        assert bad.publisher.link.state == "refused"
    finally:
        bad.stop()
        good.stop()
        hub.stop()
        b.stop()


def test_acl_refuses_a_board_publishing_under_another_boards_topic(tmp_path):
    b = secured_broker(tmp_path)
    hub = make_hub(b.port, tmp_path / "hub", username="hub", password_file=tmp_path / "hub.password")
    pw = (tmp_path / "table-01.password").read_text().strip()
    rogue = _raw_client(b.port, "table-01", pw)
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub to connect")
        forged = encode(GameEvent(1, 0, "move", "x", {}, time.time()))
        rogue.publish(topic("table-02", "journal"), forged, qos=1).wait_for_publish(5)
        rogue.disconnect()  # it is client table-01 at the broker (its username): the real table-01 comes next
        # A message the ACL lets through, sent after it: once it is in, the forged one would be too.
        own = SimTable("table-01", tmp_path / "t1.sqlite3",
                       BrokerConfig(port=b.port, username="table-01", password_file=tmp_path / "table-01.password"),
                       resend_after=1.0).start()
        own.step()
        wait_all_in(hub, [own])
        assert hub.store.games("table-02") == [] and hub.store.positions("table-02", 1) == []
        own.stop()
    finally:
        rogue.loop_stop()
        rogue.disconnect()
        hub.stop()
        b.stop()


def test_malformed_and_oversized_payloads_are_counted_and_dropped(broker, tmp_path):
    hub = make_hub(broker.port, tmp_path / "hub")
    raw = _raw_client(broker.port)
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub to connect")
        # "connected" comes before the broker has the hub's subscription: a payload sent at once
        # may reach no one (a board sends again until acknowledged; this test sends once). A
        # well-formed status, sent until the hub hears one, says the subscription is in place.
        ok = b'{"v":1,"type":"status","state":"online","at":1}'
        wait_for(lambda: raw.publish("tableref/v1/table-09/status", ok, qos=1) and hub.counters.received > 0, 10,
                 "the hub to hear the board", interval=0.2)
        t = "tableref/v1/table-09/journal"
        bad = [b"not json", b"[1,2]", b'{"v":2,"type":"event"}', b'{"v":1,"type":"ack","game":1}',
               b'{"v":1,"type":"event","game":1,"seq":-1,"kind":"move","move":"a","position":{},"created":1}',
               b'{"v":1,"type":"event","game":1,"seq":0,"kind":"jump","move":"a","position":{},"created":1}',
               b'{"v":1,"type":"event","game":1,"seq":0,"kind":"move","move":"a","position":{},"created":NaN}',
               b"\xff\xfe", json.dumps({"v": 1, "type": "game", "game": "1"}).encode()]
        for payload in bad:
            raw.publish(t, payload, qos=1).wait_for_publish(5)
        raw.publish(t, b"{" + b" " * (MAX_PAYLOAD + 10) + b"}", qos=1).wait_for_publish(5)
        raw.publish("tableref/v1/table-09/status", b'{"v":1,"type":"status","state":"dancing","at":1}', qos=1)
        wait_for(lambda: hub.counters.malformed == len(bad) + 1 and hub.counters.oversized == 1, 10,
                 "the hub to count every bad payload")
        tables = make_tables(1, broker.port, tmp_path / "boards")  # and it goes on storing good ones
        for _ in range(3):
            tables[0].step()
        wait_all_in(hub, tables)
        assert hub.store.games("table-09") == []
        tables[0].stop()
    finally:
        raw.loop_stop()
        raw.disconnect()
        hub.stop()
