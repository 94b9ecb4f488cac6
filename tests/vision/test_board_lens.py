"""A lens's barrel measured from the printed board itself (vision.read.board_lens), checked
against the camera model's true lens: with it the board's spaces fall where the camera sees
them; a straight lens, or a board not seen, gives no lens."""

import numpy as np
import pytest

from rules import get_game
from vision.read.board_lens import MIN_GAIN, lens_from_board
from vision.read.calibration import lock_on
from vision.read.pose import as_pose
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene


def _empty(game, k1, tilt=25.0, size=(1280, 720)):
    sheet = Sheet.for_board(get_game(game).board())
    model = CameraModel(sheet, CameraSetup(size=size, tilt_deg=tilt, fill=0.6, k1=k1, yaw_deg=3.0))
    return sheet, model, [model.render(Scene(jpeg=85, seed=i)) for i in range(3)]


def _misplaced(sheet, model, frames, lens):
    """How far (px) the lock, through ``lens``, puts the spaces from where the camera shows them."""
    pose = as_pose(lock_on(sheet, frames, lens=lens)[-1][1])
    centres = np.array([(s.x, s.y) for s in sheet.shapes], np.float32)
    seen = model.true_board_pose().project(np.c_[centres, np.zeros(len(centres))])
    return np.hypot(*(pose.to_px(centres) - seen).T)


@pytest.mark.parametrize("game", ["gyges", "annihilation", "drift", "annelids"])
def test_a_barrel_is_measured_and_puts_the_spaces_back(game):
    sheet, model, frames = _empty(game, -0.1)
    board = lens_from_board(sheet, frames)
    assert board.lens is not None, board.why
    assert board.lens.dist[0] < 0 and (1 - board.bent) >= (1 + MIN_GAIN) * (1 - board.straight)
    assert "bow by up to" in board.why
    without = _misplaced(sheet, model, frames, None)
    with_it = _misplaced(sheet, model, frames, board.lens)
    assert without.max() > 1.0  # the markers alone: the board's middle off
    assert with_it.max() < 0.6 * without.max() and np.median(with_it) < 0.5, (without.max(), with_it.max())


def test_a_square_on_view_still_finds_the_barrel():
    """Tilt 8°: the markers' homography cannot tell the focal length (a standard module's is
    taken); the bend is searched as its shift at the frame's corner, so it is found all the same."""
    sheet, model, frames = _empty("annelids", -0.1, tilt=8.0)
    board = lens_from_board(sheet, frames)
    assert board.lens is not None, board.why
    assert _misplaced(sheet, model, frames, board.lens).max() < 0.6 * _misplaced(sheet, model, frames, None).max()


@pytest.mark.parametrize("game", ["gyges", "anacund", "annelids"])
def test_a_straight_lens_gives_no_lens(game):
    sheet, _, frames = _empty(game, 0.0)
    board = lens_from_board(sheet, frames)
    assert board.lens is None and abs(board.bend) < 0.02 and board.straight < 0.95
    assert "lie where the markers put them" in board.why


def test_a_board_not_in_view_gives_no_lens():
    sheet = Sheet.for_board(get_game("gyges").board())
    board = lens_from_board(sheet, [np.full((720, 1280, 3), 128, np.uint8)] * 2)
    assert board.lens is None and board.points == 0 and "not seen" in board.why
