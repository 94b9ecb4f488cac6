"""Every table's clocks live on the club hub (issue 34, part 1): the board's live snapshot carries
its clocks; the hub's table view has them for the club page; a live message without a clock reads
as before."""

from __future__ import annotations

import time

from tableref.clock_config import ClockSettings
from tableref.hub.hub import Hub
from tableref.hub.protocol import Live, decode, encode
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.hub.simulate import SimTable

from mosquittohelp import wait_for
from fakes import FakeBroker

LIVE = "tableref/v1/table-01/live"


def test_the_clocks_reach_the_hub_with_the_live_board(tmp_path):
    fb = FakeBroker()
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub"), client_factory=fb.factory).start()
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(), client_factory=fb.factory, poll=0.05).start()
    try:
        t.referee.setup_clock(ClockSettings("5+3"), time.monotonic())
        t.step()
        live = lambda: decode(LIVE, fb.retained[LIVE])[1]  # noqa: E731
        wait_for(lambda: LIVE in fb.retained and live().ply == 1 and live().clock is not None, 5,
                 "the live snapshot with the clocks after the first move")
        clock = live().clock
        assert clock["control"] == "5+3" and set(clock["times"]) == {"A", "B"} and clock["running"] in ("A", "B")
        table = lambda: next((b for b in hub.snapshot()["boards"] if b["name"] == "table-01"), {})  # noqa: E731
        wait_for(lambda: table().get("clock") is not None, 5, "the hub's table view")
        assert table()["clock"]["control"] == "5+3"
    finally:
        t.stop()
        hub.stop()


def test_a_live_message_without_a_clock_is_as_before():
    plain = Live(1, "gyges", 0, {}, "ok", None, None, {}, 1.0)
    assert b"clock" not in encode(plain)
    assert decode(LIVE, encode(plain))[1] == plain
