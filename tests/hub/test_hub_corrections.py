"""The arbiter corrects a game at the hub, with a real Mosquitto: a result overruled, the moves
from one move on replaced (each checked by the rules), behind the PIN and CSRF; audited; the
standings and downloads follow; the board's own events are kept; all of it survives a restart."""

from __future__ import annotations

import io
import json
import zipfile

from hub_web import create_hub_app
from rules import get_game
from tableref.records import parse_record
from web.auth import AdminStore

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import hub_games, journal_games, make_hub, make_tables, wait_all_in

pytestmark = needs_mosquitto


def _admin(app):
    c = app.test_client()
    token = c.get("/api/session").get_json()["csrf"]
    h = {"X-CSRF-Token": token}
    return c, h


def _other_line(record: dict, ply: int) -> list[str]:
    """A legal move at ``ply`` other than the board's, and a legal one after it."""
    rules = get_game(record["game"])
    state = rules.from_dict(record["start"])
    for text in record["moves"][:ply]:
        state = state.apply(state.parse_move(text))
    move = next(m for m in state.legal_moves() if state.move_text(m) != record["moves"][ply])
    after = state.apply(move)
    return [state.move_text(move), after.move_text(after.legal_moves()[0])]


def test_the_arbiter_corrects_a_result_and_the_moves(broker, tmp_path):
    admin = AdminStore(tmp_path / "admin.json", method="scrypt:1024:8:1")
    hub = make_hub(broker.port, tmp_path / "hub")
    tables = make_tables(1, broker.port, tmp_path / "boards")
    t = tables[0]
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub to connect")
        hub.store.add_round()
        hub.store.set_pairing(1, t.name, {"A": "Ada", "B": "Bo"})
        assert hub.push_pairing(1, t.name, {"A": "Ada", "B": "Bo"})
        wait_for(lambda: t.publisher.pairing is not None, 10, "the pairing")
        t.play_game()
        wait_all_in(hub, tables)
        board_events = hub_games(hub, t.name)[1]["events"]
        own = hub.store.export(t.name, 1)
        app = create_hub_app(hub, admin)
        c, h = _admin(app)
        url = f"/api/games/{t.name}/1/correct"
        draw = {"kind": "result", "winner": None, "reason": "agreed before the last move", "by": "Arbiter Kim"}
        assert c.post(url, json=draw).status_code == 403  # no CSRF token
        assert c.post(url, json=draw, headers=h).status_code == 403  # no PIN
        assert c.post("/api/pin", json={"pin": "2468"}, headers=h).status_code == 200
        # Bad corrections: one clear error each, nothing stored.
        assert "by" in c.post(url, json={**draw, "by": ""}, headers=h).get_json()["error"]
        assert "winner" in c.post(url, json={**draw, "winner": "Z"}, headers=h).get_json()["error"]
        bad = c.post(url, json={"kind": "moves", "from": 3, "moves": ["no-such-move"], "by": "Kim"}, headers=h)
        assert bad.status_code == 400 and "move 3 'no-such-move'" in bad.get_json()["error"]
        assert c.post(f"/api/games/{t.name}/9/correct", json=draw, headers=h).status_code == 404
        assert hub.store.corrections() == []

        # 1. The result overruled: a draw.
        r = c.post(url, json=draw, headers=h)
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["record"]["outcome"]["winner"] is None
        lines = {l["name"]: l for l in c.get("/api/standings").get_json()["standings"]}
        assert lines["Ada"]["draws"] == 1 and lines["Bo"]["draws"] == 1
        text = c.get(f"/api/games/{t.name}/1/record").get_data(as_text=True)
        assert "# corrected by the arbiter Arbiter Kim" in text and "a draw (agreed before the last move)" in text
        assert parse_record(text).moves == tuple(own["moves"])  # the moves untouched by a result

        # 2. The moves from move 3 on replaced by another legal line, checked by the rules.
        line = _other_line(own, 2)
        r = c.post(url, json={"kind": "moves", "from": 3, "moves": " ".join(line), "by": "Kim", "note": "misread"},
                   headers=h)
        assert r.status_code == 200, r.get_json()
        record = r.get_json()["record"]
        assert record["moves"] == own["moves"][:2] + line
        assert record["board_record"]["moves"] == own["moves"]
        # The result correction made before still stands over the corrected moves.
        assert record["outcome"]["winner"] is None
        fix = record["corrections"][-1]
        assert fix["replaced"]["moves"] == own["moves"][2:] and fix["by"] == "Kim"
        replay = c.get(f"/api/games/{t.name}/1").get_json()
        assert [s["move"] for s in replay["steps"]] == record["moves"]
        assert parse_record(c.get(f"/api/games/{t.name}/1/record").get_data(as_text=True)).moves == tuple(record["moves"])
        row = hub.store.games(t.name)[0]
        assert row.corrected and row.moves == 4
        # The board's own events are kept as they came, and still equal its journal.
        assert hub_games(hub, t.name)[1]["events"] == board_events == journal_games(t)[1]["events"]
        # Back to the record's own result: the corrected moves' (the game is not over after them).
        assert c.post(url, json={"kind": "result", "winner": "clear", "by": "Kim"}, headers=h).status_code == 200
        assert hub.store.export(t.name, 1)["outcome"] is None
        assert all(l["played"] == 0 for l in c.get("/api/standings").get_json()["standings"])
        audit = c.get("/api/corrections").get_json()["corrections"]
        assert [a["kind"] for a in audit] == ["result", "moves", "result"]
        assert all(a["address"] == "127.0.0.1" and a["at"] > 0 for a in audit)
        z = zipfile.ZipFile(io.BytesIO(c.get("/api/event.zip").data))
        assert json.loads(z.read(f"{t.name}/game-1.json"))["moves"] == record["moves"]
        before = hub.store.export(t.name, 1)
    finally:
        t.stop()
        hub.stop()

    # A restart: the corrections are in the store.
    hub = make_hub(broker.port, tmp_path / "hub")
    try:
        assert hub.store.export(t.name, 1) == before
        assert [c.kind for c in hub.store.corrections(t.name, 1)] == ["result", "moves", "result"]
        assert create_hub_app(hub, admin).test_client().get("/api/corrections").status_code == 403
    finally:
        hub.stop()
