"""The other table's move everywhere a person at this table looks, as the computer's move is
(issue 34, part 2; docs/remote.md; the computer's: tests/voice/test_computer_voice.py,
tests/firmware_bridge/test_serial_computer.py, tests/hardware/test_panel.py): the voice says it in
English and French (said again after a wrong board, the next step of a turn), a serial board's
LEDs blink where to lift and light where to put down, the panel's buzzer plays the computer's
pattern — each driven by a real referee with a remote seat. And the other table leaving the match
is said with the new game that follows. The panel's time is a ManualScheduler's: nothing sleeps."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from decisions import Illegal, NewGame, Seats, StableView
from decisions.remote import MatchEnded, RemoteLeft, RemoteMove, RemoteMoves, RemoteTurn
from decisions.seats import Seat
from hardware.panel import COMPUTER, COMPUTER_AGAIN, Panel, PanelPins
from hardware.schedule import ManualScheduler
from rules import Fidelity, SpaceFix, get_game
from tableref.board_leds import BoardLeds, leds_for, steps_leds
from tableref.computer_turn import ComputerTurn
from tableref.i18n import catalog
from tableref.journal import Journal
from tableref.referee import Referee
from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine
from tableref.voice.sentences import Narrator

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "voice"))
from voicefakes import Clock, FakeRunner  # noqa: E402

GYGES = get_game("gyges")
ANACUND = get_game("anacund")
MATCH = "table-a.K7M4QX"
KIND = Fidelity.KIND
AFTER = GYGES.default_setup().apply_text("a1-a2")  # south (here) has moved: north (table-b) to play
BUMP = ComputerTurn.chosen(AFTER, "north", 0, ("a6-b6/a3",), 0.5)
PINS = PanelPins()


def remote_seats(side="north"):
    return Seats({side: Seat.remote("table-b", MATCH)})


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "j.sqlite3") as j:
        yield j


def referee(journal, seats=None, start=None):
    return Referee.start(journal, "gyges", fidelity=KIND, start=start or GYGES.default_setup(),
                         seats=seats or remote_seats())


def wrong_board():
    """Another north move than the other table's, the board showing it."""
    return next(AFTER.successor(m) for m in AFTER.legal_moves()
                if AFTER.successor(m).view(KIND) not in (BUMP.states[1].view(KIND), AFTER.view(KIND)))


def anacund_turn():
    s, texts = ANACUND.default_setup(), []
    while s.to_move == "A":
        m = s.legal_moves()[0]
        texts.append(s.move_text(m))
        s = s.successor(m)
    return ComputerTurn.chosen(ANACUND.default_setup(), "A", 0, tuple(texts), 0.5)


# -- the voice --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang, plays, again, nxt, several", [
    ("en", "The other table played: North: single ring a6 to b6, bumping the double ring to a3. Please make the move.",
     "Not that move: the other table played North: single ring a6 to b6, bumping the double ring to a3",
     "Next: ", "Please make the moves."),
    ("fr", "L'autre table a joué : Nord : l'anneau simple a6 vers b6, qui chasse l'anneau double en a3. "
     "Veuillez faire ce coup sur le plateau.",
     "Pas ce coup : l'autre table a joué Nord : l'anneau simple a6 vers b6, qui chasse l'anneau double en a3",
     "Ensuite : ", "Veuillez faire ces coups sur le plateau."),
])
def test_the_other_tables_move_is_said_in_both_languages(lang, plays, again, nxt, several):
    n = Narrator(lang)
    n.on(NewGame(1, 0, "gyges", GYGES.default_setup().to_dict(), seats=remote_seats()))
    [u] = n.on(RemoteTurn(1, 1, "north", "table-b", BUMP.steps))
    # Said at the quiet level, with the computer's chime: nobody at the table knows it otherwise.
    assert (u.text, u.level, u.topic, u.cue) == (plays, "quiet", "computer", "computer")
    n.on(Illegal(1, 1, (SpaceFix("a6", ("1",), ()),)))
    [u] = n.on(RemoteTurn(1, 1, "north", "table-b", BUMP.steps, repeated=True))
    assert (u.text, u.level) == (again, "quiet")
    turn = anacund_turn()  # a turn of several moves: said whole, then step by step
    n = Narrator(lang)
    n.on(NewGame(2, 0, "anacund", ANACUND.default_setup().to_dict(), seats=Seats({"A": Seat.remote("table-b", MATCH)})))
    [u] = n.on(RemoteTurn(2, 0, "A", "table-b", turn.steps))
    assert u.text.endswith(several)
    [u] = n.on(RemoteTurn(2, 1, "A", "table-b", turn.steps, done=1))
    assert u.text == nxt + catalog(lang).say(turn.steps[1].phrase) and u.cue is None


@pytest.mark.parametrize("lang, gyges, drift", [
    ("en", "New game: Gygès. table-b plays North",
     "New game: DRIFT on the Annuli board. The computer plays Green at level 2. table-b plays Blue. "
     "table-c plays White and Yellow"),
    ("fr", "Nouvelle partie : Gygès. table-b joue Nord",
     "Nouvelle partie : DRIFT sur le plateau Annuli. L'ordinateur joue Vert au niveau 2. table-b joue Bleu. "
     "table-c joue Blanc et Jaune"),
])
def test_a_game_with_other_tables_says_who_plays_what_at_its_start(lang, gyges, drift):
    n = Narrator(lang)
    [u] = [u for u in n.on(NewGame(1, 0, "gyges", GYGES.default_setup().to_dict(), seats=remote_seats()))
           if u.topic == "game"]
    assert u.text == gyges
    state = get_game("drift").default_setup(get_game("drift").parse_options({"players": "red:circle,blue:triangle,green:square,yellow:pentagon,white:star"}))
    seats = Seats({"green": Seat.computer(2), "blue": Seat.remote("table-b", MATCH),
                   "yellow": Seat.remote("table-c", MATCH), "white": Seat.remote("table-c", MATCH)})
    [u] = [u for u in n.on(NewGame(2, 0, "drift", state.to_dict(), seats=seats)) if u.topic == "game"]
    assert u.text == drift


@pytest.mark.parametrize("lang, said", [
    ("en", "table-b ended the match. New game: Gygès"),
    ("fr", "table-b a mis fin à la partie. Nouvelle partie : Gygès"),
])
def test_the_other_table_leaving_is_said_with_the_new_game(lang, said, journal):
    ref = referee(journal)
    narrator = Narrator(lang)
    ref.subscribe(lambda d: heard.extend(narrator.on(d)))
    heard = []
    ref.greeting()
    ref.handle(StableView(AFTER.view(KIND)))
    heard.clear()
    out = ref.handle(RemoteLeft(ref.record.id, 1))
    assert [d.kind for d in out][:2] == ["match_ended", "new_game"]
    [u] = [u for u in heard if u.topic == "game"]
    # One sentence (a new game makes an older "game" sentence stale), said at the quiet level too
    assert (u.text, u.level) == (said, "quiet")


def test_the_other_tables_move_outlives_a_wrong_board_and_goes_with_the_move_that_makes_it(journal, tmp_path):
    runner, clock = FakeRunner(), Clock()
    sp = Speaker(runner, EspeakEngine(runner), clock=clock, level="quiet", stale_after=5.0, work_dir=tmp_path / "v")
    ref = referee(journal)
    ref.subscribe(sp.on_decision)
    ref.greeting()
    sp.pump()
    ref.handle(StableView(AFTER.view(KIND)))
    ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, "a6-b6/a3"),)))
    [s] = sp.pump()
    assert s.text.startswith("The other table played: North: single ring a6") and s.cue == "computer"
    ref.handle(StableView(wrong_board().view(KIND)))  # another move on the board: refused, said again
    clock.advance(10.0)  # the speaker was busy longer than a move sentence may wait
    texts = [s.text for s in sp.pump()]
    assert texts[-2].startswith("Illegal: ") and texts[-1].startswith("Not that move: the other table played North")
    ref.handle(StableView(AFTER.view(KIND)))
    ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, "a6-b6/a3"),)))  # the link again: nothing new
    ref.handle(StableView(BUMP.states[1].view(KIND)))  # carried out
    assert ref.ply == 2
    assert not [s.text for s in sp.pump() if "other table" in s.text]


# -- a serial board's LEDs --------------------------------------------------------------------------


def named(leds):
    return None if leds is None else {space: led.name for space, led in leds.items()}


def test_the_boards_leds_show_the_other_tables_move_as_the_computers(journal):
    ref = referee(journal)
    shown = []
    leds = BoardLeds()
    ref.subscribe(lambda d: shown.append((d, named(leds.show(d)))))
    ref.greeting()
    ref.handle(StableView(AFTER.view(KIND)))
    shown.clear()
    ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, "a6-b6/a3"),)))
    [(turn, lit)] = shown
    assert isinstance(turn, RemoteTurn)
    # lift the single ring at a6 and the double it bumps at b6 (blinking), put them down on b6, a3
    assert lit == {"a6": "BLINK", "b6": "BLINK", "a3": "ON"} == named(steps_leds(turn.steps))
    assert named(leds_for(turn)) == lit
    shown.clear()
    wrong = wrong_board()
    ref.handle(StableView(wrong.view(KIND)))  # another move: what to put right blinks
    kinds = [d.kind for d, _ in shown]
    assert kinds == ["illegal", "remote_move"]
    put_right = {s: "BLINK" for s in AFTER.view(KIND).diff(wrong.view(KIND))}
    assert shown[0][1] == put_right and shown[1][1] is None  # said again: the put-right spaces stay lit
    shown.clear()
    ref.handle(StableView(AFTER.view(KIND)))  # put right: the other table's move lit again
    assert [(d.kind, lit) for d, lit in shown] == [("restored", {"a6": "BLINK", "b6": "BLINK", "a3": "ON"})]
    shown.clear()
    ref.handle(StableView(BUMP.states[1].view(KIND)))  # carried out: dark
    assert shown[0][0].kind == "accepted" and shown[0][1] == {} and ref.ply == 2


# -- the panel's buzzer ------------------------------------------------------------------------------


def test_the_other_tables_move_is_beeped_when_ready_and_when_said_again(journal):
    factory, sched = MockFactory(), ManualScheduler()
    panel = Panel(lambda cmd: None, pin_factory=factory, scheduler=sched, hold_time=3.0)
    panel.start()
    try:
        buzzer = factory.pin(PINS.buzzer)
        ref = referee(journal)
        ref.subscribe(panel.on_decision)
        ref.greeting()
        ref.handle(StableView(AFTER.view(KIND)))  # south's move here: now waiting for table-b
        sched.advance(2.0)
        buzzer.clear_states()
        ref.handle(RemoteMoves(ref.record.id, (RemoteMove(2, "a6-b6/a3"),)))
        assert panel.beeper.last_pattern == COMPUTER
        sched.advance(2.0)
        assert [s.state for s in buzzer.states] == [False, True, False, True, False]  # short, long

        buzzer.clear_states()
        ref.handle(StableView(wrong_board().view(KIND)))  # not the other table's move
        assert panel.beeper.last_pattern == COMPUTER_AGAIN
        sched.advance(2.0)
        assert [s.state for s in buzzer.states] == [False, True, False, True, False, True, False]  # chirp, short, long

        buzzer.clear_states()
        ref.handle(StableView(AFTER.view(KIND)))  # put right
        ref.handle(StableView(BUMP.states[1].view(KIND)))  # the other table's move, made here
        sched.advance(2.0)
        assert ref.ply == 2 and [s.state for s in buzzer.states] == [False]  # nothing more to hear
    finally:
        panel.close()
        factory.reset()


def test_match_ended_is_a_decision_of_its_own():
    d = MatchEnded(3, 4, "table-b")
    assert d.to_dict()["kind"] == "match_ended" and "table-b ended the match" in d.text()
