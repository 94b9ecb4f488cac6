"""A move accepted part-way, then finished (a camera decides as soon as the hand leaves: a hand
that leaves mid-move and comes back finishes a move already recorded): the referee asks whether
to take the last move back and record the finished one — never unasked."""

from __future__ import annotations

import pytest

from rules import Fidelity, get_game
from decisions import Confirm, StableView
from tableref.journal import Journal
from tableref.referee import Referee

GYGES = get_game("gyges")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def test_a_finished_move_after_a_part_way_accept_is_offered_as_a_replay(journal):
    start = GYGES.default_setup()
    ref = Referee.start(journal, "gyges", start=start)
    # The double ring b1 was set down on b3 (a legal move) and taken as played when the hand
    # left; the player came back and finished the move they meant, b1-c2.
    ref.handle(StableView(start.apply_text("b1-b3").view(Fidelity.KIND)))
    assert ref.record.moves == ["b1-b3"]
    finished = start.apply_text("b1-c2")
    assert "b1-c2" in {start.move_text(m) for m in start.legal_moves()}
    out = ref.handle(StableView(finished.view(Fidelity.KIND)))
    assert [d.kind for d in out] == ["ambiguous"]
    choice = next(c for c in out[0].choices if c.then == "b1-c2")
    assert choice.takeback == 1 and choice.text == "takeback b1-b3 then b1-c2"
    assert ref.record.moves == ["b1-b3"]  # nothing done unasked
    done = ref.handle(Confirm(choice.number, choice.text))
    assert [d.kind for d in done] == ["taken_back", "accepted"]
    assert ref.record.moves == ["b1-c2"] and journal.load(ref.record.id).moves == ["b1-c2"]


def test_a_board_no_move_explains_from_either_position_is_still_illegal(journal):
    start = GYGES.default_setup()
    ref = Referee.start(journal, "gyges", start=start)
    ref.handle(StableView(start.apply_text("b1-b3").view(Fidelity.KIND)))
    board = dict(start.apply_text("b1-b3").view(Fidelity.KIND).items())
    board.pop("a1")
    from rules import View

    out = ref.handle(StableView(View(board)))
    assert [d.kind for d in out] == ["illegal"]
