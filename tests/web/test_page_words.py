"""The page's words (issue 33): an undo's hand line names the piece as the rules do, a move
part-way is said as a person would, the games list names each game by its title."""

from __future__ import annotations

from pathlib import Path

from webhelp import admin_client, move, state

TEMPLATES = Path(__file__).resolve().parents[2] / "web" / "templates"


def test_an_undo_names_the_piece_to_put_back_in_english_and_french(service):
    client, post = admin_client(service)
    move(post, "c1", "c3")
    assert post("/api/undo").status_code == 202
    snap = state(client)
    assert snap["board_status"]["kind"] == "illegal" and snap["last"]["kind"] == "taken_back"
    assert snap["board_status"]["arrows"] == [{"from": "c3", "to": "c1", "token": "3"}]
    line = "move 3 from c3 back to c1"  # what the page's script writes, then looks up
    assert snap["i18n"]["en"][line] == "move the triple ring from c3 back to c1"
    assert snap["i18n"]["fr"][line] == "ramenez l'anneau triple de c3 en c1"
    logged = next(r["text"] for r in snap["recent"] if r["kind"] == "illegal")
    assert snap["i18n"]["en"][logged] == "illegal board — put back: move the triple ring from c3 back to c1"


def test_a_move_part_way_is_said_without_counts_or_board_readings(service):
    client, post = admin_client(service)
    assert post("/api/sim/take", {"space": "e1"}).status_code == 200  # a ring in the hand
    snap = state(client)
    assert snap["board_status"]["kind"] == "partial"
    logged = next(r["text"] for r in snap["recent"] if r["kind"] == "partial")
    assert "move(s)" in logged  # the referee's own line, for the CLI
    assert snap["i18n"]["en"][logged] == "waiting: part-way to a move"
    assert snap["i18n"]["fr"][logged] == "en attente : coup en cours"


def test_the_games_list_names_each_game_by_its_title(service):
    client, _ = admin_client(service)
    rows = client.get("/api/journal").get_json()
    assert rows[0]["game"] == "gyges" and rows[0]["title"] == "Gygès"


def test_the_replay_buttons_are_drawn_not_glyphs_a_font_may_lack():
    html = (TEMPLATES / "replay.html").read_text(encoding="utf-8")
    for glyph in "⏮⏭◀▶":
        assert glyph not in html, glyph
    for button in ("first", "prev", "next", "last"):
        start = html.index(f'<button id="{button}"')
        assert "<svg" in html[start:html.index("</button>", start)], button


def test_the_simulated_boards_refusals_are_in_the_readers_language(service):
    client, post = admin_client(service)
    assert post("/api/sim/take", {"space": "c3"}).get_json()["error"] == "space c3 is empty: nothing to take"
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr"
    r = post("/api/sim/take", {"space": "c3"})
    assert r.status_code == 400 and r.get_json()["error"] == "la case c3 est vide : rien à prendre"  # a toast
