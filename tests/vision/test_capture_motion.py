"""Capture backends (injected), and the motion gate."""

import cv2
import numpy as np
import pytest

from rules import View
from vision.camera.capture import ArrayCapture, CaptureError, OpenCVCapture, Picamera2Capture, open_capture
from vision.read.lock import BoardLock
from vision.read.motion import MotionGate
from vision.simulated.video import write_video


def test_array_capture_stamps_frames_and_checks_them():
    frames = [np.zeros((4, 6, 3), np.uint8), np.zeros((4, 6), np.uint8)]
    with ArrayCapture(frames, fps=5) as cap:
        got = list(cap.frames())
    assert [f.t for f in got] == [0.0, 0.2] and got[1].image.shape == (4, 6, 3)
    with pytest.raises(CaptureError, match="uint8"):
        ArrayCapture([np.zeros((4, 6, 3), np.float32)]).read()


class FakeVideoCapture:
    def __init__(self, source, opened=True, frames=2):
        self.source, self.opened, self.left, self.released = source, opened, frames, 0

    def isOpened(self):
        return self.opened

    def set(self, prop, value):
        return True

    def get(self, prop):
        return 10.0 if prop == cv2.CAP_PROP_FPS else 0.0

    def read(self):
        if self.left == 0:
            return False, None
        self.left -= 1
        return True, np.zeros((8, 8, 3), np.uint8)

    def release(self):
        self.released += 1


def test_opencv_capture_uses_the_injected_backend_and_closes_once():
    made = []
    cap = OpenCVCapture("game.avi", factory=lambda s: made.append(FakeVideoCapture(s)) or made[-1])
    assert made == []  # nothing opened by the constructor
    with cap:
        assert [f.t for f in cap.frames()] == [0.0, 0.1]
    cap.close()  # safe twice
    assert made[0].released == 1
    with pytest.raises(CaptureError, match="opencv:7: cannot open"):
        OpenCVCapture(7, factory=lambda s: FakeVideoCapture(s, opened=False)).start()


def test_a_paced_video_gives_each_frame_no_sooner_than_its_time():
    now = [100.0]
    slept = []

    def sleep(dt):
        slept.append(round(dt, 3))
        now[0] += dt

    cap = OpenCVCapture("game.avi", factory=lambda s: FakeVideoCapture(s, frames=3), clock=lambda: now[0],
                        paced=True, sleep=sleep)
    with cap:
        times = [f.t for f in cap.frames()]
    assert times == [0.0, 0.1, 0.2] and slept == [0.1, 0.1]  # frame 0 at once, then at 10 fps
    fast = OpenCVCapture("game.avi", factory=lambda s: FakeVideoCapture(s, frames=3), clock=lambda: now[0],
                         sleep=sleep)
    with fast:
        assert len(list(fast.frames())) == 3 and slept == [0.1, 0.1]  # unpaced: no waiting


def test_opencv_capture_reads_a_real_video_file(tmp_path):
    path = tmp_path / "v.avi"
    frames = [np.full((64, 96, 3), 40 * i, np.uint8) for i in range(4)]
    assert write_video(path, frames, fps=10) == 4
    with open_capture(str(path)) as cap:
        got = list(cap.frames())
    assert len(got) == 4 and [round(f.t, 3) for f in got] == [0.0, 0.1, 0.2, 0.3]
    assert abs(int(got[2].image.mean()) - 80) < 6
    with pytest.raises(CaptureError, match="cannot open"):
        open_capture(str(tmp_path / "missing.avi")).start()


class FakePicamera2:
    def __init__(self):
        self.calls = []

    def create_video_configuration(self, main):
        self.calls.append(("config", main))
        return {"main": main}

    def configure(self, config):
        self.calls.append(("configure", config))

    def start(self):
        self.calls.append(("start",))

    def capture_array(self, name="main"):
        return np.zeros((720, 1280, 3), np.uint8)

    def stop(self):
        self.calls.append(("stop",))

    def close(self):
        self.calls.append(("close",))


def test_picamera2_capture_configures_and_releases_the_injected_camera():
    cam = FakePicamera2()
    with Picamera2Capture(cam, clock=iter([0.0, 0.5]).__next__) as cap:
        frame = cap.read()
    cap.close()
    assert frame.image.shape == (720, 1280, 3) and frame.t == 0.5
    assert cam.calls[0] == ("config", {"size": (1280, 720), "format": "RGB888"})
    assert [c[0] for c in cam.calls[-2:]] == ["stop", "close"]


def test_motion_gate_sees_one_piece_and_not_the_shake(sessions):
    s = sessions("annelids")  # the smallest pieces: a 10 x 4 mm segment
    gate = MotionGate(s.sheet)
    lock = BoardLock(s.sheet)
    empty = View()
    one = View({"f6n": "segment"})
    tops = {v: np.clip(s.renderer.top_down(v), 0, 255).astype(np.uint8) for v in (empty, one)}
    effects = s.effects(hard=False)
    t = 0.0
    states = []
    for view in (empty, empty, empty, empty, empty, one, one, one, one):
        frame = s.renderer.frame(view, s.pose.jittered(s.rng, 0.3), effects, s.rng, top=tops[view])
        status = lock.update(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        if status.H is None:
            continue
        states.append(gate.update(frame, status.H, t))
        t += 0.1
    moving = [g.moving for g in states]
    assert moving[0] and not any(moving[1:4])  # the first frame has nothing to compare with
    assert moving[4] and not any(moving[5:])  # the segment put down, then still
    assert states[-1].settled(0.25) and not states[-1].settled(0.5)
