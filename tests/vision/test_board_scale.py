"""The board's smallest scale in the picture (vision/read/scale.py): the least pixels per
millimetre over the spaces, in the direction the tilt squeezes, against the game's need."""

from __future__ import annotations

import numpy as np
import pytest

from rules import get_game
from vision.read.pose import Pose
from vision.read.scale import NEEDED_PX_PER_MM, board_scale, needed_px_per_mm
from vision.sheets.layout import Sheet

SHEET = Sheet.for_board(get_game("gyges").board())


def test_a_board_seen_square_on_is_its_homographys_scale_everywhere():
    got = board_scale(np.diag([1.5, 1.5, 1.0]), SHEET)
    assert got.px_per_mm == pytest.approx(1.5)
    assert got.needed == NEEDED_PX_PER_MM["gyges"] and not got.too_small


def test_the_least_scale_is_the_squeezed_direction_at_the_far_edge():
    # x' = x / w, y' = y / w with w = 1 + a y: the Jacobian is [[1/w, -a x/w**2], [0, 1/w**2]];
    # the board's far (large y) edge is smallest, and along y it is squeezed twice.
    a = 1e-3
    H = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, a, 1.0]])
    got = board_scale(H, SHEET)

    def least(s):
        w = 1 + a * s.y
        return np.linalg.svd(np.array([[1 / w, -a * s.x / w**2], [0, 1 / w**2]]), compute_uv=False)[-1]

    truth = min(SHEET.shapes, key=least)
    assert got.space == truth.id and truth.y == max(s.y for s in SHEET.shapes)
    assert got.px_per_mm == pytest.approx(least(truth), rel=2e-3)


def test_a_turned_board_has_the_same_scale():
    t = np.radians(30)
    R = np.array([[np.cos(t), -np.sin(t), 400], [np.sin(t), np.cos(t), 50], [0, 0, 1.0]])
    assert board_scale(np.diag([0.7, 0.7, 1.0]) @ R, SHEET).px_per_mm == pytest.approx(0.7)


def test_too_small_below_the_need_and_a_main_stream_scales_it():
    need = NEEDED_PX_PER_MM["gyges"]
    small = board_scale(np.diag([0.9 * need, 0.9 * need, 1.0]), SHEET)
    assert small.too_small
    assert not small.scaled(1920 / 960).too_small  # the same board in the 1080p main stream


def test_an_own_boards_tags_move_the_need_in_proportion():
    from dataclasses import replace

    printed = SHEET.tag_mm
    own = replace(SHEET, tag_size=2 * printed)  # tags twice as big: half the pixels a millimetre
    assert needed_px_per_mm(own) == pytest.approx(NEEDED_PX_PER_MM["gyges"] / 2)
    anacund = Sheet.for_board(get_game("anacund").board())  # read by colour: the tag does not matter
    assert needed_px_per_mm(replace(anacund, tag_size=30.0)) == NEEDED_PX_PER_MM["anacund"]


def test_a_lens_is_counted_its_barrel_shrinks_the_edges():
    from vision.read.lens import Lens

    size = (1280, 720)
    K = np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]])
    H = np.array([[1.0, 0, 430], [0, 1.0, 50], [0, 0, 1]])  # the sheet (420 x 620 mm) at 1 px/mm, centred
    barrel = Lens(K, np.array([-0.3, 0, 0, 0, 0.0]), size, 0.2)
    straight = board_scale(Pose(H), SHEET).px_per_mm
    assert straight == pytest.approx(1.0)
    assert board_scale(Pose(H, barrel), SHEET).px_per_mm < 0.99 * straight
