"""A table's own credentials on the club's Mosquitto as shipped (users and ACL made by
``tableref hub credentials add``): it can write to another table's inbox only as itself, and read
only its own inbox; an impostor's move is never delivered. A real broker, real mosquitto_passwd."""

from __future__ import annotations

import time

import paho.mqtt.client as mqtt
import pytest

from mosquittohelp import MOSQUITTO, Broker
from tableref.hub import credentials
from tableref.remote.wire import Move, decode, encode, inbox, topic

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason="mosquitto is not installed (scripts/ensure-mosquitto)")
MATCH = "table-a.K7M4QX"


def client(port, user, password, got=None):
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)
    c.username_pw_set(user, password)
    if got is not None:
        c.on_message = lambda _c, _u, m: got.append(decode(m.topic, m.payload))
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def test_a_table_writes_only_as_itself_and_reads_only_its_own_inbox(tmp_path):
    pw, acl = tmp_path / "passwd", tmp_path / "acl"
    secrets = {name: credentials.add(name, pw, acl) for name in ("table-a", "table-b", "table-c")}
    assert "topic write tableref/remote/v1/+/table-a\ntopic read tableref/remote/v1/table-a/+" in acl.read_text()
    broker = Broker(tmp_path / "broker").use_shipped(pw, acl).start()
    to_b, to_c = [], []
    b = client(broker.port, "table-b", secrets["table-b"], to_b)
    c = client(broker.port, "table-c", secrets["table-c"], to_c)
    a = client(broker.port, "table-a", secrets["table-a"])
    try:
        b.subscribe(inbox("table-b"), qos=1)
        c.subscribe(inbox("table-b"), qos=1)  # table-c listening in on table-b: refused by the ACL
        c.subscribe(inbox("table-c"), qos=1)
        time.sleep(0.5)
        forged = Move(MATCH, 1, "a1-a2")
        c.publish(topic("table-b", "table-a"), encode(forged), qos=1).wait_for_publish(5)  # as table-a: refused
        c.publish(topic("table-b", "table-c"), encode(Move(MATCH, 1, "b1-b2")), qos=1).wait_for_publish(5)
        a.publish(topic("table-b", "table-a"), encode(Move(MATCH, 1, "c1-c2")), qos=1).wait_for_publish(5)
        deadline = time.monotonic() + 10
        while len(to_b) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # anything else on its way would be in by now
        assert [(sender, m.move) for _to, sender, m in to_b] == [("table-c", "b1-b2"), ("table-a", "c1-c2")]
        assert to_c == []  # it never saw table-b's inbox
    finally:
        for x in (a, b, c):
            x.loop_stop()
            x.disconnect()
        broker.stop()
