"""The stabiliser: only settled, complete readings become views, each reported once."""

from __future__ import annotations

import math

import pytest

from rules.view import Fidelity, Observation, View
from tableref.stabiliser import Stabiliser

A = View({"a1": "1", "b2": "2"})
B = View({"a1": "1", "c3": "2"})
C = View({"c3": "2"})


def obs(view: View, t: float, unreadable: frozenset[str] | set[str] = frozenset()) -> Observation:
    return Observation(view, t, Fidelity.KIND, "test", frozenset(unreadable))


def run(stab: Stabiliser, readings: list[tuple[View, float] | tuple[View, float, set[str]]]) -> list[tuple[float, View]]:
    """Feed readings; return (time, view) for each report."""
    out = []
    for reading in readings:
        view, t = reading[0], reading[1]
        hidden = reading[2] if len(reading) > 2 else frozenset()
        got = stab.feed(obs(view, t, hidden))
        if got is not None:
            out.append((t, got))
    return out


def steady(view: View, start: float, count: int, step: float = 0.1) -> list[tuple[View, float]]:
    return [(view, round(start + i * step, 6)) for i in range(count)]


def test_reports_once_when_settle_time_and_readings_are_reached():
    stab = Stabiliser()
    reports = run(stab, steady(A, 0.0, 20))
    assert reports == [(0.6, A)]
    assert stab.last_stable == A


def test_settle_time_is_measured_from_the_first_matching_reading_despite_float_rounding():
    # 1.4 - 0.8 == 0.5999999999999999 in floats; the view has still been read for 0.6 s.
    stab = Stabiliser(settle_time=0.6, min_readings=3)
    assert run(stab, steady(A, 0.8, 7)) == [(1.4, A)]


def test_uses_observation_time_not_wall_clock():
    # The same readings stamped 10 s apart settle immediately in "time", however fast fed.
    stab = Stabiliser(settle_time=5.0, min_readings=3)
    assert run(stab, [(A, 0.0), (A, 10.0), (A, 20.0)]) == [(20.0, A)]


def test_min_readings_honoured_even_when_settle_time_has_passed():
    stab = Stabiliser(settle_time=0.6, min_readings=3)
    assert run(stab, [(A, 0.0), (A, 1.0)]) == []  # spans 1 s but only two readings
    assert run(stab, [(A, 1.1)]) == [(1.1, A)]


def test_min_readings_alone_with_zero_settle_time():
    stab = Stabiliser(settle_time=0.0, min_readings=3)
    assert run(stab, [(A, 0.0), (A, 0.0), (A, 0.0), (A, 0.0)]) == [(0.0, A)]
    assert Stabiliser(settle_time=0.0, min_readings=1).feed(obs(B, 5.0)) == B


def test_settle_time_honoured_even_when_many_readings_arrive():
    stab = Stabiliser(settle_time=0.6, min_readings=3)
    assert run(stab, steady(A, 0.0, 50, step=0.01)) == []  # 0.49 s of readings
    assert run(stab, [(A, 0.61)]) == [(0.61, A)]


def test_flicker_shorter_than_settle_time_is_not_reported():
    stab = Stabiliser()
    readings = steady(A, 0.0, 10) + steady(B, 1.0, 5) + steady(A, 1.5, 10) + [(C, 2.5)] + steady(A, 2.6, 10)
    assert run(stab, readings) == [(0.6, A)]  # neither B, C, nor A a second time


def test_unreadable_resets_the_candidate():
    stab = Stabiliser()
    readings = steady(A, 0.0, 6) + [(A, 0.55, {"c3"})] + steady(A, 0.6, 10)
    # 0.0..0.5 would have settled at 0.6; the hand at 0.55 restarts the clock at 0.6.
    assert run(stab, readings) == [(1.2, A)]


def test_unreadable_observation_never_counts_even_if_its_view_matches():
    stab = Stabiliser(settle_time=0.0, min_readings=2)
    assert run(stab, [(A, 0.0, {"a1"}), (A, 0.1, {"a1"}), (A, 0.2, {"a1"})]) == []
    assert stab.candidate is None


def test_a_hand_over_a_settled_board_does_not_repeat_it():
    stab = Stabiliser()
    readings = steady(A, 0.0, 10) + [(A, 1.0, {"a1", "b2"})] * 3 + steady(A, 1.1, 10)
    assert run(stab, readings) == [(0.6, A)]


def test_a_b_a_gives_three_reports():
    stab = Stabiliser()
    readings = steady(A, 0.0, 10) + steady(B, 1.0, 10) + steady(A, 2.0, 10)
    assert run(stab, readings) == [(0.6, A), (1.6, B), (2.6, A)]
    assert stab.last_stable == A


def test_a_stable_view_is_not_reported_again_while_it_persists():
    stab = Stabiliser()
    assert len(run(stab, steady(A, 0.0, 100))) == 1


def test_reset_forgets_everything():
    stab = Stabiliser()
    run(stab, steady(A, 0.0, 4))
    stab.reset()
    assert stab.last_stable is None and stab.candidate is None
    assert run(stab, steady(A, 0.4, 7)) == [(1.0, A)]  # the 0.0..0.3 readings no longer count
    stab.reset()
    assert run(stab, steady(A, 2.0, 7)) == [(2.6, A)]  # reported again after a reset


def test_time_going_backwards_restarts_the_candidate():
    stab = Stabiliser()
    readings = steady(A, 5.0, 4) + steady(A, 0.0, 7)
    assert run(stab, readings) == [(0.6, A)]


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"settle_time": -0.1}, "settle_time must be >= 0"),
        ({"settle_time": math.nan}, "settle_time must be >= 0"),
        ({"settle_time": "0.6"}, "settle_time must be a number"),
        ({"min_readings": 0}, "min_readings must be >= 1"),
        ({"min_readings": 2.5}, "min_readings must be an integer"),
        ({"min_readings": True}, "min_readings must be an integer"),
    ],
)
def test_constructor_rejects_bad_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Stabiliser(**kwargs)


# -- a source that sees hands (the camera): a quiet window after the hand leaves --------------

def cam(view: View, t: float, clear: float | None, unreadable: frozenset[str] | set[str] = frozenset()) -> Observation:
    return Observation(view, t, Fidelity.KIND, "camera", frozenset(unreadable), hands_clear_since=clear)


def feed(stab: Stabiliser, observations) -> list[tuple[float, View]]:
    return [(o.time, v) for o in observations if (v := stab.feed(o)) is not None]


def test_a_camera_view_settles_a_quiet_window_after_the_hand_left_not_a_settle_time():
    stab = Stabiliser()  # settle 0.6 s for sensors; quiet 0.15 s over 2 readings for a camera
    frames = [cam(A, round(1.0 + i / 30, 4), clear=1.0) for i in range(30)]
    got = feed(stab, frames)
    assert got == [(round(1.0 + 5 / 30, 4), A)]  # the first reading at least 0.15 s after the hand left
    # The same readings without a hand signal wait for the settle time.
    plain = Stabiliser()
    assert feed(plain, [cam(A, o.time, None) for o in frames]) == [(1.6, A)]


def test_the_quiet_window_counts_from_the_hand_leaving_not_from_the_first_reading():
    stab = Stabiliser()
    # Read the same since 0.0, but something moved over the board until 2.0.
    first = [cam(A, t / 10, clear=0.0) for t in range(1)]
    later = [cam(A, round(2.0 + i / 30, 4), clear=2.0) for i in range(10)]
    got = feed(stab, first + later)
    assert got == [(2.1667, A)]
    # Too few readings: one reading, however quiet, is not enough.
    lone = Stabiliser()
    assert feed(lone, [cam(B, 5.0, clear=1.0)]) == []


def test_a_hand_still_over_the_board_never_settles_however_long():
    stab = Stabiliser()
    held = [cam(A, round(i / 30, 4), clear=0.0, unreadable={"c3", "c4"}) for i in range(300)]
    assert feed(stab, held) == []
    # ... and the hand's leaving (motion) restarts the window: the board is judged 0.15 s later.
    after = [cam(A, round(10.0 + i / 30, 4), clear=10.0) for i in range(10)]
    assert feed(stab, after) == [(10.1667, A)]


def test_a_brief_pause_of_the_hand_off_the_board_is_not_a_decision():
    stab = Stabiliser()
    # Hand away for 0.1 s (three frames), then back over the board (unreadable spaces).
    away = [cam(B, round(3.0 + i / 30, 4), clear=3.0) for i in range(4)]
    back = [cam(B, round(3.1333 + i / 30, 4), clear=3.1333, unreadable={"b2"}) for i in range(10)]
    assert feed(stab, away + back) == []


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"quiet": -1}, "quiet must be"),
        ({"quiet": math.nan}, "quiet must be"),
        ({"quiet": "0.2"}, "quiet must be"),
        ({"quiet_readings": 0}, "quiet_readings must be"),
        ({"quiet_readings": 1.5}, "quiet_readings must be"),
    ],
)
def test_constructor_rejects_bad_quiet_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        Stabiliser(**kwargs)
