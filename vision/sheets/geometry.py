"""Your own board: where its spaces and the four stuck-on corner markers are, fitted from
one camera picture (issue 17, item 2).

The players' own board (a wooden Gygès board, say) is not the printed sheet: its colours,
margins and size are its own, and only four corner markers (``tableref print-markers``) are
stuck on near its corners. The engine's board file still gives the spaces' *relative*
layout. The admin puts four handles on four reference spaces' centres in the picture
(:func:`reference_spaces`); those four points fix the homography from board-file
millimetres to pixels, which carries every other space and the four markers' corners. A
marker's known printed size then gives the scale: board-file millimetres → real
millimetres on this board.

The result, a :class:`BoardGeometry`, is in *board-geometry millimetres*: real millimetres
on the board, shifted so that everything (markers, spaces, reserves) lies at positive
coordinates. :meth:`vision.sheets.layout.Sheet.from_geometry` makes a sheet of it, and every reader
(``grid_for``, ``BoardLock``, ``calibrate``, ``reader_for``) reads through that sheet as
through a printed one. File format: docs/vision.md, "Your own board".
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from rules.board import Board
from rules.strict import expect_keys, loads

from .layout import CORNER_IDS, Sheet, board_shapes, median_pitch

if TYPE_CHECKING:  # a lens is only passed through: the sheet does not depend on the read path
    from vision.read.lens import Lens

VERSION = 1
PAD_MM = 5.0  # a bare rim round everything fitted (the sampled region stops at it)
MAX_MARKER_PX = 2.5  # the markers' misfit as squares on one plane (RMS, px)
MAX_HANDLE_OFF = 0.5  # a handle further than this (a fraction of the pitch) from the fit: on the wrong space

_KEYS = ("version", "game", "marker_mm", "scale", "origin", "size", "pitch", "tag_mm", "residual_mm",
         "markers", "spaces", "areas")


class GeometryError(ValueError):
    """A fit that cannot be trusted, or a malformed board geometry file (one line: what)."""


@dataclass(frozen=True)
class BoardGeometry:
    """An own board's geometry, in board-geometry millimetres (see the module's docstring).

    ``scale``: board-geometry mm per board-file mm; ``origin``: where the board file's (0, 0)
    lies; every space's centre is ``origin + scale * (x, y)`` unless the file says otherwise
    (a hand-made board may be edited space by space). ``markers``: each corner marker's four
    corners in ArUco order (TL, TR, BR, BL as printed). ``tag_mm``: the tags' printed size on
    the pieces. ``residual_mm``: how far the fitted markers are from true squares (RMS)."""

    game: str
    marker_mm: float
    markers: Mapping[int, tuple[tuple[float, float], ...]]
    spaces: Mapping[str, tuple[float, float]]
    scale: float
    origin: tuple[float, float]
    size: tuple[float, float]
    pitch: float
    tag_mm: float
    areas: Mapping[str, tuple[float, float, float, float]]
    residual_mm: float = 0.0

    # -- files ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        r = lambda v: round(float(v), 3)  # a file to read, not 17 digits
        return {
            "version": VERSION, "game": self.game, "marker_mm": r(self.marker_mm), "scale": round(self.scale, 6),
            "origin": [r(v) for v in self.origin], "size": [r(v) for v in self.size], "pitch": r(self.pitch),
            "tag_mm": r(self.tag_mm), "residual_mm": r(self.residual_mm),
            "markers": {str(i): [[r(x), r(y)] for x, y in c] for i, c in sorted(self.markers.items())},
            "spaces": {k: [r(x), r(y)] for k, (x, y) in self.spaces.items()},
            "areas": {k: [r(v) for v in rect] for k, rect in self.areas.items()},
        }

    @classmethod
    def from_dict(cls, data: object, *, where: str = "board geometry") -> BoardGeometry:
        d = expect_keys(data, required=_KEYS, where=where, error=GeometryError)
        if isinstance(d["version"], bool) or d["version"] != VERSION:
            raise GeometryError(f"{where}: 'version' must be {VERSION}, got {d['version']!r}")
        if not isinstance(d["game"], str) or not d["game"]:
            raise GeometryError(f"{where}: 'game' must be a game's name")
        num = lambda key, v, pos=True: _number(v, f"{where}: '{key}'", positive=pos)
        markers_raw = d["markers"]
        if not isinstance(markers_raw, Mapping) or sorted(markers_raw) != [str(i) for i in CORNER_IDS]:
            raise GeometryError(f"{where}: 'markers' must hold the corner markers "
                                f"{', '.join(map(str, CORNER_IDS))}, each once")
        markers = {int(k): tuple(_pair(p, f"{where}: 'markers.{k}[{j}]'") for j, p in enumerate(_list(v, 4, f"{where}: 'markers.{k}'")))
                   for k, v in markers_raw.items()}
        spaces_raw = d["spaces"]
        if not isinstance(spaces_raw, Mapping) or not spaces_raw:
            raise GeometryError(f"{where}: 'spaces' must map each space's id to its centre [x, y]")
        spaces = {str(k): _pair(v, f"{where}: 'spaces.{k}'") for k, v in spaces_raw.items()}
        areas_raw = d["areas"]
        if not isinstance(areas_raw, Mapping):
            raise GeometryError(f"{where}: 'areas' must map each area's id to [x, y, w, h]")
        areas = {}
        for k, v in areas_raw.items():
            rect = tuple(_number(x, f"{where}: 'areas.{k}[{j}]'") for j, x in enumerate(_list(v, 4, f"{where}: 'areas.{k}'")))
            if rect[2] <= 0 or rect[3] <= 0:
                raise GeometryError(f"{where}: 'areas.{k}': width and height must be positive")
            areas[str(k)] = rect
        return cls(d["game"], num("marker_mm", d["marker_mm"]), markers, spaces, num("scale", d["scale"]),
                   _pair(d["origin"], f"{where}: 'origin'"), _pair(d["size"], f"{where}: 'size'", positive=True),
                   num("pitch", d["pitch"]), num("tag_mm", d["tag_mm"]), areas,
                   num("residual_mm", d["residual_mm"], False))

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)  # a reader never sees half a file

    @classmethod
    def load(cls, path: str | Path) -> BoardGeometry:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise GeometryError(f"{path}: cannot read the board geometry: {exc.strerror or exc}") from None
        return cls.from_dict(loads(text, where=str(path), error=GeometryError), where=str(path))


def _number(v: object, where: str, *, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise GeometryError(f"{where} must be a number")
    if positive and v <= 0:
        raise GeometryError(f"{where} must be positive, got {v}")
    return float(v)


def _list(v: object, n: int, where: str) -> list:
    if not isinstance(v, list) or len(v) != n:
        raise GeometryError(f"{where} must be a list of {n}")
    return v


def _pair(v: object, where: str, *, positive: bool = False) -> tuple[float, float]:
    x, y = _list(v, 2, where)
    return _number(x, f"{where}[0]", positive=positive), _number(y, f"{where}[1]", positive=positive)


# -- fitting --------------------------------------------------------------------------------


def reference_spaces(board: Board) -> tuple[str, str, str, str]:
    """The four spaces the admin puts handles on: of the board's outermost spaces (the
    furthest out in eight directions; reserves never), the four enclosing the most board —
    far apart, so that a hand's few pixels of error matter least. In order round the board
    as its board file draws it, from the top-left: top-left, top-right, bottom-right,
    bottom-left (or top, right, bottom, left on a board with no corners, a hexagon's)."""
    from itertools import combinations

    areas = {a.id for a in board.areas}
    pts = {s.id: (s.x, s.y) for s in board.spaces if s.id not in areas and not s.id.startswith("rotation:")}
    dirs = [(math.cos(a), math.sin(a)) for a in np.radians(np.arange(0, 360, 45))]
    extremes = list(dict.fromkeys(max(pts, key=lambda k: pts[k][0] * dx + pts[k][1] * dy) for dx, dy in dirs))
    best, best_area = None, 0.0
    for four in combinations(extremes, 4):
        ring = _round(four, pts)
        xy = np.array([pts[k] for k in ring])
        area = 0.5 * abs(float(np.dot(xy[:, 0], np.roll(xy[:, 1], -1)) - np.dot(xy[:, 1], np.roll(xy[:, 0], -1))))
        if area > best_area + 1e-6:
            best, best_area = ring, area
    if best is None:
        raise GeometryError(f"{board.name}: the board has no four spaces enclosing any area to fit by")
    return best  # type: ignore[return-value]


def _round(ids: tuple[str, ...], pts: Mapping[str, tuple[float, float]]) -> tuple[str, ...]:
    """``ids`` clockwise on the page (y grows down) from the one nearest the top-left."""
    cx = sum(pts[k][0] for k in ids) / len(ids)
    cy = sum(pts[k][1] for k in ids) / len(ids)
    angle = {k: math.atan2(pts[k][1] - cy, pts[k][0] - cx) for k in ids}  # clockwise on the page
    tl = math.atan2(-1, -1)
    first = min(ids, key=lambda k: abs((angle[k] - tl + math.pi) % (2 * math.pi) - math.pi))
    return tuple(sorted(ids, key=lambda k: (angle[k] - angle[first]) % (2 * math.pi)))


def fit_geometry(board: Board, handles: Mapping[str, tuple[float, float]],
                 marker_corners_px: Mapping[int, np.ndarray], *, marker_mm: float,
                 lens: Lens | None = None, tag_mm: float | None = None) -> BoardGeometry:
    """Fit an own board from four (or more) spaces' centres in the picture (``handles``:
    space id → pixel) and the four corner markers found in the same frame (id → 4x2 corners,
    ArUco order). ``lens``: the camera's, at the frame's size (``Lens.for_size``); pixels are
    undistorted through it. ``tag_mm``: the tags' size on the pieces (default: the printed
    tag sheet's, ``tableref print-tags``). Raises :class:`GeometryError` naming what is wrong."""
    if board.name == "drift":
        raise GeometryError("drift: the rings turn, so four handles cannot fix its spaces; "
                            "play DRIFT on the printed sheet (docs/vision.md, 'Your own board')")
    if not marker_mm > 0:
        raise GeometryError(f"marker size must be positive, got {marker_mm}")
    areas = {a.id for a in board.areas}
    for sid in handles:
        if not board.has_space(sid) or sid in areas:
            raise GeometryError(f"handle {sid!r}: no such space on the {board.name} board")
    if len(handles) < 4:
        need = [s for s in reference_spaces(board) if s not in handles]
        raise GeometryError(f"four handles are needed; place {', '.join(need)}")
    missing = [i for i in CORNER_IDS if i not in marker_corners_px]
    if missing:
        raise GeometryError(f"corner marker{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} "
                            "not found in the picture: stick all four on and keep them in view")
    ids = list(handles)
    file_pts = np.array([(board.space(s).x, board.space(s).y) for s in ids], np.float64)
    px = np.array([handles[s] for s in ids], np.float64).reshape(-1, 2)
    if not np.isfinite(px).all():
        raise GeometryError("a handle's position is not a number")
    px = _ideal(px, lens)
    _check_handles(ids, file_pts, px)
    H, _ = cv2.findHomography(file_pts, px, 0)
    if H is None or abs(np.linalg.det(H)) < 1e-12:
        raise GeometryError("the handles give no usable fit: put each on its own space's centre")
    Hinv = np.linalg.inv(H)
    in_file = {i: cv2.perspectiveTransform(_ideal(np.asarray(marker_corners_px[i], np.float64).reshape(4, 2), lens)[None], Hinv)[0]
               for i in CORNER_IDS}
    sides = {i: np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1).mean() for i, c in in_file.items()}
    scales = {i: marker_mm / v for i, v in sides.items() if v > 0}
    if len(scales) < 4:
        raise GeometryError("a corner marker comes out with no size: the handles are not on the board's spaces")
    s0 = float(np.median(list(scales.values())))
    # The handles alone fix the picture only to within the hand's few pixels, and the markers
    # lie outside them (errors grow there). The markers themselves are four squares of a known
    # size on one plane: refine the plane's homography and each marker's place from them, then
    # lay the board file onto that plane by the similarity that best fits all the handles.
    px_markers = {i: _ideal(np.asarray(marker_corners_px[i], np.float64).reshape(4, 2), lens) for i in CORNER_IDS}
    H_real, markers_real, marker_px = _plane_from_markers(H @ np.diag([1 / s0, 1 / s0, 1.0]),
                                                          {i: c * s0 for i, c in in_file.items()}, px_markers, marker_mm)
    if marker_px > MAX_MARKER_PX:
        raise GeometryError(f"the four markers do not fit one flat board (off by {marker_px:.1f} px): is one "
                            "lifting, or on another surface? (a wide-angle lens needs its lens file)")
    on_plane = cv2.perspectiveTransform(px[None], np.linalg.inv(H_real))[0]
    scale, rot, shift = _similarity(file_pts, on_plane)
    off = np.hypot(*(file_pts @ (scale * rot).T + shift - on_plane).T)
    pitch = scale * median_pitch(np.array([(sh.x, sh.y) for sh in board_shapes(board) if sh.kind != "area"]))
    worst = int(np.argmax(off))
    if off[worst] > MAX_HANDLE_OFF * pitch:
        raise GeometryError(f"handle {ids[worst]} is {off[worst]:.0f} mm from where the other handles put "
                            f"{ids[worst]}: put each handle on its own space's centre (or this board's "
                            "proportions differ from the board file's)")
    markers_g = {i: (c - shift) @ rot for i, c in markers_real.items()}  # into the board file's axes
    residual = float(np.sqrt(np.mean(off ** 2)))
    return assemble(board, scale, markers_g, marker_mm=marker_mm, tag_mm=tag_mm, residual_mm=residual)


def _square(side: float) -> np.ndarray:
    return np.array([(-side / 2, -side / 2), (side / 2, -side / 2), (side / 2, side / 2), (-side / 2, side / 2)])


def _rigid(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """The turn (radians) and shift best carrying points ``a`` onto ``b``."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    m = (a - ca).T @ (b - cb)
    theta = math.atan2(m[0, 1] - m[1, 0], m[0, 0] + m[1, 1])
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    return theta, cb - ca @ rot.T


def _similarity(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Scale, rotation and shift best carrying ``a`` onto ``b`` (b ≈ scale·R·a + shift)."""
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    A, B = a - ca, b - cb
    m = A.T @ B
    theta = math.atan2(m[0, 1] - m[1, 0], m[0, 0] + m[1, 1])
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    scale = float(np.sum((A @ rot.T) * B) / np.sum(A * A))
    return scale, rot, cb - scale * ca @ rot.T


def _plane_from_markers(H0: np.ndarray, start: Mapping[int, np.ndarray], px: Mapping[int, np.ndarray],
                        side: float) -> tuple[np.ndarray, dict[int, np.ndarray], float]:
    """Levenberg-Marquardt over the plane's homography (mm → px) and markers 1-3's places
    (marker 0's fixes the plane's own axes), each marker a true square of ``side``: returns
    the homography, each marker's corners on the plane (mm) and the RMS misfit (px)."""
    sq = _square(side)
    poses0 = {i: _rigid(sq, start[i]) for i in CORNER_IDS}
    target = np.concatenate([px[i] for i in CORNER_IDS])

    def corners(p: np.ndarray) -> tuple[np.ndarray, dict[int, np.ndarray]]:
        H = H0 @ (np.eye(3) + np.append(p[:8], 0.0).reshape(3, 3))
        out = {}
        for k, i in enumerate(CORNER_IDS):
            theta, (tx, ty) = (poses0[i][0], poses0[i][1]) if k == 0 else (p[8 + 3 * (k - 1)], p[9 + 3 * (k - 1):11 + 3 * (k - 1)])
            rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
            out[i] = sq @ rot.T + (tx, ty)
        return H, out

    def misfit(p: np.ndarray) -> np.ndarray:
        H, mk = corners(p)
        pts = np.concatenate([mk[i] for i in CORNER_IDS])
        return (cv2.perspectiveTransform(pts[None], H)[0] - target).ravel()

    p = np.zeros(17)
    for k, i in enumerate(CORNER_IDS[1:]):
        p[8 + 3 * k] = poses0[i][0]
        p[9 + 3 * k:11 + 3 * k] = poses0[i][1]
    steps = np.array([1e-7] * 8 + [1e-5, 1e-3, 1e-3] * 3)
    r, damping = misfit(p), 1e-3
    for _ in range(60):
        J = np.stack([(misfit(p + e) - r) / e[j] for j, e in enumerate(np.diag(steps))], axis=1)
        g, A = J.T @ r, J.T @ J
        while damping < 1e9:
            trial = p - np.linalg.solve(A + damping * np.diag(np.diag(A) + 1e-12), g)
            rt = misfit(trial)
            if rt @ rt < r @ r:
                done = r @ r - rt @ rt < 1e-10 * (r @ r + 1e-12)
                p, r, damping = trial, rt, damping / 3
                break
            damping *= 4
        else:
            break
        if done:
            break
    H, mk = corners(p)
    return H, mk, float(np.sqrt(np.mean(r.reshape(-1, 2) ** 2 @ np.ones(2))))


def assemble(board: Board, scale: float, markers: Mapping[int, np.ndarray], *, marker_mm: float,
             tag_mm: float | None = None, residual_mm: float = 0.0) -> BoardGeometry:
    """A geometry from the board file at ``scale`` and the markers' corners in the board
    file's millimetres times ``scale``: everything shifted to positive coordinates."""
    s, markers_g = scale, markers
    raw = board_shapes(board)
    centres = np.array([(sh.x, sh.y) for sh in raw]) * s
    pitch = median_pitch(np.array([(sh.x, sh.y) for sh in raw if sh.kind != "area"]) * s)
    r = 0.4 * pitch
    xs = [c[:, 0] for c in markers_g.values()] + [centres[:, 0] - r, centres[:, 0] + r]
    ys = [c[:, 1] for c in markers_g.values()] + [centres[:, 1] - r, centres[:, 1] + r]
    for a in board.areas:
        xs.append(np.array([a.x * s, (a.x + a.w) * s]))
        ys.append(np.array([a.y * s, (a.y + a.h) * s]))
    ox, oy = PAD_MM - float(np.concatenate(xs).min()), PAD_MM - float(np.concatenate(ys).min())
    size = (float(np.concatenate(xs).max()) + ox + PAD_MM, float(np.concatenate(ys).max()) + oy + PAD_MM)
    if tag_mm is None:
        tag_mm = Sheet.for_board(board).tag_mm
    return BoardGeometry(
        game=board.name, marker_mm=float(marker_mm),
        markers={i: tuple((float(x + ox), float(y + oy)) for x, y in c) for i, c in sorted(markers_g.items())},
        spaces={sh.id: (float(sh.x * s + ox), float(sh.y * s + oy)) for sh in raw},
        scale=s, origin=(ox, oy), size=size, pitch=pitch, tag_mm=float(tag_mm),
        areas={a.id: (a.x * s + ox, a.y * s + oy, a.w * s, a.h * s) for a in board.areas},
        residual_mm=residual_mm)


def _ideal(px: np.ndarray, lens: Lens | None) -> np.ndarray:
    return px if lens is None else np.asarray(lens.undistort_points(px.astype(np.float32)), np.float64).reshape(-1, 2)


def _cross(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _check_handles(ids: list[str], file_pts: np.ndarray, px: np.ndarray) -> None:
    """Refuse handles that fold or flatten the board: every three must turn the same way in
    the picture as on the board file, and enclose a fair area (not nearly on one line)."""
    spread = float(np.ptp(px, axis=0).max()) ** 2
    file_spread = float(np.ptp(file_pts, axis=0).max()) ** 2
    n = len(ids)
    for a in range(n):
        for b in range(a + 1, n):
            if np.hypot(*(px[a] - px[b])) < 2.0:
                raise GeometryError(f"handles {ids[a]} and {ids[b]} are on the same spot")
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                f = _cross(file_pts[a], file_pts[b], file_pts[c])
                if abs(f) < 0.02 * file_spread:
                    continue  # these three lie on a line on the board itself: no test
                p = _cross(px[a], px[b], px[c])
                if abs(p) < 0.01 * spread:
                    raise GeometryError(f"handles {ids[a]}, {ids[b]} and {ids[c]} lie on one line: "
                                        "put each on its own space's centre")
                if (p > 0) != (f > 0):
                    raise GeometryError(f"handles {ids[a]}, {ids[b]} and {ids[c]} are in the wrong order "
                                        "(two swapped?): each goes on the space it names")


# -- reading through it ---------------------------------------------------------------------


def sheet_from_geometry(board: Board, geometry: BoardGeometry) -> Sheet:
    """The sheet every reader reads through (see :meth:`Sheet.from_geometry`)."""
    from .layout import SpaceShape

    if geometry.game != board.name:
        raise GeometryError(f"the board geometry is for {geometry.game}, not {board.name}")
    raw = board_shapes(board)
    ids = {sh.id for sh in raw}
    unknown = sorted(set(geometry.spaces) - ids)
    lacking = sorted(ids - set(geometry.spaces))
    if unknown or lacking:
        raise GeometryError(f"board geometry for {board.name}: "
                            + (f"unknown space {unknown[0]!r}" if unknown else f"space {lacking[0]!r} missing"))
    lacking_areas = sorted({a.id for a in board.areas} ^ set(geometry.areas))
    if lacking_areas:
        raise GeometryError(f"board geometry for {board.name}: area {lacking_areas[0]!r} does not match the board")
    s, (ox, oy) = geometry.scale, geometry.origin
    shapes = []
    for sh in raw:
        cx, cy = geometry.spaces[sh.id]
        ends = None if sh.ends is None else tuple((cx + (x - sh.x) * s, cy + (y - sh.y) * s) for x, y in sh.ends)
        rect = geometry.areas[sh.id] if sh.kind == "area" and sh.id in geometry.areas else None
        if sh.kind == "area" and rect is not None:
            cx, cy = rect[0] + rect[2] / 2, rect[1] + rect[3] / 2
        shapes.append(SpaceShape(sh.id, cx, cy, sh.kind, ends, rect))  # type: ignore[arg-type]
    return Sheet(board, PAD_MM, geometry.marker_mm, (ox, oy), geometry.size, tuple(shapes), geometry.pitch,
                 scale=s, markers=tuple((i, tuple(c)) for i, c in sorted(geometry.markers.items())),
                 tag_size=geometry.tag_mm)
