"""Pose from the corner markers (vision.read.pose), the lens file and its calibration (vision.read.lens),
checked against CAM-RENDER's camera model (its true pose and lens)."""

import json
from dataclasses import replace

import numpy as np
import pytest

from rules import get_game
from vision.read.lens import Lens, LensError, calibrate_lens
from vision.read.pose import estimate_pose
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup

SHEET = Sheet.for_board(get_game("gyges").board())
REF = np.concatenate([SHEET.marker_corners()[i] for i in range(4)])


def _truth(tilt, k1=0.0):
    m = CameraModel(SHEET, CameraSetup(tilt_deg=tilt, fill=0.6, k1=k1, yaw_deg=3.0))
    return m, m.true_board_pose()


@pytest.mark.parametrize("tilt", [15, 25, 35])
def test_pose_puts_a_piece_top_where_the_camera_sees_it(tilt):
    _, tp = _truth(tilt)
    px = tp.project(np.c_[REF, np.zeros(len(REF))]) + np.random.default_rng(0).normal(0, 0.2, (16, 2))
    pose = estimate_pose(REF, px, tp.size)
    assert abs(pose.K[0, 0] - tp.K[0, 0]) / tp.K[0, 0] < 0.05  # focal length from the homography
    assert abs(pose.tilt_deg - tilt) < 1.5
    tops = np.array([[s.x, s.y] for s in SHEET.shapes])
    seen = tp.project(np.c_[tops, np.full(len(tops), -28.0)])  # the truth: z into the table
    flat = pose.to_px(tops)
    got = pose.to_px(tops, 28.0)
    assert np.abs(got - seen).max() < 1.0  # within a pixel
    assert np.abs(flat - seen).max() > 5  # and the board plane alone would be far off
    back = pose.to_mm(got, 28.0)
    assert np.abs(back - tops).max() < 0.01


def test_lens_maps_points_both_ways_and_scales_with_the_stream():
    _, tp = _truth(25, k1=-0.3)
    lens = Lens(tp.K, tp.dist, tp.size)
    ideal = np.array([[5.0, 5.0], [640, 360], [1200, 700]])
    assert np.abs(lens.undistort_points(lens.distort_points(ideal)) - ideal).max() < 1e-3
    small = lens.for_size((640, 360))
    assert small.K[0, 0] == pytest.approx(tp.K[0, 0] / 2)
    with pytest.raises(LensError, match="aspect"):
        lens.for_size((640, 480))


def test_pose_through_a_lens_recovers_the_truth():
    _, tp = _truth(30, k1=-0.2)
    lens = Lens(tp.K, tp.dist, tp.size)
    px = tp.project(np.c_[REF, np.zeros(len(REF))])
    pose = estimate_pose(REF, px, tp.size, lens)
    tops = np.array([[s.x, s.y] for s in SHEET.shapes])
    seen = tp.project(np.c_[tops, np.full(len(tops), -20.0)])
    assert np.abs(pose.to_px(tops, 20.0) - seen).max() < 0.5


def test_lens_file_round_trip_and_bad_files(tmp_path):
    lens = Lens(np.array([[900.0, 0, 640], [0, 900, 360], [0, 0, 1]]), np.array([-0.1, 0.01, 0, 0, 0]), (1280, 720), 0.3)
    f = tmp_path / "lens.json"
    lens.save(f)
    back = Lens.load(f)
    assert np.allclose(back.K, lens.K) and np.allclose(back.dist, lens.dist) and back.size == (1280, 720)
    data = json.loads(f.read_text())
    data["K"] = [[1, 2], [3, 4]]
    f.write_text(json.dumps(data))
    with pytest.raises(LensError, match="lens.json: key 'K'"):
        Lens.load(f)
    with pytest.raises(LensError, match="not found"):
        Lens.load(tmp_path / "none.json")
    # A lens measured from the board's printed lines says so (it is measured again with the board).
    assert not back.from_board
    replace(lens, from_board=True).save(f)
    assert Lens.load(f).from_board and Lens.load(f).for_size((640, 360)).from_board
    data = json.loads(f.read_text())
    data["from"] = "guess"
    f.write_text(json.dumps(data))
    with pytest.raises(LensError, match="lens.json: key 'from'"):
        Lens.load(f)


def test_calibrate_lens_from_rendered_charuco_shots():
    from vision.simulated.scene_film import charuco_shots

    from vision.read.lens import charuco_board

    setup = CameraSetup(size=(1280, 720), k1=-0.2, tilt_deg=20)
    shots = charuco_shots(charuco_board(), setup)
    lens, used = calibrate_lens([s.image for s in shots])
    assert used >= 3 and lens.error_px < 1.0
    assert abs(lens.dist[0] - (-0.2)) < 0.05
    assert abs(lens.K[0, 0] - setup.K[0, 0]) / setup.K[0, 0] < 0.03
    with pytest.raises(LensError, match="found in 0"):
        calibrate_lens([np.full((720, 1280, 3), 200, np.uint8)] * 3)


@pytest.mark.parametrize("dist", [[-0.1, 0, 0, 0, 0], [-0.2, 0.05, 0, 0, 0.01], [-0.2, 0.05, 0.001, -0.002, 0.01],
                                  [-0.3, 0.1, 0, 0, -0.02, 0.01, 0.002, 0.0003]])
def test_distort_points_is_opencv_s_own_model(dist):
    """Lens.distort_points (its radial-only path folds the focal lengths away) puts every point
    where cv2.projectPoints does, tangential and rational terms too."""
    import cv2

    K = np.array([[1000.0, 0, 959.5], [0, 1010.0, 539.5], [0, 0, 1]])
    lens = Lens(K, np.array(dist, np.float64), (1920, 1080))
    px = np.random.default_rng(1).uniform([-300, -200], [2200, 1300], (5000, 2))
    rays = cv2.undistortPoints(px.reshape(-1, 1, 2), K, None).reshape(-1, 2)
    truth = cv2.projectPoints(np.c_[rays, np.ones(len(rays))], np.zeros(3), np.zeros(3), K,
                              np.array(dist, np.float64))[0].reshape(-1, 2)
    assert np.abs(lens.distort_points(px) - truth).max() < 1e-6
    assert lens.distort_points(np.zeros((0, 2))).shape == (0, 2)
