"""Watch small, read big — and never process the big frame whole (issue 16 item 2): the lock
runs on the 1280x720 watch stream, the reader reads a 2304x1296 main frame (Camera Module 3)
through :class:`vision.camera.capture.WatchFrame` from crops and sampled points only. Every OpenCV
image function the read calls is watched: none may be handed the main frame (or a copy of
it) to process whole, nor return an image larger than the watch frame (work on the watch
frame itself is the watch stream's, sized for it). ``cv2.remap`` samples points of it (its
output is the points' size) and may be given it."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from bench.vision_speed import shelf_camera
from rules import Fidelity
from vision.camera.capture import WatchFrame, watch_frame
from vision.read.lock import BoardLock
from vision.simulated.sessions import random_position

MAIN, WATCH = (2304, 1296), (1280, 720)
# OpenCV's functions that process an image as a whole (what a reader might call on a frame).
IMAGE_FUNCTIONS = ("cvtColor", "resize", "GaussianBlur", "blur", "medianBlur", "boxFilter", "filter2D", "threshold",
                   "adaptiveThreshold", "warpPerspective", "warpAffine", "undistort", "equalizeHist", "inRange",
                   "absdiff", "add", "subtract", "multiply", "divide", "split", "merge", "bilateralFilter",
                   "Canny", "Sobel", "Laplacian", "erode", "dilate", "morphologyEx", "pyrDown", "pyrUp", "LUT",
                   "convertScaleAbs", "normalize", "findContours", "remap")


class WholeFrameGuard:
    """Records every call of an OpenCV image function on the main frame as a whole."""

    def __init__(self, monkeypatch, main: np.ndarray):
        self.main_shape = main.shape[:2]
        self.limit = WATCH[0] * WATCH[1]
        self.calls: list[str] = []
        for name in IMAGE_FUNCTIONS:
            monkeypatch.setattr(cv2, name, self._wrap(name, getattr(cv2, name)))

    def _wrap(self, name, f):
        def watched(*args, **kwargs):
            arrays = [a for a in (*args, *kwargs.values()) if isinstance(a, np.ndarray)]
            inputs = arrays[1:] if name == "remap" else arrays  # remap samples its source
            if any(a.shape[:2] == self.main_shape for a in inputs):
                self.calls.append(f"{name} given the whole main frame")
            out = f(*args, **kwargs)
            outs = out if isinstance(out, tuple) else (out,)
            if any(isinstance(o, np.ndarray) and o.ndim >= 2 and o.shape[0] * o.shape[1] > self.limit
                   for o in outs):
                self.calls.append(f"{name} made an image larger than the watch frame")
            return out

        return watched


def _setup(game):
    grid, model, base, reader = shelf_camera(game, MAIN)
    view = random_position(game, 3, 20).view(Fidelity.KIND)
    watch = watch_frame(model.render(replace(base, view=view, seed=9)), WATCH)
    lock = BoardLock(grid.sheet, lens=reader.lens)  # the barrel measured from the board, as the service locks
    grey = cv2.cvtColor(watch, cv2.COLOR_BGR2GRAY)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    return reader, watch, status.H, view


@pytest.mark.parametrize("game", ["gyges", "anacund", "drift"])
def test_read_from_the_main_stream_touches_crops_only(monkeypatch, game):
    reader, watch, H, view = _setup(game)
    assert isinstance(watch, WatchFrame) and watch.main.shape[:2] == MAIN[::-1]
    guard = WholeFrameGuard(monkeypatch, watch.main)
    got = reader.read(watch, H)
    assert guard.calls == []
    monkeypatch.undo()
    # what is read is the board (a space read "occupied" or unreadable is the reader's to
    # improve, never a wrong piece)
    seen = got.view.resolved(view)
    wrong = [s for s in view if s not in got.unreadable and seen.get_tokens(s) != view.get_tokens(s)
             and set(seen.get_tokens(s)) != {"occupied"}]
    assert wrong == []


def test_the_guard_catches_a_whole_frame_conversion(monkeypatch):
    """The guard can fail: converting the main frame to grey, or shrinking it, is caught."""
    main = np.zeros((MAIN[1], MAIN[0], 3), np.uint8)
    guard = WholeFrameGuard(monkeypatch, main)
    cv2.cvtColor(main[100:200, 100:300], cv2.COLOR_BGR2GRAY)  # a crop: fine
    cv2.remap(main, np.zeros((1, 50), np.float32), np.zeros((1, 50), np.float32), cv2.INTER_LINEAR)  # points
    assert guard.calls == []
    cv2.cvtColor(main, cv2.COLOR_BGR2GRAY)
    assert guard.calls[0] == "cvtColor given the whole main frame"
    guard.calls.clear()
    cv2.resize(main[:, :2000], (1800, 1000))  # most of it, a copy in all but name
    assert guard.calls == ["resize made an image larger than the watch frame"]
