"""Undo held mutes or unmutes the voice when the service speaks (issue 19: "Panel: long-press
undo mutes/unmutes"); a short press is still an undo, sent on release."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from hardware.panel import Panel
from hardware.schedule import ManualScheduler
from decisions import Undo


def _press(factory, pin, sched, seconds):
    p = factory.pin(pin)
    p.drive_low()
    sched.advance(seconds)
    p.drive_high()
    sched.advance(0.05)


def test_undo_held_toggles_mute_and_a_short_press_still_undoes():
    factory, sched = MockFactory(), ManualScheduler()
    sent, toggles = [], []
    with Panel(sent.append, pin_factory=factory, scheduler=sched, bounce_time=None,
               on_undo_hold=lambda: toggles.append(True)) as panel:
        _press(factory, panel.pins.undo, sched, 3.2)
        assert toggles == [True] and sent == []  # held: muted, no undo
        _press(factory, panel.pins.undo, sched, 0.2)
        assert sent == [Undo()] and toggles == [True]  # short: an undo, on release


def test_without_a_voice_undo_acts_on_press_as_before():
    factory, sched = MockFactory(), ManualScheduler()
    sent = []
    with Panel(sent.append, pin_factory=factory, scheduler=sched, bounce_time=None) as panel:
        factory.pin(panel.pins.undo).drive_low()
        assert sent == [Undo()]
        sched.advance(3.5)
        assert sent == [Undo()]


def test_a_failing_mute_hook_chirps_and_the_panel_goes_on():
    factory, sched = MockFactory(), ManualScheduler()
    sent = []

    def broken():
        raise RuntimeError("no voice")

    with Panel(sent.append, pin_factory=factory, scheduler=sched, bounce_time=None, on_undo_hold=broken) as panel:
        _press(factory, panel.pins.undo, sched, 3.2)
        _press(factory, panel.pins.undo, sched, 0.1)
        assert sent == [Undo()]
