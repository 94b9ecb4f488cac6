"""The realistic camera renderer (vision/simulated/camera_model.py): its geometry is the pinhole +
distortion model's, what it draws is where that model says, and its films and ChArUco
sheets are usable by the real pipeline's detectors."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from rules.view import View
from vision.read.lock import make_detector
from vision.sheets.layout import Sheet, tag_id
from vision.simulated.camera_model import CameraModel, CameraSetup, Hand, Lamp, Scene
from vision.simulated.scene_film import calibrate_from_shots, charuco_board, charuco_shots, film


@pytest.fixture(scope="module")
def gyges_sheet() -> Sheet:
    return Sheet.for_board(get_game("gyges").board())


def _formula(pose, X: np.ndarray) -> np.ndarray:
    """Pinhole + Brown-Conrady distortion, written out (OpenCV's model)."""
    R = cv2.Rodrigues(pose.rvec)[0]
    c = R @ X + pose.tvec
    x, y = c[0] / c[2], c[1] / c[2]
    k1, k2, p1, p2, k3 = pose.dist
    r2 = x * x + y * y
    radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    K = pose.K
    return np.array([K[0, 0] * xd + K[0, 2], K[1, 1] * yd + K[1, 2]])


def test_a_point_projects_where_the_pinhole_and_distortion_formula_says(gyges_sheet):
    setup = CameraSetup(tilt_deg=30, yaw_deg=10, k1=-0.25, k2=0.04, p1=0.002, p2=-0.001, fill=0.6)
    pose = CameraModel(gyges_sheet, setup).true_board_pose()
    for X in ([0.0, 0.0, 0.0], [300.0, 120.0, -28.0], [210.0, 310.0, 0.0]):
        got = pose.project(np.array([X]))[0]
        assert np.allclose(got, _formula(pose, np.array(X)), atol=1e-6)
        ref = cv2.projectPoints(np.array([X]), pose.rvec, pose.tvec, pose.K, pose.dist)[0].ravel()
        assert np.allclose(got, ref, atol=1e-9)
    # The camera really is tilted 30 degrees from vertical, above the board.
    R = pose.R
    assert math.degrees(math.acos(R[2, 2])) == pytest.approx(30, abs=1e-6)
    assert pose.position[2] < -200


def test_the_sheet_fills_the_share_of_the_frame_asked(gyges_sheet):
    for fill in (0.4, 0.85):
        m = CameraModel(gyges_sheet, CameraSetup(tilt_deg=20, k1=-0.1, fill=fill))
        w, h = gyges_sheet.size
        corners = np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], float)
        px = m.true_board_pose().project(corners)
        ext = px.max(axis=0) - px.min(axis=0)
        assert max(ext[0] / 1280, ext[1] / 720) == pytest.approx(fill, abs=0.02)


def test_corner_markers_are_seen_where_the_camera_projects_them(gyges_sheet):
    m = CameraModel(gyges_sheet, CameraSetup(tilt_deg=25, yaw_deg=8, k1=-0.2, k2=0.02, fill=0.65))
    frame = m.render(Scene(noise=1.0, jpeg=85))
    corners, ids, _ = make_detector().detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    found = {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())}
    truth = gyges_sheet.marker_corners()
    assert {0, 1, 2, 3} <= set(found)
    errs = np.array([found[i] - m.true_board_pose().project(np.c_[truth[i], np.zeros(4)]) for i in range(4)])
    assert np.abs(errs).max() < 2.0  # each corner within the detector's own sub-pixel error
    assert np.abs(errs.reshape(-1, 2).mean(axis=0)).max() < 0.5  # and no bias
    # Without the remap the barrel would put them many pixels off: the distortion is real.
    pinhole = replace(m.true_board_pose(), dist=np.zeros(5))
    assert np.abs(found[0] - pinhole.project(np.c_[truth[0], np.zeros(4)])).max() > 5


def test_a_tall_pieces_top_is_offset_from_its_base_towards_the_far_side(gyges_sheet):
    setup = CameraSetup(tilt_deg=25, fill=0.6)
    m = CameraModel(gyges_sheet, setup)
    space = "c3"
    view = View({space: ("3",)})
    pose = m.true_board_pose()
    grey = cv2.cvtColor(m.render(Scene(view=view, noise=0.5, jpeg=None)), cv2.COLOR_BGR2GRAY)
    corners, ids, _ = make_detector().detectMarkers(grey)
    tags = [c.reshape(4, 2) for c, i in zip(corners, ids.ravel()) if int(i) == tag_id("gyges", "3")]
    assert len(tags) == 1
    seen = tags[0].mean(axis=0)
    sh = gyges_sheet.by_id[space]
    rng_jitter = 0.04 * gyges_sheet.pitch + 0.5  # the renderer's small placement jitter, mm
    top = pose.project(np.array([[sh.x, sh.y, -28.0]]))[0]
    assert np.hypot(*(seen - top)) < 0.1 * m.px_per_mm * 28  # the tag is on the top face
    # Back on the board's plane (undistorted, through the plane's homography) it lies ~13 mm
    # (28 mm x tan 25) from the space's centre, away from the camera.
    und = cv2.undistortPoints(seen.reshape(1, 1, 2).astype(np.float64), pose.K, pose.dist).ravel()
    R, t = pose.R, pose.tvec
    H = np.stack([R[:, 0], R[:, 1], t], axis=1)
    p = np.linalg.solve(H, np.array([und[0], und[1], 1.0]))
    on_board = p[:2] / p[2]
    offset = on_board - [sh.x, sh.y]
    away = np.array([sh.x, sh.y]) - pose.position[:2]
    assert 11 - rng_jitter < np.linalg.norm(offset) < 16 + rng_jitter
    assert offset @ away / (np.linalg.norm(offset) * np.linalg.norm(away)) > 0.9
    flat = cv2.cvtColor(m.render(Scene(view=view, heights=0.0, noise=0.5, jpeg=None)), cv2.COLOR_BGR2GRAY)
    corners, ids, _ = make_detector().detectMarkers(flat)
    flat_seen = [c.reshape(4, 2).mean(axis=0) for c, i in zip(corners, ids.ravel()) if int(i) == tag_id("gyges", "3")]
    base = pose.project(np.array([[sh.x, sh.y, 0.0]]))[0]
    assert np.hypot(*(flat_seen[0] - base)) < 0.1 * m.px_per_mm * 28


def test_noise_grows_with_light_and_jpeg_compresses(gyges_sheet):
    m = CameraModel(gyges_sheet, CameraSetup(tilt_deg=10, fill=0.6, blur=0.0))
    calm = Scene(noise=0.0, jpeg=None, vignetting=0.0, lamp=None)
    clean = m.render(calm)
    noisy = m.render(replace(calm, noise=4.0, seed=3)).astype(np.float32)
    paper = clean[:, :, 1] > 180
    sigma = (noisy[paper] - clean[paper].astype(np.float32)).std()
    level = clean[paper].mean()
    assert sigma == pytest.approx(4.0 * math.sqrt(level / 128), rel=0.25)
    jpeg = m.render(replace(calm, noise=4.0, seed=3, jpeg=70)).astype(np.float32)
    assert 0.3 < np.abs(jpeg - noisy).mean() < 6
    assert m.render(replace(calm, noise=4.0, seed=4)).tobytes() != m.render(replace(calm, noise=4.0, seed=3)).tobytes()


def test_lamp_shadows_and_arm_darken_and_cover_the_board(gyges_sheet):
    m = CameraModel(gyges_sheet, CameraSetup(tilt_deg=20, fill=0.6))
    view = get_game("gyges").start().view(Fidelity.KIND)
    lit = Scene(view=View({"c3": ("3",)}), noise=0, jpeg=None, lamp=Lamp(azimuth_deg=180, elevation_deg=35))
    no_shadow = replace(lit, lamp=replace(lit.lamp, shadows=False))
    a, b = m.render(lit).astype(float), m.render(no_shadow).astype(float)
    assert (a < b - 20).sum() > 200  # a cast shadow
    sh = gyges_sheet.by_id["c3"]
    # ...on the side away from the lamp (the lamp is towards -x of the sheet)
    beyond = m.true_board_pose().project(np.array([[sh.x + 30, sh.y, 0.0]]))[0].astype(int)
    assert a[beyond[1], beyond[0]].mean() < b[beyond[1], beyond[0]].mean() - 10
    arm = replace(lit, view=view, hands=(Hand(at=(sh.x, sh.y), holding=("3",), lift_mm=30),))
    img = m.render(arm).astype(float)
    here = m.true_board_pose().project(np.array([[sh.x, sh.y, -60.0]]))[0].astype(int)
    skin = img[here[1] - 2:here[1] + 3, here[0] - 2:here[0] + 3].reshape(-1, 3).mean(axis=0)
    assert skin[2] > skin[0] + 30  # skin is red over blue


def test_charuco_sheets_are_found_and_calibrate_the_lens():
    board = charuco_board()
    setup = CameraSetup(k1=-0.2, k2=0.03, p1=0.001)
    shots = charuco_shots(board, setup)
    detector = cv2.aruco.CharucoDetector(board)
    for shot in shots[:3]:
        corners, ids, _, _ = detector.detectBoard(cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY))
        assert ids is not None and len(ids) >= 20
        truth = shot.pose.project(shot.object_points(board)[ids.ravel()])
        assert np.abs(corners.reshape(-1, 2) - truth).max() < 1.5
    rms, K, dist = calibrate_from_shots(board, shots, setup.size)
    assert rms < 0.6
    assert K[0, 0] == pytest.approx(setup.K[0, 0], rel=0.02)
    assert dist[0] == pytest.approx(setup.k1, abs=0.05)
    # A plain pinhole cannot explain the corners: the distortion is in the pictures.
    rms_pinhole, _, _ = calibrate_from_shots(board, shots, setup.size, flags=cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2
                                             | cv2.CALIB_ZERO_TANGENT_DIST)
    assert rms_pinhole > 1.6 * rms


def test_a_film_has_the_arm_in_during_each_move_and_the_board_still_between(gyges_sheet):
    game = get_game("gyges")
    start = game.start()
    moves = list(start.legal_moves())[:1]
    frames = film(gyges_sheet, start, moves)
    assert frames[0].view == start.view(Fidelity.KIND) and not frames[0].hand
    assert frames[-1].view == start.successor(moves[0]).view(Fidelity.KIND) and not frames[-1].hand
    hand = [f for f in frames if f.hand]
    assert 20 <= len(hand) <= 40  # ~2.7 s of reaching, lifting, carrying, putting down, leaving at 10 fps
    held = [f for f in hand if f.scene.hands[0].holding]
    assert held and all(f.view != frames[-1].view for f in held)  # in the hand, it is on no space
    times = [f.time for f in frames]
    assert np.allclose(np.diff(times), 0.1)


def test_bad_setups_are_refused_with_the_field_named():
    with pytest.raises(ValueError, match="tilt_deg"):
        CameraSetup(tilt_deg=90)
    with pytest.raises(ValueError, match="fill"):
        CameraSetup(fill=0)
    with pytest.raises(ValueError, match="jpeg"):
        Scene(jpeg=0)
    with pytest.raises(ValueError, match="elevation_deg"):
        Lamp(elevation_deg=0)
    with pytest.raises(ValueError, match="height_mm"):
        Hand((0, 0), height_mm=-5)


def test_a_written_film_plays_back_through_the_file_capture(gyges_sheet, tmp_path):
    from vision.camera.capture import OpenCVCapture
    from vision.simulated.scene_film import FilmTiming, write_film

    game = get_game("gyges")
    start = game.default_setup()
    moves = list(start.legal_moves())[:1]
    quick = FilmTiming(opening_s=0.3, still_s=0.3, closing_s=0.3, reach_s=0.2, lift_s=0.1, carry_s=0.2,
                       lower_s=0.1, withdraw_s=0.2)
    frames = film(gyges_sheet, start, moves, timing=quick)
    model = CameraModel(gyges_sheet, CameraSetup(size=(640, 360), tilt_deg=15, k1=-0.1))
    path = tmp_path / "game.avi"
    assert write_film(path, model, frames, fps=quick.fps) == len(frames)
    with OpenCVCapture(str(path), size=None) as cap:
        got = [f.image for f in cap.frames()]
    assert len(got) == len(frames) and got[0].shape == (360, 640, 3)


def test_a_tall_piece_in_front_hides_the_one_behind(gyges_sheet):
    # The camera leans back over the sheet's -x edge (a portrait sheet is turned): c3 is in
    # front of d3. Where the two pieces overlap in the frame, the near one must show.
    m = CameraModel(gyges_sheet, CameraSetup(tilt_deg=40, fill=0.6, blur=0.0))
    calm = Scene(noise=0.0, jpeg=None, lamp=None, vignetting=0.0, heights=1.5)  # a 42 mm tower
    shot = lambda view: m.render(replace(calm, view=View(view))).astype(int)  # noqa: E731
    empty, near, far = shot({}), shot({"c3": ("3",)}), shot({"d3": ("1",)})
    both = shot({"c3": ("3",), "d3": ("1",)})
    on = lambda img: np.abs(img - empty).sum(axis=2) > 30  # noqa: E731
    overlap = cv2.erode((on(near) & on(far)).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    overlap &= np.abs(near - far).sum(axis=2) > 30  # where the two differ, the order shows
    assert overlap.sum() > 40
    assert (np.abs(both - near).sum(axis=2)[overlap] < 10).mean() > 0.95


def test_a_slow_move_holds_the_piece_over_spaces_on_the_way(gyges_sheet):
    from vision.simulated.scene_film import FilmTiming

    start = get_game("gyges").default_setup()
    far = lambda m: math.dist(*((gyges_sheet.by_id[s].x, gyges_sheet.by_id[s].y) for s in (m.start, m.end)))  # noqa: E731
    move = max((m for m in start.legal_moves() if m.bump_to is None), key=far)
    assert far(move) > 2.5 * gyges_sheet.pitch
    slow = film(gyges_sheet, start, [move], timing=FilmTiming(hover_s=0.4, stops=2))
    held = [f for f in slow if f.hand and f.scene.hands[0].holding and f.scene.hands[0].lift_mm == 35.0]
    still = [f for f, g in zip(held, held[1:]) if f.scene.hands[0].at == g.scene.hands[0].at]
    assert len(still) >= 8  # 0.4 s over each stop and the destination, at 10 fps
    # all the while the piece is in the air: on no space
    assert all(f.view == held[0].view for f in held)
