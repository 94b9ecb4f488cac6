"""The ``[remote]`` table (read by ``tableref.config``): the broker both tables use, and this
table's name on it. The broker keys are the club hub's (``tableref.hub.settings``)::

    [remote]
    broker = "mqtts://friends.example.org:8883"
    table = "table-a"                          # this table's name: 1-40 letters, digits, - or _
    username = "table-a"                       # default: the table's name
    password_file = "/etc/tableref/remote-password"
    ca_file = "/etc/tableref/friends-ca.crt"   # mqtts only; default: the system's CAs
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..hub.protocol import check_board_name
from ..hub.settings import BrokerConfig, read_broker


@dataclass(frozen=True)
class RemoteConfig:
    broker: BrokerConfig
    table: str


def read_remote(reader: Any, t: Any | None) -> RemoteConfig | None:
    """The optional ``[remote]`` table (None: this table plays no other)."""
    if t is None:
        return None
    name = t.get("table", str, required=True, expect="this table's name, such as \"table-a\"")
    try:
        check_board_name(name, "table name")
    except ValueError as exc:
        raise reader.error(t.path("table"), str(exc)) from None
    broker = read_broker(reader, t, default_user=name)
    t.done()
    return RemoteConfig(broker, name)
