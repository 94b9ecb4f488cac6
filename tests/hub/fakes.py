"""An in-memory broker and clients with paho's interface (the parts tableref uses), for tests
of the publisher's and the hub's logic without a network. The real broker is tested too."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass
class Msg:
    topic: str
    payload: bytes
    retain: bool = False


class Info:
    def wait_for_publish(self, timeout=None):
        return True


def matches(pattern: str, topic: str) -> bool:
    p, t = pattern.split("/"), topic.split("/")
    for i, part in enumerate(p):
        if part == "#":
            return True
        if i >= len(t) or (part != "+" and part != t[i]):
            return False
    return len(p) == len(t)


class FakeBroker:
    def __init__(self):
        self.clients: list[FakeClient] = []
        self.retained: dict[str, bytes] = {}
        self.up = True
        self.lock = threading.RLock()
        self.log: list[tuple[str, str]] = []  # (client id, topic) of every publish accepted
        self.deny: set[str] = set()  # topic filters its ACL refuses a subscription to

    def factory(self, client_id, *, persistent=False):
        c = FakeClient(self, client_id)
        self.clients.append(c)
        return c

    def route(self, sender, topic, payload, retain):
        with self.lock:
            if not self.up or not sender.connected:
                return
            self.log.append((sender.client_id, topic))
            if retain:
                self.retained[topic] = payload
            targets = [c for c in self.clients if c.connected and any(matches(s, topic) for s in c.subs)]
        for c in targets:
            c.on_message(c, None, Msg(topic, payload, retain))

    def go_down(self):
        with self.lock:
            self.up = False
            clients = [c for c in self.clients if c.connected]
            for c in clients:
                c.connected = False
        for c in clients:
            c.on_disconnect(c, None, None, "broker down", None)

    def come_up(self):
        with self.lock:
            self.up = True
        for c in list(self.clients):
            if c.wants:
                c._connect()


class FakeClient:
    def __init__(self, broker, client_id):
        self.broker, self.client_id = broker, client_id
        self.connected, self.wants = False, False
        self.subs: list[str] = []
        self.will = None
        self.credentials = None
        self.refuse = None  # a reason code to refuse with (wrong password)
        self.on_connect = self.on_disconnect = self.on_message = self.on_subscribe = None

    def username_pw_set(self, user, password=None):
        self.credentials = (user, password)

    def tls_set(self, **kw):
        pass

    def reconnect_delay_set(self, **kw):
        pass

    def max_queued_messages_set(self, n):
        pass

    def will_set(self, topic, payload, qos=0, retain=False):
        self.will = (topic, payload, retain)

    def connect_async(self, host, port, keepalive=60):
        self.wants = True

    def loop_start(self):
        if self.broker.up:
            self._connect()

    def _connect(self):
        if self.refuse is not None:
            self.on_connect(self, None, {}, self.refuse, None)
            return
        self.connected = True
        self.on_connect(self, None, {}, 0, None)

    def loop_stop(self):
        pass

    def disconnect(self):
        self.wants = False
        self.connected = False

    def subscribe(self, topics):
        codes = []
        for t, qos in topics:
            if t in self.broker.deny:  # the broker's ACL refuses it (a SUBACK failure, 0x80)
                codes.append(0x80)
                continue
            codes.append(qos)
            self.subs.append(t)
            for rt, payload in list(self.broker.retained.items()):
                if matches(t, rt):
                    self.on_message(self, None, Msg(rt, payload, True))
        if self.on_subscribe is not None:
            self.on_subscribe(self, None, 1, codes, None)

    def publish(self, topic, payload, qos=0, retain=False):
        self.broker.route(self, topic, payload, retain)
        return Info()
