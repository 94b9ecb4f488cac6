"""A lens's barrel measured from the printed board itself, when no lens file was made.

The lock fits the board's plane to its four corner markers. Through a wide lens's barrel
(Camera Module 3 wide: about 10 % at the frame's corners) the markers sit where they are seen,
but the board between them bows: its printed lines are seen up to 1-2 mm off where the
markers' homography puts them. Tags and coins of 15-19 mm do not mind; Annelids' 4 mm bars
along its top and bottom rows are then read on their edges (docs/vision.md: 0 % of frames
usable through the wide lens's barrel without a lens file, 100 % with one).

The empty board is a calibration target too: every printed line and circle is at a known
place on the sheet. One radial term is searched for that puts the printed ink darkest where
the markers and that lens say it is (the ink against the paper 1.2 mm either side, over every
line): :func:`lens_from_board`. The focal length is the one the markers' homography gives
(:func:`vision.read.pose.focal_from_homography`; too square-on a view: a standard module's),
the principal point the frame's centre; the term is searched as the share by which it moves
the frame's corner, so a focal length that is off changes the term, not the bend it finds.

Pure: frames in, a :class:`BoardLens` out. The set-up page (``tableref/camera_setup.py``) and
``tableref calibrate`` save its lens beside the calibration when the board shows a bend.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

import cv2
import numpy as np

from vision.sheets.layout import Sheet

from .lens import Lens
from .lock import BoardLock
from .pose import default_focal, focal_from_homography

BEND_STEPS = np.arange(-0.50, 0.1501, 0.01)  # the lens's shift at the frame's corner, as a share of its radius
INK_SIDE_MM = 1.2  # the paper compared with the ink: this far either side of a line (lines 0.6 mm)
MIN_GAIN = 0.25  # the ink's contrast with the paper must be this share higher with the bend than without
MIN_GAIN_ABS = 0.01  # ... and this much (1 - ink/paper): a faint print's noise is no bend
MIN_SHIFT_PX = 0.75  # ... and the bend move some printed point this far: less, the lines lie straight
INK_SEEN = 0.95  # ink darker than this share of the paper beside it: the lines are seen at all


@dataclass(frozen=True)
class BoardLens:
    """What the empty board's printed lines said about the lens."""

    lens: Lens | None  # None: the lines lie where the markers put them (or could not be seen)
    bend: float  # the lens's shift at the frame's corner, as a share of its radius (negative: barrel)
    straight: float  # the ink against the paper beside it, read without a lens (1: not seen at all)
    bent: float  # ... and through the lens found
    shift_px: float  # how far that lens moves the board's printed points, at most (px)
    points: int  # printed points looked at

    @property
    def why(self) -> str:
        """One line for the page and the log."""
        if self.lens is not None:
            return (f"the board's printed lines bow by up to {self.shift_px:.1f} px: a lens's barrel of "
                    f"{100 * abs(self.bend):.0f} % at the frame's corner measured from them")
        if min(self.straight, self.bent) > INK_SEEN:
            return "the board's printed lines were not seen: no lens measured from them"
        return f"the board's printed lines lie where the markers put them (within {self.shift_px:.1f} px)"


def ink_points(sheet: Sheet) -> tuple[np.ndarray, np.ndarray]:
    """Points on the sheet's printed lines (sheet mm) and each line's normal there, as
    :func:`vision.sheets.render.draw_sheet` prints them: edges (their middle 70 %, away from
    the vertices' crossings), the circles round the point spaces, the areas' outlines."""
    pts: list[tuple[float, float]] = []
    normals: list[tuple[float, float]] = []
    k = sheet.scale
    for sh in sheet.shapes:
        if sh.kind == "edge" and sh.ends is not None:
            (x1, y1), (x2, y2) = sh.ends
            n = math.hypot(x2 - x1, y2 - y1)
            if n < 1e-6:
                continue
            for t in np.linspace(0.15, 0.85, 8):
                pts.append((x1 + t * (x2 - x1), y1 + t * (y2 - y1)))
                normals.append(((y2 - y1) / n, -(x2 - x1) / n))
        elif sh.kind == "point" and not sh.id.startswith("rotation:"):
            r = sheet.piece_radius
            for a in np.linspace(0, 2 * math.pi, 16, endpoint=False):
                pts.append((sh.x + r * math.cos(a), sh.y + r * math.sin(a)))
                normals.append((math.cos(a), math.sin(a)))
    for a in sheet.board.areas if k == 1.0 else ():
        x0, y0 = sheet.to_sheet(a.x, a.y)
        x1, y1 = x0 + a.w, y0 + a.h
        for t in np.linspace(0.1, 0.9, 6):
            for p, nrm in (((x0 + t * (x1 - x0), y0), (0, 1)), ((x0 + t * (x1 - x0), y1), (0, 1)),
                           ((x0, y0 + t * (y1 - y0)), (1, 0)), ((x1, y0 + t * (y1 - y0)), (1, 0))):
                pts.append(p)
                normals.append(nrm)
    return np.array(pts, np.float64).reshape(-1, 2), np.array(normals, np.float64).reshape(-1, 2)


def lens_from_board(sheet: Sheet, frames: Iterable[np.ndarray]) -> BoardLens:
    """The lens the empty board's frames show (see the module doc): its ``lens`` None when the
    printed lines lie straight, or are not seen."""
    frames = [np.asarray(f) for f in frames]
    lock = BoardLock(sheet)
    for f in frames:
        lock.update(f if f.ndim == 2 else cv2.cvtColor(f, cv2.COLOR_BGR2GRAY))
    corners = lock.corners
    if not lock.state.name == "LOCKED" or len(corners) < 4:
        return BoardLens(None, 0.0, 1.0, 1.0, 0.0, 0)
    h, w = frames[0].shape[:2]
    grey = np.mean([(f if f.ndim == 2 else cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)).astype(np.float32)
                    for f in frames], axis=0).astype(np.float32)
    ref = sheet.marker_corners()
    src = np.concatenate([ref[i] for i in sorted(corners)]).astype(np.float64)
    dst = np.concatenate([corners[i] for i in sorted(corners)]).astype(np.float64)
    H0, _ = cv2.findHomography(src, dst, 0)
    f = (focal_from_homography(H0, (w, h)) if H0 is not None else None) or default_focal((w, h))
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)
    corner_r2 = ((w / 2) ** 2 + (h / 2) ** 2) / f ** 2
    pts, normals = ink_points(sheet)

    def lens_for(bend: float) -> Lens:
        return Lens(K, np.array([bend / corner_r2, 0, 0, 0, 0], np.float64), (w, h), from_board=True)

    def seen(bend: float) -> tuple[float, np.ndarray]:
        lens = lens_for(bend)
        Hb, _ = cv2.findHomography(src, lens.undistort_points(dst), 0)
        if Hb is None:
            return 1.0, np.zeros((0, 2))
        looks = [lens.distort_points(cv2.perspectiveTransform((pts + s * INK_SIDE_MM * normals).reshape(-1, 1, 2), Hb)
                                     .reshape(-1, 2)) for s in (0, -1, 1)]
        inside = np.all([(p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1) for p in looks], axis=0)
        if inside.sum() < 20:
            return 1.0, looks[0]
        v = [cv2.remap(grey, p[inside, 0:1].astype(np.float32), p[inside, 1:2].astype(np.float32),
                       cv2.INTER_LINEAR).ravel() for p in looks]
        return float(np.mean(v[0] / np.maximum((v[1] + v[2]) / 2, 1.0))), looks[0]

    scores = [seen(float(b))[0] for b in BEND_STEPS]
    k = int(np.argmin(scores))
    bend = float(BEND_STEPS[k])
    if 0 < k < len(scores) - 1:  # the valley's bottom between the steps (a parabola through three)
        a, b, c = scores[k - 1], scores[k], scores[k + 1]
        den = a - 2 * b + c
        if den > 1e-9:
            bend += float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) * float(BEND_STEPS[1] - BEND_STEPS[0])
    straight, at_straight = seen(0.0)
    bent, at_bend = seen(bend)
    shift = float(np.max(np.hypot(*(at_bend - at_straight).T))) if len(at_bend) and len(at_straight) else 0.0
    # Contrast 1 - ink/paper: a straight lens's lines show 0.1-0.3 of it either way (the
    # committed path-traced rows gain at most 0.006 from any bend); a barrel's lines lie off
    # where the markers put them, their contrast rising 1.7x (DRIFT's faint circles) to 10x.
    gain = (1 - bent) - (1 - straight)
    use = bent <= INK_SEEN and gain >= MIN_GAIN * (1 - straight) and gain >= MIN_GAIN_ABS and shift >= MIN_SHIFT_PX
    return BoardLens(lens_for(bend) if use else None, bend, straight, bent, shift, len(pts))
