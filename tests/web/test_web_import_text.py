"""The page's import takes the text record `tableref export` prints as well as the JSON one it
downloads (issue 33, item 5), told apart by content; a bad text record is refused naming its line."""

from __future__ import annotations

import io

from tableref.records import export_text
from tableref.journal import Journal
from webhelp import admin_client, move


def _upload(client, data: bytes, name: str):
    token = client.get("/api/session").get_json()["csrf"]
    return client.post("/api/journal/import", headers={"X-CSRF-Token": token},
                       data={"record": (io.BytesIO(data), name)})


def test_the_page_imports_the_text_record_of_tableref_export(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    with Journal(service.journal_path) as j:
        text = export_text(j, 1)
    r = _upload(client, text.encode(), "game-1.txt")
    assert r.status_code == 201 and r.get_json() == {"id": 2}
    assert client.get("/api/journal/2").get_json()["moves"] == ["b1-b3"]
    token = client.get("/api/session").get_json()["csrf"]
    r = client.post("/api/journal/import", headers={"X-CSRF-Token": token, "Content-Type": "text/plain"},
                    data=text.encode())
    assert r.status_code == 201 and r.get_json() == {"id": 3}
    assert state_game(client) == 1  # the live game is untouched


def test_a_bad_text_record_is_refused_naming_its_line_and_writes_nothing(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    with Journal(service.journal_path) as j:
        text = export_text(j, 1)
    r = _upload(client, text.replace("1. b1-b3", "1. b1-b9").encode(), "game-1.txt")
    assert r.status_code == 400 and r.get_json()["error"].startswith("game-1.txt:")
    assert "b1-b9" in r.get_json()["error"]
    assert [g["id"] for g in client.get("/api/journal").get_json()] == [1]


def state_game(client):
    return client.get("/api/state").get_json()["game_id"]
