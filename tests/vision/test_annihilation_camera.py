"""Annihilation's particles through the camera model as a shelf camera sees them (issues 16, 24):
the ex nihilo zones' particles lie side by side, turned every way, their tags 2-3 px a cell at
60 % and 40 % framing of a 720p frame. Frames the reader left an ex nihilo zone unreadable on
("pieces here whose tags cannot be read": the thorough look on a 2x crop misread one particle's
bits) are read whole now — by vision/readers/tag_reading.py's looks on enlarged crops — and never wrong."""

from dataclasses import replace

import pytest

from rules import Fidelity, get_game
from vision.read.calibration import calibrate
from vision.read.lock import BoardLock
from vision.readers.for_game import grid_for, reader_for
from vision.readers.tag_reading import SMALL_CELL_PX, second_looks
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Lamp, Scene
from vision.simulated.sessions import random_position
from vision_support import locked_read, wrong_spaces

# bench/vision_real.py's base set-up: a board filling 60 % of 1280x720, tilt 20, k1 -0.1, no lens file.
SHELF = CameraSetup(size=(1280, 720), tilt_deg=20.0, fill=0.6, k1=-0.1, yaw_deg=3.0)
BASE = Scene(heights=1.0, jpeg=80)



# The bench's frames (seed 0) that failed: fill 40 % frame 0 (both zones unreadable), base frame 7
# (the white zone): random_position's seed and plies, the lamp's azimuth, the scene's seed, exposure, noise.
FRAMES = [
    (0.4, 683932403, 51, 195.4, 330529326, 0.722, 2.72, ("ex_white", "ex_black")),
    (0.6, 939691758, 39, 204.43, 145058767, 0.788, 1.97, ("ex_white",)),
]


@pytest.mark.parametrize("fill,pos_seed,plies,azimuth,seed,exposure,noise,zones", FRAMES)
def test_particles_lying_side_by_side_are_all_read(fill, pos_seed, plies, azimuth, seed, exposure, noise, zones):
    grid = grid_for(Sheet.for_board(get_game("annihilation").board()))
    model = CameraModel(grid.sheet, replace(SHELF, fill=fill))
    cal = calibrate(grid, [model.render(replace(BASE, seed=i)) for i in range(3)], mode="tags")
    reader = reader_for(grid, cal, Fidelity.KIND)
    view = random_position("annihilation", pos_seed, plies).view(Fidelity.KIND)
    assert all(len(view.get_tokens(z)) >= 3 for z in zones)  # several particles side by side
    frame = model.render(replace(BASE, view=view, lamp=Lamp(azimuth_deg=azimuth), seed=seed,
                                 exposure=exposure, noise=noise))
    got = locked_read(reader, frame, BoardLock(grid.sheet))
    assert not wrong_spaces(view, got), wrong_spaces(view, got)
    assert not got.unreadable, {sp: got.why[sp] for sp in got.unreadable}
    for z in zones:
        assert sorted(got.view.get_tokens(z)) == sorted(view.get_tokens(z))


def test_small_cells_get_the_enlarged_looks_and_large_ones_only_the_thorough():
    class _R:
        _thorough = object()
        _dictionary = None

    r = _R()
    large = list(second_looks(r, SMALL_CELL_PX + 1))
    assert large == [(r._thorough, 1)]
    small = list(second_looks(r, 2.1))  # 40 % framing of 720p
    # the thorough detector at a cell of about 4, 6 and 8 px, then the small-marker one
    assert small[:3] == [(r._thorough, 2), (r._thorough, 3), (r._thorough, 4)]
    assert [u for _, u in small[3:]] == [2, 3, 4]
    assert len({id(d) for d, _ in small[3:]}) == 1 and small[3][0] is not r._thorough
    at60 = list(second_looks(r, 3.1))  # 60 % framing: 6 px at 2x already, 8 px at 3x
    assert [u for _, u in at60] == [2, 3, 2, 3] and at60[1][0] is r._thorough
