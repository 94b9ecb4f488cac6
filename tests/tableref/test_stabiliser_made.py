"""The stabiliser says when the board came to show a view (issue 34: the game clock passes then,
not when the view settled)."""

from __future__ import annotations

from rules import Fidelity, View
from rules.view import Observation
from tableref.stabiliser import Stabiliser

A, B = View({"a1": ("1",)}), View({"a2": ("1",)})


def feed(stab, obs):
    return [t for t, o in obs if stab.feed(o) is not None]


def test_a_sensor_change_is_made_at_its_first_reading():
    stab = Stabiliser()
    obs = [(t / 10, Observation(A if t < 5 else B, t / 10, Fidelity.KIND, "serial", frozenset())) for t in range(20)]
    assert feed(stab, obs) == [1.1]
    assert stab.made == 0.5  # B first read at 0.5, settled at 1.1


def test_a_camera_view_is_made_when_the_hand_left():
    stab = Stabiliser()
    hand = frozenset({"a1", "a2"})
    obs = [(0.0, Observation(A, 0.0, Fidelity.KIND, "camera", frozenset(), hands_clear_since=-5.0)),
           (0.1, Observation(A, 0.1, Fidelity.KIND, "camera", frozenset(), hands_clear_since=-5.0))]
    obs += [(t, Observation(View({}), t, Fidelity.KIND, "camera", hand, hands_clear_since=t)) for t in (1.0, 1.1, 1.2)]
    obs += [(t, Observation(B, t, Fidelity.KIND, "camera", frozenset(), hands_clear_since=1.25))
            for t in (1.3, 1.35, 1.4, 1.45)]
    assert feed(stab, obs) == [0.1, 1.4]
    assert stab.made == 1.25  # the hand left at 1.25; the view settled at 1.4


def test_a_view_read_long_after_the_hand_left_is_made_at_its_first_reading():
    stab = Stabiliser()
    obs = [(t, Observation(B, t, Fidelity.KIND, "camera", frozenset(), hands_clear_since=0.0)) for t in (5.0, 5.1)]
    assert feed(stab, obs) == [5.1] and stab.made == 5.0
