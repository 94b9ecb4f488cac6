"""The game clock on the live page (issue 34, part 1): in the snapshot as it stands, the running
one counted down; paused and resumed by the admin only (CSRF); the time control chosen at new
game; the clock's words sent to the page and said in French."""

from __future__ import annotations

import re
from pathlib import Path

from decisions.clock import Clocks
from tableref.clock_config import ClockSettings
from tableref.i18n import catalog
from web.clock import ClockDesk
from web.i18n import SCRIPT_MESSAGES
from webhelp import LAN, admin_client, csrf, make_service, move, state

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"


def test_the_snapshot_has_the_times_as_they_stand():
    now = [10.0]
    desk = ClockDesk(lambda: now[0])
    assert desk.to_dict() is None
    assert desk.fold(Clocks(1, 0, "5+3", {"south": 300_000, "north": 300_000}, "south"))
    now[0] = 12.5
    shown = desk.to_dict()
    assert shown["times"] == {"south": 297_500, "north": 300_000} and shown["running"] == "south"
    desk.fold(Clocks(1, 0, "5+3", {"south": 297_500, "north": 300_000}, "south", paused=True))
    now[0] = 99.0
    assert desk.to_dict()["times"]["south"] == 297_500  # paused: it stands


def test_the_clock_on_the_page_paused_by_the_admin_and_chosen_at_new_game(tmp_path):
    svc = make_service(tmp_path, clock=ClockSettings("5+3"))
    try:
        watcher = svc.app.test_client()
        c = state(watcher)["clock"]
        assert c["control"] == "5+3" and c["running"] == "south" and c["times"]["north"] == 300_000
        r = watcher.post("/api/clock", json={"action": "pause"}, headers={"X-CSRF-Token": csrf(watcher)},
                         environ_base=LAN)
        assert r.status_code == 403  # a watcher cannot stop the clock
        client, post = admin_client(svc)
        assert post("/api/clock", {"action": "stop"}).status_code == 400
        assert post("/api/clock", {"action": "pause"}).status_code == 202
        assert state(client)["clock"]["paused"]
        assert post("/api/clock", {"action": "resume"}).status_code == 202
        assert not state(client)["clock"]["paused"]
        move(post, "a1", "a2")
        c = state(client)["clock"]
        assert c["running"] == "north" and 0 < c["times"]["south"] <= 303_000
        replay = client.get(f"/api/journal/{state(client)['game_id']}").get_json()  # the replay page's times
        assert replay["clock"] == "5+3" and replay["steps"][1]["clock"]["north"] == 300_000
        assert replay["steps"][0].get("clock") is None
        assert "clock" not in [r["kind"] for r in state(client)["recent"]]  # shown large, not logged
        assert post("/api/new-game", {"game": "gyges", "setup": "default", "clock": "5x"}).status_code == 400
        assert post("/api/new-game", {"game": "gyges", "setup": "default", "clock": "1d5"}).status_code == 202
        c = state(client)["clock"]
        assert c["control"] == "1d5" and c["times"]["north"] == 60_000
        assert post("/api/new-game", {"game": "gyges", "setup": "default", "clock": "off"}).status_code == 202
        assert state(client)["clock"] is None
    finally:
        svc.close()


def test_the_clocks_words_are_sent_to_the_page_and_said_in_french():
    fr = catalog("fr")
    text = (STATIC / "clock.js").read_text(encoding="utf-8")
    found = re.findall(r"\bt\(\s*\"([^\"]+)\"", text)
    assert found
    for literal in found:
        assert literal in SCRIPT_MESSAGES, literal
        assert fr.messages((literal,)).get(literal, literal) != literal, literal
