"""A camera model of its own, for the accuracy bench and filmed games that look like reality.

Not :mod:`vision.simulated.synth`'s warp of a flat drawing: a pinhole camera (intrinsics from the field
of view) placed in 3-D over the printed sheet — tilted from vertical, turned, at the distance
that makes the sheet fill a given share of the frame — with radial (k1, k2) and tangential
(p1, p2) distortion, OpenCV's model. A frame is drawn in two steps:

1. an *ideal* (distortion-free) pinhole image, on a canvas large enough for everything the
   distorted frame sees: the table, the sheet texture-mapped on the board plane (its
   homography from the camera's pose), shadows cast by a lamp, the 3-D pieces
   (:mod:`vision.simulated.scene_pieces`: cylinders and boxes at their heights, shaded sides, the tag
   or colour on the top face, drawn far to near) and an arm reaching in;
2. the frame: every output pixel looks up where its ray lands in the ideal image
   (``cv2.undistortPoints``, checked by projecting back) through ``cv2.remap``; then the
   lamp's falloff, vignetting, exposure, glare, lens blur, shot noise and JPEG.

World coordinates are *sheet millimetres* (x right, y down the sheet) and z into the table,
so a point ``h`` mm above the board is at z = -h. :meth:`CameraModel.true_board_pose` gives
the camera's pose (``rvec``, ``tvec``: world → camera), K and the distortion coefficients, so
tests can compare a recovered pose with the truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import cv2
import numpy as np

from rules.view import View

from vision.sheets.layout import Sheet
from vision.sheets.render import draw_sheet


@dataclass(frozen=True)
class CameraSetup:
    """Where the camera is and what its lens does."""

    size: tuple[int, int] = (1280, 720)
    hfov_deg: float = 62.0  # the pinhole's horizontal field of view (before distortion)
    tilt_deg: float = 20.0  # optical axis from vertical; the camera leans back from the frame's bottom edge
    yaw_deg: float = 0.0  # the sheet's turn in the frame, beyond laying its long side along the frame's
    fill: float = 0.6  # the sheet's extent over the frame's, in the tighter direction
    k1: float = 0.0
    k2: float = 0.0
    p1: float = 0.0
    p2: float = 0.0
    aim: tuple[float, float] = (0.0, 0.0)  # aim point off the sheet's centre, in sheet widths/heights
    blur: float = 0.6  # lens blur, Gaussian sigma in px

    def __post_init__(self) -> None:
        w, h = self.size
        if w < 16 or h < 16:
            raise ValueError(f"CameraSetup.size: at least 16x16 pixels, got {self.size}")
        if not 10 <= self.hfov_deg <= 150:
            raise ValueError(f"CameraSetup.hfov_deg: 10-150 degrees, got {self.hfov_deg}")
        if not 0 <= self.tilt_deg <= 75:
            raise ValueError(f"CameraSetup.tilt_deg: 0-75 degrees from vertical, got {self.tilt_deg}")
        if not 0.05 <= self.fill <= 1.2:
            raise ValueError(f"CameraSetup.fill: a share of the frame (0.05-1.2), got {self.fill}")

    @property
    def dist(self) -> np.ndarray:
        return np.array([self.k1, self.k2, self.p1, self.p2, 0.0], np.float64)

    @property
    def K(self) -> np.ndarray:
        w, h = self.size
        f = (w / 2) / math.tan(math.radians(self.hfov_deg) / 2)
        return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)


@dataclass(frozen=True)
class BoardPose:
    """The truth a pose solver should recover: world (sheet mm, z into the table) → camera."""

    rvec: np.ndarray  # (3,) Rodrigues
    tvec: np.ndarray  # (3,) mm
    K: np.ndarray
    dist: np.ndarray
    size: tuple[int, int]

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def position(self) -> np.ndarray:
        """The camera's centre in world mm (its z is minus its height over the board)."""
        return -self.R.T @ self.tvec

    def project(self, points: np.ndarray) -> np.ndarray:
        """Frame pixels of world points (N, 3), distortion included (cv2.projectPoints)."""
        pts = np.asarray(points, np.float64).reshape(-1, 1, 3)
        return cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)[0].reshape(-1, 2)

    def depth(self, points: np.ndarray) -> np.ndarray:
        return (np.asarray(points, np.float64).reshape(-1, 3) @ self.R.T + self.tvec)[:, 2]


def place_camera(setup: CameraSetup, plane_mm: tuple[float, float]) -> BoardPose:
    """The camera of ``setup`` over a plane of ``plane_mm`` (its top-left at the origin),
    at the distance where the plane fills ``setup.fill`` of the frame."""
    pw, ph = plane_mm
    w, h = setup.size
    base = 90.0 if (ph > pw) != (h > w) else 0.0  # the sheet's long side along the frame's
    psi = math.radians(base + setup.yaw_deg)
    theta = math.radians(setup.tilt_deg)
    right = np.array([math.cos(psi), math.sin(psi), 0.0])
    down0 = np.array([-math.sin(psi), math.cos(psi), 0.0])
    fwd = math.cos(theta) * np.array([0.0, 0.0, 1.0]) - math.sin(theta) * down0
    R = np.stack([right, np.cross(fwd, right), fwd])
    target = np.array([pw * (0.5 + setup.aim[0]), ph * (0.5 + setup.aim[1]), 0.0])
    outline = _outline(pw, ph)
    K, dist = setup.K, setup.dist

    def pose(d: float) -> BoardPose:
        centre = target - d * fwd
        return BoardPose(cv2.Rodrigues(R)[0].ravel(), -R @ centre, K, dist, setup.size)

    def fill(d: float) -> float:
        px = pose(d).project(outline)
        ext = px.max(axis=0) - px.min(axis=0)
        return max(ext[0] / w, ext[1] / h)

    lo, hi = 50.0, 50000.0
    for _ in range(50):  # the fill shrinks as the camera backs away
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if fill(mid) > setup.fill else (lo, mid)
    return pose(hi)


def _outline(pw: float, ph: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 1, n, endpoint=False)
    edges = [np.c_[t * pw, 0 * t], np.c_[pw + 0 * t, t * ph], np.c_[pw - t * pw, ph + 0 * t], np.c_[0 * t, ph - t * ph]]
    xy = np.concatenate(edges)
    return np.c_[xy, np.zeros(len(xy))]


@dataclass(frozen=True)
class LensMap:
    """Where each frame pixel's ray lands in the ideal pinhole canvas (``None`` maps: no
    distortion, the canvas is the frame)."""

    K_canvas: np.ndarray
    canvas: tuple[int, int]
    map_x: np.ndarray | None
    map_y: np.ndarray | None
    coarse: np.ndarray  # (h/8, w/8, 2) ideal canvas coordinates of every 8th frame pixel


@lru_cache(maxsize=12)
def lens_map(size: tuple[int, int], K_key: tuple[float, ...], dist_key: tuple[float, ...]) -> LensMap:
    w, h = size
    K = np.array(K_key, np.float64).reshape(3, 3)
    dist = np.array(dist_key, np.float64)
    if not np.any(dist):
        ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        return LensMap(K, size, None, None, np.stack([xs, ys], axis=-1))
    # The map is smooth: solved every 4th pixel (block centres, one block beyond each edge)
    # and scaled up 4x, which puts every sample back on its own pixel.
    gy, gx = np.mgrid[-1:(h + 3) // 4 + 1, -1:(w + 3) // 4 + 1].astype(np.float32) * 4 + 1.5
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-7)
    und = cv2.undistortPoints(pts, K, dist, None, None, None, crit).reshape(-1, 2).astype(np.float64)
    back = cv2.projectPoints(np.c_[und, np.ones(len(und))].reshape(-1, 1, 3), np.zeros(3), np.zeros(3), K,
                             dist)[0].reshape(-1, 2)
    r2 = (und ** 2).sum(axis=1)
    k1, k2 = dist[0], dist[1]
    # A ray is real if it projects back to its pixel, on the inner (monotone) branch of the
    # radial polynomial: beyond its fold a strong barrel has no preimage (black, as a lens's edge).
    ok = (np.hypot(*(back - pts.reshape(-1, 2)).T) < 0.25) & (1 + 3 * k1 * r2 + 5 * k2 * r2 * r2 > 0.05)
    ideal = und * [K[0, 0], K[1, 1]] + [K[0, 2], K[1, 2]]
    lo = np.floor(ideal[ok].min(axis=0)) - 2
    hi = np.ceil(ideal[ok].max(axis=0)) + 3
    lo = np.maximum(lo, [-2 * w, -2 * h])
    hi = np.minimum(hi, [3 * w, 3 * h])
    canvas = (int(hi[0] - lo[0]), int(hi[1] - lo[1]))
    Kc = K.copy()
    Kc[0, 2] -= lo[0]
    Kc[1, 2] -= lo[1]
    at = (ideal - lo).astype(np.float32)
    at[~ok] = -10.0
    at = at.reshape(gx.shape[0], gx.shape[1], 2)
    big = cv2.resize(at, (at.shape[1] * 4, at.shape[0] * 4), interpolation=cv2.INTER_LINEAR)[4:4 + h, 4:4 + w]
    bad = cv2.resize((~ok).reshape(gx.shape).astype(np.uint8), (at.shape[1] * 4, at.shape[0] * 4),
                     interpolation=cv2.INTER_NEAREST)[4:4 + h, 4:4 + w]
    mx, my = big[..., 0], big[..., 1]
    mx[bad > 0] = -10.0
    coarse = np.stack([mx[::8, ::8], my[::8, ::8]], axis=-1)
    return LensMap(Kc, canvas, np.ascontiguousarray(mx), np.ascontiguousarray(my), coarse)


@dataclass(frozen=True)
class Lamp:
    """A lamp off to one side: its light falls off over the board and pieces cast shadows."""

    azimuth_deg: float = 200.0  # seen from above, from the sheet's +x axis towards +y
    elevation_deg: float = 50.0
    distance_mm: float = 900.0  # from the sheet's centre
    ambient: float = 0.45  # the room's share of the light (what a shadow still gets)
    shadows: bool = True

    def __post_init__(self) -> None:
        if not 5 <= self.elevation_deg <= 90:
            raise ValueError(f"Lamp.elevation_deg: 5-90 degrees above the table, got {self.elevation_deg}")
        if not self.distance_mm > 0:
            raise ValueError(f"Lamp.distance_mm: a distance above 0, got {self.distance_mm}")
        if not 0 <= self.ambient <= 1:
            raise ValueError(f"Lamp.ambient: a share of the light (0-1), got {self.ambient}")

    def position(self, centre: tuple[float, float]) -> np.ndarray:
        a, e = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        d = self.distance_mm
        return np.array([centre[0] + d * math.cos(e) * math.cos(a), centre[1] + d * math.cos(e) * math.sin(a),
                         -d * math.sin(e)])


@dataclass(frozen=True)
class Hand:
    """An arm reaching in: the fingertip over sheet point ``at`` (mm), ``height_mm`` above the
    board, holding ``holding`` (tokens hanging under it; ``lift_mm``: their base above the board)."""

    at: tuple[float, float]
    height_mm: float = 60.0
    from_deg: float | None = None  # where the shoulder is, seen from above (None: the nearest sheet edge)
    holding: tuple[str, ...] = ()
    lift_mm: float = 0.0

    def __post_init__(self) -> None:
        if self.height_mm < 0 or self.lift_mm < 0:
            raise ValueError(f"Hand: height_mm and lift_mm are heights above the board (>= 0), got "
                             f"{self.height_mm}, {self.lift_mm}")


@dataclass(frozen=True)
class Scene:
    """What is in front of the camera, and how the photograph is taken."""

    view: View = field(default_factory=View)
    heights: float = 1.0  # the pieces' heights × this (0: flat pieces, 1.5: taller than the set's)
    lamp: Lamp | None = Lamp()
    exposure: float = 0.8  # paper brightness under the lamp, share of full scale
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per-channel gain (B, G, R)
    vignetting: float = 0.25  # brightness lost in the frame's corners
    noise: float = 2.0  # sensor noise sigma at mid-grey, grey levels (shot noise grows with light)
    jpeg: int | None = 80  # JPEG quality the camera compresses at (None: none)
    hands: tuple[Hand, ...] = ()
    glare: tuple[float, float, float, float] | None = None  # sheet x, y mm; radius mm; strength (grey levels)
    seed: int = 0  # noise and the pieces' small offsets
    tags: bool = True  # False: pieces without stickers (Gygès's rings as stepped tiers, ring_solids.py)

    def __post_init__(self) -> None:
        if self.heights < 0:
            raise ValueError(f"Scene.heights: a scale of the pieces' heights (>= 0), got {self.heights}")
        if self.jpeg is not None and not 1 <= self.jpeg <= 100:
            raise ValueError(f"Scene.jpeg: a JPEG quality 1-100 or None, got {self.jpeg}")


TABLE_BGR = (70, 98, 128)  # a wooden table


class CameraModel:
    """Frames of ``sheet`` (with pieces) seen through the camera of ``setup``."""

    def __init__(self, sheet: Sheet | None, setup: CameraSetup = CameraSetup(), *, texture: np.ndarray | None = None,
                 texture_px_per_mm: float | None = None, plane_mm: tuple[float, float] | None = None) -> None:
        self.sheet = sheet
        self.setup = setup
        if sheet is None and (texture is None or plane_mm is None):
            raise ValueError("CameraModel: without a board sheet, give the plane's texture and size")
        self.plane_mm = plane_mm or sheet.size  # type: ignore[union-attr]
        self.pose = place_camera(setup, self.plane_mm)
        self.lens = lens_map(setup.size, tuple(self.pose.K.ravel()), tuple(self.pose.dist.ravel()))
        self._texture = texture
        self._texture_s = texture_px_per_mm

    def true_board_pose(self) -> BoardPose:
        return self.pose

    # -- geometry in the ideal canvas -------------------------------------------------------

    @cached_property
    def R(self) -> np.ndarray:
        return self.pose.R

    def to_canvas(self, points: np.ndarray) -> np.ndarray:
        """Ideal canvas pixels of world points (N, 3): the pinhole alone (no distortion)."""
        cam = np.asarray(points, np.float64).reshape(-1, 3) @ self.R.T + self.pose.tvec
        z = np.maximum(cam[:, 2:], 1e-6)
        return (cam[:, :2] / z) * [self.lens.K_canvas[0, 0], self.lens.K_canvas[1, 1]] + self.lens.K_canvas[:2, 2]

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """Sheet mm on the plane ``height_mm`` above the board → ideal canvas pixels."""
        R, t = self.R, self.pose.tvec
        M = np.stack([R[:, 0], R[:, 1], t - height_mm * R[:, 2]], axis=1)
        return self.lens.K_canvas @ M

    @cached_property
    def px_per_mm(self) -> float:
        """The sheet's largest scale in the frame (its nearest edge), frame px per mm."""
        pw, ph = self.plane_mm
        out = _outline(pw, ph, 8)
        px = self.pose.project(out)
        d = np.hypot(*np.diff(np.r_[px, px[:1]], axis=0).T)
        mm = np.hypot(*np.diff(np.r_[out, out[:1]], axis=0)[:, :2].T)
        return float((d / mm).max())

    @cached_property
    def texture(self) -> tuple[np.ndarray, float]:
        """The sheet's printed artwork at about twice the camera's finest scale: ink is never
        black, paper never pure white."""
        if self._texture is not None:
            return self._texture, float(self._texture_s or 1.0)
        s = round(min(12.0, max(1.0, 2.0 * self.px_per_mm)), 2)
        assert self.sheet is not None
        art = draw_sheet(self.sheet, s)
        return (art.astype(np.float32) * ((0.92 - 0.1) / 255) * 255 + 0.1 * 255).astype(np.uint8), s

    @cached_property
    def _table(self) -> np.ndarray:
        cw, ch = self.lens.canvas
        rng = np.random.default_rng(7)
        grain = cv2.resize(rng.standard_normal((max(2, ch // 40), max(2, cw // 4))).astype(np.float32), (cw, ch),
                           interpolation=cv2.INTER_CUBIC)
        table = np.empty((ch, cw, 3), np.float32)
        table[:] = TABLE_BGR
        return np.clip(table * (1 + 0.08 * grain[..., None]), 0, 255).astype(np.uint8)

    def _board(self) -> np.ndarray:
        """The table with the sheet on it (uint8, ideal canvas)."""
        tex, s = self.texture
        canvas = self._table.copy()
        # texture pixel j covers [j, j+1) of the drawing: its centre is sheet mm (j + 0.5) / s
        H = self.plane_homography(0.0) @ np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1.0]])
        cv2.warpPerspective(tex, H, self.lens.canvas, dst=canvas, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        return canvas

    @cached_property
    def _board_cache(self) -> np.ndarray:
        return self._board()

    # -- the photograph ---------------------------------------------------------------------

    def render(self, scene: Scene = Scene()) -> np.ndarray:
        """A camera frame (uint8 BGR) of ``scene``."""
        return self.finish(self.render_clean(scene), scene)

    def render_clean(self, scene: Scene) -> np.ndarray:
        """The frame before sensor noise and JPEG (float32): a still scene is drawn once and
        :meth:`finish`-ed for every exposure of it."""
        from .scene_pieces import draw_scene

        canvas = self._board_cache.astype(np.float32)
        lamp = scene.lamp.position(self._centre) if scene.lamp is not None else None
        if self.sheet is not None:
            draw_scene(self, canvas, scene, lamp)
        img = self._to_frame(canvas)
        gain = self._gain(scene) * np.float32(scene.exposure / 0.92)
        cv2.multiply(img, cv2.merge([gain * np.float32(t) for t in scene.tint]), dst=img)
        if scene.glare is not None:
            self._glare(img, scene.glare)
        if self.setup.blur > 0:
            img = cv2.GaussianBlur(img, (0, 0), self.setup.blur)
        return img

    def finish(self, clean: np.ndarray, scene: Scene, rng: np.random.Generator | None = None) -> np.ndarray:
        """Shot noise and the camera's JPEG on a :meth:`render_clean` frame."""
        rng = rng if rng is not None else np.random.default_rng(scene.seed)
        if scene.noise > 0:
            # shot noise: sigma grows as the square root of the light (from the frame at 1/4
            # size: the light varies more slowly than the noise)
            h, w = clean.shape[:2]
            small = cv2.resize(clean, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
            sigma = cv2.sqrt(cv2.max(small, 1.0) * np.float32(scene.noise * scene.noise / 128.0))
            sigma = cv2.resize(sigma, (w, h), interpolation=cv2.INTER_LINEAR)
            img = cv2.add(clean, cv2.multiply(self._noise(rng), sigma))
        else:
            img = clean.copy()
        np.clip(img, 0, 255, out=img)
        out = img.astype(np.uint8)
        if scene.jpeg is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg)])
            if not ok:
                raise RuntimeError("OpenCV could not JPEG-encode the frame")
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        return out

    @cached_property
    def _centre(self) -> tuple[float, float]:
        return self.plane_mm[0] / 2, self.plane_mm[1] / 2

    def _to_frame(self, canvas: np.ndarray) -> np.ndarray:
        if self.lens.map_x is None:
            return canvas
        return cv2.remap(canvas, self.lens.map_x, self.lens.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(0, 0, 0))

    def _gain(self, scene: Scene) -> np.ndarray:
        """The light at every frame pixel: the lamp's falloff over the board (cosine over
        distance squared, normalised at the sheet's brightest point) and the lens's vignetting;
        computed every 8th pixel (it varies slowly) and scaled up."""
        key = (scene.lamp, scene.vignetting)
        cache = self.__dict__.setdefault("_gains", {})
        if key in cache:
            return cache[key]
        w, h = self.setup.size
        coarse = self.lens.coarse.reshape(-1, 2).astype(np.float64)
        gain = np.ones(len(coarse))
        if scene.lamp is not None:
            Hinv = np.linalg.inv(self.plane_homography(0.0))
            p = np.c_[coarse, np.ones(len(coarse))] @ Hinv.T
            xy = p[:, :2] / p[:, 2:]
            L = scene.lamp.position(self._centre)
            lit = _irradiance(L, xy)
            ref = _irradiance(L, _outline(*self.plane_mm, 12)[:, :2]).max()
            lit = np.minimum(lit / ref, 1.3)
            gain = scene.lamp.ambient + (1 - scene.lamp.ambient) * lit
        ys, xs = np.mgrid[0:h:8, 0:w:8].astype(np.float64)
        r2 = (((xs - w / 2) / (w / 2)) ** 2 + ((ys - h / 2) / (h / 2)) ** 2) / 2
        gain = gain.reshape(xs.shape) * (1 - scene.vignetting * r2)
        full = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
        if len(cache) > 16:
            cache.clear()
        cache[key] = full
        return full

    def _glare(self, img: np.ndarray, glare: tuple[float, float, float, float]) -> None:
        gx, gy, radius_mm, strength = glare
        c = self.pose.project(np.array([[gx, gy, 0.0]]))[0]
        r = radius_mm * self.px_per_mm
        h, w = img.shape[:2]
        x0, x1 = int(max(0, c[0] - 3 * r)), int(min(w, c[0] + 3 * r + 1))
        y0, y1 = int(max(0, c[1] - 3 * r)), int(min(h, c[1] + 3 * r + 1))
        if x1 > x0 and y1 > y0:
            yy, xx = np.ogrid[y0:y1, x0:x1]
            blob = strength * np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * r * r))
            img[y0:y1, x0:x1] += blob.astype(np.float32)[..., None]

    @cached_property
    def _noise_bank(self) -> np.ndarray:
        w, h = self.setup.size
        return np.random.default_rng(4321).standard_normal((h + 64, w + 64, 3), dtype=np.float32)

    def _noise(self, rng: np.random.Generator) -> np.ndarray:
        """Unit noise: a random window of a fixed field, flipped at random (fresh Gaussian
        noise for a megapixel frame would dominate the render time)."""
        w, h = self.setup.size
        x, y = (int(v) for v in rng.integers(0, 64, 2))
        win = self._noise_bank[y:y + h, x:x + w]
        if rng.random() < 0.5:
            win = win[::-1, ::-1]
        return win if rng.random() < 0.5 else -win


def _irradiance(lamp: np.ndarray, xy: np.ndarray) -> np.ndarray:
    d = np.c_[lamp[0] - xy[:, 0], lamp[1] - xy[:, 1], np.full(len(xy), -lamp[2])]
    dist = np.linalg.norm(d, axis=1)
    return (-lamp[2]) / dist ** 3
