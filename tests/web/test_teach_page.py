"""Teaching on the live page's API (issue 31, items 1 and 4): a piece picked up on the simulated
board shows where it may go in the snapshot (never a log line), put back it goes; the admin's
toggle (CSRF) turns it off for the run; "show me" lists a piece's moves and where a placement may
go, refused while teaching is off."""

from __future__ import annotations

from rules import get_game
from webhelp import LAN, admin_client, csrf, make_service, state


def gyges_ends(space):
    start = get_game("gyges").default_setup()
    return sorted({m.end for m in start.legal_moves() if m.start == space})


def test_a_picked_up_ring_shows_where_it_may_go_and_putting_it_back_clears_it(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        assert state(client)["teach"] == {"on": True, "lifted": None}
        post("/api/sim/take", {"space": "c1"})
        s = state(client)
        lifted = s["teach"]["lifted"]
        assert lifted["space"] == "c1" and lifted["destinations"] == gyges_ends("c1")
        assert lifted["kind"] == "lifted" and s["board_status"]["kind"] == "partial"
        assert "lifted" not in [r["kind"] for r in s["recent"]]  # shown on the board, not in the log
        post("/api/sim/put", {"space": "c1"})
        s = state(client)
        assert s["teach"]["lifted"] is None and s["board_status"] == {"kind": "ok"}
    finally:
        svc.close()


def test_the_toggle_needs_the_admin_and_the_csrf_token_and_turns_teaching_off(tmp_path):
    svc = make_service(tmp_path)
    try:
        watcher = svc.app.test_client()
        r = watcher.post("/api/teach", json={"on": False}, headers={"X-CSRF-Token": csrf(watcher)},
                         environ_base=LAN)
        assert r.status_code == 403
        client, post = admin_client(svc)
        assert client.post("/api/teach", json={"on": False}).status_code in (400, 403)  # no CSRF token
        assert post("/api/teach", {"on": "no"}).status_code == 400
        assert post("/api/teach", {"on": False}).get_json() == {"on": False}
        assert state(client)["teach"]["on"] is False and svc.referee.teach is False
        post("/api/sim/take", {"space": "c1"})
        assert state(client)["teach"]["lifted"] is None
        assert client.get("/api/teach/moves?space=a1").status_code == 409
        post("/api/sim/put", {"space": "c1"})
        post("/api/teach", {"on": True})
        assert svc.referee.teach is True
    finally:
        svc.close()


def test_off_by_default_on_a_clubs_table(tmp_path):
    svc = make_service(tmp_path, teach=False)
    try:
        client, post = admin_client(svc)
        assert state(client)["teach"]["on"] is False
        post("/api/sim/take", {"space": "c1"})
        assert state(client)["teach"]["lifted"] is None
    finally:
        svc.close()


def test_show_me_lists_a_pieces_moves_in_words_and_placements(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        shown = client.get("/api/teach/moves?space=a1").get_json()
        assert shown["destinations"] == gyges_ends("a1") and shown["count"] == len(shown["moves"])
        assert ("b1", "bounce") in {(m["space"], m["kind"]) for m in shown["marks"]}
        assert shown["moves"][0]["description"].startswith("South")
        client.set_cookie("tableref_lang", "fr")
        assert client.get("/api/teach/moves?space=a1").get_json()["moves"][0]["description"].startswith("Sud")
        assert client.get("/api/teach/moves").get_json()["destinations"] == []  # Gygès: no placement in play
        assert post("/api/new-game", {"game": "anacund", "setup": "default"}).status_code < 300
        placed = client.get("/api/teach/moves").get_json()
        assert placed["destinations"] and placed["space"] == ""
    finally:
        svc.close()


def test_the_cards_words_are_sent_to_the_page_and_said_in_french():
    import re
    from pathlib import Path

    from tableref.i18n import catalog
    from web.i18n import SCRIPT_MESSAGES

    text = (Path(__file__).resolve().parents[2] / "web" / "static" / "teach.js").read_text(encoding="utf-8")
    literals = re.findall(r"\bt\(\s*\"([^\"]+)\"", text)
    assert literals and all(s in SCRIPT_MESSAGES for s in literals)
    fr = catalog("fr")
    assert not [s for s in literals if fr.messages((s,)).get(s, s) == s]
    assert not re.findall(r"toast\(\s*[\"'`]", text)
