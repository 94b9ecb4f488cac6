"""The camera source's side of the set-up: without a reader it keeps the lock and reads
nothing; a reader handed over mid-stream (CameraSource.use) is read with from the next frame;
the overlay's verdicts say what the reader made of each space."""

from __future__ import annotations

import numpy as np

from rules import OCCUPIED, Fidelity, get_game
from rules.view import View
from tableref.camera_setup import verdicts
from vision.camera.capture import ArrayCapture
from vision.camera.source import CameraSource
from vision.read.calibration import calibrate
from vision.readers.for_game import grid_for, reader_for
from vision.readers.reader import Reading
from setupscene import SceneCamera


def test_no_reader_keeps_the_lock_then_a_reader_handed_over_is_used():
    camera = SceneCamera("gyges", fps=1000)
    empty = [camera.read().image for _ in range(4)]
    grid = grid_for(camera.sheet)
    reader = reader_for(grid, calibrate(grid, empty), Fidelity.KIND)
    view = get_game("gyges").default_setup().view(Fidelity.KIND)
    camera.show(view)
    frames = [camera.read().image for _ in range(30)]
    capture = ArrayCapture(frames, fps=10)
    source = CameraSource(capture, None, fidelity=Fidelity.KIND, sheet=camera.sheet)
    original = capture.read
    handed = []

    def read():  # the page hands the reader over (any thread) once the source has waited a little
        if source.stats.waiting == 3 and not handed:
            handed.append(source.use(reader))
        return original()

    capture.read = read  # type: ignore[method-assign]
    seen = list(source.observations())
    assert source.stats.waiting == 3 and source.latest is not None
    assert seen and all(o.view == view for o in seen)
    assert source.last_reading is not None and source.last_read_at is not None


def test_a_source_without_a_reader_needs_the_sheet():
    try:
        CameraSource(ArrayCapture([]), None)
    except ValueError as exc:
        assert "set-up mode" in str(exc)
    else:
        raise AssertionError("accepted")


def test_verdicts_name_each_kind_of_space():
    sheet = SceneCamera("gyges").sheet
    ids = [s.id for s in sheet.shapes]
    reading = Reading(View({ids[0]: ("2",), ids[1]: (OCCUPIED,)}), frozenset({ids[2]}), {ids[2]: "glare"})
    got = verdicts(sheet, reading)
    assert got[ids[0]] == ("read", ("2",), "")
    assert got[ids[1]] == ("occupied", (), "")
    assert got[ids[2]] == ("unreadable", (), "glare")
    assert got[ids[3]] == ("empty", (), "")
    assert set(verdicts(sheet, None).values()) == {("unknown", (), "")}
    assert np.all([k in got for k in ids])
