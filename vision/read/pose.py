"""The camera's pose over the board: where a point above the board appears in the frame.

The lock's homography maps the board's *plane* to the frame; a piece's top is not on it. From
the four corner markers' 16 corners and the lens (:mod:`vision.read.lens`; without a lens file a
focal length estimated from the markers' homography) ``cv2.solvePnP`` gives the camera's
position over the sheet. A point ``h`` mm above the sheet point ``p`` lies on the camera's
ray through the board-plane point ``p' = C + (p - C) * Ch / (Ch - h)`` (``C`` the camera's
foot on the board, ``Ch`` its height): so the frame position of any 3-D point is the
homography's image of a board-plane point, shifted away from the camera's foot. The board
plane keeps the lock's own homography (fitted to all 16 corners, best where it matters) and
the pose only adds the parallax; a wrong focal length (no lens file, a camera looking
straight down) makes the parallax a little wrong, never the board plane.

Coordinates: sheet millimetres (x right, y down the sheet), heights in mm above the board.
With a lens, the homography maps to *ideal* (undistorted) pixels and :meth:`Pose.to_px` /
:meth:`Pose.to_mm` pass points through the distortion model — points, never whole frames.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np

from .lens import Lens

DEFAULT_HFOV_DEG = 66.0  # a webcam or Camera Module 3 (standard); used when the focal length is unobservable
MIN_TILT_FOR_FOCAL_DEG = 12.0  # below this the markers' homography cannot tell the focal length
T = TypeVar("T")
KEPT_MAX = 4096  # results a pose keeps (Pose.kept): DRIFT's reads keep a few hundred


@dataclass(frozen=True, eq=False)
class Pose:
    """Board plane → frame, and the camera's place over the board (see the module doc)."""

    H: np.ndarray  # sheet mm (board plane) → ideal frame px
    lens: Lens | None = None
    camera: tuple[float, float, float] | None = None  # foot x, y (sheet mm), height mm; None: straight above, far
    K: np.ndarray | None = None
    rvec: np.ndarray | None = None
    tvec: np.ndarray | None = None
    focal_estimated: bool = False
    error_px: float = 0.0  # the pose's reprojection error on the markers' corners
    _H_inv: np.ndarray = field(init=False, repr=False)
    _kept: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_H_inv", np.linalg.inv(self.H))

    def kept(self, key: Hashable, work: Callable[[], T], of: object = None) -> T:
        """``work()``, worked out once for this pose (arrays read-only): what depends on the
        pose alone — the fixed sample points' pixels, a space's outline at a height, the pose
        for the main stream. A still board
        keeps its lock's pose for every read (the reader caches it per homography), so a
        read projects only what the frame changes. ``key`` names the work and its inputs;
        ``of``: the object whose points are projected (``key`` then holds its ``id``: the
        object is kept with the result, so its id names no other while the result stands)."""
        got = self._kept.get(key)
        if got is None or got[0] is not of:
            if len(self._kept) >= KEPT_MAX:
                self._kept.clear()  # poses do not last long enough to need more than a bound
            got = self._kept[key] = (of, work())
            if isinstance(got[1], np.ndarray):
                got[1].setflags(write=False)
        return got[1]

    @classmethod
    def flat(cls, H: np.ndarray) -> "Pose":
        """A homography alone: no lens, no parallax (every point treated as on the board)."""
        return cls(np.asarray(H, np.float64))

    @property
    def tilt_deg(self) -> float:
        if self.rvec is None:
            return 0.0
        R = cv2.Rodrigues(self.rvec)[0]
        return math.degrees(math.acos(float(np.clip(R[2, 2], -1, 1))))

    def lift(self, mm: np.ndarray, height: float | np.ndarray) -> np.ndarray:
        """Board-plane points the camera sees behind sheet points ``mm`` raised ``height`` mm."""
        mm = np.asarray(mm, np.float64).reshape(-1, 2)
        if self.camera is None:
            return mm
        cx, cy, ch = self.camera
        k = ch / np.maximum(ch - np.asarray(height, np.float64), 1.0)
        k = np.reshape(k, (-1, 1)) if np.ndim(k) else k
        return np.array([cx, cy]) + (mm - np.array([cx, cy])) * k

    def drop(self, plane_mm: np.ndarray, height: float | np.ndarray) -> np.ndarray:
        """The inverse of :meth:`lift`: the sheet point under a point ``height`` mm up that the
        camera sees at board-plane points ``plane_mm``."""
        plane_mm = np.asarray(plane_mm, np.float64).reshape(-1, 2)
        if self.camera is None:
            return plane_mm
        cx, cy, ch = self.camera
        k = np.maximum(ch - np.asarray(height, np.float64), 1.0) / ch
        k = np.reshape(k, (-1, 1)) if np.ndim(k) else k
        return np.array([cx, cy]) + (plane_mm - np.array([cx, cy])) * k

    def to_px(self, mm: np.ndarray, height: float | np.ndarray = 0.0) -> np.ndarray:
        """Frame pixels (N, 2) of sheet points ``mm`` (N, 2) raised ``height`` mm."""
        p = self.lift(mm, height) if np.any(height) else np.asarray(mm, np.float64).reshape(-1, 2)
        if len(p) == 0:
            return np.zeros((0, 2))
        ideal = cv2.perspectiveTransform(p.reshape(-1, 1, 2), self.H).reshape(-1, 2)
        return ideal if self.lens is None else self.lens.distort_points(ideal)

    def to_mm(self, px: np.ndarray, height: float | np.ndarray = 0.0) -> np.ndarray:
        """Sheet points (N, 2) under frame pixels ``px``, the seen point being ``height`` mm up."""
        px = np.asarray(px, np.float64).reshape(-1, 2)
        if len(px) == 0:
            return np.zeros((0, 2))
        ideal = px if self.lens is None else self.lens.undistort_points(px)
        plane = cv2.perspectiveTransform(ideal.reshape(-1, 1, 2), self._H_inv).reshape(-1, 2)
        return self.drop(plane, height) if np.any(height) else plane

    def flat_H(self) -> np.ndarray:
        """A plain homography for the board plane (exact without a lens; the motion gate's)."""
        return self.H


def as_pose(H: "np.ndarray | Pose") -> Pose:
    return H if isinstance(H, Pose) else Pose.flat(H)


def default_focal(size: tuple[int, int]) -> float:
    return (size[0] / 2) / math.tan(math.radians(DEFAULT_HFOV_DEG) / 2)


def focal_from_homography(H: np.ndarray, size: tuple[int, int]) -> float | None:
    """The focal length (px) that makes ``H`` (board mm → ideal px) a rotation and translation
    seen by a camera with square pixels and its principal point at the frame's centre (Zhang's
    two constraints on the image of the absolute conic), or None when the view is too square-on
    to tell."""
    w, h = size
    T = np.array([[1, 0, -(w - 1) / 2], [0, 1, -(h - 1) / 2], [0, 0, 1]], np.float64)
    M = T @ H
    M = M / np.linalg.norm(M[:, :2])
    h1, h2 = M[:, 0], M[:, 1]
    # In x = 1/f²: a*x + b = 0 for each constraint.
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    if float(a @ a) < 1e-12:
        return None
    x = -float(a @ b) / float(a @ a)  # least squares for x = 1/f²
    if x <= 0:
        return None
    f = 1 / math.sqrt(x)
    return f if 0.3 * w <= f <= 6 * w else None


def estimate_pose(sheet_mm: np.ndarray, px: np.ndarray, size: tuple[int, int], lens: Lens | None = None,
                  H: np.ndarray | None = None, *, undistorted: bool = False, K: np.ndarray | None = None
                  ) -> Pose | None:
    """The camera's pose from sheet points (N, 2 mm; N >= 4 on the board plane, the markers'
    corners) and where the frame shows them (N, 2 px). ``H``: the board-plane homography when
    the caller fitted it already (to ideal pixels when ``lens`` is given). ``undistorted``: ``px``
    are ideal pixels already (``lens`` undistorted them)."""
    obj = np.asarray(sheet_mm, np.float64).reshape(-1, 2)
    img = np.asarray(px, np.float64).reshape(-1, 2)
    if lens is not None:
        lens = lens.for_size(size)
        if not undistorted:
            img = lens.undistort_points(img)
    if H is None:
        H, _ = cv2.findHomography(obj, img, 0)
        if H is None:
            return None
    if lens is not None:
        K, estimated = lens.K, False
    elif K is not None:
        estimated = True  # estimated before (the camera's focal length does not change)
    else:
        f = focal_from_homography(H, size)
        estimated = True
        if f is None:
            f = default_focal(size)
        K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]], np.float64)
    obj3 = np.concatenate([obj, np.zeros((len(obj), 1))], axis=1)
    ok, rvec, tvec = cv2.solvePnP(obj3, img, K, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return None
    R = cv2.Rodrigues(rvec)[0]
    if lens is None and estimated and math.degrees(math.acos(float(np.clip(R[2, 2], -1, 1)))) < MIN_TILT_FOR_FOCAL_DEG \
            and not np.isclose(K[0, 0], default_focal(size)):
        # Square-on: the homography barely tells the focal length; a typical lens is a safer guess.
        f = default_focal(size)
        K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]], np.float64)
        ok, rvec, tvec = cv2.solvePnP(obj3, img, K, None, flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            return None
        R = cv2.Rodrigues(rvec)[0]
    C = -R.T @ tvec.ravel()
    height = -float(C[2])  # world z points into the table: the camera above has z < 0
    if height <= 0:
        return None
    back = cv2.projectPoints(obj3, rvec, tvec, K, None)[0].reshape(-1, 2)
    err = float(np.sqrt(np.mean(np.sum((back - img) ** 2, axis=1))))
    return Pose(np.asarray(H, np.float64), lens, (float(C[0]), float(C[1]), height), K, rvec.ravel(), tvec.ravel(),
                estimated, err)


def pose_from_homography(H: np.ndarray, sheet_ref: np.ndarray, size: tuple[int, int],
                         lens: Lens | None = None, K: np.ndarray | None = None) -> Pose:
    """The pose behind a board-plane homography alone (to ideal pixels when ``lens`` is
    given): the markers' corners ``sheet_ref`` as ``H`` sees them, solved as in
    :func:`estimate_pose`. Falls back to a flat pose (no parallax) when it cannot be solved."""
    H = np.asarray(H, np.float64)
    ref = np.asarray(sheet_ref, np.float64).reshape(-1, 2)
    img = cv2.perspectiveTransform(ref.reshape(-1, 1, 2), H).reshape(-1, 2)
    pose = estimate_pose(ref, img, size, lens, H, undistorted=True, K=K)
    if pose is None:
        return Pose(H, lens.for_size(size) if lens is not None else None)
    return pose
