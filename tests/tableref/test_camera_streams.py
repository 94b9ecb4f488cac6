"""The frame size each game is read at, through the service's own camera opening
(``tableref.service._open_camera``): DRIFT's 19 mm tags and Annelids' 3 mm caps are read from a
1080p main stream while the lock and the motion gate watch it at 720p (vision/camera/capture.py:
READ_SIZES); every other game is read at 720p as watched; ``[source.camera] size`` asks another
size of any game."""

from __future__ import annotations

import sys
import types

import cv2
import numpy as np
import pytest

from tableref.config import load_config
from tableref.service import _open_camera
from vision.camera.capture import WatchFrame


def _config(tmp_path, game: str, extra: str = "", device: str | None = None):
    cfg = tmp_path / "t.toml"
    where = f'device = "{device}"\nbackend = "opencv"\n' if device else 'backend = "picamera"\n'
    cfg.write_text(f'[game]\nname = "{game}"\n[source]\nkind = "camera"\n[source.camera]\n'
                   f'calibration = "cal.npz"\n{where}{extra}')
    return load_config(cfg).source


@pytest.fixture
def film_1080p(tmp_path):
    path = tmp_path / "board.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1920, 1080))
    for k in range(3):
        out.write(np.full((1080, 1920, 3), 100 + 20 * k, np.uint8))
    out.release()
    return path


def _first_frame(feed):
    got = feed.camera.capture.read()
    assert got is not None
    return got.image


def test_drift_is_watched_at_720p_and_read_from_the_1080p_frame(tmp_path, film_1080p):
    image = _first_frame(_open_camera(_config(tmp_path, "drift", device=str(film_1080p)), "drift"))
    assert isinstance(image, WatchFrame) and image.shape == (720, 1280, 3)
    assert image.main.shape == (1080, 1920, 3) and abs(float(image.main.mean()) - 100) < 3


def test_another_game_reads_the_frame_as_it_comes_unless_asked_a_size(tmp_path, film_1080p):
    image = _first_frame(_open_camera(_config(tmp_path, "gyges", device=str(film_1080p)), "gyges"))
    assert not isinstance(image, WatchFrame) and image.shape == (1080, 1920, 3)
    asked = _config(tmp_path, "gyges", "size = [1920, 1080]\n", device=str(film_1080p))
    image = _first_frame(_open_camera(asked, "gyges"))
    assert isinstance(image, WatchFrame) and image.shape == (720, 1280, 3) and image.main.shape == (1080, 1920, 3)


class _FakePicamera2:
    """Picamera2's calls the captures make: the streams configured, a request's arrays."""

    made: list["_FakePicamera2"] = []

    def __init__(self, number: int = 0) -> None:
        self.config = None
        _FakePicamera2.made.append(self)

    def create_video_configuration(self, main, lores=None):
        return {"main": main, "lores": lores}

    def configure(self, config) -> None:
        self.config = config

    def start(self) -> None:
        pass

    def _array(self, name):
        w, h = self.config[name]["size"]
        if name == "lores":  # YUV420 planes, as the lores stream gives them
            return np.full((h * 3 // 2, w), 128, np.uint8)
        return np.full((h, w, 3), 90, np.uint8)

    def capture_array(self, name):
        return self._array(name)

    def capture_request(self):
        cam = self

        class Request:
            def make_array(self, name):
                return cam._array(name)

            def release(self):
                pass

        return Request()

    def stop(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.fixture
def picamera2(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = _FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    _FakePicamera2.made.clear()
    return _FakePicamera2


def test_the_pi_camera_gives_drift_two_streams_and_other_games_one(tmp_path, picamera2):
    image = _first_frame(_open_camera(_config(tmp_path, "drift"), "drift"))
    cam = picamera2.made[-1]
    assert cam.config["main"]["size"] == (1920, 1080) and cam.config["lores"]["size"] == (1280, 720)
    assert isinstance(image, WatchFrame) and image.shape == (720, 1280, 3) and image.main.shape == (1080, 1920, 3)
    image = _first_frame(_open_camera(_config(tmp_path, "anacund"), "anacund"))
    cam = picamera2.made[-1]
    assert cam.config["main"]["size"] == (1280, 720) and cam.config["lores"] is None
    assert not isinstance(image, WatchFrame) and image.shape == (720, 1280, 3)
    _first_frame(_open_camera(_config(tmp_path, "anacund", "size = [2304, 1296]\n"), "anacund"))
    assert picamera2.made[-1].config["main"]["size"] == (2304, 1296)


def test_the_pi_camera_is_asked_the_size_asked(picamera2):
    from vision.camera.capture import open_capture, read_size

    with open_capture("picamera", read_size("drift")) as cap:
        assert cap.read().image.shape == (1080, 1920, 3)
    assert picamera2.made[-1].config["main"]["size"] == (1920, 1080)


@pytest.mark.parametrize("command", ["calibrate", "fit-board"])
@pytest.mark.parametrize("game, size", [("drift", (1920, 1080)), ("annelids", (1920, 1080)),
                                        ("annihilation", (1280, 720))])
def test_the_board_is_calibrated_and_fitted_at_the_size_it_is_read(monkeypatch, tmp_path, capsys, command, game, size):
    """`tableref calibrate` and `fit-board` ask the camera for the size the service reads the game at."""
    import vision.camera.capture as capture
    from tableref.cli import vision as vision_cli

    asked = []

    def refuse(spec, size=capture.WATCH_SIZE):
        asked.append(size)
        raise capture.CaptureError(f"{spec}: no camera here")

    monkeypatch.setattr(capture, "open_capture", refuse)
    args = [command, "--source", "0", "--game", game, "--out", str(tmp_path / "out")]
    if command == "fit-board":
        args += ["--handles", "a1=0,0"]
    assert vision_cli.main(args) != 0
    assert asked == [size], capsys.readouterr()
