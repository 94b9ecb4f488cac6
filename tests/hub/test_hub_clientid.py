"""Issue 33, item 10: a board connects only as itself. With the club's Mosquitto as shipped
(``use_username_as_clientid``), board A's password with board B's or the hub's client id is
table A at the broker: it knocks neither B nor the hub off (their sessions stay theirs)."""

from __future__ import annotations

import threading

import paho.mqtt.client as mqtt
import pytest

from tableref.hub import credentials
from tableref.hub.credentials import CredentialsError
from tableref.hub.settings import BrokerConfig
from tableref.hub.simulate import SimTable

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import make_hub, secured_broker, wait_all_in


def _count_drops(client) -> list[int]:
    """Counts the client's disconnections (paho calls whatever on_disconnect holds)."""
    drops = [0]
    own = client.on_disconnect

    def counted(*args, **kw):
        drops[0] += 1
        own(*args, **kw)
    client.on_disconnect = counted
    return drops


def _impostor(port: int, client_id: str, user: str, password: str) -> object:
    """Connects once with these credentials and this client id; the broker's answer."""
    answered = threading.Event()
    answer = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True,
                    protocol=mqtt.MQTTv311)
    c.username_pw_set(user, password)
    c.on_connect = lambda client, userdata, flags, reason, props=None: (answer.append(reason), answered.set())
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        assert answered.wait(10), "the broker did not answer the impostor"
    finally:
        c.disconnect()
        c.loop_stop()
    return answer[0]


@needs_mosquitto
def test_a_boards_password_cannot_knock_another_board_or_the_hub_off(tmp_path):
    b = secured_broker(tmp_path)
    hub = make_hub(b.port, tmp_path / "hub", username="hub", password_file=tmp_path / "hub.password")
    board = SimTable("table-02", tmp_path / "t2.sqlite3",
                     BrokerConfig(port=b.port, username="table-02", password_file=tmp_path / "table-02.password"),
                     resend_after=1.0).start()
    try:
        wait_for(lambda: hub.link == "connected" and board.publisher.link.connected, 10, "the hub and table-02")
        hub_id, board_id = hub._client._client_id.decode(), board.publisher._client._client_id.decode()
        assert (hub_id, board_id) == ("hub", "table-02")  # each client id is its username
        hub_drops, board_drops = _count_drops(hub._client), _count_drops(board.publisher._client)
        stolen = (tmp_path / "table-01.password").read_text().strip()
        for _ in range(3):
            for target in (hub_id, board_id, "tableref-hub", "tableref-board-table-02"):
                _impostor(b.port, target, "table-01", stolen)
        board.step()
        wait_all_in(hub, [board])  # the board's move goes through after all that
        assert hub_drops == [0] and board_drops == [0], b.log()
        assert "closing old connection" not in b.log()
    finally:
        board.stop()
        hub.stop()
        b.stop()


def test_credentials_refuse_a_board_under_the_hubs_name_and_the_hub_under_a_boards(tmp_path):
    """A client id is its username: a board user named as the hub's would reset the hub's password
    and take its session, so credentials add refuses it (and the other way round)."""
    pw, acl = tmp_path / "passwd", tmp_path / "acl"
    calls = []
    run = lambda args, **kw: calls.append(args) or type("Done", (), {"returncode": 0})()  # noqa: E731
    credentials.add("hub", pw, acl, hub=True, run=run, tool="mosquitto_passwd")
    credentials.add("table-01", pw, acl, run=run, tool="mosquitto_passwd")
    with pytest.raises(CredentialsError, match="hub.*the hub's user"):
        credentials.add("hub", pw, acl, run=run, tool="mosquitto_passwd")
    with pytest.raises(CredentialsError, match="table-01.*a board's user"):
        credentials.add("table-01", pw, acl, hub=True, run=run, tool="mosquitto_passwd")
    assert len(calls) == 2  # mosquitto_passwd never ran for the refused ones
    credentials.add("table-01", pw, acl, run=run, tool="mosquitto_passwd")  # a board's password reset: fine
    assert acl.read_text().count("user table-01\n") == 1
