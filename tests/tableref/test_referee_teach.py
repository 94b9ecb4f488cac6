"""The referee's Lifted decision (issue 31, item 1): where a lifted piece may go, while
teaching is on; never journalled; replaced by the next board status."""

from __future__ import annotations

import pytest

from decisions import Lifted, SetTeaching, StableView, parse_seats
from rules import Fidelity, View, get_game
from tableref.journal import Journal
from tableref.referee import Referee

GYGES = get_game("gyges")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def make(journal, game="gyges", fidelity=Fidelity.KIND, seats=""):
    g = get_game(game)
    ref = Referee.start(journal, game, fidelity=fidelity, start=g.default_setup(), seats=parse_seats(seats))
    ref.handle(SetTeaching(True))
    return ref


def without(view, space, token=None):
    spaces = dict(view)
    toks = list(spaces[space])
    toks.remove(token or toks[-1])
    spaces[space] = toks
    return View(spaces)


def test_a_lifted_ring_is_followed_by_where_it_may_go_and_putting_it_back_clears_it(journal):
    ref = make(journal)
    state = ref.state
    start = state.view(ref.fidelity)
    out = ref.handle(StableView(without(start, "c1")))
    assert [d.kind for d in out] == ["partial", "lifted"]
    lifted = out[-1]
    assert isinstance(lifted, Lifted) and lifted.space == "c1" and lifted.piece == "3"
    assert set(lifted.destinations) == {m.end for m in state.legal_moves() if m.start == "c1"}
    assert set(lifted.moves) == {state.move_text(m) for m in state.legal_moves() if m.start == "c1"}
    assert lifted.to_dict()["kind"] == "lifted" and lifted.to_dict()["destinations"] == list(lifted.destinations)
    assert ref.handle(StableView(without(start, "c1"))) == []  # the same board: said once
    back = ref.handle(StableView(start))
    assert [d.kind for d in back] == ["restored"]
    # never journalled: the game record has no event for it
    assert journal.load(ref.record.id).moves == []


def test_teaching_off_publishes_nothing_more(journal):
    ref = make(journal)
    ref.handle(SetTeaching(False))
    out = ref.handle(StableView(without(ref.state.view(ref.fidelity), "c1")))
    assert [d.kind for d in out] == ["partial"]


def test_a_ring_that_cannot_move_has_no_destinations(journal):
    ref = make(journal)
    out = ref.handle(StableView(without(ref.state.view(ref.fidelity), "c6")))
    assert out[-1].kind == "lifted" and out[-1].destinations == ()


def test_a_drift_piece_of_the_wrong_player_says_whose_turn_it_is(journal):
    ref = make(journal, "drift")  # red to move
    out = ref.handle(StableView(without(ref.state.view(ref.fidelity), "O8", "blue-III")))
    assert out[0].kind == "illegal"
    lifted = out[-1]
    assert lifted.kind == "lifted" and lifted.destinations == () and lifted.side == "blue"
    assert lifted.to_move == "red" and lifted.wrong_player and "red to move" in lifted.text()


def test_a_drift_piece_of_the_player_to_move(journal):
    ref = make(journal, "drift")
    state = ref.state
    out = ref.handle(StableView(without(state.view(ref.fidelity), "O0", "red-III")))
    lifted = out[-1]
    assert lifted.kind == "lifted" and lifted.side == "red" and lifted.destinations
    assert "O1" in lifted.destinations


def test_nothing_while_a_computer_seat_is_to_move(journal):
    ref = make(journal, seats="south:1")
    out = ref.handle(StableView(without(ref.state.view(ref.fidelity), "c1")))
    assert "lifted" not in [d.kind for d in out]
