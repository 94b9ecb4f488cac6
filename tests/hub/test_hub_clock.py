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


def test_the_arbiter_sets_a_rounds_time_control_and_the_board_takes_it(tmp_path):
    from hub_web import create_hub_app
    from web.auth import AdminStore

    fb = FakeBroker()
    hub = Hub(HubServerConfig(data_dir=tmp_path / "hub", event="Test night"), client_factory=fb.factory).start()
    wait_for(lambda: hub.link == "connected", 5, "the hub")
    app = create_hub_app(hub, AdminStore(tmp_path / "admin.json", method="scrypt:1024:8:1"))
    t = SimTable("table-01", tmp_path / "t.sqlite3", BrokerConfig(), client_factory=fb.factory, poll=0.05).start()
    controls: list[str] = []
    t.publisher.on_control = controls.append  # the service submits SetTimeControl (tableref/serve.py)
    try:
        c = app.test_client()
        h = {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"]}
        c.post("/api/pin", json={"pin": "2468"}, headers=h)
        assert c.post("/api/rounds", json={"clock": "25+x"}, headers=h).status_code == 400
        assert c.post("/api/rounds", json={"clock": "25+10"}, headers=h).get_json() == {"round": 1, "clock": "25+10"}
        c.post("/api/rounds/1/pairings", json={"csv": "board,A,B\ntable-01,Ada,Bo\n"}, headers=h)
        assert c.post("/api/rounds/1/push", headers=h).status_code == 200
        pushed = decode("tableref/v1/table-01/command", fb.retained["tableref/v1/table-01/command"])[1]
        assert pushed.control == "25+10"
        wait_for(lambda: controls == ["25+10"], 5, "the round's time control at the board")
    finally:
        t.stop()
        hub.stop()


def test_a_game_not_begun_takes_the_rounds_control_at_once(tmp_path):
    from decisions.clock import SetTimeControl
    from tableref.journal import Journal
    from tableref.referee import Referee

    with Journal(tmp_path / "j.sqlite3") as j:
        ref = Referee.start(j, "gyges", setup="default")
        ref.setup_clock(ClockSettings("5+3"), 10.0)
        out = ref.handle(SetTimeControl("25+10"))
        assert [d.kind for d in out] == ["clock"] and out[0].control == "25+10"
        assert ref.handle(SetTimeControl("x"))[0].kind == "rejected"
