"""The players' own board end to end (issue 17, "must show"): a board that is not the printed
sheet — a wooden board in its own colours and size (45 mm cells for the board file's 50), its
own rim, no labels, only the four corner markers stuck on near its corners, a little turned —
filmed by the camera model. The admin's four handles (the true spaces' centres plus a few
pixels of hand error) and the markers found in the same frame fit its geometry
(vision.sheets.geometry); the empty board is calibrated through it, then a scripted game is played
CameraSource → Stabiliser → Referee: every move accepted as played, never a wrong one."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from bench.decision_latency import FilmedGame, Run, play_film
from rules import get_game
from vision.read.calibration import calibrate
from vision.read.lock import detect, make_detector
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.geometry import BoardGeometry, fit_geometry, reference_spaces
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.own_board import OwnBoardStyle, draw_own_board, own_board
from vision.simulated.scene_film import FilmTiming, film
from vision.simulated.sessions import scripted_game, setup_length

BRISK = FilmTiming(fps=6.0, opening_s=1.0, still_s=1.5, closing_s=2.0, reach_s=0.4, lift_s=0.3, carry_s=0.6,
                   lower_s=0.3, withdraw_s=0.4)
HAND_ERROR_PX = 3.0


def _camera(game: str, style: OwnBoardStyle, tilt: float):
    board = get_game(game).board()
    truth = Sheet.from_geometry(board, own_board(board, style))
    tex = draw_own_board(truth, style, px_per_mm=4.0)
    model = CameraModel(truth, CameraSetup(tilt_deg=tilt, fill=0.6, k1=-0.05, yaw_deg=3.0), texture=tex,
                        texture_px_per_mm=4.0)
    return board, truth, model


def _fit(board, truth, model, frame, seed=0) -> BoardGeometry:
    """What the set-up page does: the markers found in the frame, the admin's four handles."""
    markers = detect(make_detector(), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    rng = np.random.default_rng(seed)
    handles = {}
    for sid in reference_spaces(board):
        sh = truth.by_id[sid]
        handles[sid] = tuple(model.pose.project(np.float64([[sh.x, sh.y, 0.0]]))[0] + rng.normal(0, HAND_ERROR_PX, 2))
    return fit_geometry(board, handles, {i: markers[i] for i in range(4) if i in markers}, marker_mm=30.0)


@pytest.mark.parametrize("game, style, tilt", [
    ("gyges", OwnBoardStyle(), 20.0),
    ("annihilation", OwnBoardStyle(scale=0.85, rim_mm=50.0, wood_rgb=(170, 190, 170), cell_rgb=(215, 225, 205),
                                   line_rgb=(110, 125, 115), turns_deg=(-5.0, 8.0, -12.0, 2.0)), 15.0),
])
def test_own_board_fitted_by_four_handles_is_refereed_as_played(game, style, tilt):
    board, truth, model = _camera(game, style, tilt)
    base = Scene(jpeg=80)
    empty = [model.render(replace(base, seed=i)) for i in range(3)]
    geometry = _fit(board, truth, model, empty[0])
    assert abs(geometry.scale - style.scale) < 0.03 * style.scale
    sheet = Sheet.from_geometry(board, geometry)
    # The fit puts every space within a few mm of where it truly is (the lock maps both through the markers).
    src = np.concatenate([sheet.marker_corners()[i] for i in range(4)])
    dst = np.concatenate([truth.marker_corners()[i] for i in range(4)])
    to_truth, _ = cv2.findHomography(src, dst, 0)
    fitted = cv2.perspectiveTransform(np.float64([[(s.x, s.y) for s in sheet.shapes if s.kind == "point"]]), to_truth)[0]
    true = np.float64([(truth.by_id[s.id].x, truth.by_id[s.id].y) for s in sheet.shapes if s.kind == "point"])
    assert np.hypot(*(fitted - true).T).max() < 0.15 * truth.pitch
    grid = grid_for(sheet)
    cal = calibrate(grid, empty, mode="tags")
    g = get_game(game)
    start = g.default_setup() if hasattr(g, "default_setup") else g.start()
    start, played = scripted_game(game, 0, setup_length(start) + 3, start)
    frames = film(truth, start, played, base=base, timing=BRISK)
    fg = FilmedGame(game, tilt, start, played, frames, model, reader_for(grid, cal))
    run = Run()
    play_film(fg, run)
    assert (run.wrong, run.intermediate, run.with_hand) == (0, 0, 0)
    assert run.decided == run.moves == len(played), f"{run.decided} of {len(played)} moves accepted"
