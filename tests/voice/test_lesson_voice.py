"""A first lesson said out loud (issue 31, item 3): each step's "what just happened" and "what
to do now", a wrong step's reason, the end — in English and French, through the real referee."""

from __future__ import annotations

import re

import pytest

from decisions import StableView, StartLesson
from rules import Fidelity
from rules.lessons import lesson
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.voice.sentences import Narrator


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_lesson_is_said_step_by_step(tmp_path, lang):
    n = Narrator(lang)
    said: list[str] = []
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, setup="default")
        ref.subscribe(lambda d: said.extend(u.text for u in n.on(d)))
        ref.greeting()
        first = lesson("gyges")
        ref.handle(StartLesson("gyges", board=first.start().view(Fidelity.KIND)))
        steps = [d for d in said if d]
        assert steps, "the lesson's first step is said"
        # Walk the lesson: each step's moves shown on the board, each said.
        wrong_said = False
        for _ in range(40):
            run = ref._lesson  # the lesson under way (the referee's lesson mode)
            if run is None:
                break
            if run.turn is None:
                ref.handle(StableView(first.start().view(Fidelity.KIND)))
                continue
            if not wrong_said:  # one wrong step: a legal move that is not the step's, put right
                s = ref.state
                other = next(m for m in s.legal_moves() if s.successor(m) != run.turn.states[run.turn.done + 1])
                ref.handle(StableView(s.successor(other).view(Fidelity.KIND)))
                wrong_said = True
            ref.handle(StableView(run.turn.states[-1].view(Fidelity.KIND)))
    text = " ".join(said)
    assert ref._lesson is None, "the lesson was walked to its end"
    done = {"en": "Lesson done", "fr": "Leçon terminée"}[lang]
    assert said[-1].endswith(done) or any(t.endswith(done) for t in said[-3:]), said[-3:]
    wrong = {"en": "is a legal move, but not this step's", "fr": "mais pas celui de cette étape"}[lang]
    assert any(wrong in t for t in said), "the wrong step is said with why"
    if lang == "fr":
        assert "lesson" not in text.lower() and "Lesson" not in text
        assert re.search(r"[éèàç]", text)
