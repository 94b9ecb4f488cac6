"""A computer seat on the real board: the referee asks for its move, shows it, accepts exactly
it when a person carries it out, refuses anything else with the move said again, drops an
outdated answer, and an undo takes back the person's move with the computer's reply."""

from __future__ import annotations

import pytest

from decisions import AskHint, PlayComputerMove, Seats, ShowHint, StableView, StartGame, Undo, parse_seats
from rules import Fidelity, get_game
from tableref.journal import Journal
from tableref.records import export_text, parse_record, import_record
from tableref.referee import Referee

GYGES = get_game("gyges")
ANACUND = get_game("anacund")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def make(journal, seats="north:2", game="gyges", fidelity=Fidelity.KIND):
    g = get_game(game)
    ref = Referee.start(journal, game, fidelity=fidelity, start=g.default_setup(), seats=parse_seats(seats))
    published = []
    ref.subscribe(published.append)
    return ref, published


def see(ref, state):
    return ref.handle(StableView(state.view(ref.fidelity)))


def kinds(ds):
    return [d.kind for d in ds]


def thinking(ds):
    found = [d for d in ds if d.kind == "thinking"]
    assert found, kinds(ds)
    return found[-1]


def test_person_move_then_the_computer_is_asked_shows_its_move_and_the_board_must_show_it(journal):
    ref, _ = make(journal)
    out = see(ref, GYGES.default_setup().apply_text("a1-a2"))
    assert kinds(out) == ["accepted", "thinking"]
    ask = out[-1]
    assert (ask.side, ask.level, ask.purpose) == ("north", 2, "move") and ask.state == ref.state
    reply = ref.state.legal_moves()[0]
    text = ref.state.move_text(reply)
    out = ref.handle(PlayComputerMove(ask.token, (text,)))
    assert kinds(out) == ["computer_move"]
    shown = out[0]
    assert shown.side == "north" and shown.steps[0].move == text and shown.steps[0].lift and shown.steps[0].place
    assert ref.ply == 1  # nothing is played until the board shows it
    # The board shows another legal move of north's: refused, the computer's move said again.
    other = next(m for m in ref.state.legal_moves() if ref.state.move_text(m) != text
                 and ref.state.successor(m).view(ref.fidelity) != ref.state.successor(reply).view(ref.fidelity))
    out = see(ref, ref.state.successor(other))
    assert kinds(out) == ["illegal", "computer_move"] and out[1].repeated
    assert out[0].restore
    # Put right: the computer's move is accepted as played.
    out = see(ref, ref.state.successor(reply))
    assert kinds(out) == ["accepted"] and out[0].move == text
    assert journal.load(ref.record.id).moves == ["a1-a2", text]


def test_an_outdated_answer_is_dropped(journal):
    ref, _ = make(journal)
    ask = thinking(see(ref, GYGES.default_setup().apply_text("a1-a2")))
    ref.handle(Undo())  # the person takes the move back while the computer thinks
    move = GYGES.default_setup().apply_text("a1-a2")
    text = move.move_text(move.legal_moves()[0])
    assert ref.handle(PlayComputerMove(ask.token, (text,))) == []
    assert ref.ply == 0


def test_the_board_changed_while_thinking_is_put_back(journal):
    ref, _ = make(journal)
    see(ref, GYGES.default_setup().apply_text("a1-a2"))
    s = ref.state
    out = see(ref, s.successor(s.legal_moves()[0]))  # someone moved north's ring before the computer chose
    assert kinds(out) == ["illegal"] and ref.ply == 1


def test_undo_takes_back_the_persons_move_and_the_computers_reply(journal):
    ref, _ = make(journal)
    ask = thinking(see(ref, GYGES.default_setup().apply_text("a1-a2")))
    text = ref.state.move_text(ref.state.legal_moves()[0])
    ref.handle(PlayComputerMove(ask.token, (text,)))
    see(ref, ref.state.apply_text(text))
    assert ref.ply == 2
    out = ref.handle(Undo())
    taken = [d for d in out if d.kind == "taken_back"]
    assert [(d.move, d.computer) for d in taken] == [(text, True), ("a1-a2", False)]
    assert ref.ply == 0 and ref.state.to_move == "south"


def test_a_computer_turn_of_several_moves_is_shown_whole_and_checked_step_by_step(journal):
    ref, published = make(journal, seats="a:1", game="anacund")
    ref.greeting()  # A moves first: the greeting asks the computer at once
    token = thinking(published).token
    s, texts = ref.state, []
    while s.to_move == "A" and not s.is_game_over():
        m = s.legal_moves()[0]
        texts.append(s.move_text(m))
        s = s.successor(m)
    assert len(texts) >= 2
    out = ref.handle(PlayComputerMove(token, tuple(texts)))
    assert kinds(out) == ["computer_move"] and len(out[0].steps) == len(texts)
    after_one = ref.state.apply_text(texts[0])
    out = see(ref, after_one)
    assert kinds(out) == ["accepted", "computer_move"] and out[1].done == 1
    out = see(ref, s)
    assert [d.kind for d in out][:len(texts) - 1] == ["accepted"] * (len(texts) - 1)
    assert ref.ply == len(texts) and ref.state.to_move == "B"


def test_hint_for_the_persons_seat_is_shown_never_played(journal):
    ref, _ = make(journal)
    out = ref.handle(AskHint(level=1))
    ask = thinking(out)
    assert ask.purpose == "hint" and ask.side == "south"
    text = ref.state.move_text(ref.state.legal_moves()[0])
    out = ref.handle(ShowHint(ask.token, (text,)))
    assert kinds(out) == ["hint"] and out[0].steps[0].move == text
    assert ref.ply == 0 and journal.load(ref.record.id).moves == []


def test_seats_are_journalled_exported_and_imported_back(journal, tmp_path):
    ref, _ = make(journal, seats="north:4")
    see(ref, GYGES.default_setup().apply_text("a1-a2"))
    assert journal.load(ref.record.id).seats == parse_seats("north:4")
    text = export_text(journal, ref.record.id)
    assert "Seats: north=computer:4" in text
    record = parse_record(text)
    with Journal(tmp_path / "other.sqlite3") as other:
        new_id = import_record(other, record)
        assert other.load(new_id).seats == Seats.from_dict({"north": "computer:4"})
        assert export_text(other, new_id) == text
    data = journal.export(ref.record.id)
    assert data["seats"] == {"north": "computer:4"}


def test_new_game_with_seats_and_a_bad_side_is_refused(journal):
    ref, _ = make(journal, seats="")
    out = ref.handle(StartGame("gyges", {}, "default", seats=parse_seats("east:2")))
    assert kinds(out) == ["rejected"] and "east" in out[0].reason
    out = ref.handle(StartGame("gyges", {}, "default", seats=parse_seats("south:1")))
    assert kinds(out)[:1] == ["new_game"] and out[0].seats.computers == {"south": 1}
    assert kinds(out)[-1] == "thinking"  # south moves first: the computer is asked at once


def test_replay_command_says_which_side_the_computer_played(tmp_path, capsys):
    from tableref.cli import main

    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        ref, _ = make(j, seats="north:3")
        ask = thinking(see(ref, GYGES.default_setup().apply_text("a1-a2")))
        text = ref.state.move_text(ref.state.legal_moves()[0])
        ref.handle(PlayComputerMove(ask.token, (text,)))
        see(ref, ref.state.apply_text(text))
    assert main(["replay", "1", "--journal", str(path)]) == 0
    out = capsys.readouterr().out
    assert "north: the computer, level 3" in out
    assert [line for line in out.splitlines() if "(the computer)" in line][0].lstrip().startswith("2.")


def test_a_step_the_board_cannot_show_is_declared_by_the_computer(journal):
    """DRIFT's end of a turn leaves the board as it is: the computer declares it, at once."""
    from rules import Fidelity as F

    ref, published = make(journal, seats="red:1", game="drift")
    ref.greeting()
    token = thinking(published).token
    s, texts = ref.state, []
    while s.to_move == "red" and not s.is_game_over():
        unseen = s.unseen_moves(F.KIND)
        m = unseen[0] if unseen and texts else s.legal_moves()[0]
        texts.append(s.move_text(m))
        s = s.successor(m)
    assert any(t.startswith("end") for t in texts), texts
    ref.handle(PlayComputerMove(token, tuple(texts)))
    # The board shows every move but the last (the end of the turn, which looks like nothing).
    before_end = ref.state
    for t in texts[:-1]:
        before_end = before_end.apply_text(t)
    out = ref.handle(StableView(before_end.view(ref.fidelity)))
    accepted = [d.move for d in out if d.kind == "accepted"]
    assert accepted == list(texts) and ref.state.to_move != "red"


def test_a_computer_move_the_board_cannot_show_at_all_is_recorded_at_once(tmp_path):
    """A Gygès ring that bumps one back onto the mover's own start leaves the board as it was:
    no board change will ever show it, so the computer's declaring it records it."""
    import random

    rng, s = random.Random(0), GYGES.default_setup()
    while not s.unseen_moves(Fidelity.KIND):
        s = s.successor(rng.choice([m for m in s.legal_moves() if not s.successor(m).is_game_over()]))
    side, unseen = s.to_move, s.move_text(s.unseen_moves(Fidelity.KIND)[0])
    with Journal(tmp_path / "j.sqlite3") as j:
        ref = Referee.start(j, "gyges", fidelity=Fidelity.KIND, start=s, seats=parse_seats(f"{side}:1"))
        published = []
        ref.subscribe(published.append)
        ref.greeting()
        out = ref.handle(PlayComputerMove(thinking(published).token, (unseen,)))
        assert kinds(out)[:2] == ["computer_move", "accepted"] and out[1].move == unseen
        assert ref.ply == 1 and ref.state.to_move != side


def test_a_person_cannot_declare_a_move_for_the_computer(journal):
    from decisions import Declare

    ref, _ = make(journal, seats="north:1")
    see(ref, GYGES.default_setup().apply_text("a1-a2"))
    out = ref.handle(Declare("resign"))
    assert kinds(out) == ["rejected"] and "computer" in out[0].reason and ref.ply == 1


def test_run_does_not_resume_a_game_the_computer_plays(tmp_path):
    """``tableref run`` and ``referee-serial`` have no opponent: a journal whose unfinished game
    has a computer seat gets a new game, not one where the computer would never answer."""
    path = tmp_path / "j.sqlite3"
    with Journal(path) as j:
        first = Referee.start(j, "gyges", fidelity=Fidelity.KIND, setup="start", seats=parse_seats("north:1"))
        again = Referee.start(j, "gyges", fidelity=Fidelity.KIND, setup="start", computer=False)
        assert again.record.id != first.record.id and not again.seats.computers
        resumed = Referee.start(j, "gyges", fidelity=Fidelity.KIND, setup="start")  # the service resumes its own
        assert resumed.record.id == again.record.id
        with pytest.raises(ValueError, match="tableref serve"):
            Referee.start(j, "gyges", fidelity=Fidelity.KIND, setup="start", resume=False, computer=False,
                          seats=parse_seats("north:1"))


def test_moves_shown_at_once_may_not_carry_a_computer_move_in_with_a_persons(journal):
    """The board shows south's move and then a move of north's ring as well (two moves unseen
    one by one): north is the computer's, so that is refused, not recorded as two moves."""
    ref, _ = make(journal, seats="north:1")
    s = GYGES.default_setup().apply_text("a1-a2")
    both = s.successor(next(m for m in s.legal_moves() if not s.successor(m).is_game_over()))
    out = see(ref, both)
    assert kinds(out) == ["illegal"] and ref.ply == 0
    # With people on both sides the same board is two moves, recorded (as before).
    with Journal(journal.path.with_name("people.sqlite3")) as j2:
        people = Referee.start(j2, "gyges", fidelity=Fidelity.KIND, start=GYGES.default_setup())
        people.handle(StableView(both.view(Fidelity.KIND)))
        assert people.ply == 2
