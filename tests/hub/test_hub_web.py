"""The club page's app: watching is open; the arbiter's controls need the PIN and the CSRF
token; pairings by JSON or CSV, pushed to each board's command topic (retained); results by
hand; standings; record downloads and the event's zip. The hub's broker is the in-memory fake."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from tableref.hub.protocol import decode
from tableref.records import parse_record

from mosquittohelp import wait_for
from fakes import FakeBroker
from hubhelp import fake_club


@pytest.fixture
def club(tmp_path):
    fb = FakeBroker()
    hub, app, tables = fake_club(tmp_path, fb)
    yield fb, hub, app, tables
    for t in tables:
        t.stop()
    hub.stop()


def _csrf(c):
    return c.get("/api/session").get_json()["csrf"]


def test_pages_are_open_to_watch(club):
    fb, hub, app, tables = club
    c = app.test_client()
    for url in ("/", "/standings", "/archive", "/arbiter", "/table/table-01", "/api/club", "/api/standings",
                "/api/games", "/api/board/anacund", "/static/style.css", "/hub-static/hub.js"):
        assert c.get(url).status_code == 200, url
    assert c.get("/table/not%20a%20board").status_code == 404


def test_arbiter_controls_need_csrf_and_the_pin(club):
    fb, hub, app, tables = club
    c = app.test_client()
    assert c.post("/api/rounds").status_code == 403  # no CSRF token
    token = _csrf(c)
    r = c.post("/api/rounds", headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and "PIN" in r.get_json()["error"]
    assert c.post("/api/pin", json={"pin": "2468"}, headers={"X-CSRF-Token": token}).status_code == 200
    assert c.post("/api/rounds", headers={"X-CSRF-Token": token}).get_json() == {"round": 1}


def test_a_round_from_csv_pushed_played_and_scored(club):
    fb, hub, app, tables = club
    c = app.test_client()
    token = _csrf(c)
    h = {"X-CSRF-Token": token}
    c.post("/api/pin", json={"pin": "2468"}, headers=h)
    c.post("/api/rounds", headers=h)
    bad = c.post("/api/rounds/1/pairings", json={"csv": "table,A,B\nx,y,z"}, headers=h)
    assert bad.status_code == 400 and "first line" in bad.get_json()["error"]
    csv = "board,A,B\ntable-01,Ada,Bo\ntable-02,Cy,Di\n"
    r = c.post("/api/rounds/1/pairings", data={"csv": (io.BytesIO(csv.encode()), "round1.csv")}, headers=h,
               content_type="multipart/form-data")
    assert r.status_code == 200 and len(r.get_json()["pairings"]) == 2
    assert c.post("/api/rounds/1/push", headers=h).get_json()["pushed"] == ["table-01", "table-02"]
    pushed = decode("tableref/v1/table-01/command", fb.retained["tableref/v1/table-01/command"])[1]
    assert pushed.players == {"A": "Ada", "B": "Bo"} and pushed.round == 1
    wait_for(lambda: all(t.publisher.pairing is not None for t in tables), 5, "the boards to get the pairing")
    for t in tables:
        t.play_game()
    wait_for(lambda: all(g.finished for g in hub.store.games()) and len(hub.store.games()) == 2, 10, "both games")
    assert hub.store.games("table-01")[0].players == {"A": "Ada", "B": "Bo"}  # the board stored the names
    data = c.get("/api/standings").get_json()
    assert sorted(l["name"] for l in data["standings"]) == ["Ada", "Bo", "Cy", "Di"]
    assert all(r["outcome"] is not None for r in data["results"])
    # The arbiter overrules table-02: a draw.
    r = c.post("/api/rounds/1/result", json={"board": "table-02", "winner": None}, headers=h)
    assert r.status_code == 200
    lines = {l["name"]: l for l in c.get("/api/standings").get_json()["standings"]}
    assert lines["Cy"]["draws"] == 1 and lines["Di"]["draws"] == 1
    assert c.post("/api/rounds/1/result", json={"board": "table-02", "winner": "Z"}, headers=h).status_code == 400
    # Records: the text record replays through the rules; the zip has every game.
    text = c.get("/api/games/table-01/1/record").get_data(as_text=True)
    assert parse_record(text).moves == tuple(tables[0].referee.record.moves)
    replay = c.get("/api/games/table-01/1").get_json()
    assert len(replay["steps"]) == tables[0].referee.record.next_seq
    z = zipfile.ZipFile(io.BytesIO(c.get("/api/event.zip").data))
    assert {"table-01/game-1.txt", "table-02/game-1.json", "standings.json"} <= set(z.namelist())
    assert json.loads(z.read("table-02/game-1.json"))["players"] == {"A": "Cy", "B": "Di"}
