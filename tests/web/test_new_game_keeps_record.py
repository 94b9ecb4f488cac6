"""Issue 23, item 1: starting a new game closes the old one exactly as it stood.

The reset board a new game brings is the command's own doing, never the players taking
their moves back."""

from __future__ import annotations

import time

from tableref.journal import Journal
from webhelp import admin_client, make_service, move, state


def _journal_games(svc):
    with Journal(svc.journal_path) as j:
        return {g.id: j.load(g.id) for g in j.games()}


def test_new_game_from_the_page_keeps_the_accepted_move(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        first = state(client)["game_id"]
        setup = state(client)
        # a legal first move of the default set-up, whichever it is
        legal = _a_board_move(svc)
        move(post, *legal)
        assert state(client)["ply"] == 1, state(client)["board_status"]
        r = post("/api/new-game", {"game": "gyges", "setup": "default"})
        assert r.status_code == 202, r.get_json()
        after = state(client)
        assert after["game_id"] != first and after["ply"] == 0
        assert after["board_status"]["kind"] == "ok", after["board_status"]
        games = _journal_games(svc)
        assert len(games[first].moves) == 1, "the accepted move was taken back by the new game's board"
        assert setup["ply"] == 0
    finally:
        svc.close()


def _a_board_move(svc):
    """(from, to) of a legal one-step move on the live simulated board."""
    state_ = svc.referee.state
    for m in state_.legal_moves():
        text = state_.move_text(m)
        if "/" not in text and "-" in text and text.count("-") == 1:
            a, b = text.split("-")
            return a, b
    raise AssertionError("no simple move")


def test_new_game_on_the_threaded_service_keeps_the_accepted_move(tmp_path):
    from tableref.serve import Service
    from webhelp import FAST_SCRYPT

    svc = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", settle=0.05, readings=1, scan_interval=0.01,
                  pin_hash=FAST_SCRYPT, heartbeat=0.05).start()
    try:
        client, post = admin_client(svc)
        first = state(client)["game_id"]
        move(post, *_a_board_move(svc))
        deadline = time.monotonic() + 10
        while state(client)["ply"] != 1:
            assert time.monotonic() < deadline, state(client)
            time.sleep(0.02)
        for _ in range(5):  # a new game and another, each time with the stale board pending
            assert post("/api/new-game", {"game": "gyges", "setup": "default"}).status_code == 202
        deadline = time.monotonic() + 10
        while state(client)["game_id"] == first or state(client)["board_status"]["kind"] != "ok":
            assert time.monotonic() < deadline, state(client)
            time.sleep(0.02)
        time.sleep(0.3)  # let every pending view be judged
        games = _journal_games(svc)
        assert len(games[first].moves) == 1
        assert all(len(g.moves) == 0 for gid, g in games.items() if gid != first)
    finally:
        svc.close()


def test_a_move_the_board_cannot_show_is_offered_on_the_page_with_why(tmp_path):
    from rules import get_game

    start = get_game("gyges").from_dict(
        {"game": "gyges", "to_move": "south", "phase": "play", "winner": None, "variant": "standard",
         "rings": {"c1": 1, "c2": 1, "d1": 2, "a6": 3, "f6": 2, "c6": 1}})
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        svc.table._set_game(state(client)["game_id"], start, [], {})  # the page shown this position
        declarable = {d["move"]: d["why"] for d in state(client)["declarable"]}
        assert declarable.get("c1-c2/c1") == "the board looks the same after it"
        assert "c1-d1/c1" not in declarable  # a single and a double swap: the board shows it
    finally:
        svc.close()


def test_what_to_put_back_treats_an_unnamed_piece_as_any_piece():
    from rules import OCCUPIED, SpaceFix
    from web.live import _fixes

    out = _fixes([SpaceFix("a1", ("2",), (OCCUPIED,)), SpaceFix("b1", (), (OCCUPIED,)),
                  SpaceFix("c1", ("1", "3"), ("3",))])
    assert out["put"] == [{"space": "c1", "token": "1"}]  # a1's unnamed piece may be the 2
    assert out["take"] == [{"space": "b1", "token": OCCUPIED}]  # nothing belongs on b1
    # at occupancy fidelity "occupied" is the token itself
    occ = _fixes([SpaceFix("a1", (OCCUPIED,), ()), SpaceFix("b1", (), (OCCUPIED,))])
    assert occ["arrows"] == [{"from": "b1", "to": "a1", "token": OCCUPIED}]
    # a tail named in part (its cap unseen) moved off its edge: the arrow carries it back
    tail = _fixes([SpaceFix("f1e", ("blue:N",), ()), SpaceFix("e9e", (), ("blue:?",))])
    assert tail["arrows"] == [{"from": "e9e", "to": "f1e", "token": "blue:?"}] and tail["put"] == tail["take"] == []
