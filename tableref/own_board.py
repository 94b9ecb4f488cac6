"""Playing on your own board (issue 17, item 2), the set-up page's side: the four corner markers
stuck at the board's corners (``tableref print-markers``), the admin drags four reference spaces
onto the picture, and the fit (``vision.sheets.geometry``) is saved as the board's geometry and read
with from then on.

The fit is saved at ``[source.camera] geometry`` when the config names it, else beside the
calibration (``<calibration>-geometry.json``). A saved geometry changes the sheet the camera
reads (its spaces and its markers), so the lock is replaced and the empty board must be learned
again on it: the calibration made for the printed sheet is moved aside (``.printed``), never
lost, and the source waits in set-up mode until the empty-board step has run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from rules import P, get_game

if TYPE_CHECKING:
    from .camera_setup import CameraSetup, CameraSpec

# Boards whose spaces do not keep their places: a fit of four spaces cannot describe them.
NOT_RIGID = {"drift": "DRIFT's rivers turn: its rings need the printed sheet's ring markers, not a fixed fit"}


def geometry_path(spec: "CameraSpec") -> Path:
    if spec.geometry is not None:
        return spec.geometry
    cal = spec.calibration
    return cal.with_name(cal.stem + "-geometry.json")


def unavailable(game: str) -> str | None:
    """Why an own board cannot be fitted for ``game`` here, or ``None`` if it can."""
    if game in NOT_RIGID:
        return NOT_RIGID[game]
    try:
        import vision.sheets.geometry  # noqa: F401
    except ImportError as exc:
        return f"the own-board fit is not in this build ({exc})"
    return None


def first_sheet(spec: "CameraSpec") -> Any:
    """The sheet the camera reads: the own board's saved fit, else the printed sheet."""
    from .camera_setup import printed_sheet

    path = geometry_path(spec)
    if unavailable(spec.game) is None and path.exists():
        from vision.sheets.geometry import BoardGeometry
        from vision.sheets.layout import Sheet

        from .camera_setup import SetupError

        try:
            return Sheet.from_geometry(_board(spec.game), BoardGeometry.load(path))
        except ValueError as exc:  # GeometryError: the file names itself and what is wrong
            raise SetupError(str(exc)) from None
    return printed_sheet(spec.game)


def _board(game: str) -> Any:
    return get_game(game).board()


def layout(setup: "CameraSetup") -> dict[str, Any]:
    """What the page needs to fit: the reference spaces, every space's place on the engine's
    board (mm; the page maps them through the handles' homography), and where the handles
    start — on the spaces as the current lock sees them, else spread over the picture."""
    from vision.sheets.geometry import reference_spaces

    from .camera_setup import SetupError, printed_sheet

    why = unavailable(setup.spec.game)
    if why:
        raise SetupError(why)
    board = _board(setup.spec.game)
    refs = list(reference_spaces(board))
    printed = printed_sheet(setup.spec.game)
    spaces = [{"id": s.id, "x": round(float(s.x), 2), "y": round(float(s.y), 2)} for s in printed.shapes]
    mm = np.float64([(printed.by_id[r].x, printed.by_id[r].y) for r in refs])
    frame = setup.source.latest
    w, h = (frame.image.shape[1], frame.image.shape[0]) if frame is not None else (1280, 720)
    markers = markers_in(np.asarray(frame.image)) if frame is not None else {}
    if len(markers) == 4:
        # Start as if the board were the printed sheet between the markers found: near enough
        # to its spaces for the admin to drag each the last bit.
        ref = printed.marker_corners()
        H, _ = cv2.findHomography(np.concatenate([ref[i] for i in sorted(markers)]),
                                  np.concatenate([markers[i] for i in sorted(markers)]), 0)
        px = cv2.perspectiveTransform(mm[None], H)[0] if H is not None else None
    else:
        px = None
    if px is None or not np.isfinite(px).all():
        lo, hi = mm.min(axis=0), mm.max(axis=0)
        scale = 0.6 * min(w / max(hi[0] - lo[0], 1.0), h / max(hi[1] - lo[1], 1.0))
        px = (mm - (lo + hi) / 2) * scale + [w / 2, h / 2]
    px = np.clip(px, 0, [w, h])
    return {"reference": refs, "spaces": spaces,
            "start": {r: [round(float(x), 1), round(float(y), 1)] for r, (x, y) in zip(refs, px)},
            "geometry": str(geometry_path(setup.spec))}


def _handles(given: object, refs: list[str], size: tuple[int, int]) -> dict[str, tuple[float, float]]:
    from .camera_setup import SetupError

    if not isinstance(given, Mapping) or set(given) != set(refs):
        raise SetupError(f"handles: expected one for each of {', '.join(refs)}")
    out: dict[str, tuple[float, float]] = {}
    for ref in refs:
        p = given[ref]
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, (int, float)) and
                                                                    not isinstance(v, bool) and math.isfinite(v)
                                                                    for v in p)):
            raise SetupError(f"handles.{ref}: expected [x, y] in the picture's pixels, got {p!r}")
        if not (0 <= p[0] <= size[0] and 0 <= p[1] <= size[1]):
            raise SetupError(f"handles.{ref}: ({p[0]:.0f}, {p[1]:.0f}) is outside the picture")
        out[ref] = (float(p[0]), float(p[1]))
    return out


def markers_in(frame: np.ndarray) -> dict[int, np.ndarray]:
    """The corner markers found in ``frame`` (id → its four corners, frame px)."""
    from vision.read.lock import detect, make_detector
    from vision.sheets.layout import CORNER_IDS

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = make_detector()
    found = {i: c for i, c in detect(detector, grey).items() if i in CORNER_IDS}
    if len(found) < 4:
        big = cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
        more = {i: (c + 0.5) / 2 - 0.5 for i, c in detect(detector, big).items() if i in CORNER_IDS}
        found = {**more, **found}
    return found


def fit(setup: "CameraSetup", handles: object) -> Any:  # a phrase (rules.phrase)
    """Fit the own board to the handles and the markers in view, save it, read through it."""
    from vision.read.lock import BoardLock
    from vision.sheets.geometry import GeometryError, fit_geometry, reference_spaces
    from vision.sheets.layout import CORNER_IDS, Sheet

    from .camera_setup import SetupError, markers_text

    spec = setup.spec
    why = unavailable(spec.game)
    if why:
        raise SetupError(why)
    frame = setup.source.latest
    if frame is None:
        raise SetupError(P("no picture from the camera yet"))
    image = np.asarray(frame.image)
    size = (image.shape[1], image.shape[0])
    board = _board(spec.game)
    refs = list(reference_spaces(board))
    points = _handles(handles, refs, size)
    markers = markers_in(image)
    missing = [i for i in CORNER_IDS if i not in markers]
    if missing:
        raise SetupError(P("{markers}: stick the four markers at the board's corners, all in view",
                           markers=markers_text(missing)))
    lens = spec.lens.for_size(size) if spec.lens is not None else None
    # The stuck-on markers' printed side: the config's, else the printed sheet's (print-markers')
    marker_mm = spec.marker_mm or Sheet.for_board(board).marker_mm
    try:
        geometry = fit_geometry(board, points, markers, marker_mm=marker_mm, lens=lens)
        sheet = Sheet.from_geometry(board, geometry)
    except GeometryError as exc:
        raise SetupError(str(exc)) from None
    path = geometry_path(spec)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        geometry.save(path)  # written beside, then moved over
    except OSError as exc:
        raise SetupError(f"{path}: cannot save the board's fit: {exc.strerror or exc}") from None
    moved: Any = ""
    if spec.calibration.exists():  # learned on the old sheet: kept aside, not lost
        aside = spec.calibration.with_name(spec.calibration.name + ".printed")
        spec.calibration.replace(aside)
        moved = P(" (the calibration for the old sheet is kept as {name})", name=aside.name)
    setup.use_sheet(sheet)
    setup.source.use(None, lock=BoardLock(sheet, lens=spec.lens))
    return P("your board's fit is saved to {path}{moved}; now learn the empty board on it", path=str(path), moved=moved)
