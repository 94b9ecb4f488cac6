"""The hub says "connected" only once the broker has granted what it reads: every board's
journal, status and live view. A broker that refuses one (a SUBACK failure: an ACL that does not
let the hub user read it) leaves the hub "refused", saying which, where the club page shows it —
it would otherwise say "connected" and hear nothing. (A Mosquitto on MQTT 3.1.1 grants such a
subscription and sends nothing on it: there only the logs and the empty page tell.)"""

from __future__ import annotations

import pytest

from tableref.hub.hub import SUBSCRIPTIONS, Hub
from tableref.hub.mqtt import subscription_refused
from tableref.hub.settings import HubServerConfig

from fakes import FakeBroker
from mosquittohelp import wait_for


def test_connected_once_every_subscription_is_granted(tmp_path):
    fb = FakeBroker()
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub"), client_factory=fb.factory).start()
    try:
        wait_for(lambda: hub.link == "connected", 5, "the hub")
        assert hub.link_detail == "" and fb.clients[0].subs == [t for t, _ in SUBSCRIPTIONS]
    finally:
        hub.stop()


def test_a_subscription_the_broker_refuses_is_said(tmp_path, caplog):
    fb = FakeBroker()
    fb.deny.add("tableref/v1/+/journal")
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub"), client_factory=fb.factory).start()
    try:
        wait_for(lambda: hub.link == "refused", 5, "the hub to be refused")
        assert "subscription to tableref/v1/+/journal" in hub.link_detail and "ACL" in hub.link_detail
        assert hub.snapshot()["link"] == "refused"
        assert not hub.push_pairing(1, "table-01", {"A": "Ada", "B": "Bo"})  # nothing pushed while refused
        assert "refused the hub's subscription" in caplog.text
    finally:
        hub.stop()


@pytest.mark.parametrize("code, refused", [(0, False), (1, False), (2, False), (0x80, True), (0x87, True)])
def test_a_subacks_codes(code, refused):
    assert subscription_refused(code) is refused


def test_paho_s_own_codes():
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.reasoncodes import ReasonCode

    assert not subscription_refused(ReasonCode(PacketTypes.SUBACK, identifier=1))  # granted QoS 1
    assert subscription_refused(ReasonCode(PacketTypes.SUBACK, identifier=0x80))  # unspecified error
