"""docs/wiring.md is what a builder wires and learns the panel from: every button, light and
beep pattern it documents is driven here through gpiozero's MockFactory, and the pins' recorded
state changes (``pin.states``, with timestamps) are checked against the times the doc gives.

The doc's tables are read, not copied: a row added to the doc without a check here fails, and
a timing changed in the code without the doc fails. Mock pins are timed by the panel's
ManualScheduler (gpiozero's mock clock is pointed at it), so times are exact; one test runs on
the real clock with gpiozero's own ``assert_states_and_times``."""

from __future__ import annotations

import re
from pathlib import Path

import gpiozero.pins.mock as gpio_mock
import pytest
from gpiozero.pins.mock import MockFactory

from hardware.panel import (
    CHIRP, COMPUTER, COMPUTER_AGAIN, DRIFT, GAME_OVER, HELD, MAX_PANEL_CHOICES, PAGE, QUESTION, LightMode, Panel,
    PanelPins, Pattern, count_pattern,
)
from hardware.schedule import ManualScheduler
from rules import get_game
from decisions import (
    Accepted, Ambiguous, Choice, ComputerMove, Confirm, Declare, GameOver, Illegal, NewGame, Partial, Rejected, Restored,
    StartGame, StartLesson, Step, TakenBack, Undo,
)
from decisions.remote import RemoteTurn

DOC = (Path(__file__).resolve().parents[2] / "docs" / "wiring.md").read_text(encoding="utf-8")
PINS = PanelPins()
GYGES = get_game("gyges")
LED_PINS = {"green": PINS.ready, "amber": PINS.waiting, "red": PINS.illegal}
HOLD = 3.0


def table(first_header: str) -> list[list[str]]:
    """The rows of the doc's table whose header row starts with ``first_header``."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert rows, first_header
    return rows


def seconds(cell: str) -> float:
    return float(re.fullmatch(r"([\d.]+) s", cell).group(1))


def doc_beeps(cell: str) -> tuple[tuple[float, float], ...]:
    """"60 / 80 / 60" -> ((0.06, 0.08), (0.06, 0.0)): alternately sounding and silent, in ms."""
    ms = [int(x) / 1000 for x in cell.split("/")]
    ms += [0.0] * (len(ms) % 2)
    return tuple(zip(ms[0::2], ms[1::2]))


PATTERNS = {"chirp": CHIRP, "question": QUESTION, "page": PAGE, "held": HELD, "game over": GAME_OVER,
            "drift": DRIFT, "computer": COMPUTER, "computer again": COMPUTER_AGAIN}


def pattern_named(name: str) -> Pattern:
    counted = re.fullmatch(r"count (\d+)", name)
    return count_pattern(int(counted.group(1))) if counted else PATTERNS[name]


@pytest.fixture
def rig(monkeypatch):
    """A started panel on mock pins whose clock is the panel's scheduler."""
    sched = ManualScheduler(start=1000.0)
    monkeypatch.setattr(gpio_mock, "monotonic", sched.now)
    factory = MockFactory()
    sent: list = []
    panel = Panel(sent.append, pin_factory=factory, scheduler=sched, hold_time=HOLD)
    panel.start()
    yield panel, sched, sent, factory
    panel.close()
    factory.reset()


def timeline(factory, pin) -> list[tuple[float, bool]]:
    """The pin's changes since its last clear: (seconds since the previous change, state)."""
    return [(round(s.timestamp, 6), bool(s.state)) for s in factory.pin(pin).states]


def beep_timeline(pattern: Pattern) -> list[tuple[float, bool]]:
    """What the buzzer pin records for ``pattern`` played at once after a clear."""
    out, gap = [(0.0, False)], 0.0
    for on, off in pattern.beeps:
        out += [(round(gap, 6), True), (round(on, 6), False)]
        gap = off
    return out


def blink_timeline(lit: float, dark: float, periods: int) -> list[tuple[float, bool]]:
    return [(0.0, False), (0.0, True)] + [(round(lit, 6), False), (round(dark, 6), True)] * periods


def clear(factory) -> None:
    for pin in (*LED_PINS.values(), PINS.buzzer):
        factory.pin(pin).clear_states()


# -- beeps ------------------------------------------------------------------------------------------


BEEP_ROWS = table("pattern")


@pytest.mark.parametrize("name, cell", [(r[0], r[1]) for r in BEEP_ROWS], ids=[r[0] for r in BEEP_ROWS])
def test_each_documented_beep_pattern_sounds_for_the_documented_times(rig, name, cell):
    panel, sched, sent, factory = rig
    pattern = pattern_named(name)
    assert [(round(on, 6), round(off, 6)) for on, off in pattern.beeps] == list(doc_beeps(cell))
    clear(factory)
    panel.beeper.play(pattern)
    sched.advance(pattern.duration + 1.0)
    assert timeline(factory, PINS.buzzer) == beep_timeline(pattern)


def test_the_beep_table_lists_every_pattern_the_panel_plays():
    named = {r[0] for r in BEEP_ROWS}
    assert set(PATTERNS) <= named and {"count 1", "count 5", "count 7"} <= named


def test_choice_numbers_count_in_fives_up_to_the_panel_limit():
    for n in range(1, MAX_PANEL_CHOICES + 1):
        beeps = count_pattern(n).beeps
        assert len(beeps) <= 5 and sum(5 if on > 0.1 else 1 for on, _ in beeps) == n
    assert MAX_PANEL_CHOICES == 9 and "more than 9 choices" in DOC


# -- lights -----------------------------------------------------------------------------------------


LIGHT_ROWS = table("light")
MODES = {m.value: m for m in LightMode}


@pytest.mark.parametrize("row", LIGHT_ROWS, ids=[r[0] for r in LIGHT_ROWS])
def test_each_documented_light_is_its_led_lit_and_dark_for_the_documented_times(rig, row):
    name, colour, lit, dark = row
    panel, sched, sent, factory = rig
    panel.lights.show(LightMode.OFF)
    clear(factory)
    panel.lights.show(MODES[name])
    if lit == "steady":
        sched.advance(10.0)
        expected = [(0.0, False), (0.0, True)]
    else:
        lit_s, dark_s = seconds(lit), seconds(dark)
        sched.advance(3 * (lit_s + dark_s) + lit_s / 2)  # three blinks, then half-way into the fourth
        expected = blink_timeline(lit_s, dark_s, 3)
    assert timeline(factory, LED_PINS[colour]) == expected
    for other, pin in LED_PINS.items():
        if other != colour:
            assert timeline(factory, pin) == [(0.0, False)], other  # one LED at a time


def test_the_light_table_covers_every_mode():
    assert {r[0] for r in LIGHT_ROWS} == {m.value for m in LightMode if m is not LightMode.OFF}


# -- what the players see and hear, per decision ---------------------------------------------------


def choices(n):
    return tuple(Choice(i, f"m{i}", "") for i in range(1, n + 1))


def position(phase="play"):
    return {**GYGES.default_setup().to_dict(), "phase": phase}


TURN = (Step("f6-e6", "North: single ring f6 → e6", ("f6",), ("e6",)),
        Step("e6-e5", "North: single ring e6 → e5", ("e6",), ("e5",)))  # a turn of two moves

# Each documented row: what puts the panel in that situation.
SAYS = {
    "new game": lambda p: p.on_decision(NewGame(2, 0, "gyges", position())),
    "move accepted": lambda p: p.on_decision(Accepted(1, 1, "a1-a2", "a move", position())),
    "taken back": lambda p: p.on_decision(TakenBack(1, 0, "a1-a2", position())),
    "board restored": lambda p: p.on_decision(Restored(1, 1)),
    "a move part-way (a ring in a hand)": lambda p: p.on_decision(Partial(1, 1, ("a1-a2",), ())),
    "ambiguous: confirm a choice": lambda p: p.on_decision(Ambiguous(1, 1, choices(3))),
    "ambiguous, more than 9 choices": lambda p: p.on_decision(Ambiguous(1, 1, choices(16))),
    "illegal board (put the pieces back)": lambda p: p.on_decision(Illegal(1, 1, ())),
    "a command refused": lambda p: p.on_decision(Rejected(1, 1, "confirm 1", "no question is open")),
    "game over": lambda p: p.on_decision(GameOver(1, 9, {"winner": "south", "reason": "goal"})),
    "sensors lost": lambda p: p.set_connected(False),
    "a reminder phase entered (DRIFT's drift)": lambda p: p.on_decision(
        Accepted(1, 1, "x", "a move", {"game": "drift", "phase": "drift"})),
    "the computer's move, for a person to carry out": lambda p: p.on_decision(ComputerMove(1, 1, "north", 1, TURN)),
    "the next step of the computer's turn": lambda p: p.on_decision(ComputerMove(1, 2, "north", 1, TURN, done=1)),
    "the computer's move again (the board showed another)": lambda p: [
        p.on_decision(Illegal(1, 1, ())), p.on_decision(ComputerMove(1, 1, "north", 1, TURN, repeated=True))],
    "the other table's move, for a person to carry out": lambda p: p.on_decision(
        RemoteTurn(1, 1, "north", "table-b", TURN)),
    "the other table's move again (the board showed another)": lambda p: [
        p.on_decision(Illegal(1, 1, ())), p.on_decision(RemoteTurn(1, 1, "north", "table-b", TURN, repeated=True))],
}
SAYS_ROWS = table("the referee says")


def test_every_documented_situation_is_driven():
    assert [r[0] for r in SAYS_ROWS] == list(SAYS)


@pytest.mark.parametrize("row", SAYS_ROWS, ids=[r[0] for r in SAYS_ROWS])
@pytest.mark.parametrize("before", ["ready", "illegal"])
def test_each_situation_shows_its_light_and_sounds_its_beeps(rig, row, before):
    says, light, beeps = row
    panel, sched, sent, factory = rig
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    if before == "illegal":
        panel.on_decision(Illegal(1, 0, ()))
    sched.advance(2.0)  # whatever was sounding has ended
    was = panel.lights.mode
    clear(factory)
    SAYS[says](panel)
    shown = was if light == "unchanged" else MODES[light]
    assert panel.lights.mode is shown
    colour = next(r[1] for r in LIGHT_ROWS if r[0] == shown.value)
    assert [factory.pin(pin).state for pin in LED_PINS.values()] == [c == colour for c in LED_PINS]  # lit at once
    if beeps == "—":
        sched.advance(2.0)
        assert timeline(factory, PINS.buzzer) == [(0.0, False)]
    else:
        pattern = PATTERNS[beeps]
        sched.advance(pattern.duration + 0.5)
        assert timeline(factory, PINS.buzzer) == beep_timeline(pattern)


def test_sensors_back_show_the_game_again_silently(rig):
    panel, sched, sent, factory = rig
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    panel.set_connected(False)
    sched.advance(1.0)
    clear(factory)
    panel.set_connected(True)
    panel.set_connected(True)
    sched.advance(2.0)
    assert panel.lights.mode is LightMode.READY and timeline(factory, PINS.buzzer) == [(0.0, False)]


# -- buttons ----------------------------------------------------------------------------------------


BUTTON_ROWS = table("button")


def test_the_button_table_says_when_each_button_acts():
    acts = {r[0]: r[1] for r in BUTTON_ROWS}
    assert acts == {"confirm": "release, before 3 s", "confirm held 3 s": "the 3 s mark, still held",
                    "undo": "press", "end turn": "press", "cycle": "press", "cycle within 3 s of a held new game": "press"}
    assert f"held {HOLD:g} s" in DOC and PanelPins().confirm == 23


def press(factory, role):
    factory.pin(getattr(PINS, role)).drive_low()


def release(factory, role):
    factory.pin(getattr(PINS, role)).drive_high()


@pytest.mark.parametrize("role, command", [("undo", Undo()), ("end_turn", Declare("end"))])
def test_undo_and_end_turn_act_on_press(rig, role, command):
    panel, sched, sent, factory = rig
    press(factory, role)
    assert sent == [command]  # before the release
    sched.advance(HOLD + 1)
    release(factory, role)
    assert sent == [command]  # a long press is still one command
    assert timeline(factory, PINS.buzzer) == [(0.0, False)]


def test_confirm_acts_on_release_and_its_hold_at_three_seconds(rig):
    panel, sched, sent, factory = rig
    panel.new_game = StartGame("gyges", {"variant": "kings"}, "default")
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    press(factory, "confirm")
    sched.advance(HOLD - 0.01)
    assert sent == []  # a confirm or a hold: not known yet
    release(factory, "confirm")
    assert sent == [Confirm(1)]  # on release, before 3 s
    clear(factory)
    press(factory, "confirm")
    sched.advance(HOLD - 1e-6)
    assert len(sent) == 1
    sched.advance(1e-6)
    assert sent[-1] == StartGame("gyges", {"variant": "kings"}, "default")  # at the 3 s mark, still held
    sched.advance(HELD.duration + 0.2)
    assert timeline(factory, PINS.buzzer) == [(0.0, False), (HOLD, True), (0.3, False)]  # the held beep
    release(factory, "confirm")
    assert len(sent) == 2  # the release after a hold sends nothing


def test_the_long_press_starts_the_configured_game_or_the_one_being_played(rig):
    panel, sched, sent, factory = rig

    def hold():
        press(factory, "confirm")
        sched.advance(HOLD)
        release(factory, "confirm")
        return sent[-1] if sent else None

    assert hold() is None and panel.beeper.last_pattern == CHIRP  # no game known yet: a chirp
    configured = StartGame("gyges", {"variant": "kings"}, "default")
    panel.new_game = configured
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    assert hold() == configured
    panel.on_decision(NewGame(2, 0, "drift", {"game": "drift", "phase": "setup"}))  # started from the page
    assert hold() == StartGame("drift", {}, "default")
    panel.new_game = None
    assert hold() == StartGame("drift", {}, "default")


def test_cycle_beeps_each_number_wraps_and_confirm_sends_it(rig):
    panel, sched, sent, factory = rig
    n = MAX_PANEL_CHOICES
    panel.on_decision(Ambiguous(1, 1, choices(n)))
    sched.advance(1.0)
    heard = []
    for _ in range(n):
        clear(factory)
        press(factory, "cycle")
        release(factory, "cycle")
        sched.advance(3.0)
        heard.append(timeline(factory, PINS.buzzer))
    # 2, 3, ... n, then back to 1: each number beeped as the doc's count patterns.
    assert heard == [beep_timeline(count_pattern(k)) for k in [*range(2, n + 1), 1]]
    press(factory, "cycle")
    release(factory, "cycle")  # highlight 2
    press(factory, "confirm")
    release(factory, "confirm")
    assert sent == [Confirm(2, "m2")]


def test_cycle_with_no_question_open_only_chirps(rig):
    panel, sched, sent, factory = rig
    clear(factory)
    press(factory, "cycle")
    release(factory, "cycle")
    sched.advance(1.0)
    assert sent == [] and timeline(factory, PINS.buzzer) == beep_timeline(CHIRP)
    press(factory, "confirm")
    release(factory, "confirm")
    assert sent == [Confirm(1)]  # the referee refuses it, and its refusal chirps


def test_a_question_of_more_than_nine_choices_is_answered_on_the_page(rig):
    panel, sched, sent, factory = rig
    panel.on_decision(Ambiguous(1, 1, choices(MAX_PANEL_CHOICES + 1)))
    assert panel.beeper.last_pattern == PAGE and panel.lights.mode is LightMode.WAITING
    sched.advance(2.0)
    for role in ("cycle", "confirm"):
        clear(factory)
        press(factory, role)
        release(factory, role)
        sched.advance(1.0)
        assert timeline(factory, PINS.buzzer) == beep_timeline(CHIRP), role
    assert sent == [] and panel.highlighted == 1
    press(factory, "undo")
    assert sent == [Undo()]  # undo still works


# -- on the real clock ---------------------------------------------------------------------------


def test_the_drift_pattern_and_the_amber_blink_keep_time_on_the_real_clock():
    """The panel's own timer thread, and gpiozero's assert_states_and_times (within 50 ms)."""
    factory = MockFactory()
    try:
        with Panel(lambda c: None, pin_factory=factory) as panel:
            buzzer, amber = factory.pin(PINS.buzzer), factory.pin(PINS.waiting)
            buzzer.clear_states()
            amber.clear_states()
            panel.on_decision(Accepted(1, 1, "x", "a move", {"game": "drift", "phase": "drift"}))
            import time

            time.sleep(DRIFT.duration + 0.3)
        buzzer.assert_states_and_times([(0.0, False), (0.0, True), (0.4, False), (0.2, True), (0.4, False),
                                        (0.2, True), (0.4, False)])
        assert len(buzzer.states) == 7
        amber.assert_states_and_times([(0.0, False), (0.0, True), (0.5, False), (0.5, True), (0.5, False)])
    finally:
        factory.reset()


def test_cycle_within_three_seconds_of_a_held_new_game_starts_its_first_lesson(rig):
    """The lesson's gesture (docs/teaching.md): hold confirm for a new game, then cycle."""
    panel, sched, sent, factory = rig
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    press(factory, "confirm")
    sched.advance(HOLD)
    release(factory, "confirm")
    sched.advance(2.9)
    press(factory, "cycle")
    release(factory, "cycle")
    assert sent == [StartGame("gyges", {}, "default"), StartLesson("gyges")]
    assert panel.beeper.last_pattern == HELD
    sched.advance(1.0)
    press(factory, "cycle")  # the offer is taken: cycle is cycle again (nothing to choose: a chirp)
    release(factory, "cycle")
    assert sent[-1] == StartLesson("gyges") and len(sent) == 2 and panel.beeper.last_pattern == CHIRP


@pytest.mark.parametrize("wait, between", [(3.1, None), (1.0, "undo")])
def test_cycle_too_late_or_after_another_button_is_only_cycle(rig, wait, between):
    panel, sched, sent, factory = rig
    panel.on_decision(NewGame(1, 0, "gyges", position()))
    press(factory, "confirm")
    sched.advance(HOLD)
    release(factory, "confirm")
    if between:
        press(factory, between)
        release(factory, between)
    sched.advance(wait)
    press(factory, "cycle")
    release(factory, "cycle")
    assert not any(isinstance(c, StartLesson) for c in sent)


def test_a_held_new_game_with_no_lesson_yet_chirps_on_cycle(rig, monkeypatch):
    import hardware.panel

    monkeypatch.setattr(hardware.panel, "LESSON_GAMES", ("gyges",))  # every game has one now: pretend
    panel, sched, sent, factory = rig
    panel.on_decision(NewGame(2, 0, "drift", {"game": "drift", "phase": "setup"}))
    press(factory, "confirm")
    sched.advance(HOLD)
    release(factory, "confirm")
    press(factory, "cycle")
    assert sent == [StartGame("drift", {}, "default")] and panel.beeper.last_pattern == CHIRP
