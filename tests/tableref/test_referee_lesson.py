"""The referee's lesson mode (issue 31, item 3): each step said, the board may only show the
step's move; a wrong board refused with what to put back and why; done at the end."""

from __future__ import annotations

import pytest

from decisions import Illegal, LessonDone, LessonStep, StableView, StartLesson, StopLesson, Undo
from rules import Fidelity, get_game
from rules.lessons import GAMES, lesson
from tableref.journal import Journal
from tableref.referee import Referee


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def started(journal, game="gyges"):
    ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, setup="default")
    start = lesson(game).start().view(Fidelity.KIND)
    return ref, ref.handle(StartLesson(game, board=start))


def board_after(ref, *moves):
    s = ref.state
    for m in moves:
        s = s.apply_text(m)
    return s.view(ref.fidelity)


def test_the_set_up_is_done_when_the_board_shows_the_start_then_the_first_move_is_said(journal):
    ref, out = started(journal)
    kinds = [d.kind for d in out]
    assert kinds[0] == "new_game"
    steps = [d for d in out if isinstance(d, LessonStep)]
    assert [s.number for s in steps] == [1, 2]  # the set-up, done at once: the board shows it
    assert steps[1].by == "you" and steps[1].steps[0].move == "f1-f2"
    assert steps[1].then.startswith("The board is set up")
    assert steps[1].steps[0].lift == ("f1",) and steps[1].steps[0].place == ("f2",)


def test_a_right_step_is_accepted_and_the_lessons_move_is_said_next(journal):
    ref, _ = started(journal)
    out = ref.handle(StableView(board_after(ref, "f1-f2")))
    assert [d.kind for d in out] == ["accepted", "lesson_step"]
    nxt = out[-1]
    assert nxt.by == "lesson" and nxt.steps[0].move == "a6-a5" and "single ring moves one space" in nxt.then
    assert journal.load(ref.record.id).moves == ["f1-f2"]  # journalled like any game


def test_an_illegal_step_is_refused_with_the_rule_and_said_again(journal):
    ref, _ = started(journal)
    for m in ("f1-f2", "a6-a5", "b1-b3", "f6-f5", "c1-c4", "b6-a6"):
        ref.handle(StableView(board_after(ref, m)))
    # the bounce step; the learner moves f2, off the closest line
    wrong = dict(ref.state.view(ref.fidelity))
    wrong["f3"] = wrong.pop("f2")
    out = ref.handle(StableView(type(ref.state.view(ref.fidelity))(wrong)))
    assert [d.kind for d in out] == ["illegal", "lesson_step"]
    illegal, again = out
    assert isinstance(illegal, Illegal) and illegal.why.reason.rule.id == "closest-line"
    assert {f.space for f in illegal.restore} == {"f2", "f3"}
    assert again.repeated and again.steps[0].move == "d1-a2" and again.wrong == ""
    assert ref.ply == 6
    back = ref.handle(StableView(ref.state.view(ref.fidelity)))
    assert [d.kind for d in back] == ["restored"]
    assert [d.kind for d in ref.handle(StableView(board_after(ref, "d1-a2")))] == ["accepted", "lesson_step"]


def test_a_legal_move_that_is_not_the_steps_is_refused_and_said_so(journal):
    ref, _ = started(journal)
    out = ref.handle(StableView(board_after(ref, "a1-a2")))
    assert [d.kind for d in out] == ["illegal", "lesson_step"]
    assert out[0].why is None
    assert out[1].wrong == "a1-a2 is a legal move, but not this step's: put the board back and make f1-f2"
    assert ref.ply == 0


def test_the_lessons_moves_are_made_by_hand_one_by_one(journal):
    ref, _ = started(journal, "anacund")
    for m in ("t22", "t26", "t32"):
        ref.handle(StableView(board_after(ref, m)))
    out = ref.handle(StableView(board_after(ref, "t10")))  # B's first of three
    assert [d.kind for d in out] == ["accepted", "lesson_step"]
    assert out[-1].done == 1 and [s.move for s in out[-1].steps] == ["t10", "t16", "t23"]


@pytest.mark.parametrize("game", GAMES)
def test_a_lesson_walked_to_its_end_is_done(journal, game):
    ref, _ = started(journal, game)
    found, said = lesson(game), []
    for step, before in zip(found.steps[1:], found.states()[1:]):
        for m in step.moves:  # each board a hand makes; what it cannot show (DRIFT's end) is declared
            after = before.apply_text(m)
            if after.view(ref.fidelity) != before.view(ref.fidelity):
                said += ref.handle(StableView(after.view(ref.fidelity)))
            before = after
    done = [d for d in said if isinstance(d, LessonDone)]
    assert len(done) == 1 and done[0].end == found.end.text and not done[0].stopped
    assert done[0].then == found.steps[-1].then.text
    assert not [d for d in said if isinstance(d, Illegal)]
    assert ref.state == found.states()[-1]
    if game == "gyges":
        assert [d.kind for d in said][-3:] == ["accepted", "game_over", "lesson_done"]


def test_undo_is_refused_during_a_lesson_and_stop_ends_it(journal):
    ref, _ = started(journal)
    ref.handle(StableView(board_after(ref, "f1-f2")))
    out = ref.handle(Undo())
    assert out[0].kind == "rejected" and "lesson" in out[0].reason
    stop = ref.handle(StopLesson())
    assert isinstance(stop[0], LessonDone) and stop[0].stopped
    # an ordinary game again: any legal move is accepted
    assert [d.kind for d in ref.handle(StableView(board_after(ref, "a6-a5")))] == ["accepted"]


def test_a_game_without_a_lesson_is_refused(journal):
    ref = Referee.start(journal, "gyges", setup="default")
    out = ref.handle(StartLesson("chess"))
    assert out[0].kind == "rejected" and "no lesson for 'chess'" in out[0].reason
    assert get_game("gyges").default_setup() == ref.state


def test_a_serial_boards_leds_show_the_step_and_show_it_again_once_a_wrong_board_is_put_right(journal):
    from firmware_bridge.protocol import Led
    from tableref.board_leds import BoardLeds

    leds, shown = BoardLeds(), []
    ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, setup="default")
    ref.subscribe(lambda d: shown.append(leds.show(d)))
    ref.handle(StartLesson("gyges", board=lesson("gyges").start().view(Fidelity.KIND)))
    assert shown[-1] == {"f1": Led.BLINK, "f2": Led.ON}  # lift from f1, put down on f2
    ref.handle(StableView(board_after(ref, "a1-a2")))
    assert shown[-2] == {"a1": Led.BLINK, "a2": Led.BLINK} and shown[-1] is None  # put right first
    ref.handle(StableView(ref.state.view(ref.fidelity)))
    assert shown[-1] == {"f1": Led.BLINK, "f2": Led.ON}  # restored: the step again
