"""Board lock: find the sheet's four corner markers, fit the homography, and keep it.

The first lock (and every re-lock) searches the whole frame; once locked, each marker is
looked for only in a small window round where it was, which is what makes watching cheap.
Small shifts (a shaky mount, sub-pixel noise) are followed: the homography is refitted
from the markers found. A larger jump of any marker means the camera or the board was
bumped: the lock is dropped and nothing may be read ("frozen") until a full search finds
the markers again, in the same place for ``settle_frames`` frames running. Markers missing
from their windows for more than ``lost_frames`` frames running (moved far) count as a bump.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import cv2
import numpy as np

from vision.sheets.layout import CORNER_IDS, Sheet
from vision.sheets.render import aruco_dictionary

from .lens import Lens
from .pose import Pose, estimate_pose

SMALL_MARKER_PX = 40.0  # a marker whose diagonal is under this is looked for on a 2x enlarged crop


NOISE_PX = 0.35  # marker corners moving less than this (px) are the sensor's noise, not the board

# The lock refines the corner markers' corners from their own outline (a line fitted to each
# side, corners where they meet), not from the image round each corner (cornerSubPix): a
# corner marker sits 5 mm from the sheet's edge, and on a small board the table beyond falls
# inside cornerSubPix's window and pulls the corner by up to 2.5 px from frame to frame
# (measured on the camera model at 60 % of 720p); the outline keeps it within 1 px.
LOCK_REFINE = cv2.aruco.CORNER_REFINE_CONTOUR


class LockState(enum.Enum):
    SEARCHING = "searching"  # no lock: decisions frozen
    LOCKED = "locked"  # markers tracked; the homography is good
    OCCLUDED = "occluded"  # locked, but too few markers seen this frame to vouch for it: frozen


@dataclass(frozen=True)
class LockStatus:
    state: LockState
    H: np.ndarray | None  # sheet mm → frame px, when locked
    markers_seen: int = 0
    bumped: bool = False  # this frame dropped the lock because the markers jumped
    relocked: bool = False  # this frame (re)acquired the lock
    pose: Pose | None = None  # the camera's pose over the board (vision.read.pose), when locked

    @property
    def readable(self) -> bool:
        return self.state is LockState.LOCKED


def make_detector(refine: int = cv2.aruco.CORNER_REFINE_SUBPIX) -> "cv2.aruco.ArucoDetector":
    """An ArUco detector for a whole frame (the first lock), thresholding at three window
    sizes since the markers' size is not yet known. ``refine``: the corner refinement."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    # A wrong id is worse than a missed one: accept only near-perfect bit patterns.
    params.errorCorrectionRate = 0.3
    # A blurred tag on a light sticker has little contrast at its border: a lower constant
    # keeps its outline in the thresholded image (the bit check still guards the id).
    params.adaptiveThreshConstant = 5
    return cv2.aruco.ArucoDetector(aruco_dictionary(), params)


def make_sized_detector(window: int, dictionary: str | None = None,
                        refine: int = cv2.aruco.CORNER_REFINE_SUBPIX) -> "cv2.aruco.ArucoDetector":
    """A detector thresholding at one window size only: for tags whose size in the frame is
    known (about 2.5 cells), one pass instead of three. ``dictionary``: a game's wider one."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    params.errorCorrectionRate = 0.3
    params.adaptiveThreshConstant = 5
    params.adaptiveThreshWinSizeMin = window
    params.adaptiveThreshWinSizeMax = window
    params.adaptiveThreshWinSizeStep = 1
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def make_small_detector(window: tuple[int, int, int] = (3, 23, 4), dictionary: str | None = None,
                        refine: int = cv2.aruco.CORNER_REFINE_SUBPIX) -> "cv2.aruco.ArucoDetector":
    """For markers of 10-20 px a side (a board filling 40 % of a 720p frame: 2-3 px a cell),
    on a frame or window enlarged 2-4x. Each bit is sampled on an 8x8 grid with its outer 30 %
    ignored (a blurred cell bleeds into its neighbours), and the outline's polygon fit is
    looser (a square of 30-60 px drawn in a few pixels' steps). ``window``: the thresholding
    window sizes (min, max, step). The bit check is as strict as the others'."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    params.errorCorrectionRate = 0.3
    params.adaptiveThreshConstant = 5
    params.adaptiveThreshWinSizeMin, params.adaptiveThreshWinSizeMax, params.adaptiveThreshWinSizeStep = window
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    params.polygonalApproxAccuracyRate = 0.06
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def make_thorough_detector(dictionary: str | None = None,
                           refine: int = cv2.aruco.CORNER_REFINE_SUBPIX) -> "cv2.aruco.ArucoDetector":
    """A slower second look for where a piece is seen but its tag was not read: more
    threshold windows and a lower constant."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = refine
    params.errorCorrectionRate = 0.3
    params.adaptiveThreshConstant = 3
    params.adaptiveThreshWinSizeMin = 5
    params.adaptiveThreshWinSizeMax = 29
    params.adaptiveThreshWinSizeStep = 4
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def small_tag_detector(dictionary: str | None, window: int | None = None) -> cv2.aruco.ArucoDetector:
    """The thorough detector (:func:`make_thorough_detector`) for tags a few pixels a
    cell, read from crops enlarged 2-3x: each cell's bits sampled on 8 px of the tag's
    straightened image, a fifth of each cell's margin ignored (on the camera-model bench: 99 %
    of DRIFT's 19 mm tags at 1080p and 60 % framing, against 95 % with OpenCV's 4 px and 0.13).
    ``window``: one threshold window only (a first, quicker pass for tags of a known size)."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.errorCorrectionRate = 0.3
    params.adaptiveThreshConstant = 3
    params.adaptiveThreshWinSizeMin = 5
    params.adaptiveThreshWinSizeMax = 29
    params.adaptiveThreshWinSizeStep = 4
    if window is not None:
        params.adaptiveThreshConstant = 5
        params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = window
        params.adaptiveThreshWinSizeStep = 1
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def detect_all(detector: "cv2.aruco.ArucoDetector", grey: np.ndarray,
               offset: tuple[int, int] = (0, 0)) -> list[tuple[int, np.ndarray]]:
    """Every marker found in ``grey`` (one id may be on several pieces): (id, 4x2 corners
    in frame pixels, ``offset`` added back)."""
    corners, ids, _ = detector.detectMarkers(grey)
    if ids is None:
        return []
    return [(int(i), (c.reshape(4, 2) + np.float32(offset)).astype(np.float32)) for c, i in zip(corners, ids.ravel())]


def detect(detector: "cv2.aruco.ArucoDetector", grey: np.ndarray,
           offset: tuple[int, int] = (0, 0)) -> dict[int, np.ndarray]:
    """Markers found in ``grey``, id → corners; an id seen twice is dropped (a corner
    marker must be unique: two of them mean a reflection or a second sheet)."""
    found = detect_all(detector, grey, offset)
    ids = [i for i, _ in found]
    return {i: c for i, c in found if ids.count(i) == 1}


class BoardLock:
    """Tracks the sheet in a stream of greyscale frames; :meth:`update` once per frame."""

    def __init__(self, sheet: Sheet, *, bump_px: float = 4.0, settle_frames: int = 2, window: float = 0.5,
                 min_markers: int = 3, lost_frames: int = 5, lens: Lens | None = None) -> None:
        self.sheet = sheet
        self.lens = lens  # markers' corners are fitted through it (H then maps to ideal pixels)
        self.bump_px = float(bump_px)
        self.settle_frames = int(settle_frames)
        self.window = float(window)  # search margin round a marker, as a fraction of its size
        self.min_markers = int(min_markers)
        self.lost_frames = int(lost_frames)
        self._full = make_detector(LOCK_REFINE)
        self._thorough = make_thorough_detector(refine=LOCK_REFINE)  # the far corner of a small board, predicted
        self._fine = make_small_detector(refine=LOCK_REFINE)  # small markers, on enlarged frames and windows
        self._fine_by_size: dict[int, "cv2.aruco.ArucoDetector"] = {}
        self._small: dict[int, "cv2.aruco.ArucoDetector"] = {}  # per threshold window size
        self._reference = sheet.marker_corners()
        self._K: np.ndarray | None = None
        self.reset()

    def reset(self) -> None:
        self._corners: dict[int, np.ndarray] = {}  # last tracked corners, frame px
        self._candidate: dict[int, np.ndarray] | None = None
        self._candidate_frames = 0
        self.state = LockState.SEARCHING
        self.H: np.ndarray | None = None
        self.pose: Pose | None = None
        self._unseen = 0  # consecutive tracked frames with too few markers

    # -- per frame ------------------------------------------------------------------------

    def update(self, grey: np.ndarray) -> LockStatus:
        if self.state is LockState.SEARCHING:
            return self._search(grey)
        return self._track(grey)

    def _search(self, grey: np.ndarray) -> LockStatus:
        found = {i: c for i, c in detect(self._full, grey).items() if i in CORNER_IDS}
        if len(found) < 4:
            # A board far off (40 % of a 720p frame: markers 10-18 px, cells 2-3 px) is found
            # on the frame enlarged 2x with the small-marker detector (there its corners are
            # also refined more finely: they are preferred); only while searching, so
            # watching stays cheap.
            big = cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
            more = {i: (c + 0.5) / 2 - 0.5 for i, c in detect(self._fine, big).items() if i in CORNER_IDS}
            found = {**found, **more}
        if 2 <= len(found) < 4:
            found.update(self._predicted(grey, found))
        if len(found) < 4:
            self._candidate, self._candidate_frames = None, 0
            return LockStatus(LockState.SEARCHING, None, len(found))
        if self._candidate is not None and _max_shift(self._candidate, found) <= self.bump_px / 2:
            self._candidate_frames += 1
        else:
            self._candidate_frames = 1
        self._candidate = found
        if self._candidate_frames < self.settle_frames:
            return LockStatus(LockState.SEARCHING, None, len(found))
        H = self._fit(found, grey.shape)
        if H is None:
            return LockStatus(LockState.SEARCHING, None, len(found))
        self._corners, self.H, self.state = found, H, LockState.LOCKED
        self._candidate, self._candidate_frames = None, 0
        return LockStatus(LockState.LOCKED, H, 4, relocked=True, pose=self.pose)

    def _track(self, grey: np.ndarray) -> LockStatus:
        h, w = grey.shape[:2]
        seen: dict[int, np.ndarray] = {}
        for i, c in self._corners.items():
            size = float(np.linalg.norm(c[0] - c[2]))
            pad = size * self.window
            x0, y0 = int(max(0, c[:, 0].min() - pad)), int(max(0, c[:, 1].min() - pad))
            x1, y1 = int(min(w, c[:, 0].max() + pad + 1)), int(min(h, c[:, 1].max() + pad + 1))
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            got = self._find(i, size, grey[y0:y1, x0:x1], (x0, y0))
            if got is not None:
                seen[i] = got
        steady = {i: c for i, c in seen.items() if float(np.abs(c - self._corners[i]).max()) <= self.bump_px}
        if len(steady) < self.min_markers and len(steady) < len(seen):
            # Markers jumped and too few stayed put: the camera or the board was moved.
            self.reset()
            return LockStatus(LockState.SEARCHING, None, len(seen), bumped=True)
        # One marker off while the others hold is a hand over it, not a bump: ignore it.
        seen = steady
        if len(seen) < self.min_markers:
            # A hand over a corner: the lock may be fine, but nothing vouches for it now.
            # Markers gone from their windows for long means they moved far: search again.
            self._unseen += 1
            if self._unseen > self.lost_frames:
                self.reset()
                return LockStatus(LockState.SEARCHING, None, len(seen), bumped=True)
            self.state = LockState.OCCLUDED
            return LockStatus(LockState.OCCLUDED, self.H, len(seen), pose=self.pose)
        self._unseen = 0
        # Hold still while the markers stay within their noise: a still board keeps exactly the
        # same lock (and pose), so the motion gate and the reader see no wobble.
        if any(float(np.abs(c - self._corners[i]).max()) > NOISE_PX for i, c in seen.items()):
            self._corners.update(seen)
            H = self._fit(self._corners, grey.shape)
            if H is not None:
                self.H = H
        self.state = LockState.LOCKED
        return LockStatus(LockState.LOCKED, self.H, len(seen), pose=self.pose)

    def _predicted(self, grey: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        """The markers not found, each looked for where those found put it, on that window
        enlarged 2x, 3x then 4x (each scale finds some blurred markers the others miss; the far
        corners of a tilted, small board are the smallest and most foreshortened). From two
        markers the prediction is rougher (a homography from eight corners along one edge or
        diagonal): a wider window, and a looser test that the marker found is the one predicted."""
        src = np.concatenate([self._reference[i] for i in sorted(found)])
        dst = np.concatenate([found[i] for i in sorted(found)])
        H, _ = cv2.findHomography(src, dst, 0)
        if H is None:
            return {}
        reach = 1.0 if len(found) >= 3 else 2.0
        out: dict[int, np.ndarray] = {}
        h, w = grey.shape[:2]
        for missing in sorted(set(CORNER_IDS) - set(found)):
            c = cv2.perspectiveTransform(self._reference[missing][None], H)[0]
            size = float(np.linalg.norm(c[0] - c[2]))
            if not np.isfinite(size) or size > max(h, w):
                continue
            pad = reach * size
            x0, y0 = int(max(0, c[:, 0].min() - pad)), int(max(0, c[:, 1].min() - pad))
            x1, y1 = int(min(w, c[:, 0].max() + pad + 1)), int(min(h, c[:, 1].max() + pad + 1))
            if x1 - x0 < 8 or y1 - y0 < 8:
                continue
            got = self._enlarged(missing, grey[y0:y1, x0:x1], (x0, y0), (2, 3, 4),
                                 (self._fine, self._full, self._thorough))
            # It must be near where the others say (a stray tag elsewhere in the window is not
            # it); not exactly: lens distortion bends the far corner off the homography of three
            # small markers by a third of a marker or so.
            if got is not None and float(np.abs(got - c).max()) < 0.5 * reach * size + 2:
                out[missing] = got
        return out

    def _enlarged(self, i: int, crop: np.ndarray, offset: tuple[int, int], scales: tuple[int, ...],
                  detectors: tuple["cv2.aruco.ArucoDetector", ...]) -> np.ndarray | None:
        """Marker ``i`` in ``crop`` enlarged by each scale in turn (bicubic), each detector in
        turn; its corners in frame px."""
        for scale in scales:
            big = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
            for detector in detectors:
                got = detect(detector, big).get(i)
                if got is not None:
                    return ((got + 0.5) / scale - 0.5 + np.float32(offset)).astype(np.float32)
        return None

    def _find(self, i: int, diagonal: float, crop: np.ndarray, offset: tuple[int, int]) -> np.ndarray | None:
        """Marker ``i`` in a window: one sized pass; a small marker on the window enlarged 2x."""
        if diagonal < SMALL_MARKER_PX:
            # A small marker is tracked on its window enlarged (corners refined there are
            # steadier: a still board keeps its lock), with the small-marker detector first.
            got = self._enlarged(i, crop, offset, (2,), (self._fine_sized(2 * diagonal),))
            if got is None:
                got = self._enlarged(i, crop, offset, (2, 3), (self._fine, self._thorough))
            return got if got is not None else detect(self._tracker(diagonal), crop, offset).get(i)
        return detect(self._tracker(diagonal), crop, offset).get(i)

    def _fine_sized(self, diagonal: float) -> "cv2.aruco.ArucoDetector":
        """The small-marker detector thresholding at two window sizes round this marker's."""
        window = int(np.clip(round(2.5 * diagonal / 1.414 / 6), 7, 31)) | 1
        if window not in self._fine_by_size:
            self._fine_by_size[window] = make_small_detector((window - 4, window, 4), refine=LOCK_REFINE)
        return self._fine_by_size[window]

    def _tracker(self, diagonal: float) -> "cv2.aruco.ArucoDetector":
        """A one-pass detector sized for a marker of this diagonal (px): 6 cells a side."""
        window = int(np.clip(round(2.5 * diagonal / 1.414 / 6), 7, 31)) | 1
        if window not in self._small:
            self._small[window] = make_sized_detector(window, refine=LOCK_REFINE)
        return self._small[window]

    def _fit(self, corners: dict[int, np.ndarray], shape: tuple[int, ...]) -> np.ndarray | None:
        """The homography (through the lens: to ideal pixels) and the camera's pose."""
        src = np.concatenate([self._reference[i] for i in sorted(corners)])
        dst = np.concatenate([corners[i] for i in sorted(corners)])
        size = (int(shape[1]), int(shape[0]))
        lens = self.lens.for_size(size) if self.lens is not None else None
        ideal = dst if lens is None else lens.undistort_points(dst).astype(np.float32)
        H, _ = cv2.findHomography(src, ideal, 0)
        if H is None:
            return None
        H = H.astype(np.float64)
        self.pose = estimate_pose(src, ideal, size, lens, H, undistorted=True, K=self._K) or Pose(H, lens)
        if lens is None and self.pose.K is not None and self._K is None:
            self._K = self.pose.K  # the focal length does not change: estimated once
        return H

    @property
    def corners(self) -> dict[int, np.ndarray]:
        """The markers' last tracked corners (frame px), for drawing the lock."""
        return dict(self._corners)


def _max_shift(a: dict[int, np.ndarray], b: dict[int, np.ndarray]) -> float:
    common = a.keys() & b.keys()
    if not common:
        return float("inf")
    return float(max(np.abs(a[i] - b[i]).max() for i in common))


def draw_lock(frame: np.ndarray, sheet: Sheet, H: np.ndarray) -> np.ndarray:
    """The frame with the sheet outline and every space centre drawn through ``H``."""
    out = frame.copy()
    w, h = sheet.size
    quad = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), H)[0]
    cv2.polylines(out, [np.round(quad).astype(np.int32)], True, (0, 0, 255), 2, cv2.LINE_AA)
    pts = cv2.perspectiveTransform(np.float32([[(s.x, s.y) for s in sheet.shapes]]), H)[0]
    for x, y in pts:
        cv2.circle(out, (int(round(x)), int(round(y))), 3, (0, 200, 0), -1, cv2.LINE_AA)
    return out
