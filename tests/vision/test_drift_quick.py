"""DRIFT's cheaper read (issue 32, a Pi Zero 2 W's budget): a ring whose two markers are read at
once with one threshold window, agreeing, is not looked at further
(vision/readers/drift_reader.py: DriftReader._quick_step); the detector skips outlines too short
to be a tag (vision/readers/drift_tags.py: detect_outlined). On camera-model frames the
rotations and their reasons are those of the full look at every step position, and every
detection finds what the detector finds without the floor."""

from __future__ import annotations

from dataclasses import replace

import cv2
import pytest

from bench.vision_accuracy import start_of
from rules import Fidelity, get_game
from vision.read.calibration import calibrate
from vision.read.lock import BoardLock
from vision.readers.drift_reader import DriftReader
from vision.readers.for_game import grid_for, reader_for
from vision.sheets.layout import Sheet
from vision.simulated.camera_model import CameraModel, CameraSetup, Scene
from vision.simulated.sessions import random_position

SCENE = Scene(heights=1.0, jpeg=80)


@pytest.fixture(scope="module")
def camera():
    grid = grid_for(Sheet.for_board(get_game("drift").board()))
    model = CameraModel(grid.sheet, CameraSetup(size=(1920, 1080), tilt_deg=20.0, fill=0.6, k1=-0.1, yaw_deg=3.0))
    cal = calibrate(grid, [model.render(replace(SCENE, seed=i)) for i in range(2)], mode="tags")
    return grid, model, reader_for(grid, cal, Fidelity.KIND)


def _frame(camera, view, seed):
    grid, model, reader = camera
    frame = model.render(replace(SCENE, view=view, seed=seed))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lock = BoardLock(grid.sheet)
    lock.update(grey)
    status = lock.update(grey)
    assert status.readable
    return grey, reader._base.pose(frame, status.H)


def test_the_quick_look_reads_the_rotations_the_full_look_reads(camera, monkeypatch):
    """Positions whose rings stand at different steps, read one after the other by one reader
    (nothing carried from a read to the next), and the start, where the far home's pile hides
    the outer ring's marker (the quick look declines; the full look finds the opposite one)."""
    reader = camera[2]
    states = [random_position("drift", 11 + k, 30, start_of("drift", k)) for k in range(3)]
    states.append(get_game("drift").default_setup())
    quick_rings = 0
    for k, state in enumerate(states):
        truth = state.view(Fidelity.KIND)
        grey, pose = _frame(camera, truth, 20 + k)
        rots, why = reader.rotations(grey, pose)
        with monkeypatch.context() as m:
            m.setattr(DriftReader, "_quick_step", lambda *a: None)
            assert reader.rotations(grey, pose) == (rots, why)
        assert [str(r) for r in rots] == [truth.get_tokens(ring.rotation_space)[0] for ring in reader.annuli.rings]
        quick_rings += sum(reader._quick_step(grey, pose, ring, cands, _contrast(reader, grey, pose, j),
                                              _half(reader), reader._base.upscale(pose)) is not None
                           for j, (ring, cands) in enumerate(zip(reader.annuli.rings, reader._candidates)))
    assert quick_rings >= 9  # most rings are decided by the quick look
    outer = reader.annuli.rings[0]
    assert reader._quick_step(grey, pose, outer, reader._candidates[0], _contrast(reader, grey, pose, 0),
                              _half(reader), reader._base.upscale(pose)) is None  # one marker hidden: declined


def _half(reader):
    return reader.sheet.tag_mm * 2 ** 0.5 / 2 + 3.0


def _contrast(reader, grey, pose, j):
    from vision.read.sampling import sample

    vals = sample(grey, pose, reader._candidate_pts).reshape(-1, reader._disk_n)
    contrast = vals.std(axis=1) / vals.mean(axis=1).clip(1.0)
    start = sum(r.n for r in reader.annuli.rings[:j])
    return contrast[start:start + reader.annuli.rings[j].n]


def test_the_outline_floor_finds_every_tag_the_plain_detector_finds(camera, monkeypatch):
    """Every detection of whole reads (the rings, the first look, the thorough second looks and
    the patient look), floored and not: the same tags at the same corners."""
    import numpy as np

    import vision.readers.drift_markers as dr
    import vision.readers.drift_tags as dt
    from vision.read.lock import detect_all

    floored = dt.detect_outlined
    calls = []

    def both(detector, crop, min_px):
        got = floored(detector, crop, min_px)
        params = detector.getDetectorParameters()
        params.minMarkerPerimeterRate = 0.03  # OpenCV's own
        detector.setDetectorParameters(params)
        plain = detect_all(detector, crop)
        calls.append(min_px)
        key = lambda found: sorted((t, tuple(np.round(c.ravel(), 3))) for t, c in found)  # noqa: E731
        assert key(got) == key(plain)
        return got

    monkeypatch.setattr(dt, "detect_outlined", both)
    monkeypatch.setattr(dr, "detect_outlined", both)
    reader = camera[2]
    for k in range(3):
        state = random_position("drift", 21 + k, 45, start_of("drift", k))
        frame = camera[1].render(replace(SCENE, view=state.view(Fidelity.KIND), seed=30 + k))
        lock = BoardLock(camera[0].sheet)
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        lock.update(grey)
        reader.read(frame, lock.update(grey).H)
    assert len(calls) >= 30 and min(calls) > 20  # a real floor (OpenCV's own is ~8 px on these crops)
