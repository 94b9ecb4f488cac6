"""A first lesson per game (issue 31, item 3): a short walk through the rule text on the real
board, as data.

A :class:`Lesson` is a start (the game's ``start`` or ``default`` setup, with options) and
:class:`Step` values. Each step is either the learner's (``by="you"``: a move to make on the
board — or a few, the rest of a turn, drawn one by one) or the lesson's (``by="lesson"``: the
other side's moves, which the learner carries out by hand like the computer's), with what to do
and what just happened as phrases (the catalogs translate them). A move the board cannot show
(DRIFT's ``end``) is declared by the referee as soon as the moves before it are on the board. A
step with no moves is the set-up: done when the board shows the start.

:func:`lesson` checks a lesson against the rules when it is loaded: every move is legal in turn,
every step reaches what it says (its ``reaches`` check on the positions before and after) and
the last step ends the game when the lesson says it does. A lesson can never teach a wrong move.
Pure: no I/O.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from .errors import RulesError
from .game import State
from .phrase import Phrase
from .registry import get_game

YOU, BY_LESSON = "you", "lesson"

# The games with a lesson, each holding ``LESSON`` in ``rules/games/<game>_lesson.py`` (beside its
# ``_why`` module: a game's teaching lives with its rules).
GAMES = ("gyges", "anacund", "annihilation", "drift", "annelids")


class LessonError(RulesError):
    """A lesson that does not hold against the rules (a bug in its data)."""


@dataclass(frozen=True)
class Step:
    do: Phrase  # what to do ("Move your single ring from f1 one space forward, to f2")
    then: Phrase  # what just happened, said once the board shows it
    moves: tuple[str, ...] = ()  # notation, made in turn; none: the set-up (the board shows the start)
    by: str = YOU  # YOU: the learner's move; BY_LESSON: the other side's, carried out like the computer's
    # What the step shows, checked on (before, moves, after): a bounce, a bump, a capture…
    reaches: Callable[[State, tuple[str, ...], State], bool] | None = field(default=None, compare=False)
    shows: str = ""  # what ``reaches`` checks, in a word, for the test's messages ("bounce")


@dataclass(frozen=True)
class Lesson:
    game: str
    you: str  # the learner's side; the lesson plays the others
    title: Phrase
    steps: tuple[Step, ...]
    end: Phrase  # how the game is won or scored, said when the lesson is done
    setup: str = "default"  # "start" | "default": where the game begins
    options: Mapping[str, Any] = field(default_factory=dict)
    game_over: bool = False  # the last step ends the game (a throne captured)

    def start(self) -> State:
        game = get_game(self.game)
        opts = game.parse_options(dict(self.options))
        return game.default_setup(opts) if self.setup == "default" else game.start(opts)

    def states(self) -> tuple[State, ...]:
        """The position before each step, then after the last: checked as it goes."""
        return _walk(self)


def _walk(lesson: Lesson) -> tuple[State, ...]:
    s = lesson.start()
    out = [s]
    for i, step in enumerate(lesson.steps, 1):
        where = f"{lesson.game} lesson, step {i}"
        if step.by not in (YOU, BY_LESSON):
            raise LessonError(f"{where}: 'by' is {step.by!r}, not {YOU!r} or {BY_LESSON!r}")
        if not step.moves and i != 1:
            raise LessonError(f"{where}: only the first step (the set-up) may have no move")
        before = s
        for text in step.moves:
            if s.is_game_over():
                raise LessonError(f"{where}: {text}: the game is over")
            mover = s.to_move
            if (mover == lesson.you) != (step.by == YOU):
                raise LessonError(f"{where}: {text} is {mover}'s, not the {step.by}'s to play")
            try:
                after = s.apply(s.parse_move(text))  # parse_move refuses a move that is not legal here
            except RulesError as exc:
                raise LessonError(f"{where}: {exc}") from exc
            s = after
        if step.reaches is not None and not step.reaches(before, step.moves, s):
            raise LessonError(f"{where}: {' '.join(step.moves)} does not show {step.shows or 'what it says'}")
        if s.is_game_over() and i != len(lesson.steps):
            raise LessonError(f"{where}: the game is over before the lesson is")
        out.append(s)
    if lesson.game_over != s.is_game_over():
        raise LessonError(f"{lesson.game} lesson: the game is {'not ' if lesson.game_over else ''}over at its end")
    return tuple(out)


@cache
def lesson(game: str) -> Lesson:
    """The game's first lesson, checked against its rules (``LessonError`` if it does not hold);
    ``KeyError`` if the game has no lesson."""
    if game not in GAMES:
        raise KeyError(f"no lesson for {game!r} (lessons: {', '.join(GAMES)})")
    found: Lesson = importlib.import_module(f"rules.games.{game}_lesson").LESSON
    found.states()
    return found


def phrases(game: str) -> tuple[Phrase, ...]:
    """Every phrase a lesson says (for checking the catalogs cover them)."""
    found = lesson(game)
    return (found.title, found.end, *(p for s in found.steps for p in (s.do, s.then)))
