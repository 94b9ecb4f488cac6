"""A first lesson on the live page's API (issue 31, item 3): started by the admin (CSRF), the
simulated board set up for it, each step in the snapshot with its moves to draw and its words in
French; a wrong board refused with the reason, the step said again; stopped."""

from __future__ import annotations

import re
from pathlib import Path

from rules.lessons import lesson
from tableref.i18n import catalog
from web.i18n import SCRIPT_MESSAGES
from webhelp import LAN, admin_client, csrf, make_service, state

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"


def test_a_lesson_started_from_the_page_shows_each_step_and_refuses_a_wrong_one(tmp_path):
    svc = make_service(tmp_path)
    try:
        watcher = svc.app.test_client()
        r = watcher.post("/api/lesson", json={"game": "gyges"}, headers={"X-CSRF-Token": csrf(watcher)},
                         environ_base=LAN)
        assert r.status_code == 403
        client, post = admin_client(svc)
        assert client.get("/api/lesson").get_json() == {"games": ["gyges", "anacund", "annihilation", "drift",
                                                                  "annelids"]}
        assert post("/api/lesson", {"game": "chess"}).status_code == 400
        assert post("/api/lesson", {"game": "gyges"}).status_code == 202
        s = state(client)
        l = s["lesson"]
        assert l["number"] == 2 and l["by"] == "you" and l["steps"][0]["move"] == "f1-f2"
        assert l["steps"][0]["lift"] == ["f1"] and l["steps"][0]["place"] == ["f2"]
        assert l["then"] == lesson("gyges").steps[0].then.text
        fr = s["i18n"]["fr"]
        assert fr[l["do"]].startswith("Avancez l'anneau simple de f1")
        assert fr[l["then"]].startswith("Le plateau est prêt")
        post("/api/sim/move", {"space": "a1", "to": "a2"})  # legal, but not this step's
        s = state(client)
        assert s["board_status"]["kind"] == "illegal" and s["lesson"]["repeated"]
        assert s["i18n"]["fr"][s["lesson"]["wrong"]].startswith("a1-a2 est un coup légal")
        post("/api/sim/move", {"space": "a2", "to": "a1"})
        post("/api/sim/move", {"space": "f1", "to": "f2"})
        s = state(client)
        assert s["moves"] == ["f1-f2"] and s["lesson"]["by"] == "lesson" and s["lesson"]["steps"][0]["move"] == "a6-a5"
        assert post("/api/lesson/stop", {}).status_code == 202
        s = state(client)
        assert s["lesson"]["finished"] and s["lesson"]["stopped"]
    finally:
        svc.close()


def test_the_lesson_cards_words_are_sent_to_the_page_and_said_in_french():
    fr = catalog("fr")
    text = (STATIC / "lesson.js").read_text(encoding="utf-8")
    for literal in re.findall(r"\bt\(\s*\"([^\"]+)\"", text):
        assert literal in SCRIPT_MESSAGES, literal
        assert fr.messages((literal,)).get(literal, literal) != literal, literal


def test_the_lessons_log_lines_are_said_in_french(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        post("/api/lesson", {"game": "gyges"})
        s = state(client)
        line = next(r for r in s["recent"] if r["kind"] == "lesson_step")
        assert line["text"].startswith("lesson step 2/12: Move the single ring on f1")
        assert s["i18n"]["fr"][line["text"]].startswith("étape de leçon 2/12 : Avancez l'anneau simple de f1")
        post("/api/lesson/stop", {})
        s = state(client)
        line = next(r for r in s["recent"] if r["kind"] == "lesson_done")
        assert s["i18n"]["fr"][line["text"]] == "leçon arrêtée"
    finally:
        svc.close()
