"""The motion gate: nothing is read while anything on the board moves.

Each frame is warped to a small top-down colour image of the sheet (0.5-1 pixel per
millimetre: the narrowest piece four pixels across) and compared with the previous one. A pixel
has changed when it differs by more than a tolerance that grows with the local contrast
(so the lock's sub-pixel wobble along a printed line is not movement); a quarter of the
smallest piece's area changing is movement. The board counts as still once no frame has
moved for ``settle_time`` seconds of the frames' own time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.sheets.layout import Sheet


@dataclass(frozen=True)
class GateState:
    moving: bool  # this frame differs from the last one
    still_for: float  # seconds since the last movement (0 while moving)
    changed: float  # share of the board that changed this frame

    def settled(self, settle_time: float) -> bool:
        return not self.moving and self.still_for + 1e-9 >= settle_time


class MotionGate:
    def __init__(self, sheet: Sheet, *, px_per_mm: float | None = None, threshold: int = 20,
                 min_pixels: int | None = None) -> None:
        self.sheet = sheet
        edges = any(sp.kind == "edge" for sp in sheet.shapes)
        # Fine enough that the narrowest piece is four pixels across (a 4 mm Annelids bar at
        # 1 px/mm; a 28 mm disc at 0.5 px/mm is plenty), and no finer: it is per frame.
        narrowest = sheet.edge_bar[1] if edges else 2 * sheet.piece_radius
        self.s = float(px_per_mm) if px_per_mm else float(np.clip(4.0 / narrowest, 0.5, 1.0))
        self.size = tuple(int(math.ceil(v * self.s)) for v in sheet.size)
        self.threshold = int(threshold)
        # A quarter of the smallest piece's area is movement: one piece put down or taken
        # away (an Annelids segment is 10 x 4 mm) must never go unnoticed.
        if min_pixels is None:
            if edges:
                frac, width = sheet.edge_bar
                area = min(sp.length for sp in sheet.shapes if sp.kind == "edge") * frac * width
            else:
                area = math.pi * sheet.piece_radius ** 2
            min_pixels = max(3, int(0.25 * area * self.s * self.s))
        self.min_pixels = int(min_pixels)
        self._S_inv = np.diag([1 / self.s, 1 / self.s, 1.0])
        self._kernel = np.ones((3, 3), np.uint8)
        self.reset()

    def reset(self) -> None:
        """Forget the last frame (after a re-lock the old one is from another viewpoint)."""
        self._last: np.ndarray | None = None
        self._still_since: float | None = None

    def warp(self, frame: np.ndarray, H: np.ndarray) -> np.ndarray:
        small = cv2.warpPerspective(frame, H @ self._S_inv, self.size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def update(self, frame: np.ndarray, H: np.ndarray, t: float) -> GateState:
        """``frame``: the camera frame (BGR, or grey)."""
        small = self.warp(frame, H)
        last, self._last = self._last, small
        if last is None:
            self._still_since = t
            return GateState(True, 0.0, 1.0)
        diff = cv2.absdiff(small, last)
        if diff.ndim == 3:
            diff = cv2.max(cv2.max(diff[..., 0], diff[..., 1]), diff[..., 2])
            edges = cv2.morphologyEx(cv2.cvtColor(last, cv2.COLOR_BGR2GRAY), cv2.MORPH_GRADIENT, self._kernel)
        else:
            edges = cv2.morphologyEx(last, cv2.MORPH_GRADIENT, self._kernel)
        tolerance = cv2.addWeighted(edges, 0.5, edges, 0.0, self.threshold)  # threshold + contrast / 2
        count = int(np.count_nonzero(diff > tolerance))
        changed = count / (small.shape[0] * small.shape[1])
        if count >= self.min_pixels:
            self._still_since = t
            return GateState(True, 0.0, changed)
        since = t if self._still_since is None else self._still_since
        return GateState(False, t - since, changed)
