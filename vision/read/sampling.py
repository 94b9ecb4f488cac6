"""Sampling a frame through the lock: pixels at board points (through a pose and a lens),
the empty board's light probes and gains, and the small array helpers the reader shares."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import cv2
import numpy as np


from vision.pieces.pieceset import PieceSet, PieceSetError, load_pieceset
from vision.sheets import layout

from .pose import Pose, as_pose
from .samples import REF_PX_PER_MM, Group, SampleGrid, warp_to_sheet

if TYPE_CHECKING:
    from .empty_board import Calibration

SATURATED = 250  # a clipped pixel hides what is under it
LIGHT_OUTLIER = 0.08  # a probe off the board's smooth light model by more than this is disturbed
SHADOW_WARMER = 0.06  # how much warmer (red over blue, of the model's light) a shadow may turn
PENUMBRA = LIGHT_OUTLIER / 2  # darker than this in every channel: a shadow (its soft edge too)


def scaled_to(H: "np.ndarray | Pose", small: np.ndarray, big: np.ndarray) -> "np.ndarray | Pose":
    """The lock of a watch-stream frame, for the full-resolution frame of the same instant."""
    sx, sy = big.shape[1] / small.shape[1], big.shape[0] / small.shape[0]
    S = np.array([[sx, 0, (sx - 1) / 2], [0, sy, (sy - 1) / 2], [0, 0, 1]])  # pixel centres
    if isinstance(H, Pose):
        # The camera's place over the board is the same whatever the stream: kept (without it
        # a pose read no parallax, and DRIFT's piles' tags landed astray on the main stream).
        # One main-stream pose per watch pose: what it works out once is kept with it.
        def work() -> Pose:
            lens = H.lens.for_size((big.shape[1], big.shape[0])) if H.lens is not None else None
            return Pose(S @ H.H, lens, H.camera, None if H.K is None else S @ H.K, H.rvec, H.tvec,
                        H.focal_estimated, H.error_px * max(sx, sy))

        return H.kept(("for stream", small.shape[:2], big.shape[:2]), work)
    return S @ np.asarray(H, np.float64)


def remap_px(frame: np.ndarray, px: np.ndarray) -> np.ndarray:
    """The frame's colour at pixel positions ``px`` (N, 2; bilinear): (N, channels) float32."""
    n = len(px)
    if n == 0:
        return np.zeros((0, frame.shape[2] if frame.ndim == 3 else 1), np.float32)
    cols = 1024  # remap maps must stay under 32767 on a side
    rows = math.ceil(n / cols)
    pad = rows * cols - n
    mx = np.pad(px[:, 0].astype(np.float32), (0, pad)).reshape(rows, cols)
    my = np.pad(px[:, 1].astype(np.float32), (0, pad)).reshape(rows, cols)
    out = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(rows * cols, -1)[:n].astype(np.float32)


def sample(frame: np.ndarray, H: "np.ndarray | Pose", mm: np.ndarray, height: "float | np.ndarray" = 0.0) -> np.ndarray:
    """The frame's colour at sheet points ``mm`` raised ``height`` mm, seen through ``H`` (a
    homography or a pose, with its lens): (N, channels) float32."""
    return remap_px(frame, as_pose(H).to_px(mm, height))


def warp_through(frame: np.ndarray, H: "np.ndarray | Pose", sheet: layout.Sheet,
                 px_per_mm: float = REF_PX_PER_MM) -> np.ndarray:
    """The board seen from above at ``px_per_mm`` (the calibration's reference image); through
    a lens, every pixel's sheet point is mapped through the distortion (once, at calibration)."""
    pose = as_pose(H)
    if pose.lens is None:
        return warp_to_sheet(frame, pose.H, sheet, px_per_mm)
    w, h = (int(math.ceil(v * px_per_mm)) for v in sheet.size)
    xs, ys = np.meshgrid((np.arange(w) + 0.5) / px_per_mm - 0.5 / px_per_mm, (np.arange(h) + 0.5) / px_per_mm - 0.5 / px_per_mm)
    px = pose.to_px(np.stack([xs.ravel(), ys.ravel()], axis=1)).astype(np.float32)
    return cv2.remap(frame, px[:, 0].reshape(h, w), px[:, 1].reshape(h, w), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def colour_top(game: str) -> float:
    """The height of a colour-read game's pieces' top face (its colour is sampled there)."""
    ps = default_pieceset(game)
    tops = [p.height_mm for p in ps.pieces if p.top == "colour"] if ps else []
    return max(tops, default=0.0)


def default_pieceset(game: str) -> PieceSet | None:
    try:
        return load_pieceset(game)
    except PieceSetError:
        return None


def inside_convex(pts: np.ndarray, poly: np.ndarray) -> np.ndarray:
    """Which of ``pts`` (N, 2) lie inside the convex polygon ``poly`` (M, 2, either winding)."""
    a = poly
    b = np.roll(poly, -1, axis=0)
    cross = (b[None, :, 0] - a[None, :, 0]) * (pts[:, None, 1] - a[None, :, 1]) \
        - (b[None, :, 1] - a[None, :, 1]) * (pts[:, None, 0] - a[None, :, 0])
    return (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)


def tag_sides(corners: np.ndarray) -> np.ndarray:
    """Each side's length of tags' corners (K, 4, 2): (K, 4)."""
    return np.hypot(*(corners - corners[:, [1, 2, 3, 0]]).transpose(2, 0, 1))


def near_rect(rect: tuple[float, float, float, float] | None, x: float, y: float, reach: float) -> bool:
    if rect is None:
        return False
    rx, ry, rw, rh = rect
    return math.hypot(max(rx - x, 0, x - rx - rw), max(ry - y, 0, y - ry - rh)) <= reach


def any_channel(flags: np.ndarray) -> np.ndarray:
    """Per row: is any channel set (``flags.any(axis=1)``, several times faster on N×3)."""
    out = flags[:, 0].copy()
    for k in range(1, flags.shape[1]):
        out |= flags[:, k]
    return out


def row_mean(v: np.ndarray) -> np.ndarray:
    """Per row: the channels' mean, as a column (``v.mean(axis=1, keepdims=True)``, faster)."""
    total = v[:, 0].copy()
    for k in range(1, v.shape[1]):
        total += v[:, k]
    return (total / v.shape[1])[:, None]


def merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Pixel boxes (x0, y0, x1, y1) merged pairwise wherever their union is no larger than the
    two apart (overlapping crops of neighbouring spaces): the first such pair in order, again
    and again, until none is left."""
    out = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]

    def area(b: tuple[int, int, int, int]) -> int:
        return (b[2] - b[0]) * (b[3] - b[1])

    def union(p: tuple[int, int, int, int], q: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        return min(p[0], q[0]), min(p[1], q[1]), max(p[2], q[2]), max(p[3], q[3])

    a = 0
    while a < len(out):
        for b in range(a + 1, len(out)):
            u = union(out[a], out[b])
            if area(u) <= area(out[a]) + area(out[b]):
                out[a] = u
                del out[b]
                # Only pairs with the grown box can have changed: the first of them before it
                # is the next merge (every pair before a failed already), else go on from it.
                a = next((e for e in range(a) if area(union(out[e], out[a])) <= area(out[e]) + area(out[a])), a)
                break
        else:
            a += 1
    return out


def gather(group: "Group", spaces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The points of ``spaces`` in ``group``, concatenated, with each one's start and count."""
    counts = group.counts[spaces]
    idx = np.concatenate([np.arange(group.start[i], group.start[i + 1]) for i in spaces])
    starts = np.zeros(len(spaces), int)
    starts[1:] = np.cumsum(counts)[:-1]
    return group.mm[idx], starts, counts


def sheet_image_at(img: np.ndarray, mm: np.ndarray) -> np.ndarray:
    xy = np.round(mm * REF_PX_PER_MM).astype(int)
    x = np.clip(xy[:, 0], 0, img.shape[1] - 1)
    y = np.clip(xy[:, 1], 0, img.shape[0] - 1)
    return img[y, x].astype(np.float32).reshape(len(mm), -1)


def group_share(flags: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    if len(flags) == 0:
        return np.zeros(len(starts))
    sums = np.add.reduceat(flags.astype(np.int32), np.minimum(starts, len(flags) - 1))
    sums[counts == 0] = 0
    return sums / counts


def probe_values(grid: SampleGrid, frame: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Each probe's colour: the mean of its five points."""
    pose = as_pose(H)
    px = pose.kept(("probes", id(grid)), lambda: pose.to_px(grid.probe_points), of=grid)
    vals = remap_px(frame, px).reshape(len(grid.probes), 5, -1)
    return (vals[:, 0] + vals[:, 1] + vals[:, 2] + vals[:, 3] + vals[:, 4]) / 5  # (mean(axis=1), faster)


def light_gains(grid: SampleGrid, cal: Calibration, frame: np.ndarray, H: np.ndarray,
           ignore: np.ndarray | None = None, values: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per space: the light relative to the calibration (B, G, R gains, from a smooth model
    of the whole board's light), and the share of nearby probes that the model does not
    explain (a hand, glare or a shadow there). A hand's uniform colour over the probes
    would otherwise pass for a change of light and make a covered piece look like paper."""
    _, coef, good, shaded, use = probe_light(grid, cal, frame, H, ignore, values)
    gains = grid.space_basis @ coef
    n_used = np.maximum(use[grid.probe_of].sum(axis=1), 1)
    bad_share = (~good & use)[grid.probe_of].sum(axis=1) / n_used
    harsh_share = (~good & ~shaded & use)[grid.probe_of].sum(axis=1) / n_used
    dark = gains.min(axis=1) < 0.15
    bad_share[dark] = 1.0  # the light is gone: nothing here can be trusted
    harsh_share[dark] = 1.0
    return np.maximum(gains, 1e-3).astype(np.float32), bad_share, harsh_share


def probe_light(grid: SampleGrid, cal: Calibration, frame: np.ndarray, H: np.ndarray,
                ignore: np.ndarray | None = None, values: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """The probes against the board's light model: each probe's ratio to the empty board, the
    model's coefficients, and which probes it explains (good), which are only shadowed, which
    were used (not ``ignore``d). ``values``: :func:`probe_values` of this frame, if the caller
    has them already (a read judges the light up to four times)."""
    ratio = (probe_values(grid, frame, H) if values is None else values) / np.maximum(cal.probe_ref, 1.0)
    X = grid.probe_basis
    use = np.ones(len(ratio), bool) if ignore is None else ~ignore  # probes a piece may cover: left out
    good = use.copy()
    coef = np.zeros((X.shape[1], ratio.shape[1]))
    for _ in range(3):
        if good.sum() < X.shape[1] * 3:
            break
        Xg = X[good]
        # Normal equations: 6 unknowns, thousands of probes; far cheaper than lstsq's SVD.
        coef = np.linalg.solve(Xg.T @ Xg + 1e-9 * np.eye(X.shape[1]), Xg.T @ ratio[good])
        model = X @ coef
        resid = np.abs(ratio / np.maximum(model, 1e-3) - 1)
        resid = np.maximum.reduce([resid[:, k] for k in range(resid.shape[1])])
        good = (resid < LIGHT_OUTLIER) & use
    # A shadow only darkens the paper, every channel. Lit by what the shadowed light does not
    # reach, it may turn bluer (a warm lamp's shadow under a window) or a little warmer (the
    # window's shadow under a warm lamp: up to 6 % red over blue on the path-traced bench, issue
    # 32); a hand is far warmer (skin), glare is brighter. A soft shadow's edge darkens one
    # channel past LIGHT_OUTLIER and the others by less, but every one by half as much.
    rel = ratio / np.maximum(X @ coef, 1e-3)
    lo = np.minimum.reduce([rel[:, k] for k in range(rel.shape[1])])
    hi = np.maximum.reduce([rel[:, k] for k in range(rel.shape[1])])
    shaded = (hi < 1 - PENUMBRA) & (lo > 0.3) & (hi - lo < 0.3)
    if rel.shape[1] == 3:  # B, G, R
        shaded &= rel[:, 0] >= rel[:, 2] - SHADOW_WARMER
    return rel, coef, good, shaded, use
