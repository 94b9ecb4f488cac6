"""The referee's side of a first lesson (issue 31, item 3; a mixin of
:class:`~tableref.referee.Referee`; the lessons are data: ``rules/lessons.py``, ``rules/games/<game>_lesson.py``).

``StartLesson`` begins a new game from the lesson's start, journalled like any game: what is
played is legal, on a real board, and the referee writes down every accepted move before it says
it. Then each step is said (:class:`~decisions.LessonStep`) and the board may only show that
step's move, as it may only show the computer's on its turn: the step's moves are accepted in
turn; anything else is refused with what to put back and, through ``rules.why.why_not``, the
rule it breaks (or, for a legal move that is not the step's, that it is not this step's) and the
step is said again. After the last step :class:`~decisions.LessonDone` says how the game is won
or scored; the game goes on as any game. ``StopLesson`` (or a new game) ends the lesson early.
A lesson lives in memory: after a restart its game resumes as an ordinary game.
"""

from __future__ import annotations

from dataclasses import dataclass

from decisions import Decision, Illegal, LessonDone, LessonStep, NewGame, Partial, Restored, StartGame, StartLesson
from rules import P, Verdict, View, explain, why_not
from rules.lessons import Lesson, LessonError, lesson

from .computer_turn import ComputerTurn, put_back


@dataclass
class LessonRun:
    lesson: Lesson
    index: int = 0  # the step being made
    turn: ComputerTurn | None = None  # its moves, checked as the computer's are

    @property
    def step(self):
        return self.lesson.steps[self.index]


class Lessons:
    """Mixed into the referee: the lesson being taught, if any."""

    _lesson: LessonRun | None = None

    def _on_start_lesson(self, cmd: StartLesson) -> list[Decision]:
        try:
            found = lesson(cmd.game)
        except (KeyError, LessonError) as exc:
            return [self.refuse("lesson", str(exc).strip("'\""))]
        self._lesson = None
        out = self._on_start(StartGame(cmd.game, dict(found.options), found.setup, board=cmd.board))
        if not any(isinstance(d, NewGame) for d in out):
            return out  # refused
        self._lesson = LessonRun(found)
        out.append(self._lesson_said())
        self._status = None
        if self.last_view is not None:
            out += self._on_view_lesson(self.last_view)
        return out

    def _on_stop_lesson(self) -> list[Decision]:
        run = self._lesson
        if run is None:
            return [self.refuse("stop lesson", "no lesson is under way")]
        self._lesson = None
        return [self._emit(LessonDone(self.record.id, self.ply, run.lesson.game, "", run.lesson.end.text, True,
                                      end_phrase=run.lesson.end))]

    def _lesson_said(self, *, repeated: bool = False, wrong: P | None = None) -> Decision:
        run = self._lesson
        step = run.step
        if run.turn is None and step.moves:
            run.turn = ComputerTurn.chosen(self.state, self.state.to_move, 0, step.moves, 0.5)
        before = run.lesson.steps[run.index - 1].then if run.index else None
        steps = run.turn.steps if run.turn is not None else ()
        return self._emit(LessonStep(
            self.record.id, self.ply, run.lesson.game, run.index + 1, len(run.lesson.steps), step.by, step.do.text,
            before.text if before is not None else "", steps, run.turn.done if run.turn else 0, repeated,
            wrong.text if wrong is not None else "", do_phrase=step.do, then_phrase=before, wrong_phrase=wrong))

    def _lesson_next(self) -> list[Decision]:
        """The step is on the board: the next one, or the lesson is done."""
        run = self._lesson
        run.index, run.turn = run.index + 1, None
        self._status = ("ok", None)
        if run.index < len(run.lesson.steps):
            return [self._lesson_said()]
        self._lesson = None
        last = run.lesson.steps[-1].then
        return [self._emit(LessonDone(self.record.id, self.ply, run.lesson.game, last.text, run.lesson.end.text,
                                      then_phrase=last, end_phrase=run.lesson.end))]

    def _on_view_lesson(self, view: View) -> list[Decision]:
        """The board during a lesson: only the step's moves, in turn."""
        self.last_view, self._held_view = view, None
        run = self._lesson
        current = self.state.view(self.fidelity)
        if view.resolved(current) == current:
            if run.turn is None:  # the set-up step: the board shows the start
                return self._lesson_next()
            if self._status is not None and self._status[0] != "ok":
                return self._status_change(("ok", None), Restored(self.record.id, self.ply))
            self._status = ("ok", None)
            return []
        turn = run.turn
        if turn is None:  # still setting up: what is still to put where
            return self._status_change(("illegal", view), Illegal(self.record.id, self.ply, put_back(current, view)))
        shown = turn.shown(view, self.fidelity)
        if shown:
            out = self._accept_steps(turn, shown) + self._lesson_unseen(turn)
            if turn.finished:
                return out + self._lesson_next()
            self._status = ("turn", turn.done)
            return out + [self._lesson_said()]
        e = explain(self.state, view, self.fidelity, max_sequence=1)
        nxt = turn.states[turn.done + 1]
        if e.verdict is Verdict.PARTIAL and any(c.state == nxt for c in e.candidates):
            step = turn.steps[turn.done]
            return self._status_change(("partial", view), Partial(self.record.id, self.ply, (step.move,), e.pending,
                                                                  (step.description,)))
        why, wrong = None, None
        if e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS) and e.candidates:
            wrong = P("{move} is a legal move, but not this step's: put the board back and make {step}",
                      move=e.candidates[0].text, step=turn.steps[turn.done].move)
        else:  # part-way to another move reads as what it tries (a ring off the closest line): why not
            why = why_not(self.state, view, self.fidelity)
        out = self._status_change(("illegal", view), Illegal(self.record.id, self.ply, put_back(current, view), why))
        if out:  # the step, said again beside what to put back
            out.append(self._lesson_said(repeated=True, wrong=wrong))
        return out

    def _lesson_unseen(self, turn: ComputerTurn) -> list[Decision]:
        """The step's next moves the board cannot show (DRIFT's end of a turn): made at once."""
        out: list[Decision] = []
        while not turn.finished and turn.states[turn.done + 1].view(self.fidelity) == self.state.view(self.fidelity):
            out += self._accept((turn.moves[turn.done],), confirmed=True)
            turn.done += 1
        return out


# An undo or a declared move would leave the lesson's path: refused while it is under way.
IN_LESSON = "a lesson is under way: make the step shown on the board, or stop the lesson"
