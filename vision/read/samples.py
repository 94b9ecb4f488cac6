"""Where the reader looks: sample points on the sheet, per space, fixed by the board file.

For each space: *body* points (is anything here that the empty board does not show?),
*core* points (the colour of what is here), and for an edge the two *end* patches (where
an Annelids tail's dark flat end is). *Probes* are bare-paper points between the spaces:
the light on them tells the reader how bright the paper is near each space, so pieces are
compared with the empty board under the same light. All in sheet millimetres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.sheets.layout import Sheet, SpaceShape
from vision.sheets.render import draw_sheet

REF_PX_PER_MM = 2.0  # resolution of the calibration's reference image of the empty board
PROBES_PER_SPACE = 12


@dataclass(frozen=True)
class Group:
    """Points of one kind for every space, concatenated; ``start[i]:start[i+1]`` is space i's."""

    mm: np.ndarray  # (N, 2) float32
    start: np.ndarray  # (n_spaces + 1,) int

    def of(self, i: int) -> slice:
        return slice(int(self.start[i]), int(self.start[i + 1]))

    @property
    def counts(self) -> np.ndarray:
        return np.diff(self.start)


class SampleGrid:
    """The sample points of a sheet (pure geometry: the same for every frame)."""

    def __init__(self, sheet: Sheet) -> None:
        self.sheet = sheet
        self.spaces: tuple[SpaceShape, ...] = sheet.shapes
        self.index = {s.id: i for i, s in enumerate(self.spaces)}
        self.step = min(1.0, max(0.5, sheet.pitch / 40))
        r = sheet.piece_radius
        body, core, end0, end1 = [], [], [], []
        for s in self.spaces:
            if s.kind == "edge":
                b, c, e0, e1 = self._edge(s)
            elif s.kind == "area":
                x, y, w, h = s.rect  # type: ignore[misc]
                b = _rect(x + 2, y + 2, w - 4, h - 4, self.step)
                c = e0 = e1 = np.zeros((0, 2), np.float32)
            else:
                b = _disk(s.x, s.y, 0.65 * r, self.step)
                c = _disk(s.x, s.y, 0.42 * r, self.step)
                e0 = e1 = np.zeros((0, 2), np.float32)
            body.append(b)
            core.append(c)
            end0.append(e0)
            end1.append(e1)
        self.body, self.core, self.end0, self.end1 = (_group(g) for g in (body, core, end0, end1))
        self.probes = self._probes()
        self.probe_of = self._nearest_probes()
        # Each probe is read as the mean of five points (noise), and the light over the whole
        # board is modelled as a quadratic in x and y (see vision.read.sampling.light_gains).
        offsets = np.float32([[0, 0], [-0.7, 0], [0.7, 0], [0, -0.7], [0, 0.7]])
        self.probe_points = (self.probes[:, None, :] + offsets[None]).reshape(-1, 2)
        self.probe_basis = self.basis(self.probes)
        self.space_basis = self.basis(np.array([(s.x, s.y) for s in self.spaces], np.float32))
        self.is_area = np.array([s.kind == "area" for s in self.spaces])
        self.is_edge = np.array([s.kind == "edge" for s in self.spaces])

    def _edge(self, s: SpaceShape) -> tuple[np.ndarray, ...]:
        (x1, y1), (x2, y2) = s.ends  # type: ignore[misc]
        length = s.length
        u = np.array([(x2 - x1) / length, (y2 - y1) / length])
        n = np.array([-u[1], u[0]])
        frac, width = self.sheet.edge_bar
        half = length * frac / 2
        step = self.step

        def strip(t0: float, t1: float, w: float) -> np.ndarray:
            ts = np.arange(t0, t1 + 1e-6, step)
            ws = np.arange(-w, w + 1e-6, step)
            tt, ww = np.meshgrid(ts, ws)
            pts = np.array([s.x, s.y]) + tt.ravel()[:, None] * u + ww.ravel()[:, None] * n
            return pts.astype(np.float32)

        w = width / 2 - 0.8
        body = strip(-0.75 * half, 0.75 * half, w)
        core = strip(-0.25 * half, 0.25 * half, w)  # clear of a tail's dark cap
        band = (half - 2.6, half - 0.8)  # inside the tail's 3 mm dark cap
        return body, core, strip(-band[1], -band[0], w), strip(band[0], band[1], w)  # end0 is ends[0]'s side

    def _probes(self) -> np.ndarray:
        """Bare-paper points: no ink within 2 mm, clear of every piece's footprint."""
        s = REF_PX_PER_MM
        ink = draw_sheet(self.sheet, s, labels=False).min(axis=2) < 200
        near_ink = cv2.dilate(ink.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        w, h = self.sheet.size
        gap = max(3.0, self.sheet.pitch / 8, math.sqrt((w - 2 * self.sheet.margin) * (h - 2 * self.sheet.margin) / 6000))
        xs, ys = np.meshgrid(np.arange(self.sheet.margin, w - self.sheet.margin, gap),
                             np.arange(self.sheet.margin, h - self.sheet.margin, gap))
        pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
        keep = ~near_ink[np.clip((pts[:, 1] * s).astype(int), 0, ink.shape[0] - 1),
                         np.clip((pts[:, 0] * s).astype(int), 0, ink.shape[1] - 1)]
        r = self.sheet.piece_radius
        for sp in self.spaces:
            if sp.kind == "point":
                keep &= np.hypot(pts[:, 0] - sp.x, pts[:, 1] - sp.y) > 1.3 * r + 1.5
            elif sp.kind == "area":
                x, y, aw, ah = sp.rect  # type: ignore[misc]
                keep &= ~((pts[:, 0] > x - 3) & (pts[:, 0] < x + aw + 3) & (pts[:, 1] > y - 3) & (pts[:, 1] < y + ah + 3))
            else:
                keep &= segment_distance(pts, *sp.ends) > 3.5  # type: ignore[misc]
        return pts[keep].astype(np.float32)

    def basis(self, pts: np.ndarray) -> np.ndarray:
        w, h = self.sheet.size
        u, v = pts[:, 0] / w - 0.5, pts[:, 1] / h - 0.5
        return np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1).astype(np.float64)

    def _nearest_probes(self) -> np.ndarray:
        centres = np.array([(s.x, s.y) for s in self.spaces], np.float32)
        d = np.hypot(centres[:, None, 0] - self.probes[None, :, 0], centres[:, None, 1] - self.probes[None, :, 1])
        k = min(PROBES_PER_SPACE, len(self.probes))
        return np.argsort(d, axis=1)[:, :k]


def _disk(x: float, y: float, r: float, step: float) -> np.ndarray:
    ax = np.arange(-r, r + 1e-6, step)
    xx, yy = np.meshgrid(ax, ax)
    inside = xx ** 2 + yy ** 2 <= r * r
    return np.stack([xx[inside] + x, yy[inside] + y], axis=1).astype(np.float32)


def _rect(x: float, y: float, w: float, h: float, step: float) -> np.ndarray:
    xs, ys = np.meshgrid(np.arange(x, x + w, step), np.arange(y, y + h, step))
    return np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float32)


def _group(parts: list[np.ndarray]) -> Group:
    start = np.zeros(len(parts) + 1, int)
    start[1:] = np.cumsum([len(p) for p in parts])
    mm = np.concatenate(parts) if parts else np.zeros((0, 2), np.float32)
    return Group(mm.astype(np.float32), start)


def segment_distance(pts: np.ndarray, a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
    """Each point's distance (N, 2 → N) from the segment ``a``–``b``."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    t = np.clip(((pts[:, 0] - ax) * dx + (pts[:, 1] - ay) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
    return np.hypot(pts[:, 0] - ax - t * dx, pts[:, 1] - ay - t * dy)


def covers_pairs(pts: np.ndarray, k: np.ndarray, c: np.ndarray, top: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """Pairs of a point ``pts[k[j]]`` and a piece (``c[j]`` its place, ``top[j]`` where its top is
    seen, ``reach[j]``): may the piece cover the point? ``Reader.covers_to`` for every pair at
    once, with its arithmetic pair by pair — the box round the piece in float64, the distance
    from the segment base-to-top in the points' own type, as :func:`segment_distance` works it
    out with the piece's numbers as Python floats (``tests/vision/test_covers_pairs.py`` holds
    the two equal)."""
    p = pts[k]
    c = np.asarray(c).astype(np.float64)  # exact from float32 or float64, as float(c[0]) was
    top = np.asarray(top, np.float64)
    reach = np.asarray(reach, np.float64)
    lo, hi = np.minimum(c, top) - reach[:, None], np.maximum(c, top) + reach[:, None]
    px, py = p[:, 0], p[:, 1]
    out = (px >= lo[:, 0]) & (px <= hi[:, 0]) & (py >= lo[:, 1]) & (py <= hi[:, 1])
    j = np.flatnonzero(out)  # only the pairs in the box are measured
    if len(j):
        out[j] = within_pairs(p[j], c[j], top[j], reach[j], pts.dtype)
    return out


def within_pairs(p: np.ndarray, c: np.ndarray, top: np.ndarray, reach: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Each point ``p[j]`` within ``reach[j]`` of the segment ``c[j]``-``top[j]`` (float64), worked
    out in ``dt`` as segment_distance does for points of that type."""
    px, py = p[:, 0], p[:, 1]
    d = top - c
    ax, ay, dx, dy = c[:, 0].astype(dt), c[:, 1].astype(dt), d[:, 0].astype(dt), d[:, 1].astype(dt)
    denom = np.maximum(d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1], 1e-9).astype(dt)
    t = np.clip(((px - ax) * dx + (py - ay) * dy) / denom, 0, 1)
    dist = np.hypot(px - ax - t * dx, py - ay - t * dy)
    return dist <= reach.astype(dt)


def sample(frame: np.ndarray, H: np.ndarray, mm: np.ndarray) -> np.ndarray:
    """The frame's colour at sheet points ``mm`` seen through ``H`` (bilinear): (N, 3) float32."""
    n = len(mm)
    if n == 0:
        return np.zeros((0, frame.shape[2] if frame.ndim == 3 else 1), np.float32)
    px = cv2.perspectiveTransform(mm.reshape(-1, 1, 2).astype(np.float32), H).reshape(-1, 2)
    cols = 1024  # remap maps must stay under 32767 on a side
    rows = math.ceil(n / cols)
    pad = rows * cols - n
    mx = np.pad(px[:, 0], (0, pad)).reshape(rows, cols).astype(np.float32)
    my = np.pad(px[:, 1], (0, pad)).reshape(rows, cols).astype(np.float32)
    out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(rows * cols, -1)[:n].astype(np.float32)


def warp_to_sheet(frame: np.ndarray, H: np.ndarray, sheet: Sheet, px_per_mm: float = REF_PX_PER_MM) -> np.ndarray:
    """The frame seen from above: the sheet at ``px_per_mm`` (for the calibration's reference)."""
    w, h = (int(math.ceil(v * px_per_mm)) for v in sheet.size)
    S_inv = np.diag([1 / px_per_mm, 1 / px_per_mm, 1.0])
    return cv2.warpPerspective(frame, H @ S_inv, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
