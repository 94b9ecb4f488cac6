"""The pure clock (issue 34, part 1): every time passed in, whole milliseconds, exact."""

from __future__ import annotations

import pytest

from tableref.clock import Clock, ClockError, Period, TimeControl, clock_text, default_control, parse_control


def test_controls_parse_and_print_back():
    assert parse_control("10") == TimeControl((Period(600_000),))
    assert parse_control("5+3") == TimeControl((Period(300_000, increment_ms=3000),))
    assert parse_control("10d5") == TimeControl((Period(600_000, delay_ms=5000),))
    assert parse_control("0.5+0.25") == TimeControl((Period(30_000, increment_ms=250),))
    assert parse_control("40/90+30,30+30") == TimeControl((Period(5_400_000, 40, 30_000), Period(1_800_000, None, 30_000)))
    for text in ("10", "5+3", "10d5", "0.5+0.25", "40/90+30,30+30", "40/120,20/60,30"):
        assert parse_control(text).text() == text
    assert parse_control("off") is None and parse_control(" none ") is None


@pytest.mark.parametrize("bad", ["5+", "abc", "40/90", "90,30", "5x3", "0", "0.00001", "5+3+2"])
def test_bad_controls_are_refused_saying_why(bad):
    with pytest.raises(ClockError, match="time control"):
        parse_control(bad)


def test_every_game_has_a_default():
    for game in ("gyges", "anacund", "annihilation", "annelids", "drift"):
        assert default_control(game).periods[0].ms > 0


def test_sudden_death_charges_the_mover_only():
    c = Clock(parse_control("1"), ("a", "b"))
    c.start("a", 100.0)
    assert c.times(112.5) == {"a": 47_500, "b": 60_000}
    c.moved("b", 112.5)
    assert c.times(120.0) == {"a": 47_500, "b": 52_500}
    assert c.running == "b"


def test_fischer_adds_the_increment_after_each_turn():
    c = Clock(parse_control("1+2"), ("a", "b"))
    c.start("a", 0.0)
    c.moved("b", 10.0)  # a: 60 - 10 + 2
    c.moved("a", 11.5)  # b: 60 - 1.5 + 2
    assert c.times(11.5) == {"a": 52_000, "b": 60_500}


def test_bronstein_gives_back_at_most_the_delay():
    c = Clock(parse_control("1d5"), ("a", "b"))
    c.start("a", 0.0)
    c.moved("b", 3.0)  # a quick turn costs nothing
    c.moved("a", 12.0)  # a slow one costs what passed the delay: 9 - 5
    assert c.times(12.0) == {"a": 60_000, "b": 56_000}
    assert c.remaining_ms("a", 14.0) == 58_000  # the running clock counts down meanwhile


def test_moves_in_time_adds_the_next_period_after_its_turns():
    c = Clock(parse_control("2/1,0.5"), ("a", "b"))
    c.start("a", 0.0)
    t = 0.0
    for to in ("b", "a", "b", "a"):  # two turns each, 5 s apiece
        t += 5
        c.moved(to, t)
    assert c.times(t) == {"a": 50_000 + 30_000, "b": 50_000 + 30_000}
    assert c.period == {"a": 1, "b": 1}


def test_a_turn_of_several_moves_keeps_the_movers_clock():
    c = Clock(parse_control("1+1"), ("a", "b"))
    c.start("a", 0.0)
    c.moved("a", 2.0)
    c.moved("a", 4.0)
    assert c.running == "a" and c.times(4.0) == {"a": 56_000, "b": 60_000}
    c.moved("b", 6.0)  # the third placement ends the turn: one increment
    assert c.times(6.0) == {"a": 55_000, "b": 60_000}


def test_flag_falls_when_the_running_time_is_out():
    c = Clock(parse_control("0.5"), ("a", "b"))
    c.start("a", 0.0)
    assert c.flag(29.999) is None
    assert c.flag(30.0) == "a"
    assert c.running is None and c.times(40.0) == {"a": 0, "b": 30_000}


def test_pause_and_resume_stop_the_running_clock():
    c = Clock(parse_control("1"), ("a", "b"))
    c.start("a", 0.0)
    c.pause(10.0)
    assert c.times(500.0)["a"] == 50_000
    c.resume(500.0)
    assert c.times(505.0)["a"] == 45_000
    c.moved("b", 505.0)
    assert c.times(506.0) == {"a": 45_000, "b": 59_000}


def test_undo_restore_gives_back_the_opponents_time_and_resumes_the_movers_turn():
    c = Clock(parse_control("1d5"), ("a", "b"))
    c.start("a", 0.0)
    c.moved("b", 8.0)  # a: 60 - 3
    c.undo(20.0)  # b's 12 s come back; a's turn goes on from 8 s used
    assert c.running == "a" and c.times(20.0) == {"a": 52_000, "b": 60_000}
    c.moved("b", 22.0)  # a's whole turn: 10 s, 5 given back
    assert c.times(22.0) == {"a": 55_000, "b": 60_000}


def test_undo_keep_gives_nothing_back():
    c = Clock(parse_control("1+2"), ("a", "b"), undo="keep")
    c.start("a", 0.0)
    c.moved("b", 8.0)  # a: 60 - 8 + 2
    c.undo(20.0)
    assert c.running == "a" and c.times(20.0) == {"a": 54_000, "b": 48_000}


def test_undo_refused_with_no_move():
    with pytest.raises(ClockError):
        Clock(parse_control("1"), ("a", "b")).undo(1.0)


def test_a_time_before_the_last_change_is_taken_as_it():
    c = Clock(parse_control("1"), ("a", "b"))
    c.start("a", 0.0)
    c.pause(10.0)
    c.resume(10.0)
    c.moved("b", 9.0)  # judged late: the clock does not run backwards
    assert c.times(10.0) == {"a": 50_000, "b": 60_000}


def test_saved_and_restored_in_another_time_base():
    c = Clock(parse_control("1+1"), ("a", "b"), undo="restore")
    c.start("a", 0.0)
    c.moved("b", 5.0)
    saved = c.to_dict(7.0)  # b has used 2 s of the turn when the service stops
    d = Clock.from_dict(saved, 1000.0)  # another run, another time base
    assert d.times(1003.0) == {"a": 56_000, "b": 55_000}
    d.undo(1003.0)
    assert d.running == "a" and d.times(1003.0) == {"a": 55_000, "b": 60_000}


def test_drift_four_clocks_pass_round_the_table():
    sides = ("red", "blue", "green", "yellow")
    c = Clock(parse_control("1"), sides)
    c.start("red", 0.0)
    for i, to in enumerate(("blue", "green", "yellow", "red"), start=1):
        c.moved(to, i * 10.0)
    assert c.times(40.0) == {s: 50_000 for s in sides}


def test_clock_text():
    assert clock_text(600_000) == "10:00"
    assert clock_text(59_001) == "1:00"
    assert clock_text(9_950) == "0:09.9"
    assert clock_text(3_723_000) == "1:02:03"
    assert clock_text(-5) == "0:00"
