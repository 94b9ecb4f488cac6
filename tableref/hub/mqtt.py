"""Making paho-mqtt clients: the one place that imports paho. Everything else takes a
``client_factory(client_id) -> client`` so tests can pass a fake with paho's interface."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

from .settings import BrokerConfig

ClientFactory = Callable[..., Any]  # (client_id, *, persistent=False) -> a paho-like client

# CONNACK codes of MQTT 3.1.1, in the players' words (paho gives them as ReasonCode objects).
REFUSED = {
    1: "the broker does not speak this MQTT version",
    2: "client id refused",
    3: "broker unavailable",
    4: "wrong username or password",
    5: "not authorised: wrong username or password, or no such user",
}


def paho_client(client_id: str, *, persistent: bool = False) -> Any:
    """A paho client. ``persistent``: the broker keeps its subscriptions and queues QoS 1
    messages for it while it is away (the hub); a board needs none (its journal resends)."""
    import paho.mqtt.client as mqtt

    return mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=not persistent,
                       protocol=mqtt.MQTTv311)


def client_id(broker: BrokerConfig, default: str) -> str:
    """The client id: the username where there is one. The club's Mosquitto replaces every
    client's id with its username (``use_username_as_clientid``, deploy/mosquitto/tableref.conf),
    so one board's password cannot take another board's or the hub's id and knock it off; the
    same id asked for here keeps the hub's persistent session the same with or without it."""
    return broker.username or default


def configure(client: Any, broker: BrokerConfig) -> None:
    """Credentials and TLS on a fresh client (the password file is read now)."""
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password())
    if broker.tls:
        client.tls_set(ca_certs=str(broker.ca_file) if broker.ca_file else None, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(min_delay=1, max_delay=4)  # back within seconds of the broker


def refused_text(reason: Any) -> str:
    """What a failed CONNACK means, whatever form paho gives it in."""
    value = getattr(reason, "value", reason)
    if isinstance(value, int) and value in REFUSED:
        return REFUSED[value]
    text = str(reason)
    low = text.lower()
    if "not authori" in low or "bad user" in low or value in (134, 135):
        return REFUSED[5]
    return text


def is_failure(reason: Any) -> bool:
    failure = getattr(reason, "is_failure", None)
    if isinstance(failure, bool):
        return failure
    return bool(getattr(reason, "value", reason))


def subscription_refused(code: Any) -> bool:
    """A SUBACK's code for one topic: the QoS granted (0-2), or a failure (0x80 and up). (A
    Mosquitto with an ACL grants a topic the user may not read and sends nothing on it.)"""
    failure = getattr(code, "is_failure", None)
    if isinstance(failure, bool):
        return failure
    return int(getattr(code, "value", code)) >= 0x80


KEEPALIVE = 15  # seconds: a board that vanishes is offline (its will) within ~20 s


def start_client(client: Any, broker: BrokerConfig, *, on_connect: Callable[..., None],
                 on_disconnect: Callable[..., None], on_message: Callable[..., None],
                 on_connect_fail: Callable[..., None] | None = None,
                 on_subscribe: Callable[..., None] | None = None) -> None:
    """Hand a configured client its callbacks and connect it in the background: paho's own
    loop thread connects, reconnects and calls back (a will, if any, is set before this)."""
    client.on_connect = on_connect
    client.on_disconnect = on_disconnect
    client.on_message = on_message
    if on_connect_fail is not None:
        client.on_connect_fail = on_connect_fail
    if on_subscribe is not None:
        client.on_subscribe = on_subscribe
    client.connect_async(broker.host, broker.port, keepalive=KEEPALIVE)
    client.loop_start()
