"""The tag reader's slower second looks are spent only where something of a space's own may be
(issue 32: Gygès read directly at 720p on a Pi Zero 2 W's budget missed 300 ms p95)."""

from dataclasses import replace

from rules import Fidelity, get_game
from vision.read.calibration import calibrate
from vision.read.lock import BoardLock
from vision.readers.for_game import grid_for, reader_for
from vision.readers.reader import Reader
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.sessions import random_position
from vision_support import locked_read, wrong_spaces

# bench/vision_speed.py's shelf camera read directly at 720p (its second Gygès frame)
SHELF = CameraSetup(size=(1280, 720), tilt_deg=20.0, fill=0.6, k1=-0.1, yaw_deg=3.0)
BASE = Scene(heights=1.0, jpeg=80)


def test_a_ring_s_shadow_on_the_next_space_gets_no_second_look(monkeypatch):
    """Every ring's tag is read at the first look; the spaces beside them that only their
    shadows darken are read empty without a slower look (there were four more scans, 20 ms of
    CPU in a 30 ms read); the reading is whole and right."""
    grid = grid_for(Sheet.for_board(get_game("gyges").board()))
    model = CameraModel(grid.sheet, SHELF)
    reader = reader_for(grid, calibrate(grid, [model.render(replace(BASE, seed=i)) for i in range(3)], mode="tags"))
    view = random_position("gyges", 12, 30, None).view(Fidelity.KIND)
    frame = model.render(replace(BASE, view=view, seed=21))
    scans = []
    real = Reader._scan

    def scan(self, grey, H, spaces, detector, found, upscale=1, crops=None):
        scans.append([self.grid.spaces[i].id for i in spaces])
        return real(self, grey, H, spaces, detector, found, upscale, crops)

    monkeypatch.setattr(Reader, "_scan", scan)
    got = locked_read(reader, frame, BoardLock(grid.sheet))
    assert not got.unreadable and not wrong_spaces(view, got)
    assert got.view.matches(view)
    assert len(scans) == 1, f"second looks at {scans[1:]}"
    busy_beside = set(scans[0]) - {sp for sp in view if view.get_tokens(sp)}
    assert busy_beside, "the frame no longer has a shadow-darkened space: the test sees nothing"
