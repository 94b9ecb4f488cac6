"""Issue 24, item 6: two moves seen as one change, two sequences reaching the board — the
record keeps both, marked unseen, until a player picks one; never a guess written as fact."""

from __future__ import annotations

import pytest

from rules import Fidelity, get_game
from decisions import ChooseUnseen, StableView, Undo
from tableref.journal import Journal, JournalError
from tableref.records import export_text
from tableref.referee import Referee

GYGES = get_game("gyges")
PLAYED = ("d1-c1/d5", "c6-d6/b3")  # what the players did, with the board looking away


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def _both_at_once(journal):
    ref = Referee.start(journal, "gyges", start=GYGES.default_setup())
    out = []
    ref.subscribe(out.append)
    board = GYGES.default_setup().apply_text(PLAYED[0]).apply_text(PLAYED[1]).view(Fidelity.KIND)
    decisions = ref.handle(StableView(board))
    return ref, decisions


def test_the_record_keeps_every_sequence_and_asks_which(journal):
    ref, decisions = _both_at_once(journal)
    kinds = [d.kind for d in decisions]
    assert kinds == ["accepted", "accepted", "unseen"]
    assert all(d.unseen for d in decisions[:2])
    question = decisions[-1]
    assert " ".join(PLAYED) in question.alternatives and len(question.alternatives) == 3
    assert question.first_ply == 0 and len(question.descriptions) == 3
    record = journal.load(ref.record.id)
    assert [g.alternatives for g in record.unseen] == [question.alternatives]
    assert record.unseen[0].is_open
    # play goes on: the question does not hold the game
    nxt = GYGES.default_setup().apply_text(PLAYED[0]).apply_text(PLAYED[1])
    move = nxt.legal_moves()[0]
    assert [d.kind for d in ref.handle(StableView(nxt.apply(move).view(Fidelity.KIND)))][0] == "accepted"


def test_the_players_choose_and_the_record_shows_their_moves_and_survives_a_reload(journal):
    ref, decisions = _both_at_once(journal)
    number = decisions[-1].alternatives.index(" ".join(PLAYED)) + 1
    out = ref.handle(ChooseUnseen(0, number))
    assert [d.kind for d in out] == ["unseen_chosen"] and out[0].moves == PLAYED
    assert ref.record.moves == list(PLAYED)
    again = journal.load(ref.record.id)
    assert again.moves == list(PLAYED) and again.unseen[0].chosen == number - 1
    assert again.state == ref.state and again.states[1] == GYGES.default_setup().apply_text(PLAYED[0])


def test_a_bad_choice_is_refused(journal):
    ref, _ = _both_at_once(journal)
    assert [d.kind for d in ref.handle(ChooseUnseen(0, 9))] == ["rejected"]
    assert [d.kind for d in ref.handle(ChooseUnseen(5, 1))] == ["rejected"]


def test_an_undo_into_the_unseen_moves_drops_the_question(journal):
    ref, _ = _both_at_once(journal)
    ref.handle(Undo())
    assert ref.record.unseen == [] and journal.load(ref.record.id).unseen == []


def test_the_export_says_which_moves_were_never_seen(journal):
    ref, decisions = _both_at_once(journal)
    text = export_text(journal, ref.record.id)
    assert "never seen" in text
    for alt in decisions[-1].alternatives:
        assert alt in text


def test_a_tampered_unseen_row_is_one_clear_error(journal):
    ref, _ = _both_at_once(journal)
    journal.db.execute("UPDATE unseen SET ply=7")
    with pytest.raises(JournalError, match="unseen moves at 8"):
        journal.load(ref.record.id)


def test_the_page_asks_and_the_answer_reaches_the_record(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
    from webhelp import admin_client, make_service, state

    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        board = GYGES.default_setup().apply_text(PLAYED[0]).apply_text(PLAYED[1]).view(Fidelity.KIND)
        svc.table.sim.reset(board)
        svc.table._sim_changed()
        live = state(client)
        assert live["ply"] == 2 and len(live["unseen"]) == 1
        question = live["unseen"][0]
        number = next(c["number"] for c in question["choices"] if c["text"] == " ".join(PLAYED))
        assert post("/api/unseen", {"first_ply": 0, "number": "x"}).status_code == 400
        assert post("/api/unseen", {"first_ply": 0, "number": number}).status_code == 202
        live = state(client)
        assert live["unseen"] == [] and live["moves"] == list(PLAYED)
        replay = client.get(f"/api/journal/{live['game_id']}").get_json()
        assert replay["moves"] == list(PLAYED) and [s["unseen"] for s in replay["steps"][1:]] == [True, True]
    finally:
        svc.close()


def test_tableref_replay_and_export_say_so(tmp_path, capsys):
    from tableref.cli import main

    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        ref, decisions = _both_at_once(j)
        game = ref.record.id
    assert main(["replay", str(game), "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "never seen one by one (not yet chosen)" in out
    assert main(["export", str(game), "--journal", str(path)]) == 0
    assert "# moves 1-2 were never seen one by one" in capsys.readouterr().out
