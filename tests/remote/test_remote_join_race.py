"""The joining table asks again until the welcome comes; a Join that arrives after the host
accepted the code but before the new game is in the host's journal is not a wrong code.

It was refused: the joining table then gave up asking and dropped the welcome as "a game this
table did not ask for", and the match never began (tests/remote/test_remote_services.py timed
out on "the game on both" once in a full run)."""

from __future__ import annotations

from types import SimpleNamespace

from tableref.hub.settings import BrokerConfig
from tableref.remote.client import RemoteLink
from tableref.remote.settings import RemoteConfig
from tableref.remote.wire import Join, Refused, decode


class Published:
    def __init__(self) -> None:
        self.sent = []

    def publish(self, topic, payload, qos=0):
        self.sent.append(decode(topic, payload if isinstance(payload, bytes) else payload.encode())[2])


def test_a_join_asked_again_before_the_game_is_journalled_is_not_refused(tmp_path):
    started = []
    link = RemoteLink(RemoteConfig(BrokerConfig("127.0.0.1", 1883), "table-a"), tmp_path / "j.sqlite3",
                      submit=lambda cmd: None, start_game=lambda *a: started.append(a))
    link._client = wire = Published()
    code = link.invite(("north",), "gyges", {}, "default", None).split()[1]
    not_yet = SimpleNamespace(has_match=lambda match: False, current=lambda: None)  # the journal lags
    link._on_join(not_yet, "table-b", Join(code))
    link._on_join(not_yet, "table-b", Join(code))  # asked again: the welcome is on its way
    assert len(started) == 1
    assert not [m for m in wire.sent if isinstance(m, Refused)], wire.sent
    link._on_join(not_yet, "table-c", Join(code))  # another table with the same code is refused
    assert [m for m in wire.sent if isinstance(m, Refused)]
