"""Colour-read games (Anacund's discs, Annelids' bars) through the camera model as a shelf camera
sees them (issues 16 and 24): tilted 30°, barrel k1 −0.2 read through a lens file, the set's
real piece heights, the lamp and its shadows, JPEG — every calm frame usable, never a space
read wrong; a hand in view never makes a space wrong either. And the hue model's own
properties (vision/read/colour_model.py)."""

import math
from dataclasses import replace

import numpy as np
import pytest

from rules import Fidelity, get_game
from vision.read.calibration import calibrate, colour_layout
from vision.read.colour_model import SAT_MIN_SHARE, hue_classes, hue_gap, opponent, votes
from vision.read.lens import Lens
from vision.read.lock import BoardLock
from vision.readers.colour_rules import DOUBT_SAT
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Hand, Scene
from vision.simulated.sessions import random_position
from vision_support import accuracy_frame, locked_read, wrong_spaces

SHELF = CameraSetup(size=(1280, 720), tilt_deg=30.0, fill=0.6, k1=-0.2, yaw_deg=3.0)
BASE = Scene(heights=1.0, jpeg=80)


def _bench(game, setup=SHELF):
    """A calibrated reader for ``game`` through the camera model, with the lens given."""
    grid = grid_for(Sheet.for_board(get_game(game).board()))
    model = CameraModel(grid.sheet, setup)
    tp = model.true_board_pose()
    lens = Lens(tp.K, tp.dist, tp.size)
    empty = [model.render(replace(BASE, seed=i)) for i in range(3)]
    lay = colour_layout(grid.sheet)
    cal = calibrate(grid, empty, mode="colour", shots=[(model.render(replace(BASE, view=lay, seed=5)), lay)], lens=lens)
    return grid, model, lens, reader_for(grid, cal, Fidelity.KIND, lens=lens)


def _read(grid, model, lens, reader, scene):
    return locked_read(reader, model.render(scene), BoardLock(grid.sheet, lens=lens))



@pytest.mark.parametrize("game,plies", [("anacund", (14, 30)), ("annelids", (0, 24))])
def test_shelf_camera_frames_are_usable_and_neverwrong_spaces(game, plies):
    grid, model, lens, reader = _bench(game)
    start = get_game(game).default_setup()
    for k, n in enumerate(plies):
        view = random_position(game, 40 + k, n, start).view(Fidelity.KIND)
        got = _read(grid, model, lens, reader, replace(BASE, view=view, seed=100 + k, exposure=0.75 + 0.05 * k))
        assert not wrong_spaces(view, got), wrong_spaces(view, got)
        assert not got.unreadable, {sp: got.why[sp] for sp in got.unreadable}


def test_hand_over_annelids_bars_is_never_read_as_a_segment():
    # Skin has an orange segment's hue; under the light a hand disturbs, a colour is read only
    # as vivid as at calibration.
    grid, model, lens, reader = _bench("annelids", replace(SHELF, tilt_deg=20.0, k1=-0.1))
    view = random_position("annelids", 7, 20, get_game("annelids").default_setup()).view(Fidelity.KIND)
    ids = [s.id for s in grid.sheet.shapes if s.kind == "edge" and not view.get_tokens(s.id)]
    for k, sp in enumerate(ids[len(ids) // 3::max(1, len(ids) // 3)][:3]):
        shape = grid.sheet.by_id[sp]
        got = _read(grid, model, lens, reader, replace(BASE, view=view, seed=200 + k,
                                                      hands=(Hand((shape.x, shape.y), 60.0 + 20 * k),)))
        assert not wrong_spaces(view, got), wrong_spaces(view, got)
        assert got.unreadable  # the hand hides something


def test_hue_is_kept_when_the_light_dims_or_the_paper_blurs_in():
    blue = np.array([[0.55, 0.25, 0.15]])  # B, G, R against the paper (1, 1, 1)
    h0, s0, _ = opponent(blue)
    for v in (blue * 0.5, blue * 1.4, 0.5 * blue + 0.5):  # in shadow, lit, blurred with the paper
        h, _, _ = opponent(v)
        assert hue_gap(h, h0)[0] < math.radians(3)
    assert opponent(0.5 * blue + 0.5)[1][0] < s0[0]  # mixing with paper only lowers saturation
    grey = np.array([[0.3, 0.3, 0.3], [1.0, 1.0, 1.0]])
    assert (votes(grey, hue_classes(["blue"], blue * 200, np.array([200.0, 200, 200])))[0] == -1).all()


def test_colour_tolerances_never_reach_halfway_to_another_colour():
    white = np.array([200.0, 200, 200])
    means = np.array([[40, 130, 215], [200, 80, 40], [60, 150, 40]], float)  # orange, blue, green (BGR)
    classes = hue_classes(["segment", "blue", "green"], means, white)
    for a in classes:
        for b in classes:
            if a is not b:
                assert a.tol < 0.5 * hue_gap(a.hue, b.hue)
    # Skin (BGR ~ 120, 150, 200) has the segment's hue, not its saturation.
    h, s, _ = opponent(np.array([[120, 150, 200]]) / white)
    seg = classes[0]
    assert hue_gap(h[0], seg.hue) < seg.tol
    assert s[0] < DOUBT_SAT * seg.sat
    assert s[0] >= SAT_MIN_SHARE * seg.sat * 0.5  # close enough to vote: hence the doubt rule


@pytest.mark.parametrize("tilt", [35.0, 20.0])
def test_bars_are_read_through_a_barrel_lens_without_a_lens_file(tilt):
    # Issue 24's shelf camera without a lens file (k1 -0.2; the bench's first frame of its
    # "i24: t35 k-.2" and "k1 -0.2" rows). At tilt 35 the blue tail on a4e, at the sheet's corner,
    # has 12 light probes of which the bars round it may cover 9: judged on the 3 left, one probe
    # off the light's model was a third of them and the space "light uneven"; counted over all 12
    # it is one in twelve. At tilt 20 the blue tail on h1e and the segment on l1nw, near the
    # sheet's edge, lie 2 px off where the homography puts them, most of a bar's width: their
    # cores are looked at shifted a little along and across the edge.
    from vision.simulated.camera_model import Lamp

    setup = replace(SHELF, tilt_deg=tilt, k1=-0.2)
    grid = grid_for(Sheet.for_board(get_game("annelids").board()))
    model = CameraModel(grid.sheet, setup)
    empty = [model.render(replace(BASE, seed=i)) for i in range(3)]
    lay = colour_layout(grid.sheet)
    cal = calibrate(grid, empty, mode="colour", shots=[(model.render(replace(BASE, view=lay, seed=5)), lay)])
    reader = reader_for(grid, cal, Fidelity.KIND)
    view = random_position("annelids", 683932403, 68).view(Fidelity.KIND)
    assert view.get_tokens("a4e") == ("blue:N",)
    scene = replace(BASE, view=view, lamp=Lamp(azimuth_deg=195.4), seed=330529326, exposure=0.722, noise=2.72)
    got = _read(grid, model, None, reader, scene)
    assert not wrong_spaces(view, got), wrong_spaces(view, got)
    assert not got.unreadable, {sp: got.why[sp] for sp in got.unreadable}
    assert got.view.get_tokens("a4e") == ("blue:N",)


def test_a_flat_tails_heading_is_never_taken_from_where_a_standing_ones_top_would_be():
    # synth.py draws the bars flat; the reader looks for a tail's dark end where a standing
    # bar's top would show too, and there one end band reached past the bar onto the printed
    # vertex: green:S was read green:N on g12e, j12e and a12e (vision_accuracy, session 6 frame 1).
    s, reader, view, frame, _ = accuracy_frame("annelids", 6, 2)
    assert [view.get_tokens(sp) for sp in ("g12e", "j12e", "a12e")] == [("green:S",)] * 3
    got = locked_read(reader, frame, BoardLock(s.sheet))
    assert not wrong_spaces(view, got), wrong_spaces(view, got)
