"""The computer opponent said out loud (issue 30): its move for a person to carry out, every
step of a turn, said again after a wrong board, the next step of a turn under way, a hint, an
undo that took the computer's move back, a new game naming the computer's seats — in English
and in French; "thinking" is never said. Then the same through the real referee and the
speaker's queue: the computer's move outlives a wrong board, not the move that carries it out."""

from __future__ import annotations

import pytest

from decisions import (
    Accepted, ComputerMove, Hint, Illegal, NewGame, PlayComputerMove, StableView, TakenBack, Thinking, Undo, parse_seats,
)
from rules import Fidelity, SpaceFix, get_game
from tableref.computer_turn import ComputerTurn
from tableref.i18n import catalog
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine
from tableref.voice.sentences import Narrator

from voicefakes import Clock, FakeRunner

GYGES = get_game("gyges")
ANACUND = get_game("anacund")
AFTER = GYGES.default_setup().apply_text("a1-a2")  # south has moved: north (the computer) to play
BUMP = ComputerTurn.chosen(AFTER, "north", 1, ("a6-b6/a3",), 0.5)


def anacund_turn():
    """Player A's whole first turn (several placements), as the computer would choose it."""
    s, texts = ANACUND.default_setup(), []
    while s.to_move == "A":
        m = s.legal_moves()[0]
        texts.append(s.move_text(m))
        s = s.successor(m)
    return ComputerTurn.chosen(ANACUND.default_setup(), "A", 1, tuple(texts), 0.5)


def said(narrator, decision):
    return [u.text for u in narrator.on(decision)]


@pytest.mark.parametrize("lang, new, plays, again, hint", [
    ("en", "New game: Gygès. The computer plays North at level 1",
     "The computer plays: North: single ring a6 to b6, bumping the double ring to a3. Please make the move.",
     "Not that move: the computer plays North: single ring a6 to b6, bumping the double ring to a3",
     "Hint: North: single ring a6 to b6, bumping the double ring to a3"),
    ("fr", "Nouvelle partie : Gygès. L'ordinateur joue Nord au niveau 1",
     "L'ordinateur joue : Nord : l'anneau simple a6 vers b6, qui chasse l'anneau double en a3. "
     "Veuillez faire ce coup sur le plateau.",
     "Pas ce coup : l'ordinateur joue Nord : l'anneau simple a6 vers b6, qui chasse l'anneau double en a3",
     "Conseil : Nord : l'anneau simple a6 vers b6, qui chasse l'anneau double en a3"),
])
def test_the_computers_move_in_both_languages(lang, new, plays, again, hint):
    n = Narrator(lang)
    [u] = n.on(NewGame(1, 0, "gyges", GYGES.default_setup().to_dict(), seats=parse_seats("north:1")))
    assert u.text == new
    n.on(Accepted(1, 1, "a1-a2", "South: single ring a1 → a2", AFTER.to_dict()))
    assert n.on(Thinking(1, 1, "north", 1, 7, "gyges", AFTER.to_dict())) == []  # never said: docs/voice.md
    [u] = n.on(ComputerMove(1, 1, "north", 1, BUMP.steps))
    # Said at the quiet level: nobody at the table knows the move otherwise.
    assert (u.text, u.level, u.topic, u.cue) == (plays, "quiet", "computer", "computer")
    n.on(Illegal(1, 1, (SpaceFix("a6", ("1",), ()),)))
    [u] = n.on(ComputerMove(1, 1, "north", 1, BUMP.steps, repeated=True))
    assert (u.text, u.level, u.topic) == (again, "quiet", "computer")
    [u] = n.on(Hint(1, 1, "north", 3, BUMP.steps))
    assert (u.text, u.level, u.topic) == (hint, "normal", "hint")


@pytest.mark.parametrize("lang, one, both, reply", [
    ("en", "Took back a1-a2", "Took back a1-a2 and the computer's reply a6-b6/a3", "Took back the computer's move a6-b6/a3"),
    ("fr", "Coup a1-a2 repris", "Coup a1-a2 et réponse de l'ordinateur a6-b6/a3 repris",
     "Coup de l'ordinateur a6-b6/a3 repris"),
])
def test_an_undo_that_took_the_computers_move_back_says_so(lang, one, both, reply):
    n = Narrator(lang)
    start = GYGES.default_setup()
    n.on(NewGame(1, 0, "gyges", start.to_dict(), seats=parse_seats("north:1")))
    # The referee takes back the computer's reply first, then the person's move: said as one.
    assert said(n, TakenBack(1, 1, "a6-b6/a3", AFTER.to_dict(), computer=True)) == [reply]
    [u] = n.on(TakenBack(1, 0, "a1-a2", start.to_dict()))
    assert (u.text, u.topic) == (both, "undo")
    n.on(Illegal(1, 0, (SpaceFix("a1", ("1",), ()),)))
    assert said(n, TakenBack(1, 0, "a1-a2", start.to_dict())) == [one]  # a person's move alone: as before


@pytest.mark.parametrize("lang, first, then, nxt, seats", [
    ("en", "The computer plays: A places a piece", ", then A places a piece", "Next: ",
     "New game: Anacund. The computer plays Player A at level 1 and Player B at level 3"),
    ("fr", "L'ordinateur joue : A pose un pion", ", puis A pose un pion", "Ensuite : ",
     "Nouvelle partie : Anacund. L'ordinateur joue Joueur A au niveau 1 et Joueur B au niveau 3"),
])
def test_a_turn_of_several_moves_is_said_whole_then_step_by_step(lang, first, then, nxt, seats):
    turn = anacund_turn()
    n = Narrator(lang)
    start = ANACUND.default_setup()
    assert said(n, NewGame(1, 0, "anacund", start.to_dict(), seats=parse_seats("a:1,b:3").checked(("A", "B")))) == [seats]
    [u] = n.on(ComputerMove(1, 0, "A", 1, turn.steps))
    assert u.text.startswith(first) and u.text.count(then) == len(turn.steps) - 1
    assert u.text.endswith("moves." if lang == "en" else "ces coups sur le plateau.")  # the plural
    [u] = n.on(ComputerMove(1, 1, "A", 1, turn.steps, done=1))
    assert u.text == nxt + catalog(lang).say(turn.steps[1].phrase)
    assert u.level == "quiet" and u.cue is None  # only the next step, without a chime


# -- through the referee and the speaker's queue ---------------------------------------------------


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def test_the_computers_move_waits_out_a_wrong_board_and_goes_with_the_move_that_makes_it(journal, tmp_path):
    runner, clock = FakeRunner(), Clock()
    sp = Speaker(runner, EspeakEngine(runner), clock=clock, level="quiet", stale_after=5.0, work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default", seats=parse_seats("north:1"))
    ref.subscribe(sp.on_decision)
    asks = []
    ref.subscribe(lambda d: asks.append(d) if d.kind == "thinking" else None)
    sp.pump()
    ref.handle(StableView(AFTER.view(Fidelity.KIND)))
    ref.handle(PlayComputerMove(asks[-1].token, ("a6-b6/a3",)))
    wrong = next(AFTER.successor(m) for m in AFTER.legal_moves()
                 if AFTER.successor(m).view(Fidelity.KIND) != BUMP.states[1].view(Fidelity.KIND))
    ref.handle(StableView(wrong.view(Fidelity.KIND)))  # another move on the board: refused, said again
    clock.advance(10.0)  # the speaker was busy longer than a move sentence may wait
    texts = [s.text for s in sp.pump()]
    assert texts[-2].startswith("Illegal: ") and texts[-1].startswith("Not that move: the computer plays North")
    # The move that carries it out makes a computer's sentence still waiting stale.
    ref.handle(StableView(wrong.view(Fidelity.KIND)))
    ref.handle(StableView(AFTER.view(Fidelity.KIND)))
    ref.handle(StableView(BUMP.states[1].view(Fidelity.KIND)))
    assert ref.ply == 2
    texts = [s.text for s in sp.pump()]
    assert not [t for t in texts if "computer" in t], texts


def test_the_computers_move_has_its_chime(journal, tmp_path):
    runner = FakeRunner()
    sp = Speaker(runner, EspeakEngine(runner), clock=Clock(), level="quiet", work_dir=tmp_path / "v")
    sp.on_decision(NewGame(1, 0, "gyges", GYGES.default_setup().to_dict(), seats=parse_seats("north:1")))
    sp.on_decision(Accepted(1, 1, "a1-a2", "South: single ring a1 → a2", AFTER.to_dict()))
    sp.on_decision(ComputerMove(1, 1, "north", 1, BUMP.steps))
    [s] = sp.pump()
    assert s.cue == "computer" and [p.rsplit("/", 1)[-1] for p in runner.played] == ["computer.wav", "say-1.wav"]


def test_undo_after_the_computers_reply_is_said_as_one(journal, tmp_path):
    runner = FakeRunner()
    sp = Speaker(runner, EspeakEngine(runner), clock=Clock(), level="normal", work_dir=tmp_path / "v")
    ref = Referee.start(journal, "gyges", setup="default", seats=parse_seats("north:1"))
    asks = []
    ref.subscribe(lambda d: asks.append(d) if d.kind == "thinking" else None)
    ref.handle(StableView(AFTER.view(Fidelity.KIND)))
    ref.handle(PlayComputerMove(asks[-1].token, ("a6-b6/a3",)))
    ref.handle(StableView(BUMP.states[1].view(Fidelity.KIND)))
    ref.subscribe(sp.on_decision)
    ref.handle(Undo())
    texts = [s.text for s in sp.pump()]
    assert "Took back a1-a2 and the computer's reply a6-b6/a3" in texts, texts
