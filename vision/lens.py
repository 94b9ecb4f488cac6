"""A camera's lens: intrinsics (camera matrix K) and distortion, as OpenCV models them.

Made by ``tableref calibrate-lens`` (a ChArUco sheet filmed from a handful of angles,
``cv2.aruco.CharucoDetector`` + ``cv2.calibrateCamera``) and saved as JSON::

    {"version": 1, "size": [1280, 720], "K": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist": [k1, k2, p1, p2, k3], "error_px": 0.31}

The reader never undistorts whole frames (too slow on a Pi): it maps its few sample points
and tag corners through the model (:meth:`Lens.undistort_points`, :meth:`Lens.distort_points`).
A frame of another size with the same aspect (a ``lores`` watch stream, a larger read stream)
uses the same lens scaled (:meth:`Lens.for_size`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

LENS_VERSION = 1


class LensError(ValueError):
    """A lens file that cannot be used: the message names the file and the key."""


@dataclass(frozen=True, eq=False)
class Lens:
    K: np.ndarray  # (3, 3) float64
    dist: np.ndarray  # (k,) float64: k1, k2, p1, p2[, k3, ...]
    size: tuple[int, int]  # the frame size K was measured at (w, h)
    error_px: float = float("nan")  # RMS reprojection error of the calibration

    def for_size(self, size: tuple[int, int]) -> "Lens":
        """The same lens seen at another frame size (same aspect ratio: a scaled stream)."""
        w, h = size
        if (w, h) == tuple(self.size):
            return self
        sx, sy = w / self.size[0], h / self.size[1]
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise LensError(f"lens measured at {self.size[0]}x{self.size[1]} cannot be used at {w}x{h} "
                            "(another aspect ratio crops the sensor differently): calibrate the lens at this size")
        K = self.K.copy()
        K[0, :] *= sx
        K[1, :] *= sy
        # Pixel centres: (x + 0.5) * s - 0.5.
        K[0, 2] = (self.K[0, 2] + 0.5) * sx - 0.5
        K[1, 2] = (self.K[1, 2] + 0.5) * sy - 0.5
        return Lens(K, self.dist.copy(), (w, h), self.error_px)

    def undistort_points(self, px: np.ndarray) -> np.ndarray:
        """Frame pixels → where an ideal pinhole with the same K would have put them (N, 2)."""
        pts = np.asarray(px, np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        return cv2.undistortPointsIter(pts, self.K, self.dist, None, self.K,
                                       (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 20, 1e-4)).reshape(-1, 2)

    def distort_points(self, ideal: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels → frame pixels through the distortion (N, 2)."""
        pts = np.asarray(ideal, np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        fx, fy, cx, cy = self.K[0, 0], self.K[1, 1], self.K[0, 2], self.K[1, 2]
        x = (pts[:, 0] - cx) / fx
        y = (pts[:, 1] - cy) / fy
        d = np.zeros(8)
        d[: min(8, len(self.dist))] = self.dist[:8]
        k1, k2, p1, p2, k3, k4, k5, k6 = d
        r2 = x * x + y * y
        radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack([xd * fx + cx, yd * fy + cy], axis=1)

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.size[0] / 2 / self.K[0, 0]))

    # -- files ----------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {"version": LENS_VERSION, "size": list(self.size), "K": self.K.tolist(),
                "dist": [float(v) for v in self.dist], "error_px": None if math.isnan(self.error_px) else self.error_px}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "Lens":
        where = str(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LensError(f"lens file {where} not found (make one with `tableref calibrate-lens`)") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise LensError(f"lens file {where}: cannot read it as JSON ({e})") from None
        if not isinstance(data, dict):
            raise LensError(f"lens file {where}: expected a JSON object")
        if data.get("version") != LENS_VERSION:
            raise LensError(f"lens file {where}: key 'version' is {data.get('version')!r}, expected {LENS_VERSION}")
        try:
            w, h = (int(v) for v in data["size"])
            K = np.array(data["K"], np.float64)
            dist = np.array(data["dist"], np.float64).ravel()
        except KeyError as e:
            raise LensError(f"lens file {where}: key {e.args[0]!r} missing") from None
        except (TypeError, ValueError) as e:
            raise LensError(f"lens file {where}: keys 'size', 'K', 'dist' must be numbers ({e})") from None
        if w < 16 or h < 16:
            raise LensError(f"lens file {where}: key 'size' {[w, h]} is not a frame size")
        if K.shape != (3, 3) or not np.isfinite(K).all() or K[0, 0] <= 0 or K[1, 1] <= 0 \
                or abs(K[2, 2] - 1) > 1e-9 or K[2, 0] != 0 or K[2, 1] != 0:
            raise LensError(f"lens file {where}: key 'K' must be a 3x3 camera matrix [[fx,0,cx],[0,fy,cy],[0,0,1]]")
        if len(dist) not in (4, 5, 8) or not np.isfinite(dist).all():
            raise LensError(f"lens file {where}: key 'dist' must hold 4, 5 or 8 coefficients (k1 k2 p1 p2 [k3 ...])")
        err = data.get("error_px")
        return cls(K, dist, (w, h), float("nan") if err is None else float(err))
