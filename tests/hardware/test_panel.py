"""The GPIO panel on gpiozero's MockFactory: buttons make commands, decisions light LEDs and
sound the buzzer. Time is a ManualScheduler's: nothing here sleeps."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from hardware.panel import (
    CHIRP, COMPUTER, COMPUTER_AGAIN, DRIFT, GAME_OVER, HELD, QUESTION, Beeper, Lights, LightMode, Panel, PanelPins,
    Pattern, count_pattern,
)
from hardware.pins import PinConfigError
from hardware.schedule import ManualScheduler
from rules import Fidelity, View, get_game
from decisions import (
    Accepted, Ambiguous, Choice, Confirm, Declare, GameOver, Illegal, NewGame, Partial, PlayComputerMove, Rejected,
    Restored, StableView, StartGame, Undo, parse_seats,
)
from tableref.journal import Journal
from tableref.referee import Referee

GYGES = get_game("gyges")
PINS = PanelPins()


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def rig(factory):
    """A started panel, its scheduler, and the commands it submitted."""
    sched = ManualScheduler()
    sent = []
    panel = Panel(sent.append, pin_factory=factory, scheduler=sched, hold_time=3.0)
    panel.start()
    yield panel, sched, sent, factory
    panel.close()


def press(factory, number):
    factory.pin(number).drive_low()  # the button joins the pulled-up input to ground


def release(factory, number):
    factory.pin(number).drive_high()


def click(factory, number):
    press(factory, number)
    release(factory, number)


def lit(factory):
    """Which LEDs are on: (ready, waiting, illegal)."""
    return tuple(factory.pin(p).state for p in (PINS.ready, PINS.waiting, PINS.illegal))


def sample(factory, sched, number, seconds, step=0.05):
    """The pin's state at every ``step`` from now for ``seconds`` (read at mid-step)."""
    out = []
    sched.advance(step / 2)
    for _ in range(round(seconds / step)):
        out.append(int(factory.pin(number).state))
        sched.advance(step)
    return out


def expected_wave(pattern: Pattern, step=0.05):
    wave = []
    for on, off in pattern.beeps:
        wave += [1] * round(on / step) + [0] * round(off / step)
    return wave


def new_game(game="gyges"):
    return NewGame(1, 0, game, GYGES.start().to_dict())


def accepted(phase, ply=1):
    return Accepted(1, ply, "x", "a move", {"game": "drift", "phase": phase})


# -- buttons ----------------------------------------------------------------------------------------


def test_each_button_makes_its_command(rig):
    panel, sched, sent, f = rig
    click(f, PINS.confirm)
    click(f, PINS.undo)
    click(f, PINS.end_turn)
    assert sent == [Confirm(1), Undo(), Declare("end")]
    click(f, PINS.cycle)  # no question open: nothing to cycle, a chirp says so
    assert sent == [Confirm(1), Undo(), Declare("end")]
    assert panel.beeper.last_pattern == CHIRP


def test_cycle_moves_the_highlight_and_confirm_sends_it(rig):
    panel, sched, sent, f = rig
    choices = tuple(Choice(i, f"m{i}", "") for i in (1, 2, 3))
    panel.on_decision(Ambiguous(1, 0, choices))
    assert panel.beeper.last_pattern == QUESTION
    seen = []
    panel.on_highlight = seen.append
    click(f, PINS.cycle)
    assert panel.highlighted == 2 and panel.beeper.last_pattern == count_pattern(2)
    assert sample(f, sched, PINS.buzzer, 0.4) == expected_wave(count_pattern(2))
    click(f, PINS.cycle)
    click(f, PINS.cycle)  # wraps round to the first
    assert seen == [2, 3, 1]
    click(f, PINS.cycle)
    click(f, PINS.confirm)
    assert sent == [Confirm(2, "m2")]  # tied to the question shown
    panel.on_decision(accepted("play"))  # the question is answered: highlight resets
    click(f, PINS.confirm)
    assert sent[-1] == Confirm(1) and panel.choices == ()


def test_long_press_starts_a_new_game_short_press_confirms(rig):
    panel, sched, sent, f = rig
    panel.on_decision(new_game())
    press(f, PINS.confirm)
    sched.advance(2.9)
    assert sent == []  # not yet: a confirm or a hold?
    release(f, PINS.confirm)
    assert sent == [Confirm(1)]
    press(f, PINS.confirm)
    sched.advance(3.0)
    assert sent[-1] == StartGame("gyges", {}, "default")  # at the hold time, before the release
    assert panel.beeper.last_pattern == HELD
    sched.advance(5.0)
    release(f, PINS.confirm)
    assert sent == [Confirm(1), StartGame("gyges", {}, "default")]  # the release after a hold sends nothing more


def test_long_press_uses_the_configured_new_game(factory):
    sched, sent = ManualScheduler(), []
    chosen = StartGame("gyges", {"variant": "standard"}, "default")
    with Panel(sent.append, pin_factory=factory, scheduler=sched, new_game=chosen, hold_button="undo",
               hold_time=2.0) as panel:
        press(factory, PINS.undo)
        sched.advance(2.0)
        release(factory, PINS.undo)
        click(factory, PINS.confirm)
        assert sent == [chosen, Confirm(1)]
        assert panel.buttons.hold_button == "undo"


def test_long_press_before_any_game_is_known_only_chirps(rig):
    panel, sched, sent, f = rig
    press(f, PINS.confirm)
    sched.advance(3.5)
    release(f, PINS.confirm)
    assert sent == [] and panel.beeper.last_pattern == CHIRP


# -- LEDs and buzzer over a game --------------------------------------------------------------------


def test_lights_and_sounds_over_a_refereed_game(rig, tmp_path):
    """A real referee at kind fidelity: a partial move, an illegal board, a restore, an accepted
    move and an undo, as the players would see and hear them."""
    panel, sched, sent, f = rig
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=GYGES.default_setup())
        ref.subscribe(panel.on_decision)
        ref.greeting()
        assert lit(f) == (True, False, False)  # ready

        start = GYGES.default_setup()
        board = dict(start.view(Fidelity.KIND).to_dict())
        lifted = {k: v for k, v in board.items() if k != "a1"}  # the single ring in a hand
        ref.handle(StableView(View(lifted)))
        assert panel.lights.mode is LightMode.WAITING
        # Waiting blinks: amber on 0.5 s, off 0.5 s, the others dark.
        assert sample(f, sched, PINS.waiting, 2.0, step=0.25) == [1, 1, 0, 0] * 2
        assert not f.pin(PINS.ready).state and not f.pin(PINS.illegal).state

        wrong = dict(board)
        wrong["a5"] = wrong.pop("a1")  # a single ring cannot reach a5: illegal
        f.pin(PINS.buzzer).clear_states()
        ref.handle(StableView(View(wrong)))
        assert lit(f) == (False, False, True)  # red, steady
        assert panel.beeper.last_pattern == CHIRP
        assert sample(f, sched, PINS.buzzer, 0.2, step=0.02) == expected_wave(CHIRP, 0.02) + [0] * 6
        assert [s.state for s in f.pin(PINS.buzzer).states] == [False, True, False]  # one chirp
        sched.advance(3.0)
        assert lit(f) == (False, False, True)  # red does not blink

        ref.handle(StableView(start.view(Fidelity.KIND)))  # put back: restored
        assert lit(f) == (True, False, False)
        ref.handle(StableView(start.apply_text("a1-a2").view(Fidelity.KIND)))
        assert lit(f) == (True, False, False) and ref.ply == 1
        sched.advance(2.0)
        assert lit(f) == (True, False, False)  # amber stays dark once ready: its blink was stopped

        ref.handle(Undo())  # undo holds the board: red until the ring is put back
        assert lit(f) == (False, False, True)


def test_the_computers_move_is_beeped_when_ready_and_when_said_again(rig, tmp_path):
    """A real referee with the computer at north: its move ready for hands (short, long), a
    wrong board (the chirp, then the same), put right and carried out (silent)."""
    panel, sched, sent, f = rig
    buzzer = f.pin(PINS.buzzer)
    with Journal(tmp_path / "j.sqlite3") as journal:
        ref = Referee.start(journal, "gyges", fidelity=Fidelity.KIND, start=GYGES.default_setup(),
                            seats=parse_seats("north:1"))
        ref.subscribe(panel.on_decision)
        asks = []
        ref.subscribe(lambda d: asks.append(d) if d.kind == "thinking" else None)
        ref.greeting()
        after = GYGES.default_setup().apply_text("a1-a2")
        ref.handle(StableView(after.view(Fidelity.KIND)))  # south's move: the computer is asked
        sched.advance(2.0)
        buzzer.clear_states()
        ref.handle(PlayComputerMove(asks[-1].token, ("a6-b6/a3",)))
        assert panel.beeper.last_pattern == COMPUTER and lit(f) == (True, False, False)  # the board still matches
        assert sample(f, sched, PINS.buzzer, 0.6, step=0.02) == expected_wave(COMPUTER, 0.02) + [0] * 7

        other = next(m for m in after.legal_moves() if after.move_text(m) != "a6-b6/a3")
        buzzer.clear_states()
        ref.handle(StableView(after.successor(other).view(Fidelity.KIND)))  # not the computer's move
        assert panel.beeper.last_pattern == COMPUTER_AGAIN and lit(f) == (False, False, True)
        sched.advance(2.0)
        assert [s.state for s in buzzer.states] == [False, True, False, True, False, True, False]  # chirp, short, long

        buzzer.clear_states()
        ref.handle(StableView(after.view(Fidelity.KIND)))  # put right
        ref.handle(StableView(after.apply_text("a6-b6/a3").view(Fidelity.KIND)))  # the computer's move, made
        sched.advance(2.0)
        assert ref.ply == 2 and lit(f) == (True, False, False)
        assert [s.state for s in buzzer.states] == [False]  # nothing more to hear


def test_drift_phase_reminder_pattern_and_amber(rig):
    """The generic reminder hook: a position whose phase is "drift" blinks amber and sounds
    the drift pattern once, on entry; leaving the phase turns green again."""
    panel, sched, sent, f = rig
    panel.on_decision(new_game("drift"))
    f.pin(PINS.buzzer).clear_states()
    panel.on_decision(accepted("drift"))
    assert panel.beeper.last_pattern == DRIFT
    assert panel.lights.mode is LightMode.WAITING
    assert sample(f, sched, PINS.buzzer, DRIFT.duration + 0.3) == expected_wave(DRIFT) + [0] * 6
    assert [s.state for s in f.pin(PINS.buzzer).states] == [False] + [True, False] * 3  # three beeps

    panel.on_decision(Partial(1, 2, ("y",), ()))  # a rotation part-way: still waiting
    panel.on_decision(Illegal(1, 2, ()))
    assert lit(f) == (False, False, True)
    panel.on_decision(Restored(1, 2))  # back to the drift reminder, not to "ready"
    assert panel.lights.mode is LightMode.WAITING
    sched.advance(0.5)  # the illegal board's chirp
    f.pin(PINS.buzzer).clear_states()
    panel.on_decision(accepted("drift", 2))  # still in the drift phase: no second reminder
    sched.advance(2.0)
    assert [s.state for s in f.pin(PINS.buzzer).states] == [False]

    click(f, PINS.end_turn)  # "drift done"
    assert sent[-1] == Declare("end")
    panel.on_decision(accepted("play", 3))
    assert lit(f) == (True, False, False)


def test_game_over_and_rejection_and_disconnect(rig):
    panel, sched, sent, f = rig
    panel.on_decision(new_game())
    panel.on_decision(GameOver(1, 30, {"winner": "south", "reason": "throne captured"}))
    assert panel.beeper.last_pattern == GAME_OVER
    assert sample(f, sched, PINS.ready, 4.0, step=0.5) == [1, 1, 0, 0, 1, 1, 0, 0]  # slow green blink
    panel.on_decision(Rejected(1, 30, "confirm 1", "no question is open"))
    assert panel.beeper.last_pattern == CHIRP and panel.lights.mode is LightMode.OVER

    panel.set_connected(False)
    assert panel.lights.mode is LightMode.DISCONNECTED
    assert sample(f, sched, PINS.illegal, 1.0, step=0.125) == [1, 1, 0, 0, 1, 1, 0, 0]
    assert not f.pin(PINS.ready).state
    panel.on_decision(new_game())  # decisions still tracked while disconnected
    panel.set_connected(True)
    assert lit(f) == (True, False, False)


def test_passive_buzzer_is_driven_by_pwm():
    factory = MockFactory(pin_class=MockPWMPin)
    sched = ManualScheduler()
    with Beeper(18, pin_factory=factory, scheduler=sched, tone_hz=2500) as beeper:
        beeper.play(QUESTION)
        buzzer = factory.pin(18)
        assert buzzer.frequency == 2500
        sched.advance(1.0)
        assert [s.state for s in buzzer.states] == [0, 0.5, 0, 0.5, 0]  # half duty while sounding
        beeper.play(DRIFT)
        sched.advance(0.1)
        beeper.play(CHIRP)  # a new pattern cuts the old one short
        sched.advance(2.0)
        assert [s.state for s in buzzer.states] == [0, 0.5, 0, 0.5, 0] + [0.5, 0] + [0.5, 0]
        assert buzzer.state == 0 and sched.pending() == 0


def test_start_and_close_are_safe_twice(factory):
    sched = ManualScheduler()
    panel = Panel(lambda c: None, pin_factory=factory, scheduler=sched)
    panel.close()  # never started
    panel.start()
    panel.start()
    panel.on_decision(new_game())
    assert lit(factory) == (True, False, False)
    panel.close()
    panel.close()
    assert not any(lit(factory))
    with Panel(lambda c: None, pin_factory=factory, scheduler=sched) as again:  # the pins were freed
        again.on_decision(Illegal(1, 0, ()))
        assert lit(factory) == (False, False, True)
    with Lights(pin_factory=factory, scheduler=sched) as lights:
        lights.show(LightMode.READY)
        assert lit(factory) == (True, False, False)


def test_panel_made_without_a_scheduler_runs_its_own_thread(factory):
    import time

    with Panel(lambda c: None, pin_factory=factory) as panel:
        panel.on_decision(Partial(1, 0, ("a1-a2",), ()))
        amber = factory.pin(PINS.waiting)
        deadline = time.monotonic() + 2.0
        while len(amber.states) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [s.state for s in amber.states][:3] == [False, True, False]  # it blinked by itself


def test_bad_pin_configuration_is_refused_clearly():
    assert PanelPins.from_dict({"confirm": 5, "buzzer": "GPIO13"}).confirm == 5
    with pytest.raises(PinConfigError, match=r"panel: unknown role 'confrim'"):
        PanelPins.from_dict({"confrim": 5}, where="panel")
    with pytest.raises(PinConfigError, match=r"pin 17 is given to both 'confirm' and 'ready'"):
        PanelPins.from_dict({"confirm": 17})
    with pytest.raises(PinConfigError, match=r"^panel\.pins\.undo: BCM pin 40 is not on the 40-pin header"):
        PanelPins.from_dict({"undo": 40})
    with pytest.raises(PinConfigError, match=r"given to both 'undo' and 'end_turn'"):
        PanelPins(undo="GPIO25")
    with pytest.raises(PinConfigError, match=r"expected an object"):
        PanelPins.from_dict([1, 2])
