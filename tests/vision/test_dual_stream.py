"""Watch small, read big: the lock and motion gate on a small stream, the reader on crops of
the full-resolution frame (OpenCV capture size + watch size; Picamera2 lores + main)."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from vision.camera.capture import (
    ArrayCapture, CaptureError, OpenCVCapture, Picamera2DualCapture, WatchFrame, watch_frame,
)
from vision.camera.source import CameraSource
from vision.read.calibration import calibrate
from vision.read.lock import BoardLock
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.sessions import random_position


@pytest.fixture(scope="module")
def gyges_1080():
    sheet = Sheet.for_board(get_game("gyges").board())
    grid = grid_for(sheet)
    model = CameraModel(sheet, CameraSetup(size=(1920, 1080), tilt_deg=25, fill=0.5, k1=-0.05, yaw_deg=3.0))
    base = Scene(heights=1.0, jpeg=80)
    empty = [model.render(replace(base, seed=i)) for i in range(3)]
    return grid, model, base, empty


def test_reading_a_watch_frame_reads_the_full_frame(gyges_1080):
    grid, model, base, empty = gyges_1080
    view = random_position("gyges", 3, 20).view(Fidelity.KIND)
    full = model.render(replace(base, view=view, seed=9))
    watch = watch_frame(full, (960, 540))
    assert isinstance(watch, WatchFrame) and watch.shape == (540, 960, 3) and watch.main is full
    cal = calibrate(grid, empty)  # calibrated at the full size
    lock = BoardLock(grid.sheet)
    grey = cv2.cvtColor(watch, cv2.COLOR_BGR2GRAY)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    got = reader_for(grid, cal).read(watch, status.H)
    assert not got.unreadable and got.view.resolved(view) == view


def test_camera_source_watches_small_and_reads_big(gyges_1080):
    grid, model, base, empty = gyges_1080
    view = random_position("gyges", 4, 20).view(Fidelity.KIND)
    frames = [watch_frame(model.render(replace(base, view=view, seed=20 + k)), (960, 540)) for k in range(8)]
    source = CameraSource(ArrayCapture(frames, fps=10), reader_for(grid, calibrate(grid, empty)))
    seen = [o for o in source.observations()]
    assert seen and all(o.view.resolved(view) == view and not o.unreadable for o in seen)


class _FakeVideoCapture:
    def __init__(self, frames):
        self.frames = list(frames)

    def isOpened(self):
        return True

    def read(self):
        return (True, self.frames.pop(0)) if self.frames else (False, None)

    def get(self, prop):
        return 10.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def set(self, prop, value):
        return True

    def release(self):
        pass


def test_opencv_capture_gives_watch_frames_of_the_full_frame():
    big = np.random.default_rng(0).integers(0, 255, (1080, 1920, 3), np.uint8)
    cap = OpenCVCapture("film.avi", factory=lambda src: _FakeVideoCapture([big]), watch=(640, 360))
    f = cap.read()
    assert f.image.shape == (360, 640, 3) and f.image.main is big
    assert cap.read() is None


class _FakeRequest:
    def __init__(self, arrays):
        self.arrays, self.released = arrays, False

    def make_array(self, name):
        return self.arrays[name]

    def release(self):
        self.released = True


class _FakePicamera2:
    """The parts of Picamera2's interface the dual capture uses."""

    def __init__(self, main, lores):
        self.main, self.lores, self.config, self.started, self.requests = main, lores, None, False, []

    def create_video_configuration(self, main, lores=None):
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config

    def start(self):
        self.started = True

    def capture_request(self):
        w, h = self.config["lores"]["size"]
        yuv = cv2.cvtColor(cv2.resize(self.main, (w, h)), cv2.COLOR_BGR2YUV_I420)
        r = _FakeRequest({"main": self.main, "lores": yuv})
        self.requests.append(r)
        return r

    def stop(self):
        self.started = False


def test_picamera2_dual_capture_lores_watches_main_reads():
    main = np.full((1296, 2304, 3), 120, np.uint8)
    cam = _FakePicamera2(main, None)
    with Picamera2DualCapture(cam, main=(2304, 1296), lores=(768, 432)) as cap:
        f = cap.read()
    assert cam.config["lores"] == {"size": (768, 432), "format": "YUV420"}
    assert cam.config["main"]["size"] == (2304, 1296)
    assert f.image.shape == (432, 768, 3) and f.image.main is main
    assert abs(int(f.image[200, 300, 1]) - 120) < 4
    assert all(r.released for r in cam.requests) and not cam.started
    with pytest.raises(CaptureError, match="lores"):
        Picamera2DualCapture(cam, main=(640, 480), lores=(768, 432))


def test_drift_read_through_a_watch_frame_keeps_the_camera_over_the_board():
    """DRIFT's reader turns the watch frame's lock into a pose (the camera's place over the
    board) before reading the main frame's crops. Scaled to the main frame, that pose must keep
    the camera's place: without it the piles' tags, 12-72 mm up, were taken as lying on the
    board, landed astray and made a dozen spaces "crowded" (issue 16 item 2, read big)."""
    from vision.read.pose import Pose
    from vision.read.sampling import scaled_to

    sheet = Sheet.for_board(get_game("drift").board())
    grid = grid_for(sheet)
    model = CameraModel(sheet, CameraSetup(size=(1920, 1080), tilt_deg=20, fill=0.6, k1=-0.1, yaw_deg=3.0))
    base = Scene(heights=1.0, jpeg=80)
    reader = reader_for(grid, calibrate(grid, [model.render(replace(base, seed=i)) for i in range(2)]))
    truth = get_game("drift").default_setup().view(Fidelity.KIND)
    full = model.render(replace(base, view=truth, seed=7))
    watch = watch_frame(full, (1280, 720))
    lock = BoardLock(sheet)
    grey = cv2.cvtColor(watch, cv2.COLOR_BGR2GRAY)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    small = reader._base.pose(watch, status.H)
    big = scaled_to(small, watch, full)
    assert isinstance(big, Pose) and big.camera == small.camera and big.K is not None
    pts = np.float32([[100.0, 120.0], [400.0, 500.0]])
    # The same point 30 mm up lands where the full frame's own pose puts it, to a pixel.
    own = reader._base.pose(full, np.array([[1.5, 0, 0.25], [0, 1.5, 0.25], [0, 0, 1]]) @ status.H)
    assert np.abs(big.to_px(pts, 30.0) - own.to_px(pts, 30.0)).max() < 1.5
    reading = reader.read(watch, status.H)
    assert not [s for s, r in reading.why.items() if "crowded" in r], reading.why
    seen = reading.view.resolved(truth)
    assert all(seen.get_tokens(s) == truth.get_tokens(s) for s in truth if s not in reading.unreadable)
