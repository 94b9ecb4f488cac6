"""A camera's lens: intrinsics (camera matrix K) and distortion, as OpenCV models them.

Made by ``tableref calibrate-lens`` (a ChArUco sheet filmed from a handful of angles,
``cv2.aruco.CharucoDetector`` + ``cv2.calibrateCamera``) and saved as JSON::

    {"version": 1, "size": [1280, 720], "K": [[fx, 0, cx], [0, fy, cy], [0, 0, 1]],
     "dist": [k1, k2, p1, p2, k3], "error_px": 0.31}

or measured from the empty board's printed lines (:mod:`vision.read.board_lens`: one radial
term), marked ``"from": "board"`` — measured again whenever the empty board is learned, as
the camera may have been changed since.

The reader never undistorts whole frames (too slow on a Pi): it maps its few sample points
and tag corners through the model (:meth:`Lens.undistort_points`, :meth:`Lens.distort_points`).
A frame of another size with the same aspect (a ``lores`` watch stream, a larger read stream)
uses the same lens scaled (:meth:`Lens.for_size`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import cv2
import numpy as np

from rules.strict import expect_keys, loads

LENS_VERSION = 1


class LensError(ValueError):
    """A lens file that cannot be used: the message names the file and the key."""


@dataclass(frozen=True, eq=False)
class Lens:
    K: np.ndarray  # (3, 3) float64
    dist: np.ndarray  # (k,) float64: k1, k2, p1, p2[, k3, ...]
    size: tuple[int, int]  # the frame size K was measured at (w, h)
    error_px: float = float("nan")  # RMS reprojection error of the calibration
    from_board: bool = False  # measured from the board's printed lines, not a ChArUco sheet

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
        return Lens(K, self.dist.copy(), (w, h), self.error_px, self.from_board)

    def undistort_points(self, px: np.ndarray) -> np.ndarray:
        """Frame pixels → where an ideal pinhole with the same K would have put them (N, 2)."""
        pts = np.asarray(px, np.float64).reshape(-1, 1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        # More iterations than the default 5: a wide lens's corners need them (checked against
        # distort_points to 1e-6 px at k1 -0.3).
        return cv2.undistortPoints(pts, self.K, self.dist, R=None, P=self.K,
                                   criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-6)).reshape(-1, 2)

    @cached_property
    def _model(self) -> tuple[np.ndarray, np.ndarray, tuple[float, ...], bool, bool]:
        """:meth:`distort_points`' constants: focal lengths, centre, the eight coefficients, and
        whether the tangential and rational terms are there at all (a reader maps a hundred
        small sets of points a read: each numpy step left out counts)."""
        d = np.zeros(8)
        d[: min(8, len(self.dist))] = self.dist[:8]
        k = tuple(float(v) for v in d)
        return (np.array([self.K[0, 0], self.K[1, 1]]), np.array([self.K[0, 2], self.K[1, 2]]), k,
                bool(k[2] or k[3]), bool(k[5] or k[6] or k[7]))

    def distort_points(self, ideal: np.ndarray) -> np.ndarray:
        """Ideal pinhole pixels → frame pixels through the distortion (N, 2), as
        ``cv2.projectPoints`` (a reader maps tens of thousands of points a read: each pass over
        them counts, so the focal lengths cancel where they can)."""
        pts = np.asarray(ideal, np.float64).reshape(-1, 2)
        if len(pts) == 0:
            return np.zeros((0, 2))
        focal, centre, (k1, k2, p1, p2, k3, k4, k5, k6), tangential, rational = self._model
        if tangential:
            return self._distorted(pts)
        d = pts - centre
        r2 = (d * d) @ (1.0 / (focal * focal))
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3)) if k2 or k3 else 1 + k1 * r2
        if rational:
            radial /= 1 + r2 * (k4 + r2 * (k5 + r2 * k6))
        d *= radial[:, None]
        d += centre
        return d

    def _distorted(self, pts: np.ndarray) -> np.ndarray:
        """OpenCV's distortion model itself (as ``cv2.projectPoints``), on (N, 2) ideal pixels."""
        if len(pts) == 0:
            return np.zeros((0, 2))
        focal, centre, (k1, k2, p1, p2, k3, k4, k5, k6), tangential, rational = self._model
        xy = (pts - centre) / focal
        r2 = np.einsum("ij,ij->i", xy, xy)
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        if rational:
            radial /= 1 + r2 * (k4 + r2 * (k5 + r2 * k6))
        out = xy * radial[:, None]
        if tangential:
            x, y = xy[:, 0], xy[:, 1]
            out[:, 0] += 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            out[:, 1] += p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return out * focal + centre

    @property
    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.size[0] / 2 / self.K[0, 0]))

    # -- files ----------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {"version": LENS_VERSION, "size": list(self.size), "K": self.K.tolist(),
                "dist": [float(v) for v in self.dist], "error_px": None if math.isnan(self.error_px) else self.error_px,
                **({"from": "board"} if self.from_board else {})}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "Lens":
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise LensError(f"lens file {where} not found (make one with `tableref calibrate-lens`)") from None
        except (OSError, UnicodeDecodeError) as e:
            raise LensError(f"lens file {where}: cannot read it ({e})") from None
        data = loads(text, where=f"lens file {where}", error=LensError)
        expect_keys(data, required=("version", "size", "K", "dist"), optional=("error_px", "from"),
                    where=f"lens file {where}", error=LensError)
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
        if data.get("from", "board") != "board":
            raise LensError(f"lens file {where}: key 'from' is {data['from']!r}; only \"board\" (measured from "
                            "the board's printed lines) is known")
        return cls(K, dist, (w, h), float("nan") if err is None else float(err), "from" in data)


# -- calibration: the ChArUco sheet (``tableref calibrate-lens``) -------------------------------

CHARUCO_SQUARES = (7, 5)  # chessboard squares across, down (fits A4 landscape)
CHARUCO_SQUARE_MM = 30.0
CHARUCO_MARKER_MM = 22.0
CHARUCO_DICTIONARY = "DICT_5X5_100"  # not the board's DICT_4X4_50: never taken for a corner marker
MIN_VIEWS = 3


def charuco_board() -> "cv2.aruco.CharucoBoard":
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, CHARUCO_DICTIONARY))
    return cv2.aruco.CharucoBoard(CHARUCO_SQUARES, CHARUCO_SQUARE_MM, CHARUCO_MARKER_MM, d)


def charuco_image(dpi: int = 200, margin_mm: float = 15.0) -> np.ndarray:
    """The ChArUco sheet at true scale (``dpi``), with a white margin: a grey image."""
    px_mm = dpi / 25.4
    w_mm = CHARUCO_SQUARES[0] * CHARUCO_SQUARE_MM + 2 * margin_mm
    h_mm = CHARUCO_SQUARES[1] * CHARUCO_SQUARE_MM + 2 * margin_mm
    size = (int(round(w_mm * px_mm)), int(round(h_mm * px_mm)))
    return charuco_board().generateImage(size, marginSize=int(round(margin_mm * px_mm)), borderBits=1)


def calibrate_lens(frames: "list[np.ndarray]", *, min_corners: int = 8) -> tuple[Lens, int]:
    """A lens from frames of the ChArUco sheet (several angles and places in the frame):
    ``cv2.aruco.CharucoDetector`` finds the chessboard corners, ``cv2.calibrateCamera`` fits
    K and k1, k2, p1, p2 (k3 fixed: a free k3 trades off against k1, k2 on a few views).
    Returns the lens and how many frames were used; raises LensError when too few show it."""
    if not frames:
        raise LensError("calibrate-lens: no frames")
    board = charuco_board()
    detector = cv2.aruco.CharucoDetector(board)
    obj, img = [], []
    h, w = frames[0].shape[:2]
    for f in frames:
        if f.shape[:2] != (h, w):
            raise LensError(f"calibrate-lens: frames of different sizes ({w}x{h} and {f.shape[1]}x{f.shape[0]})")
        grey = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) if f.ndim == 3 else f
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < min_corners:
            continue
        o, i = board.matchImagePoints(corners, ids)
        obj.append(o)
        img.append(i)
    if len(obj) < MIN_VIEWS:
        raise LensError(f"calibrate-lens: the ChArUco sheet was found in {len(obj)} of {len(frames)} frames "
                        f"(need {MIN_VIEWS}: show it whole, from several angles, filling much of the frame)")
    rms, K, dist, _, _ = cv2.calibrateCamera(obj, img, (w, h), None, None, flags=cv2.CALIB_FIX_K3)
    return Lens(K.astype(np.float64), dist.ravel().astype(np.float64), (w, h), float(rms)), len(obj)
