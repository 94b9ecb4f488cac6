"""A Pi camera that fails once is opened again and reads on (issue 33, item 8).

The webcam's retries are tests/tableref/test_source_retry.py's (OpenCV). The Pi camera has a
trap of its own: libcamera lets one Picamera2 hold the camera at a time, so an instance left
open after a failure — a stop() that raises on a camera that failed, a configure() that raises
after the instance was made — keeps it acquired, and every later try is refused as busy: the
camera stayed failed until the service restarted. The fake below is a camera with that rule."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from waiting import wait_for

from rules import Fidelity, get_game
from tableref.service import CameraFeed
from tableref.source_retry import Pump
from tableref.source_retry import Backoff
from tableref.stabiliser import Stabiliser

pytest.importorskip("cv2")
from vision.camera.capture import Picamera2Capture  # noqa: E402
from vision.read.lock import BoardLock  # noqa: E402
from vision.sheets.layout import Sheet  # noqa: E402


class Libcamera:
    """The one camera: acquired by one Picamera2 at a time, until that one is closed."""

    def __init__(self, *, capture_failures: int = 0, configure_failures: int = 0) -> None:
        self.holder: FakePicamera2 | None = None
        self.capture_failures, self.configure_failures = capture_failures, configure_failures
        self.made = 0
        self.lock = threading.Lock()


class FakePicamera2:
    def __init__(self, lib: Libcamera) -> None:
        with lib.lock:
            if lib.holder is not None:
                raise RuntimeError("Failed to acquire camera: Device or resource busy")
            lib.holder, self.lib, self.failed = self, lib, False
            lib.made += 1

    def create_video_configuration(self, main):
        return main

    def configure(self, config) -> None:
        if self.lib.configure_failures:
            self.lib.configure_failures -= 1
            raise RuntimeError("Failed to configure the camera")

    def start(self) -> None:
        pass

    def capture_array(self, name):
        threading.Event().wait(0.005)  # a frame's time: the pump's thread is not a busy loop
        if self.lib.capture_failures:
            self.lib.capture_failures -= 1
            self.failed = True
            raise RuntimeError("Camera frontend has timed out!")
        return np.full((72, 128, 3), 90, np.uint8)

    def stop(self) -> None:
        if self.failed:
            raise RuntimeError("Camera is not running")  # as a camera that failed says

    def close(self) -> None:
        with self.lib.lock:
            if self.lib.holder is self:
                self.lib.holder = None


def _run(lib: Libcamera):
    lock = BoardLock(Sheet.for_board(get_game("gyges").board()))
    feed = CameraFeed(Picamera2Capture(lambda: FakePicamera2(lib), size=(128, 72)), None, fidelity=Fidelity.KIND,
                      name="picamera 0", lock=lock, live=True)
    statuses = []
    feed.subscribe_status(statuses.append)
    pump = Pump(feed, Stabiliser(0.1, 2), lambda command: None, backoff=Backoff((0.01, 0.02, 0.05)))
    return feed, pump, statuses


@pytest.mark.parametrize("lib", [Libcamera(capture_failures=1), Libcamera(configure_failures=1)],
                         ids=["a frame fails, then stop() fails", "it fails to configure when first opened"])
def test_a_pi_camera_that_failed_is_released_and_opened_again(lib):
    feed, pump, statuses = _run(lib)
    try:  # as the service starts a feed (serve.py): a camera that will not open is retried too
        feed.start()
        failed = None
    except RuntimeError as exc:
        failed = exc
    pump.start(failed=failed)
    try:
        wait_for(lambda: any(s.state == "reconnecting" for s in statuses), 10, "the failure")
        wait_for(lambda: pump.retries.attempt == 0 and feed.status.state == "setup", 10, "the camera read again")
    finally:
        pump.stop()
        feed.close()
    assert lib.made == 2 and lib.holder is None  # opened once more, and released at the end
