"""Every route of the JSON API and the pages, through a whole service with no threads."""

from __future__ import annotations

import io
import json

import pytest

from rules import game_names
from webhelp import admin_client, make_service, move, state


def test_pages_are_plain_html_with_a_strict_content_policy(service):
    client = service.app.test_client()
    for path, marker in (("/", b'id="simboard"'), ("/replay", b'id="game-rows"'), ("/replay/3", b'data-game-id="3"')):
        r = client.get(path)
        assert r.status_code == 200 and marker in r.data
        assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    for asset in ("style.css", "board.js", "live.js", "replay.js", "common.js", "favicon.svg"):
        assert client.get(f"/static/{asset}").status_code == 200
    assert client.get("/replay/0").status_code == 404


def test_state_is_the_live_table(service):
    s = state(service.app.test_client())
    assert (s["game"], s["title"], s["to_move"], s["ply"], s["phase"]) == ("gyges", "Gygès", "south", 0, "play")
    assert s["view"]["a1"] == ["1"] and s["board_status"] == {"kind": "ok"}
    assert s["sim"]["view"] == s["view"] and s["sim"]["palette"] == ["1", "2", "3"]
    assert s["source"]["status"] == "steady" and s["event_id"].endswith(str(service.table.broadcaster.last_seq))


def test_games_lists_every_registered_game_with_its_options(service):
    games = service.app.test_client().get("/api/games").get_json()
    assert [g["name"] for g in games] == list(game_names())
    gyges = next(g for g in games if g["name"] == "gyges")
    assert gyges["options"]["variant"]["default"] == "standard" and gyges["players"] == ["south", "north"]


@pytest.mark.parametrize("name", game_names())
def test_board_is_the_board_file_plus_drawing_geometry(service, name):
    b = service.app.test_client().get(f"/api/board/{name}").get_json()
    assert b["name"] == name and b["spaces"] and b["cell_mm"] > 0 and len(b["viewbox"]) == 4
    x0, y0, w, h = b["viewbox"]
    for s in b["spaces"]:  # everything is inside the drawing
        assert x0 <= s["x"] <= x0 + w and y0 <= s["y"] <= y0 + h


def test_edge_boards_get_segments_and_unknown_boards_404(service):
    client = service.app.test_client()
    annelids = client.get("/api/board/annelids").get_json()
    assert len(annelids["segments"]) == len(annelids["spaces"])
    assert client.get("/api/board/gyges").get_json()["segments"] == {}
    r = client.get("/api/board/chess")
    assert r.status_code == 404 and "unknown game 'chess'" in r.get_json()["error"]


def test_a_move_on_the_simulated_board_is_accepted_and_highlighted(service):
    client, post = admin_client(service)
    r = post("/api/sim/take", {"space": "b1"})
    assert r.get_json()["sim"]["hand"] == ["2"]
    s = state(client)
    assert s["board_status"]["kind"] == "partial" and "b1-b3" in s["board_status"]["candidates"]
    post("/api/sim/put", {"space": "b3"})
    s = state(client)
    assert s["moves"] == ["b1-b3"] and s["to_move"] == "north"
    assert s["last"]["kind"] == "accepted" and s["last"]["highlight"] == ["b1", "b3"]
    assert s["last"]["player"] == "south" and s["board_status"] == {"kind": "ok"}
    assert [r["kind"] for r in s["recent"]][:2] == ["accepted", "partial"]


def test_an_illegal_board_says_what_to_put_back_with_arrows(service):
    client, post = admin_client(service)
    move(post, "a1", "a5")
    st = state(client)["board_status"]
    assert st["kind"] == "illegal"
    assert st["arrows"] == [{"from": "a5", "to": "a1", "token": "1"}] and st["put"] == [] and st["take"] == []
    move(post, "a5", "a1")
    s = state(client)
    assert s["board_status"] == {"kind": "ok"} and s["recent"][0]["kind"] == "restored"


def test_a_piece_from_the_box_is_a_piece_to_take_off(service):
    client, post = admin_client(service)
    post("/api/sim/put", {"space": "c4", "token": "1"})
    st = state(client)["board_status"]
    assert st["kind"] == "illegal" and st["take"] == [{"space": "c4", "token": "1"}]
    post("/api/sim/take", {"space": "c4"})
    post("/api/sim/discard", {})
    assert state(client)["board_status"]["kind"] == "ok"


def test_ambiguous_move_is_offered_as_choices_then_confirmed(occupancy_service):
    client, post = admin_client(occupancy_service)
    move(post, "b1", "b3")
    move(post, "a6", "a5")
    s = state(client)
    assert s["board_status"]["kind"] == "ambiguous"
    texts = [c["text"] for c in s["question"]]
    assert texts == ["a6-a5", "a6-b6/a5"]
    assert s["question"][1]["spaces"] == ["a5", "a6", "b6"]
    assert post("/api/confirm", {"number": 2}).status_code == 202
    s = state(client)
    assert s["moves"] == ["b1-b3", "a6-b6/a5"] and s["last"]["confirmed"] is True and s["question"] == []
    assert s["view"]["a5"] == ["2"]  # the referee's position, read as kind


def test_confirm_checks_its_number_and_the_referee_refuses_when_nothing_is_asked(service):
    client, post = admin_client(service)
    for bad in ({}, {"number": "1"}, {"number": 0}, {"number": True}):
        assert post("/api/confirm", bad).status_code == 400
    assert post("/api/confirm", {"number": 1}).status_code == 202
    assert state(client)["notice"]["text"] == "confirm 1 refused: no question is open"


def test_undo_takes_back_and_holds_the_board_until_it_is_put_back(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    assert post("/api/undo").status_code == 202
    s = state(client)
    assert s["moves"] == [] and s["last"]["kind"] == "taken_back" and s["last"]["highlight"] == ["b1", "b3"]
    assert s["board_status"]["kind"] == "illegal"
    assert s["board_status"]["arrows"] == [{"from": "b3", "to": "b1", "token": "2"}]
    move(post, "b3", "b1")
    assert state(client)["board_status"] == {"kind": "ok"}


def test_declare_a_move_the_board_cannot_show(tmp_path):
    svc = make_service(tmp_path, game="annelids")
    try:
        client, post = admin_client(svc)
        s = state(client)
        assert s["declarable"] == [{"move": "resign", "description": "Blue resigns", "why": "made off the board"}]
        assert post("/api/declare", {"move": "resign"}).status_code == 202
        s = state(client)
        assert s["outcome"]["winner"] == "green" and s["last"]["kind"] == "game_over"
        assert post("/api/declare", {"move": ""}).status_code == 400
    finally:
        svc.close()


def test_declare_refuses_a_move_the_board_can_show(service):
    client, post = admin_client(service)
    post("/api/declare", {"move": "b1-b3"})
    assert state(client)["notice"]["text"] == "declare b1-b3 refused: make this move on the board"


def test_new_game_of_another_game_sets_the_simulated_board_up(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    r = post("/api/new-game", {"game": "annihilation", "setup": "default", "options": {"target": "30", "first": ""}})
    assert r.status_code == 202 and r.get_json()["options"]["target"] == 30
    s = state(client)
    assert (s["game"], s["game_id"], s["ply"], s["target"]) == ("annihilation", 2, 0, 30)
    assert s["options"]["target"] == 30 and s["board_status"] == {"kind": "ok"}
    assert s["sim"]["view"]["ex_white"] == ["W0", "W1", "W1", "W2", "W3", "W5", "W8"]
    assert "W8" in s["sim"]["palette"]
    post("/api/sim/take", {"space": "ex_white", "token": "W0"})
    post("/api/sim/put", {"space": "b5"})
    assert state(client)["moves"] == ["0@b5"]


def test_new_game_with_bad_options_is_refused_with_the_reason(service):
    client, post = admin_client(service)
    r = post("/api/new-game", {"game": "gyges", "options": {"colour": "red"}})
    assert r.status_code == 400 and "unknown option 'colour'" in r.get_json()["error"]
    r = post("/api/new-game", {"game": "gyges", "setup": "sideways"})
    assert r.status_code == 400 and "setup must be one of" in r.get_json()["error"]
    r = post("/api/new-game", {"game": "chess"})
    assert r.status_code == 400 and "unknown game" in r.get_json()["error"]
    assert post("/api/new-game", {"options": ["x"]}).status_code == 400
    assert state(client)["game_id"] == 1


def test_simulated_board_edits_are_checked(service):
    client, post = admin_client(service)
    cases = [
        ("take", {"space": "a3"}, 400, "a3 is empty"),
        ("take", {"space": "z9"}, 400, "no space 'z9'"),
        ("put", {"space": "a3"}, 400, "hand is empty"),
        ("put", {"space": "a3", "token": "9"}, 400, "no piece '9'"),
        ("move", {"space": "a1"}, 400, "'to' is needed"),
        ("move", {"space": "a1", "to": "z9"}, 400, "no space 'z9'"),
        ("take", {}, 400, "'space' is needed"),
        ("take", {"space": 3}, 400, "must be a string"),
        ("fly", {}, 404, "unknown simulated-board action"),
    ]
    for action, body, status, message in cases:
        r = post(f"/api/sim/{action}", body)
        assert r.status_code == status and message in r.get_json()["error"], (action, body, r.get_json())
    s = state(client)
    assert s["sim"]["view"] == s["view"] and s["sim"]["hand"] == []  # a failed move put its piece back


def test_hand_over_the_board_hides_it_from_the_referee(service):
    client, post = admin_client(service)
    post("/api/sim/hand_over", {"over": True})
    s = state(client)
    assert s["source"]["status"] == "hand"
    move(post, "b1", "b3")
    assert state(client)["moves"] == []  # nothing is judged under a hand
    post("/api/sim/hand_over", {"over": False})
    s = state(client)
    assert s["moves"] == ["b1-b3"] and s["source"]["status"] == "steady"


def test_reset_sets_the_simulated_board_to_the_game(service):
    client, post = admin_client(service)
    move(post, "a1", "a5")
    post("/api/sim/reset")
    s = state(client)
    assert s["sim"]["view"] == s["view"] and s["board_status"] == {"kind": "ok"}


def test_journal_list_replay_and_record_download(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    move(post, "a6", "a5")
    games = client.get("/api/journal").get_json()
    assert games[0]["id"] == 1 and games[0]["moves"] == 2 and games[0]["status"] == "in progress"
    g = client.get("/api/journal/1").get_json()
    assert g["moves"] == ["b1-b3", "a6-a5"] and len(g["steps"]) == 3
    step = g["steps"][1]
    assert (step["ply"], step["move"], step["player"], step["highlight"]) == (1, "b1-b3", "south", ["b1", "b3"])
    assert step["view"]["b3"] == ["2"] and step["to_move"] == "north"
    assert g["steps"][0]["description"] == "start"
    r = client.get("/api/journal/1/record")
    assert "attachment" in r.headers["Content-Disposition"]
    record = r.get_json()
    assert record["tableref_game"] == 1 and record["moves"] == ["b1-b3", "a6-a5"]
    assert client.get("/api/journal/99").status_code == 404
    assert client.get("/api/journal/99/record").status_code == 404


def test_import_a_record_as_json_or_as_a_file(service):
    client, post = admin_client(service)
    move(post, "b1", "b3")
    record = client.get("/api/journal/1/record").get_json()
    r = post("/api/journal/import", record)
    assert r.status_code == 201 and r.get_json() == {"id": 2}
    token = client.get("/api/session").get_json()["csrf"]
    r = client.post("/api/journal/import", headers={"X-CSRF-Token": token},
                    data={"record": (io.BytesIO(json.dumps(record).encode()), "game.json")})
    assert r.status_code == 201 and r.get_json() == {"id": 3}
    games = {g["id"]: g for g in client.get("/api/journal").get_json()}
    assert games[2]["moves"] == 1 and games[2]["status"] == "abandoned"  # never resumable
    assert client.get("/api/journal/3").get_json()["moves"] == ["b1-b3"]
    assert state(client)["game_id"] == 1  # the live game is untouched


def test_a_bad_record_is_refused_naming_the_fault_and_writes_nothing(service):
    client, post = admin_client(service)
    record = client.get("/api/journal/1/record").get_json()
    bad = [
        ({**record, "moves": ["b1-b3", "a1-a9"]}, "move 2 ('a1-a9')"),
        ({**record, "tableref_game": 7}, "'tableref_game' must be 1"),
        ({**record, "game": "chess"}, "unknown game"),
        ({**record, "moves": "b1-b3"}, "'moves' must be a list"),
        ([1, 2], "expected a JSON object"),
    ]
    for data, message in bad:
        r = post("/api/journal/import", data)
        assert r.status_code == 400 and message in r.get_json()["error"], r.get_json()
    token = client.get("/api/session").get_json()["csrf"]
    r = client.post("/api/journal/import", headers={"X-CSRF-Token": token},
                    data={"record": (io.BytesIO(b"\xff{"), "broken.json")})
    assert r.status_code == 400 and r.get_json()["error"] == "broken.json: not a game record (not UTF-8 text)"
    r = client.post("/api/journal/import", headers={"X-CSRF-Token": token, "Accept-Language": "fr"},
                    data={"record": (io.BytesIO(b"\xff{"), "broken.json")})
    assert r.get_json()["error"] == "broken.json : pas une feuille de partie (pas du texte UTF-8)"  # the page shows it
    assert [g["id"] for g in client.get("/api/journal").get_json()] == [1]


def test_anacund_labels_carry_the_printed_numbers(tmp_path):
    svc = make_service(tmp_path, game="anacund")
    try:
        s = state(svc.app.test_client())
        assert s["labels"]["t1"] == "2" and s["labels"]["t7"] == "1★" and len(s["labels"]) == 36
    finally:
        svc.close()
