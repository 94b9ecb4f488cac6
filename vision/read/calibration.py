"""Calibrating a camera set-up: lock on the board, learn the empty board, and (for games
read by colour) learn the pieces' colours from a known position.

:func:`colour_layout` is the documented calibration layout: every colour the game's
pieces show, a few of each, spread over the board (for Anacund, whose start position is
an empty track). A game whose start position shows every colour can use that instead.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from rules.view import View

from vision.sheets import layout
from vision.sheets.layout import Sheet

from .empty_board import Calibration, CalibrationError
from .lens import Lens
from .lock import BoardLock
from .pose import Pose
from .samples import SampleGrid


def lock_on(sheet: Sheet, frames: Iterable[np.ndarray], *, lock: BoardLock | None = None,
            lens: Lens | None = None) -> list[tuple[np.ndarray, "np.ndarray | Pose"]]:
    """``(frame, H)`` for every frame once the lock holds (frames before it are skipped);
    through a lens, ``H`` is a :class:`~vision.read.pose.Pose` carrying it."""
    lock = lock or BoardLock(sheet, lens=lens)
    out: list[tuple[np.ndarray, np.ndarray | Pose]] = []
    for frame in frames:
        status = lock.update(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        if status.readable and status.H is not None:
            if lock.lens is None:
                out.append((frame, status.H))
            elif status.pose is not None and status.pose.camera is not None and np.allclose(status.pose.H, status.H):
                out.append((frame, status.pose))  # the lock's pose: the lens and the camera's place (the parallax)
            else:
                out.append((frame, Pose(status.H, lock.lens.for_size((frame.shape[1], frame.shape[0])))))
    return out


def calibrate(grid: SampleGrid, empty: Iterable[np.ndarray], *, mode: str | None = None,
              shots: Iterable[tuple[np.ndarray, View]] = (), lens: Lens | None = None) -> Calibration:
    """A calibration from frames of the empty board and, for colour reading, frames of
    known positions (``(frame, view)``); ``lens``: the camera's (vision.read.lens)."""
    locked = lock_on(grid.sheet, empty, lens=lens)
    if not locked:
        raise CalibrationError(f"{grid.sheet.game}: the four corner markers were not found in the empty-board frames")
    cal = Calibration.from_empty(grid, locked, mode)
    shots = list(shots)
    if cal.mode == "colour":
        known = []
        for frame, view in shots:
            got = lock_on(grid.sheet, [frame, frame], lens=lens)
            if got:
                known.append((got[-1][0], got[-1][1], view))
        if not known:
            raise CalibrationError(f"{grid.sheet.game}: colour reading needs a frame of a known position "
                                   "(the calibration layout) with the corner markers in view")
        cal = cal.learn_colours(grid, known)
    return cal


def colour_layout(sheet: Sheet, per_class: int = 4) -> View:
    """Every piece colour of the game, ``per_class`` of each, spread over the board."""
    classes = sorted(layout.PIECE_COLOURS.get(sheet.game, {}))
    headed = layout.HEADED.get(sheet.game, frozenset())
    if not classes:
        raise CalibrationError(f"{sheet.game}: no piece colours are known for this game")
    kind = "edge" if any(s.kind == "edge" for s in sheet.shapes) else "point"
    spaces = [s for s in sheet.shapes if s.kind == kind]
    need = per_class * len(classes)
    step = max(1, len(spaces) // need)
    chosen = spaces[::step][:need]
    out: dict[str, str] = {}
    for k, s in enumerate(chosen):
        name = classes[k % len(classes)]
        out[s.id] = f"{name}:{s.heading_to(0)}" if name in headed else name
    return View(out)
