"""A remote table's seat at the referee (tableref/referee_remote.py), synchronously: the other
table's moves shown to carry out, only they accepted, anything else refused with the move said
again, nothing taken back, the clocks set from the other table's word, its flag fall."""

from __future__ import annotations

import pytest

from decisions import Seats, StableView, Undo
from decisions.clock import ClockTick
from decisions.remote import RemoteMove, RemoteMoves, RemoteOver
from decisions.seats import Seat
from rules import Fidelity, get_game
from tableref.clock_config import ClockSettings
from tableref.journal import Journal
from tableref.referee import Referee

GYGES = get_game("gyges")
MATCH = "table-a.K7M4QX"


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def make(journal, remote_side="north", clock=None):
    ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=GYGES.default_setup(),
                        seats=Seats({remote_side: Seat.remote("table-b", MATCH)}))
    if clock is not None:
        ref.setup_clock(ClockSettings(control=clock), 0.0)
    return ref


def see(ref, state, at=None):
    return ref.handle(StableView(state.view(ref.fidelity), at or 0.0, at))


def kinds(ds):
    return [d.kind for d in ds]


def test_the_other_tables_move_is_shown_and_only_it_is_accepted(journal):
    ref = make(journal)
    start = GYGES.default_setup()
    out = see(ref, start.apply_text("a1-a2"))
    assert kinds(out) == ["accepted", "remote_waiting"]
    assert (out[-1].side, out[-1].table) == ("north", "table-b")
    # the board changed while waiting: put back, nothing played
    after = ref.state
    wrong = after.legal_moves()[0]
    out = see(ref, after.successor(wrong))
    assert kinds(out) == ["illegal"] and ref.ply == 1
    see(ref, after)
    reply = next(m for m in after.legal_moves() if after.move_text(m) != after.move_text(wrong)
                 and after.successor(m).view(Fidelity.KIND) != after.view(Fidelity.KIND))
    text = after.move_text(reply)
    out = ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, text),)))
    assert kinds(out) == ["remote_move"]
    shown = out[0]
    assert shown.table == "table-b" and shown.steps[0].move == text and shown.steps[0].lift
    assert ref.ply == 1  # nothing is played until the board shows it
    # another move than the other table's: refused, its move said again
    out = see(ref, after.successor(wrong))
    assert kinds(out) == ["illegal", "remote_move"] and out[-1].repeated
    out = see(ref, after.successor(reply))
    assert kinds(out) == ["accepted"] and ref.record.moves == ["a1-a2", text]
    # the same moves again (the link resent them after a restart): nothing new
    assert ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, text),))) == []
    # another game's moves: dropped
    assert ref.handle(RemoteMoves(ref.record.id + 1, (RemoteMove(3, "a2-a3"),))) == []


def test_the_board_may_show_the_move_before_it_arrives(journal):
    ref = make(journal)
    state = GYGES.default_setup().apply_text("a1-a2")
    see(ref, state)
    reply = next(m for m in state.legal_moves() if state.successor(m).view(Fidelity.KIND) != state.view(Fidelity.KIND))
    see(ref, state.successor(reply))  # made early, from a phone call: refused while waiting
    out = ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, state.move_text(reply)),)))
    assert kinds(out) == ["remote_move", "accepted"]


def test_nothing_is_taken_back_in_a_game_with_another_table(journal):
    ref = make(journal)
    start = GYGES.default_setup()
    see(ref, start.apply_text("a1-a2"))
    out = ref.handle(Undo())
    assert kinds(out) == ["rejected"] and "not taken back" in out[0].reason and ref.ply == 1
    ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, "f6-f5" if _legal(ref, "f6-f5") else _any(ref)),)))
    see(ref, ref._turn.states[-1])
    assert ref.ply == 2
    out = see(ref, start)  # the board set back two moves: not a takeback, put it right
    assert kinds(out) == ["illegal"] and ref.ply == 2


def _legal(ref, text):
    try:
        ref.state.apply_text(text)
        return True
    except ValueError:
        return False


def _any(ref):
    s = ref.state
    return s.move_text(next(m for m in s.legal_moves() if s.successor(m).view(Fidelity.KIND) != s.view(Fidelity.KIND)))


def test_the_other_tables_clock_is_its_word_and_its_flag_falls_there(journal):
    ref = make(journal, clock="1+2")
    start = GYGES.default_setup()
    first = start.to_move
    other = "north" if first == "south" else "south"
    assert first == "south"  # this table plays south, the first to move
    see(ref, start.apply_text("a1-a2"), at=10.0)  # south's turn took 10 s, +2 s
    assert ref.clock.times(10.0) == {"south": 52_000, "north": 60_000}
    # North's clock runs here too (as the other table's did), but never falls here
    out = ref.handle(ClockTick(100.0))
    assert not [d for d in out if d.kind == "flag_fall"] and not ref.record.finished
    text = _any(ref)
    ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, text, {"south": 52_000, "north": 47_500}),)))
    see(ref, ref._turn.states[-1], at=101.0)
    # carried out here at 101 s: north's time is the other table's word, south's clock starts now
    assert ref.clock.running == "south"
    assert ref.clock.times(101.0) == {"south": 52_000, "north": 47_500}
    # this table's own player's flag falls here
    out = ref.handle(ClockTick(101.0 + 52 + 2))
    assert "flag_fall" in kinds(out) and ref.record.finished
    assert other == "north"


def test_the_other_tables_flag_fall_ends_the_game_here(journal):
    ref = make(journal, clock="1+2")
    see(ref, GYGES.default_setup().apply_text("a1-a2"), at=5.0)
    outcome = {"winner": "south", "reason": "north loses on time", "scores": {}}
    out = ref.handle(RemoteOver(ref.record.id, 1, outcome))
    assert kinds(out)[:2] == ["flag_fall", "game_over"] and ref.record.finished
    assert journal.load(ref.record.id).finished
    assert ref.handle(RemoteOver(ref.record.id, 1, outcome)) == []  # said again: nothing more
