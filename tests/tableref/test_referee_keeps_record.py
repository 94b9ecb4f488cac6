"""Issue 23: nothing accepted is ever lost, and an illegal verdict always names a fix."""

from __future__ import annotations

import threading

import pytest

from rules import Fidelity, get_game
from decisions import Declare, StableView, StartGame, Undo
from tableref.journal import Journal
from tableref.referee import Referee, RefereeLoop

GYGES = get_game("gyges")
BOUNCE_BACK = {"game": "gyges", "to_move": "south", "phase": "play",
               "rings": {"c1": 1, "c2": 1, "d1": 2, "a6": 3, "f6": 2, "c6": 1}, "winner": None, "variant": "standard"}


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def _referee(journal, start=None):
    ref = Referee.start(journal, "gyges", start=start or GYGES.default_setup())
    out = []
    ref.subscribe(out.append)
    return ref, out


def test_a_new_game_carrying_its_reset_board_closes_the_old_game_as_it_stood(journal):
    ref, out = _referee(journal)
    start = GYGES.default_setup()
    ref.handle(StableView(start.apply_text("a1-a2").view(Fidelity.KIND)))
    assert ref.ply == 1
    first = ref.record.id
    ref.handle(StartGame("gyges", {}, "default", board=start.view(Fidelity.KIND)))
    assert journal.load(first).moves == ["a1-a2"] and journal.load(first).finished
    assert ref.record.id != first and ref.ply == 0
    assert [d.kind for d in out][-1] == "new_game"  # the reset board is the new game's start: nothing more


def test_a_new_game_without_a_board_judges_the_board_as_it_is_for_the_new_game(journal):
    ref, out = _referee(journal)
    moved = GYGES.default_setup().apply_text("a1-a2").view(Fidelity.KIND)
    ref.handle(StableView(moved))
    first = ref.record.id
    ref.handle(StartGame("gyges", {}, "default"))  # the panel's long press on a physical board
    assert journal.load(first).moves == ["a1-a2"]
    assert out[-1].kind == "illegal" and out[-1].restore  # set the board up for the new game


def test_the_loop_never_lets_a_later_view_overtake_a_command(journal):
    """A view pending when a command arrives is judged before it; a view that comes after the
    command is judged after it, never in the pending view's place ahead of it."""
    ref, out = _referee(journal)
    start = GYGES.default_setup()
    first = ref.record.id
    loop = RefereeLoop(ref)
    gate = threading.Event()
    ref.subscribe(lambda d: gate.wait(5))  # hold the loop on its first decision
    loop.start()
    loop.submit(StableView(start.apply_text("a1-a2").view(Fidelity.KIND)))  # accepted (loop held)
    loop.submit(StableView(start.apply_text("a1-a2").view(Fidelity.KIND)))  # pending, stale
    loop.submit(StartGame("gyges", {}, "default"))
    loop.submit(StableView(start.view(Fidelity.KIND)))  # the board reset for the new game
    gate.set()
    loop.stop(10)
    assert journal.load(first).moves == ["a1-a2"]
    assert ref.record.id != first and ref.ply == 0 and ref._status == ("ok", None)


def test_an_undo_the_board_cannot_show_is_restored_at_once(journal):
    start = GYGES.from_dict(BOUNCE_BACK)
    ref, out = _referee(journal, start)
    ref.handle(StableView(start.view(Fidelity.KIND)))
    assert [d.kind for d in ref.handle(Declare("c1-c2/c1"))] == ["accepted"]
    decisions = ref.handle(Undo())
    assert [d.kind for d in decisions] == ["taken_back", "restored"]
    assert ref.ply == 0
    # and the board, unchanged, is still fine
    assert ref.handle(StableView(start.view(Fidelity.KIND))) == []


def test_an_undo_holds_a_board_that_still_shows_the_move_and_names_the_fix(journal):
    start = GYGES.default_setup()
    ref, out = _referee(journal, start)
    moved = start.apply_text("a1-a2").view(Fidelity.KIND)
    ref.handle(StableView(moved))
    decisions = ref.handle(Undo())
    assert [d.kind for d in decisions] == ["taken_back", "illegal"]
    assert {f.space for f in decisions[-1].restore} == {"a1", "a2"}

