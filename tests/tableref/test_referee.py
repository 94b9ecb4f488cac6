"""The referee: accepts, asks, waits, refuses, takes back — and journals before publishing."""

from __future__ import annotations

import pytest

from rules import Fidelity, View, get_game
from decisions import Confirm, Declare, StableView, StartGame, Undo
from tableref.journal import Journal
from tableref.referee import Referee, RefereeLoop

GYGES = get_game("gyges")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def make(journal, fidelity=Fidelity.KIND, start=None):
    ref = Referee.start(journal, "gyges", fidelity=fidelity, start=start or GYGES.default_setup())
    published = []
    ref.subscribe(published.append)
    return ref, published


def after(state, *texts):
    for t in texts:
        state = state.apply_text(t)
    return state


def see(ref, state_or_view, fidelity=None):
    view = state_or_view if isinstance(state_or_view, View) else state_or_view.view(fidelity or ref.fidelity)
    return ref.handle(StableView(view))


def kinds(decisions):
    return [d.kind for d in decisions]


def test_legal_move_is_accepted_and_journalled_before_it_is_published(journal):
    ref, _ = make(journal)
    seen_in_journal = []
    # The subscriber looks in the journal the moment it hears: the move must already be there.
    ref.subscribe(lambda d: seen_in_journal.append(journal.load(ref.record.id).moves[:]) if d.kind == "accepted" else None)
    out = see(ref, after(GYGES.default_setup(), "a1-a2"))
    assert kinds(out) == ["accepted"] and out[0].move == "a1-a2"
    assert seen_in_journal == [["a1-a2"]]


def test_occupancy_bump_or_move_is_asked_and_settled_by_confirm(journal):
    ref, _ = make(journal, Fidelity.OCCUPANCY)
    board = after(GYGES.default_setup(), "a1-b1/a2").view(Fidelity.OCCUPANCY)
    out = see(ref, board)
    assert kinds(out) == ["ambiguous"]
    assert {c.text for c in out[0].choices} == {"a1-a2", "a1-b1/a2"}
    assert all(c.equivalent == () for c in out[0].choices)
    assert ref.ply == 0  # nothing accepted until the players say which
    bump = next(c for c in out[0].choices if c.text == "a1-b1/a2")
    out = ref.handle(Confirm(bump.number))
    assert kinds(out) == ["accepted"] and out[0].confirmed and out[0].move == "a1-b1/a2"
    assert ref.state.to_dict()["rings"]["a2"] == 2  # the double was bumped to a2
    assert kinds(ref.handle(Confirm(1))) == ["rejected"]  # the question is closed


def test_illegal_board_gives_restore_hints_then_restored(journal):
    ref, _ = make(journal)
    start = GYGES.default_setup()
    wrong = dict(start.view(Fidelity.KIND).to_dict())
    wrong["a5"] = wrong.pop("a1")  # a single ring cannot go from a1 to a5
    out = see(ref, View(wrong))
    assert kinds(out) == ["illegal"]
    assert {(f.space, f.expected) for f in out[0].restore} == {("a1", ("1",)), ("a5", ())}
    assert see(ref, View(wrong)) == []  # said once, not repeated
    assert kinds(see(ref, start)) == ["restored"]
    assert ref.ply == 0


def test_partial_then_complete(journal):
    ref, _ = make(journal)
    start = GYGES.default_setup()
    lifted = {s: t for s, t in start.view(Fidelity.KIND).items() if s != "c1"}
    out = see(ref, View(lifted))
    # Part-way to any move that lifts c1's ring: its own moves, or a bump of it from b1/d1.
    assert kinds(out) == ["partial"] and all("c1" in c for c in out[0].candidates)
    assert "c1-c4" in out[0].candidates and ref.ply == 0
    words = dict(zip(out[0].candidates, out[0].descriptions))
    assert words["c1-c4"] == "South: triple ring c1 → c4"
    assert kinds(see(ref, after(start, "c1-c4"))) == ["accepted"]


def test_takeback_by_restoring_the_board(journal):
    ref, _ = make(journal)
    start = GYGES.default_setup()
    see(ref, after(start, "c1-c4"))
    out = see(ref, start)
    assert kinds(out) == ["taken_back"] and out[0].move == "c1-c4"
    assert ref.ply == 0 and ref.state == start
    assert journal.load(ref.record.id).moves == []


def test_takeback_that_is_also_a_legal_move_is_asked(journal):
    # A lone single: South c3→c4, then North (nearest row 4) could legally play c4→c3,
    # which leaves exactly the earlier position. Takeback or a move? The players say.
    pos = GYGES.from_dict({"game": "gyges", "to_move": "south", "rings": {"c3": 1}})
    ref, _ = make(journal, start=pos)
    see(ref, pos.apply_text("c3-c4"))
    out = see(ref, pos)
    assert kinds(out) == ["ambiguous"]
    by_text = {c.text: c for c in out[0].choices}
    assert set(by_text) == {"c4-c3", "takeback c3-c4"}
    out = ref.handle(Confirm(by_text["takeback c3-c4"].number))
    assert kinds(out) == ["taken_back"] and ref.ply == 0
    assert journal.load(ref.record.id).moves == []


def test_undo_command_steps_back_and_asks_for_the_board(journal):
    ref, _ = make(journal)
    start = GYGES.default_setup()
    see(ref, after(start, "c1-c4"))
    out = ref.handle(Undo())
    assert kinds(out) == ["taken_back", "illegal"]  # the board still shows the move: put it back
    assert {f.space for f in out[1].restore} == {"c1", "c4"}
    assert kinds(ref.handle(Undo())) == ["rejected"]


def test_game_over_and_new_game(journal):
    pos = GYGES.from_dict({"game": "gyges", "to_move": "south", "rings": {"c6": 1, "a6": 2}})
    ref, _ = make(journal, start=pos)
    out = see(ref, pos.apply_text("c6-N"))
    assert kinds(out) == ["accepted", "game_over"] and out[1].outcome["winner"] == "south"
    assert journal.unfinished_game() is None
    out = ref.handle(StartGame("gyges", setup="default"))
    assert kinds(out)[0] == "new_game" and ref.record.id != 1 and ref.ply == 0
    assert kinds(ref.handle(StartGame("chess"))) == ["rejected"]


def test_resume_continues_the_unfinished_game(journal):
    ref, _ = make(journal)
    see(ref, after(GYGES.default_setup(), "c1-c4"))
    again = Referee.start(journal, "gyges", start=GYGES.default_setup())
    assert again.record.id == ref.record.id and again.record.moves == ["c1-c4"]


def test_loop_thread_processes_in_order_and_stop_is_safe_twice(journal):
    ref, published = make(journal)
    loop = RefereeLoop(ref)
    loop.start()
    s = GYGES.default_setup()
    for t in ("c1-c4", "a6-a5"):
        s = s.apply_text(t)
        loop.submit(StableView(s.view(Fidelity.KIND)))
    loop.stop(timeout=10)
    loop.stop()
    assert [d.move for d in published if d.kind == "accepted"] == ["c1-c4", "a6-a5"]


def test_a_failing_subscriber_does_not_stop_the_referee(journal):
    ref, published = make(journal)

    def broken(decision):
        raise RuntimeError("display unplugged")

    ref.subscribe(broken)
    out = see(ref, after(GYGES.default_setup(), "c1-c4"))
    assert kinds(out) == ["accepted"] and ref.ply == 1


def test_restoring_several_moves_back_must_be_confirmed(journal):
    ref, _ = make(journal)
    start = GYGES.default_setup()
    see(ref, after(start, "c1-c4"))
    see(ref, after(start, "c1-c4", "a6-a5"))
    out = see(ref, start)  # two moves back: a disturbed board, or a wish? Ask.
    assert kinds(out) == ["ambiguous"] and out[0].choices[0].takeback == 2
    assert ref.ply == 2
    out = ref.handle(Confirm(1))
    assert kinds(out) == ["taken_back", "taken_back"] and ref.ply == 0


def test_declare_accepts_only_moves_the_board_cannot_show(journal):
    ref, _ = make(journal)
    out = ref.handle(Declare("c1-c4"))  # a ring move must be made on the board
    assert kinds(out) == ["rejected"] and "on the board" in out[0].reason
    assert kinds(ref.handle(Declare("zz"))) == ["rejected"] and ref.ply == 0


def test_declare_resignation_in_annelids(journal):
    game = get_game("annelids")
    start = game.default_setup()
    resign = next((m for m in start.legal_moves() if start.move_text(m) == "resign"), None)
    assert resign is not None
    ref = Referee.start(journal, "annelids", fidelity=Fidelity.KIND, start=start, resume=False)
    out = ref.handle(Declare("resign"))
    assert kinds(out) == ["accepted", "game_over"] and out[0].confirmed
    assert journal.load(ref.record.id).moves == ["resign"]


def test_a_confirm_for_a_question_that_has_changed_is_refused(journal):
    ref, _ = make(journal, Fidelity.OCCUPANCY)
    start = GYGES.default_setup()
    out = see(ref, start.apply_text("a1-a2").view(Fidelity.OCCUPANCY))
    first = {c.text: c.number for c in out[0].choices}
    # The board changes to another question before the players' answer arrives.
    out = see(ref, start.apply_text("f1-f2").view(Fidelity.OCCUPANCY))
    assert kinds(out) == ["ambiguous"]
    stale = ref.handle(Confirm(first["a1-a2"], "a1-a2"))
    assert kinds(stale) == ["rejected"] and "question has changed" in stale[0].reason and ref.ply == 0
    again = next(c for c in out[0].choices if c.text == "f1-f2")
    assert kinds(ref.handle(Confirm(again.number, again.text))) == ["accepted"]
