"""The computer opponent through the whole service (no threads: the computer answers before
the request returns): seats from the new-game dialog, its move on the page, carried out on the
simulated board, anything else refused with the move repeated, the undo of both, the hint."""

from __future__ import annotations

from decisions import parse_seats
from rules import Fidelity, get_game
from webhelp import admin_client, make_service, move, state

GYGES = get_game("gyges")


def carry_out(svc, steps):
    """A person carries the computer's turn out on the board: the position after its moves."""
    s = svc.referee.state
    for step in steps:
        s = s.apply_text(step["move"])
    svc.table.sim.reset(s.view(svc.fidelity))
    svc.scan()


def test_computer_move_shown_carried_out_and_undone_with_the_persons(tmp_path):
    svc = make_service(tmp_path, seats=parse_seats("north:1"))
    try:
        client, post = admin_client(svc)
        assert state(client)["seats"] == {"north": "computer:1"}
        move(post, "a1", "a2")
        st = state(client)
        comp = st["computer"]
        assert comp["side"] == "north" and not comp["thinking"] and comp["steps"]
        step = comp["steps"][0]
        assert step["lift"] and step["place"] and step["description"]
        assert st["moves"] == ["a1-a2"]  # not played until the board shows it
        # Something else on the board: refused, the computer's move said again.
        wrong = next(m for m in svc.referee.state.legal_moves()
                     if svc.referee.state.move_text(m) != step["move"])
        svc.table.sim.reset(svc.referee.state.successor(wrong).view(svc.fidelity))
        svc.scan()
        st = state(client)
        assert st["board_status"]["kind"] == "illegal" and st["computer"]["repeated"]
        carry_out(svc, comp["steps"])
        st = state(client)
        assert st["moves"] == ["a1-a2", step["move"]] and st["to_move"] == "south"
        assert st["last"]["move"] == step["move"]
        r = post("/api/undo")
        assert r.status_code == 202
        st = state(client)
        assert st["moves"] == []  # the person's move and the computer's reply
        assert st["computer"] is None
        kinds = [(r["kind"], r["text"]) for r in st["recent"][:3]]
        assert any("the computer's move" in text for _, text in kinds), kinds
    finally:
        svc.close()


def test_new_game_dialog_seats_and_a_bad_side(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        r = post("/api/new-game", {"game": "gyges", "setup": "default", "seats": {"east": "computer:2"}})
        assert r.status_code == 400 and "east" in r.get_json()["error"]
        r = post("/api/new-game", {"game": "gyges", "setup": "default", "seats": {"south": "computer:1"}})
        assert r.status_code == 202
        st = state(client)
        assert st["seats"] == {"south": "computer:1"}
        assert st["computer"]["side"] == "south" and st["computer"]["steps"]  # south opens: it played at once
        levels = client.get("/api/levels").get_json()
        assert [lv["number"] for lv in levels] == [1, 2, 3, 4, 5]
    finally:
        svc.close()


def test_hint_is_shown_and_never_played(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        assert client.post("/api/hint", json={}).status_code in (401, 403)  # an admin's, with CSRF
        r = post("/api/hint", {"level": 1})
        assert r.status_code == 202
        st = state(client)
        assert st["hint"]["side"] == "south" and st["hint"]["steps"] and st["moves"] == []
        assert post("/api/hint", {"level": 9}).status_code == 400
        move(post, "a1", "a2")
        assert state(client)["hint"] is None  # a move made: the hint is gone
    finally:
        svc.close()


def test_an_undo_says_it_took_the_computers_reply_with_the_persons_move(tmp_path):
    svc = make_service(tmp_path, seats=parse_seats("north:1"))
    try:
        client, post = admin_client(svc)
        move(post, "a1", "a2")
        carry_out(svc, state(client)["computer"]["steps"])
        reply = state(client)["moves"][1]
        assert post("/api/undo").status_code == 202
        last = state(client)["last"]
        assert (last["kind"], last["move"], last["reply"]) == ("taken_back", "a1-a2", reply)
    finally:
        svc.close()


def test_the_simulated_boards_box_has_every_drift_reading_a_game_needs():
    """A DRIFT game with the computer goes on for rounds: each drift turns the rivers one arrow
    on (their markers read 0, 1, 2, …) and a piece may carry a coin. The box offered every
    reading the opening showed, which stopped the second drift (the inner river's '2')."""
    from web.boards import palette

    box = set(palette("drift", {}))
    assert {str(i) for i in range(24)} <= box
    assert {"carried:copper", "carried:silver", "carried:gold"} <= box
    assert "red-III" in box and "copper" in box


def test_the_logs_computer_lines_are_said_in_french(tmp_path):
    svc = make_service(tmp_path, seats=parse_seats("north:1"))
    try:
        client, post = admin_client(svc)
        move(post, "a1", "a2")
        st = state(client)
        fr = st["i18n"]["fr"]
        thinking = next(r["text"] for r in st["recent"] if r["kind"] == "thinking")
        plays = next(r["text"] for r in st["recent"] if r["kind"] == "computer_move")
        assert fr[thinking] == "l'ordinateur (Nord, niveau 1) réfléchit"
        assert fr[plays].startswith("l'ordinateur (Nord, niveau 1) joue : ") and "anneau" in fr[plays], fr[plays]
        assert fr[plays].endswith("— jouez-le sur le plateau")
        assert st["i18n"]["en"][plays].startswith("the computer (North, level 1) plays: ")  # the side as the page names it
    finally:
        svc.close()


def test_the_replay_says_which_side_the_computer_played(tmp_path):
    svc = make_service(tmp_path, seats=parse_seats("north:1"))
    try:
        client, post = admin_client(svc)
        move(post, "a1", "a2")
        carry_out(svc, state(client)["computer"]["steps"])
        game = client.get(f"/api/journal/{state(client)['game_id']}").get_json()
        assert game["seats"] == {"north": "computer:1"}
        assert [s.get("computer") for s in game["steps"][1:]] == [None, 1]  # south a person, north the computer
    finally:
        svc.close()
