"""User errors on the command line say what and where, in one line, without a traceback
(issue 33, item 7): a camera whose video or device does not exist, a file that is not a video,
a journal that is not a database."""

from __future__ import annotations

import logging

import pytest

from tableref.cli import main
from tableref.source_retry import Backoff, Retries

pytest.importorskip("cv2")
from vision.camera.capture import CaptureError, OpenCVCapture  # noqa: E402


def _camera_config(tmp_path, device):
    config = tmp_path / "camera.toml"
    config.write_text(f'[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\nbackend = "opencv"\n'
                      f'device = "{device}"\ncalibration = "{tmp_path / "cal.npz"}"\n'
                      f'[data]\ndir = "{tmp_path / "data"}"\n', encoding="utf-8")
    return config


def test_config_check_refuses_a_video_that_is_not_there_or_not_a_video(tmp_path, capsys):
    missing = tmp_path / "game.avi"
    config = _camera_config(tmp_path, missing)
    assert main(["config", "check", str(config)]) == 2
    assert capsys.readouterr().err == (f"tableref: {config}: source.camera.device: {missing}: "
                                       "cannot open the video: no such file\n")
    text = tmp_path / "notvideo.txt"
    text.write_text("hello\n", encoding="utf-8")
    config = _camera_config(tmp_path, text)
    assert main(["config", "check", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tableref: {config}: source.camera.device: {text}: ") and "not a video" in err
    assert len(err.splitlines()) == 1


def test_config_check_notes_a_camera_device_that_is_not_plugged_in(tmp_path, capsys):
    config = _camera_config(tmp_path, "/dev/video-not-there")
    assert main(["config", "check", str(config)]) == 0  # serve waits for a USB camera: not an error
    assert "note: source.camera.device /dev/video-not-there is not there now" in capsys.readouterr().out


def test_a_missing_file_and_a_file_that_is_not_a_video_are_told_apart(tmp_path):
    text = tmp_path / "notvideo.txt"
    text.write_text("hello\n", encoding="utf-8")
    messages = []
    for source in (str(tmp_path / "nothere.avi"), str(text), str(tmp_path), "/dev/video-not-there"):
        with pytest.raises(CaptureError) as info:
            OpenCVCapture(source).start()
        messages.append(str(info.value).removeprefix(f"opencv:{source}: "))
    assert messages[0] == "cannot open the video: no such file"
    assert messages[1].startswith("cannot open the video: not a video OpenCV can read")
    assert messages[2] == "cannot open the video: a directory, not a video file"
    assert messages[3] == "cannot open the camera: no such device (not plugged in?)"


def test_a_camera_that_cannot_be_opened_is_logged_in_one_line_without_a_traceback(caplog):
    retries = Retries("opencv /dev/video7", Backoff(), logging.getLogger("test.retries"))
    with caplog.at_level(logging.WARNING, logger="test.retries"):
        retries.failed(CaptureError("opencv:/dev/video7: no such device (not plugged in?)"), 0.0)
        retries.failed(KeyError("a bug"), 100.0)  # a new series: a bug keeps its traceback
    first, second = caplog.records
    assert "no such device" in first.getMessage() and first.exc_info is None
    assert second.exc_info is not None


def test_a_corrupt_journal_says_to_move_it_aside(tmp_path, capsys):
    journal = tmp_path / "journal.sqlite3"
    journal.write_bytes(b"not a database at all" * 100)
    assert main(["games", "--journal", str(journal)]) == 2
    err = capsys.readouterr().err
    assert f"move it aside (mv '{journal}' '{journal}.broken')" in err and len(err.splitlines()) == 1
