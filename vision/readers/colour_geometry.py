"""Geometry of the edges Annelids' bars lie on, and per-space statistics, for the colour
reader (vision/readers/colour_reading.py): where each body point lies along its edge, which edges meet,
the shifts an edge's core is looked at with, and medians and quartiles of each space's points
all at once."""

from __future__ import annotations

import numpy as np

from vision.read.samples import segment_distance
from vision.read.sampling import inside_convex


def mm_per_px(pose, at: np.ndarray, least: float = 0.0) -> float:
    """Millimetres of the board's plane one pixel spans at ``at`` (mm), across its most
    foreshortened direction (a tilted camera sees the sheet's far side with fewer pixels to
    the mm than its centre), and at least ``least``."""
    d = np.float32([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) + np.asarray(at, np.float32)
    px = np.asarray(pose.to_px(d), np.float64).reshape(3, 2)
    jac = np.stack([px[1] - px[0], px[2] - px[0]], axis=1)  # pixels per mm
    return max(1.0 / max(float(np.linalg.svd(jac, compute_uv=False)[-1]), 1e-3), least)


def near_outline(pts: np.ndarray, hull: np.ndarray, reach: float) -> np.ndarray:
    """Which of ``pts`` lie inside the convex ``hull`` or within ``reach`` of it."""
    near = inside_convex(pts, hull)
    for a, b in zip(hull, np.roll(hull, -1, axis=0)):
        near |= segment_distance(pts, (a[0], a[1]), (b[0], b[1])) <= reach
    return near


def edge_geometry(g) -> tuple[np.ndarray, list[tuple[set[int], set[int]]]]:
    """Each body point's place along its edge (mm from the middle towards ``ends[1]``; 0 off
    edges), and for each edge the edges meeting it at ``ends[0]`` and at ``ends[1]``."""
    t = np.zeros(len(g.body.mm), np.float32)
    mates: list[tuple[set[int], set[int]]] = [(set(), set()) for _ in g.spaces]
    edges = [i for i, s in enumerate(g.spaces) if s.kind == "edge"]
    if not edges:
        return t, mates
    for i in edges:
        s = g.spaces[i]
        (x1, y1), (x2, y2) = s.ends
        u = np.array([x2 - x1, y2 - y1]) / max(s.length, 1e-9)
        sl = g.body.of(i)
        t[sl] = (g.body.mm[sl] - [s.x, s.y]) @ u
    ends = np.array([g.spaces[i].ends for i in edges], np.float64)  # (E, 2 ends, 2)
    for a, i in enumerate(edges):
        for side in (0, 1):
            d = np.hypot(*(ends[:, :, :] - ends[a, side]).transpose(2, 0, 1))  # (E, 2)
            near = np.flatnonzero((d < 0.5).any(axis=1))
            mates[i][side].update(int(edges[b]) for b in near if b != a)
    return t, mates


def edge_shifts(g, shifts_mm: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per space, the shifts (mm) its core is looked at with: 0 first; for an edge, each of
    ``shifts_mm`` across it and the first two along it, both ways (0 for the
    other spaces): a bar 10 mm long is misplaced less along than across its 4 mm. And each
    edge's unit normal (0 off edges)."""
    along = sorted({a * sgn for a in shifts_mm[:2] for sgn in (1, -1)}, key=abs)
    across = sorted({b * sgn for b in shifts_mm for sgn in (1, -1)}, key=abs)
    steps = [(a, b) for a in along for b in across]  # (0, 0) first
    out = np.zeros((len(g.spaces), len(steps), 2), np.float32)
    normals = np.zeros((len(g.spaces), 2), np.float32)
    for i, s in enumerate(g.spaces):
        if s.kind != "edge":
            continue
        (x1, y1), (x2, y2) = s.ends
        u = np.array([x2 - x1, y2 - y1]) / max(s.length, 1e-9)
        n = np.array([-u[1], u[0]])
        out[i] = [a * u + b * n for a, b in steps]
        normals[i] = n
    return out, normals


def _padded(v: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The groups ``v[starts[k]:starts[k] + counts[k]]`` as rows, padded with NaN."""
    width = int(counts.max(initial=0))
    out = np.full((len(counts), width), np.nan, np.float32)
    cols = np.arange(width)
    mask = cols[None, :] < counts[:, None]
    out[mask] = v[(starts[:, None] + cols[None, :])[mask]]
    return out


def lower_quartiles(v: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per group: its lower quartile (0 if empty), all groups at once."""
    if len(counts) == 0 or counts.max(initial=0) == 0:
        return np.zeros(len(counts), np.float32)
    grid = _padded(v, starts, counts)
    grid.sort(axis=1)  # NaN padding sorts last
    at = np.maximum(np.floor(0.25 * (counts - 1)).astype(int), 0)
    return np.where(counts > 0, grid[np.arange(len(counts)), at], 0.0).astype(np.float32)


def group_medians(v: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per group: the median of its values that are not NaN (0 where there are none)."""
    if len(counts) == 0 or counts.max(initial=0) == 0:
        return np.zeros(len(counts), np.float32)
    grid = _padded(v, starts, counts)
    has = ~np.isnan(grid).all(axis=1)
    out = np.zeros(len(counts), np.float32)
    if has.any():
        out[has] = np.nanmedian(grid[has], axis=1)
    return out
