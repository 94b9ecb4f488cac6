"""The knocked camera (vision/simulated/knock.py): a turn about the lens's centre moves the picture
as a camera turned so would see it, the camera sways and comes to rest, a covered lens shows no
board, and frames before the knock are the capture's own."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.camera.capture import ArrayCapture
from vision.simulated.knock import Knock, KnockedCapture, intrinsics, turn_homography


def _dot_frame(size=(640, 360), at=(320, 180)) -> np.ndarray:
    img = np.full((size[1], size[0], 3), 200, np.uint8)
    cv2.circle(img, at, 4, (0, 0, 0), -1)
    return img


def _dot(img: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(img[..., 0] < 100)
    return np.array([xs.mean(), ys.mean()])


def test_a_turn_across_moves_the_picture_centre_by_the_focal_length_times_its_tangent():
    K = intrinsics((640, 360), 66.0)
    f = K[0, 0]
    assert f == pytest.approx(320 / math.tan(math.radians(33)))
    p = turn_homography(K, 1.0, 0.0, 0.0) @ np.array([K[0, 2], K[1, 2], 1.0])
    p = p[:2] / p[2]
    assert abs(p[0] - K[0, 2]) == pytest.approx(f * math.tan(math.radians(1.0)), rel=1e-6)
    assert p[1] == pytest.approx(K[1, 2])


def test_the_camera_sways_then_rests_turned_and_earlier_frames_are_untouched():
    knock = Knock(at=1.0, yaw_deg=0.8, pitch_deg=-0.5, sway_deg=1.0, decay_s=0.15)
    assert not knock.turn(0.99).any()
    assert knock.turn(3.0) == pytest.approx([0.8, -0.5, 0.0], abs=1e-5)
    swing = [float(np.linalg.norm(knock.turn(1.0 + s) - knock.turn(3.0))) for s in np.linspace(0.0, 0.5, 51)]
    assert max(swing) > 0.5  # it sways
    frames = [_dot_frame() for _ in range(4)]
    cap = KnockedCapture(ArrayCapture(frames, fps=1.0), [knock], hfov_deg=66.0)
    got = list(cap.frames())
    assert got[0].image is not None and np.array_equal(got[0].image, frames[0])  # t 0: before the knock
    moved = _dot(got[3].image) - _dot(frames[3])  # t 3: at rest, turned
    f = intrinsics((640, 360), 66.0)[0, 0]
    assert np.hypot(*moved) == pytest.approx(f * math.tan(math.radians(math.hypot(0.8, 0.5))), rel=0.1)


def test_a_hand_over_the_lens_shows_no_board_and_the_camera_is_turned_when_it_goes():
    knock = Knock(at=1.0, yaw_deg=-0.4, pitch_deg=0.3, covered_s=1.0, sway_deg=0.0)
    frames = [_dot_frame() for _ in range(4)]
    got = list(KnockedCapture(ArrayCapture(frames, fps=1.0), [knock], hfov_deg=66.0).frames())
    covered = got[1].image
    assert covered.mean() < 60 and not (covered[..., 0] > 150).any()  # dark, formless: nothing of the sheet
    assert np.hypot(*(_dot(got[2].image) - _dot(frames[2]))) > 3  # uncovered at t 2, turned


def test_a_knock_that_cannot_settle_is_refused():
    with pytest.raises(ValueError, match="decay_s"):
        Knock(at=0.0, yaw_deg=1.0, pitch_deg=0.0, decay_s=0.0)


def test_a_table_knocks_the_camera_after_a_decision_as_an_arm_withdraws_and_covers_it_between():
    from vision.simulated.knock import table_knocks

    assert table_knocks([]) == []
    bump, withdraw, cover = table_knocks([4.0, 9.0, 15.0])
    assert bump.at == pytest.approx(4.67) and not bump.covered_s  # the first move decided by then
    assert withdraw.at < 15.0 and not withdraw.covered_s  # the last arm still over the board
    assert 9.0 < cover.at and cover.at + cover.covered_s < 15.0 and cover.covered_s == 1.0
    assert len(table_knocks([4.0, 9.0])) == 2  # two moves: no hand over the lens
