"""The game clock said aloud and on the panel's buzzer (issue 34, part 1): the thresholds once
each, a flag fall; in English and French; nothing here sleeps."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from decisions import NewGame
from decisions.clock import Clocks, ClockWarning, FlagFall
from hardware.panel import TIME, Panel
from hardware.schedule import ManualScheduler
from rules import get_game
from tableref.voice.sentences import Narrator


@pytest.mark.parametrize("language, minute, seconds, lost", [
    ("en", "South: 1 minute left", "North: 10 seconds left", "South loses on time"),
    ("fr", "Sud : encore 1 minute", "Nord : encore 10 secondes", "Sud perd au temps"),
])
def test_the_thresholds_and_the_flag_are_said(language, minute, seconds, lost):
    n = Narrator(language)
    n.on(NewGame(1, 0, "gyges", get_game("gyges").default_setup().to_dict()))
    assert [u.text for u in n.on(ClockWarning(1, 4, "south", 60))] == [minute]
    assert [u.text for u in n.on(ClockWarning(1, 5, "north", 10))] == [seconds]
    said = n.on(FlagFall(1, 5, "south", {"winner": "north", "reason": "south loses on time", "scores": {}}))
    assert [u.text for u in said] == [lost] and said[0].cue == "over"
    assert n.on(Clocks(1, 5, "5+3", {"south": 1, "north": 2}, "north")) == []  # a clock change is not said


def test_the_panel_pips_at_a_threshold():
    factory = MockFactory()
    try:
        panel = Panel(lambda c: None, pin_factory=factory, scheduler=ManualScheduler(), hold_time=3.0)
        panel.start()
        panel.on_decision(ClockWarning(1, 4, "south", 10))
        assert panel.beeper.last_pattern == TIME
        panel.close()
    finally:
        factory.reset()
