"""A looped video file starts again at its end, its times going on (issue 33, item 7)."""

from __future__ import annotations

import numpy as np

from vision.camera.capture import OpenCVCapture


class FakeFilm:
    """cv2.VideoCapture over a three-frame film at 10 fps."""

    opened = 0

    def __init__(self, source):
        FakeFilm.opened += 1
        self.left = 3

    def isOpened(self):
        return True

    def read(self):
        if not self.left:
            return False, None
        self.left -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def get(self, prop):
        return 10.0

    def release(self):
        pass


def test_a_looped_film_plays_again_with_times_going_on():
    cap = OpenCVCapture("film.avi", factory=FakeFilm, size=None, loop=True)
    times = [round(cap.read().t, 3) for _ in range(7)]
    assert times == [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    assert cap.loops == 2


def test_without_loop_the_film_ends():
    cap = OpenCVCapture("film.avi", factory=FakeFilm, size=None)
    assert [cap.read() is None for _ in range(4)] == [False, False, False, True]
    assert cap.loops == 0
