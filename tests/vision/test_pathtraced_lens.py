"""The path-traced bench's lens (vision/simulated/pathtraced/lens.py): a point of the pinhole
render lands where OpenCV's model of the same lens projects it."""

import cv2
import numpy as np

from vision.simulated.camera_model import CameraSetup
from vision.simulated.pathtraced.lens import through_lens


def centroid(img, x, y, r=10):
    x0, y0 = int(round(x)) - r, int(round(y)) - r
    win = img[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1, 0]
    ys, xs = np.mgrid[y0:y0 + 2 * r + 1, x0:x0 + 2 * r + 1]
    return (xs * win).sum() / win.sum(), (ys * win).sum() / win.sum()


def test_a_point_lands_where_the_lens_model_projects_it():
    setup = CameraSetup(size=(1280, 720), hfov_deg=102.0, k1=-0.05)
    K, dist = setup.K, setup.dist
    img = np.zeros((720, 1280, 3), np.float32)
    ideal = np.array([[160.0, 120.0], [640.0, 360.0], [1100.0, 610.0], [900.0, 200.0], [300.0, 600.0]])
    for x, y in ideal:
        cv2.circle(img, (int(x), int(y)), 4, (1.0, 1.0, 1.0), -1)
    out = through_lens(img, K, dist)
    rays = np.c_[(ideal - K[:2, 2]) / K[0, 0], np.ones(len(ideal))].reshape(-1, 1, 3)
    where = cv2.projectPoints(rays, np.zeros(3), np.zeros(3), K, dist)[0].reshape(-1, 2)
    moved = np.hypot(*(where - ideal).T)
    assert moved.max() > 20  # the barrel pulls the corners in
    for (x, y) in where:
        cx, cy = centroid(out, x, y)
        assert abs(cx - x) < 0.3 and abs(cy - y) < 0.3


def test_no_distortion_is_the_render_itself():
    img = np.random.default_rng(0).random((72, 128, 3)).astype(np.float32)
    assert through_lens(img, CameraSetup(size=(128, 72)).K, np.zeros(5)) is img
