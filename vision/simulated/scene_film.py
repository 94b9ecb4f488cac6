"""Films and calibration sheets through :mod:`vision.simulated.camera_model`'s camera.

* :func:`film` turns a scripted game (a start position and its moves, e.g. from
  :func:`vision.simulated.sessions.scripted_game`) into :class:`FilmFrame` s: the board still for
  ``still_s`` between moves; for each move an arm reaches in, lifts the piece, carries it,
  puts it down and withdraws (a capture is carried off the board, a placement brought in),
  at ``fps`` frames a second. :func:`film_frames` draws them (a still scene is drawn once and
  re-exposed: fresh noise, a sub-pixel shake, JPEG) and :func:`write_film` writes the film as
  ``vision.simulated.video.write_video`` does for ``tableref demo-video`` (``.avi`` MJPG, ``.mp4``), so
  ``vision.camera.capture``'s file capture and ``tableref serve`` play it.
* :func:`charuco_shots` photographs a ChArUco sheet (``cv2.aruco.CharucoBoard``) from several
  poses through one lens, for lens-calibration tests.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from rules.game import State
from rules.view import Fidelity, View

from vision.sheets.layout import Sheet

from .camera_model import BoardPose, CameraModel, CameraSetup, Hand, Scene
from .scene_pieces import pieceset_for


@dataclass(frozen=True)
class FilmTiming:
    """How the players move, in seconds."""

    fps: float = 10.0
    opening_s: float = 2.0  # the start position, still, before the first move
    still_s: float = 1.5  # each result left still
    closing_s: float = 3.0  # the last position, still
    reach_s: float = 0.7
    lift_s: float = 0.3
    carry_s: float = 0.7
    hover_s: float = 0.0  # held over the destination before putting down (a slow, hesitant move)
    stops: int = 0  # spaces on the way the piece is held over for hover_s each (a bounce chain done slowly)
    lower_s: float = 0.3
    withdraw_s: float = 0.7

    def __post_init__(self) -> None:
        if not self.fps > 0:
            raise ValueError(f"FilmTiming.fps must be positive, got {self.fps}")


@dataclass(frozen=True)
class FilmFrame:
    time: float
    view: View  # what stands on the board (the truth; a piece in the hand is not on it)
    scene: Scene
    hand: bool  # an arm is in the frame
    move: int  # moves completed so far


HOVER_MM = 45.0  # the fingertip's height over the pieces while reaching
LIFT_MM = 35.0  # a carried piece's base over the board


def film(sheet: Sheet, start: State, moves: Sequence, *, base: Scene = Scene(), timing: FilmTiming = FilmTiming(),
         fidelity: Fidelity = Fidelity.KIND) -> list[FilmFrame]:
    """The frames of a filmed game (``moves`` legal in turn from ``start``)."""
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    views = [s.view(fidelity) for s in states]
    out: list[FilmFrame] = []
    clock = [0.0]
    tall = max(pieceset_for(sheet.game).heights) * base.heights

    def emit(view: View, hand: Hand | None, seconds: float, k: int, still: Scene | None = None) -> Scene:
        n = max(1, int(round(seconds * timing.fps)))
        scene = still or replace(base, view=view, hands=(hand,) if hand else ())
        for _ in range(n):
            out.append(FilmFrame(clock[0], view, scene, hand is not None, k))
            clock[0] += 1 / timing.fps
        return scene

    def path(view: View, k: int, a: tuple[float, float], b: tuple[float, float], seconds: float, *,
             h0: float, h1: float, holding: tuple[str, ...] = (), lift: tuple[float, float] = (0.0, 0.0)) -> None:
        n = max(1, int(round(seconds * timing.fps)))
        for i in range(1, n + 1):
            u = i / n
            u = u * u * (3 - 2 * u)  # ease in and out
            at = (a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u)
            lf = lift[0] + (lift[1] - lift[0]) * u
            emit(view, Hand(at, h0 + (h1 - h0) * u, holding=holding, lift_mm=lf), 1 / timing.fps, k)

    emit(views[0], None, timing.opening_s, 0)
    for k, (before, after) in enumerate(zip(views, views[1:])):
        here = {s: list(t) for s, t in before.items()}
        trips = _trips(before, after)
        pos = None  # the fingertip, once in the frame
        for src, dst, token in trips:
            a = _point(sheet, src, before) if src else _outside(sheet, _point(sheet, dst, after))
            b = _point(sheet, dst, after) if dst else _outside(sheet, a)
            hover = tall + HOVER_MM
            # reach to the piece (or in from the edge, holding one to place)
            start_at = pos if pos is not None else _outside(sheet, a)
            view = _view(here)
            if src:
                path(view, k, start_at, a, timing.reach_s, h0=hover + 60, h1=hover)
                if token in here.get(src, []):
                    here[src].remove(token)
                view = _view(here)
                path(view, k, a, a, timing.lift_s, h0=hover, h1=hover, holding=(token,), lift=(0.0, LIFT_MM))
            else:
                path(view, k, start_at, a, timing.reach_s, h0=hover + 60, h1=hover, holding=(token,),
                     lift=(LIFT_MM, LIFT_MM))
            legs = [a, *_stops(sheet, a, b, timing.stops), b] if timing.hover_s > 0 else [a, b]
            for i, (p, q) in enumerate(zip(legs, legs[1:])):
                path(view, k, p, q, timing.carry_s / (len(legs) - 1), h0=hover, h1=hover, holding=(token,),
                     lift=(LIFT_MM, LIFT_MM))
                if i + 2 < len(legs):  # held still over a space on the way
                    path(view, k, q, q, timing.hover_s, h0=hover, h1=hover, holding=(token,), lift=(LIFT_MM, LIFT_MM))
            if dst:
                if timing.hover_s > 0:
                    path(view, k, b, b, timing.hover_s, h0=hover, h1=hover, holding=(token,), lift=(LIFT_MM, LIFT_MM))
                path(view, k, b, b, timing.lower_s, h0=hover, h1=hover, holding=(token,), lift=(LIFT_MM, 0.0))
                here.setdefault(dst, []).append(token)
            pos = b
        # what no trip carries (DRIFT's rings turning) changes under the hand, at the end
        end = _point(sheet, trips[-1][1], after) if trips and trips[-1][1] else (pos or _ring_point(sheet, before, after))
        if not trips:
            path(_view(here), k, _outside(sheet, end), end, timing.reach_s, h0=tall + HOVER_MM + 60, h1=tall + HOVER_MM)
        path(after, k + 1, end, _outside(sheet, end), timing.withdraw_s, h0=tall + HOVER_MM, h1=tall + HOVER_MM + 80)
        emit(after, None, timing.still_s if k + 1 < len(moves) else timing.closing_s, k + 1)
    return out


def _stops(sheet: Sheet, a: tuple[float, float], b: tuple[float, float], n: int) -> list[tuple[float, float]]:
    """Up to ``n`` spaces near the way from ``a`` to ``b`` (not at either end), in order."""
    if n <= 0:
        return []
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy or 1.0
    near = []
    for sh in sheet.shapes:
        if sh.kind == "area":
            continue
        t = ((sh.x - ax) * dx + (sh.y - ay) * dy) / length2
        off = abs((sh.x - ax) * dy - (sh.y - ay) * dx) / math.sqrt(length2)
        if 0.15 < t < 0.85 and off < sheet.pitch:
            near.append((t, off, (sh.x, sh.y)))
    near.sort(key=lambda z: z[1])
    return [p for _, _, p in sorted(near[:n])]


def _view(here: dict[str, list[str]]) -> View:
    return View({s: tuple(t) for s, t in here.items() if t})


def _trips(before: View, after: View) -> list[tuple[str | None, str | None, str]]:
    """(from space, to space, token) for every piece a move carries: a token gone from one
    space and come to another is carried; what only leaves goes off the board, what only
    comes is brought in."""
    removed: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    for s in sorted(before.diff(after)):
        if s.startswith("rotation:"):
            continue
        b, a = Counter(before.get_tokens(s)), Counter(after.get_tokens(s))
        removed += [(s, t) for t in (b - a).elements()]
        added += [(s, t) for t in (a - b).elements()]
    trips: list[tuple[str | None, str | None, str]] = []
    emptied = {s for s, _ in removed}
    for s, t in removed:
        # the same token elsewhere; first where a piece leaves too (a bump: the ring lands
        # where another is lifted from), then anywhere
        same = [x for x in added if x[1] == t and x[0] != s]
        match = next((x for x in same if x[0] in emptied), same[0] if same else None)
        if match is None:
            match = next((x for x in added if x[1] == t), None)
        if match is not None:
            added.remove(match)
            trips.append((s, match[0], t))
        else:
            trips.append((s, None, t))
    # a piece that changed on its way (turned over): carried from where one went to where the other came
    for i, (s, d, t) in enumerate(trips):
        if d is None and added:
            d2, t2 = added.pop(0)
            trips[i] = (s, d2, t2)
    trips += [(None, s, t) for s, t in added]
    # a piece is lifted off a space before another is put down there
    ordered: list[tuple[str | None, str | None, str]] = []
    pending = list(trips)
    while pending:
        ready = [tr for tr in pending if not any(o is not tr and o[0] is not None and o[0] == tr[1] for o in pending)]
        nxt = ready[0] if ready else pending[0]
        ordered.append(nxt)
        pending.remove(nxt)
    return ordered


def _point(sheet: Sheet, space: str, view: View) -> tuple[float, float]:
    if sheet.game == "drift":
        from vision.sheets.annuli import rotations_of

        from .scene_pieces import annuli_for

        return annuli_for(sheet).where(sheet, space, rotations_of(view))
    s = sheet.by_id[space]
    return s.x, s.y


def _ring_point(sheet: Sheet, before: View, after: View) -> tuple[float, float]:
    """Where a hand turns a DRIFT ring: its marker."""
    if sheet.game == "drift":
        from vision.sheets.annuli import rotations_of

        from .scene_pieces import annuli_for

        annuli = annuli_for(sheet)
        rots = rotations_of(before)
        for ring in annuli.rings:
            if before.get_tokens(f"rotation:{ring.name}") != after.get_tokens(f"rotation:{ring.name}"):
                return annuli.marker_at(ring, rots[ring.name])
    return sheet.size[0] / 2, sheet.size[1] / 2


def _outside(sheet: Sheet, p: tuple[float, float]) -> tuple[float, float]:
    """A point just off the sheet, beyond its edge nearest ``p``."""
    w, h = sheet.size
    x, y = p
    d = [(x, (-60.0, y)), (w - x, (w + 60.0, y)), (y, (x, -60.0)), (h - y, (x, h + 60.0))]
    return min(d)[1]


def film_frames(model: CameraModel, frames: Iterable[FilmFrame], *, seed: int = 0,
                shake_px: float = 0.25) -> Iterator[np.ndarray]:
    """Camera frames of a film: a scene drawn once while it holds, each frame a new exposure
    (noise, JPEG) of it, the camera shaking by up to ``shake_px``."""
    rng = np.random.default_rng(seed)
    last: Scene | None = None
    clean: np.ndarray | None = None
    for f in frames:
        if f.scene is not last or clean is None:
            clean = model.render_clean(f.scene)
            last = f.scene
        img = clean
        if shake_px > 0:
            dx, dy = rng.uniform(-shake_px, shake_px, 2)
            img = cv2.warpAffine(clean, np.float32([[1, 0, dx], [0, 1, dy]]), (clean.shape[1], clean.shape[0]),
                                 borderMode=cv2.BORDER_REPLICATE)
        yield model.finish(img, f.scene, rng)


def write_film(path: str | Path, model: CameraModel, frames: Sequence[FilmFrame], *, fps: float = 10.0,
               seed: int = 0) -> int:
    """Write the film as a video file ``tableref demo-video`` would (``.avi``/``.mp4``)."""
    from .video import write_video

    return write_video(path, film_frames(model, frames, seed=seed), fps)


# -- ChArUco ---------------------------------------------------------------------------------


def charuco_board(squares: tuple[int, int] = (7, 5), square_mm: float = 30.0, marker_mm: float = 22.0,
                  dictionary: str = "DICT_5X5_100") -> "cv2.aruco.CharucoBoard":
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, d)


@dataclass(frozen=True)
class CharucoShot:
    image: np.ndarray
    pose: BoardPose  # the truth: world = the sheet's mm (chessboard origin at (margin, margin))
    margin_mm: float

    def object_points(self, board: "cv2.aruco.CharucoBoard") -> np.ndarray:
        """The board's chessboard corners in this shot's world mm (N, 3)."""
        pts = np.asarray(board.getChessboardCorners(), np.float64).reshape(-1, 3)
        return pts + [self.margin_mm, self.margin_mm, 0.0]


# (tilt, yaw, aim, fill): straight on, then tilted every way and off-centre, so the lens's
# edges are seen too.
CHARUCO_POSES = ((0, 0, (0.0, 0.0), 0.7), (25, 0, (0.15, 0.12), 0.55), (25, 90, (-0.15, 0.1), 0.55),
                 (35, 180, (0.12, -0.15), 0.5), (30, 270, (-0.12, -0.12), 0.55), (15, 40, (0.0, 0.0), 0.9),
                 (20, -30, (0.2, -0.05), 0.5), (35, 130, (0.0, 0.18), 0.5), (10, 200, (-0.2, 0.0), 0.6))


def charuco_shots(board: "cv2.aruco.CharucoBoard", setup: CameraSetup = CameraSetup(), *,
                  poses: Sequence[tuple[float, float, tuple[float, float], float]] = CHARUCO_POSES,
                  margin_mm: float = 10.0, px_per_mm: float = 8.0, scene: Scene = Scene(), seed: int = 0
                  ) -> list[CharucoShot]:
    """The printed ChArUco sheet seen through ``setup``'s lens from each pose (tilt, yaw, aim,
    fill replace the setup's)."""
    cols, rows = board.getChessboardSize()
    sq = board.getSquareLength()
    w_mm, h_mm = cols * sq + 2 * margin_mm, rows * sq + 2 * margin_mm
    size = (int(round(w_mm * px_per_mm)), int(round(h_mm * px_per_mm)))
    art = board.generateImage(size, marginSize=int(round(margin_mm * px_per_mm)), borderBits=1)
    art = (art.astype(np.float32) * ((0.92 - 0.1) / 255) * 255 + 0.1 * 255).astype(np.uint8)
    tex = cv2.cvtColor(art, cv2.COLOR_GRAY2BGR)
    out = []
    for k, (tilt, yaw, aim, fill) in enumerate(poses):
        s = replace(setup, tilt_deg=tilt, yaw_deg=yaw, aim=aim, fill=fill)
        model = CameraModel(None, s, texture=tex, texture_px_per_mm=px_per_mm, plane_mm=(w_mm, h_mm))
        img = model.finish(model.render_clean(replace(scene, view=View(), hands=())), scene,
                           np.random.default_rng(seed * 100 + k))
        out.append(CharucoShot(img, model.true_board_pose(), margin_mm))
    return out


def calibrate_from_shots(board: "cv2.aruco.CharucoBoard", shots: Sequence[CharucoShot],
                         size: tuple[int, int], *, flags: int = 0) -> tuple[float, np.ndarray, np.ndarray]:
    """``cv2.calibrateCamera`` on the ChArUco corners found in ``shots``: (RMS px, K, dist)
    — for tests of the renderer; ``tableref calibrate-lens`` is the users' calibration."""
    detector = cv2.aruco.CharucoDetector(board)
    obj, img = [], []
    for shot in shots:
        corners, ids, _, _ = detector.detectBoard(cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY))
        if ids is None or len(ids) < 6:
            continue
        o, i = board.matchImagePoints(corners, ids)
        obj.append(o)
        img.append(i)
    if len(obj) < 3:
        raise ValueError(f"ChArUco calibration: the sheet was found in {len(obj)} of {len(shots)} shots (need 3)")
    # k3 fixed at 0: the renderer's lenses have none, and a free k3 trades off against k1, k2
    rms, K, dist, _, _ = cv2.calibrateCamera(obj, img, size, None, None, flags=cv2.CALIB_FIX_K3 | flags)
    return float(rms), K, dist.ravel()
