"""The lens step of the set-up page ("Measure the lens"): the admin holds the printed ChArUco
sheet (:func:`vision.read.lens.charuco_image`) in front of the running camera at several angles;
the step keeps the frames where the sheet is found and that differ from the views already
kept, measures the lens from them (:func:`vision.read.lens.calibrate_lens`), saves it and hands it
to the running lock and reader at once (``CameraSource.use``), as ``tableref calibrate-lens``
does from the command line.

The lens file goes where ``[source.camera] lens`` says; without that key, beside the
calibration as ``<calibration stem>-lens.json`` (:func:`lens_file`), which the service then
loads on its next start too.

The empty board is *not* learned again by this step: when it ends the sheet is still held
in front of the board, and the board may hold pieces. The page says instead that the empty
board (and a colour game's colours) was learned through the old lens and should be learned
again (:func:`relearn_needed`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from rules import P
from rules.phrase import Value

if TYPE_CHECKING:
    from vision.read.lens import Lens
    from vision.sheets.layout import Sheet

    from .camera_setup import CalibrationJob, CameraSpec

LENS_VIEWS = 12  # views of the sheet the step collects
LENS_MIN_VIEWS = 6  # at the time-out, measured from these if it has at least so many
LENS_WAIT = 60.0  # s without a new view before the step stops
ALIKE = 0.05  # a view whose corners moved less than this share of the frame's diagonal adds nothing
MIN_CORNERS = 8  # chessboard corners a view must show (as calibrate_lens)
GOOD_PX = 1.0  # RMS reprojection error under which the lens is measured well
USABLE_PX = 2.0


def lens_file(calibration: Path, lens: Path | None = None) -> Path:
    """Where the page saves the lens: ``[source.camera] lens``, else beside the calibration."""
    return lens if lens is not None else calibration.with_name(calibration.stem + "-lens.json")


def beside(calibration: Path) -> Path | None:
    """The lens file the page saved beside the calibration, if there is one (no lens key)."""
    path = lens_file(calibration)
    return path if path.exists() else None


def relearn_needed(spec: "CameraSpec") -> bool:
    """The lens was measured after the empty board was learned (through the old lens)."""
    if spec.lens_path is None or not spec.lens_path.exists() or not spec.calibration.exists():
        return False
    return spec.lens_path.stat().st_mtime > spec.calibration.stat().st_mtime


@lru_cache(maxsize=1)
def sheet_png() -> bytes:
    """The ChArUco sheet to print (200 dpi, at 100 %: 30 mm squares), as a PNG."""
    from vision.read.lens import charuco_image

    ok, buf = cv2.imencode(".png", charuco_image(200))
    if not ok:
        raise RuntimeError("cannot encode the ChArUco sheet as PNG")
    return buf.tobytes()


def verdict(error_px: float) -> str:
    if error_px < GOOD_PX:
        return "good"
    if error_px < USABLE_PX:
        return "usable; for a better one hold the sheet flat and still, in good light, all over the frame"
    return "poor: the sheet may be bent or blurred; measure again"


class Views:
    """The sheet's views kept so far: a view is kept when the sheet shows enough corners and
    they do not sit where a kept view's did (the same view twice teaches the fit nothing)."""

    def __init__(self) -> None:
        from vision.read.lens import charuco_board

        self.detector = cv2.aruco.CharucoDetector(charuco_board())
        self.frames: list[np.ndarray] = []
        self._corners: list[dict[int, np.ndarray]] = []
        self.alike = 0

    def offer(self, frame: np.ndarray) -> str:
        """``"kept"``, ``"alike"`` or ``"none"`` (the sheet not found)."""
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
        corners, ids, _, _ = self.detector.detectBoard(grey)
        if ids is None or len(ids) < MIN_CORNERS:
            return "none"
        if self.frames and frame.shape[:2] != self.frames[0].shape[:2]:
            return "none"  # the stream changed size: only views of one size measure one lens
        got = {int(i): p for i, p in zip(ids.ravel(), corners.reshape(-1, 2))}
        diag = float(np.hypot(*frame.shape[:2]))
        for kept in self._corners:
            common = got.keys() & kept.keys()
            if len(common) < 0.5 * min(len(got), len(kept)):
                continue
            moved = np.median([np.hypot(*(got[i] - kept[i])) for i in common])
            if moved < ALIKE * diag:
                self.alike += 1
                return "alike"
        self.frames.append(frame)
        self._corners.append(got)
        return "kept"


def measure(job: "CalibrationJob") -> Value:
    """The lens step (run on the job's thread): collect, measure, save, swap."""
    from vision.read.lens import LensError, calibrate_lens
    from vision.read.lock import BoardLock

    from .camera_setup import FRAME_WAIT, SetupError, first_reader, save_calibration

    setup = job.setup
    target = max(3, int(setup.lens_views))
    wait = float(setup.lens_wait)
    views = Views()
    last = None
    seen = time.monotonic()  # the last frame
    kept_at = time.monotonic()  # the last view kept
    job._say(P("hold the ChArUco sheet in front of the camera: 0 of {target} views", target=target), 0.0)
    while len(views.frames) < target:
        if job._cancel.is_set():
            raise SetupError(P("stopped"))
        now = time.monotonic()
        got = setup.source.latest
        if got is None or got is last:
            if now - seen > FRAME_WAIT:
                raise SetupError(P("no frame from the camera in {s} s: is it connected?", s=f"{FRAME_WAIT:.0f}"))
            time.sleep(0.02)
            continue
        last, seen = got, now
        main = getattr(got.image, "main", None)  # measured at the size the reader reads
        if views.offer(np.asarray(main if main is not None else got.image)) == "kept":
            kept_at = now
        elif now - kept_at > wait:
            if len(views.frames) >= LENS_MIN_VIEWS:
                break
            if not views.frames:
                raise SetupError(P("the ChArUco sheet was not seen in {s} s: print it (the link on this page) at "
                                   "100 %, stick it on card and hold it whole in front of the camera", s=f"{wait:.0f}"))
            raise SetupError(P("only {n} different views of the ChArUco sheet in {s} s (need {need}): tilt it and "
                               "move it all over the frame", n=len(views.frames), s=f"{wait:.0f}", need=LENS_MIN_VIEWS))
        skipped: Value = P(" ({n} too alike skipped)", n=views.alike) if views.alike else ""
        job._say(P("{n} of {target} views{skipped}", n=len(views.frames), target=target, skipped=skipped),
                 0.8 * len(views.frames) / target)
    job._say(P("measuring the lens"), 0.85)
    try:
        lens, used = calibrate_lens(views.frames, min_corners=MIN_CORNERS)
    except LensError as exc:
        raise SetupError(str(exc)) from None
    path = lens_file(setup.spec.calibration, setup.spec.lens_path)
    job._say(P("saving"), 0.95)
    save_calibration(lens, path, "the lens")
    setup.spec = spec = replace(setup.spec, lens=lens, lens_path=path)
    reader, _ = first_reader(spec, setup.sheet)  # the saved calibration read through the new lens
    setup.source.use(reader, lock=BoardLock(setup.sheet, lens=lens))
    w, h = lens.size
    again: Value = (P(" The empty board was learned through the old lens: learn it again (then the colours).")
                    if spec.colour_game else P(" The empty board was learned through the old lens: learn it again.")) \
        if spec.calibration.exists() else ""
    return P("lens measured from {n} views at {w}x{h}: reprojection error {px} px ({verdict}), field of view {fov}°; "
             "saved to {path} and in use now.{again}", n=used, w=w, h=h, px=f"{lens.error_px:.2f}",
             verdict=P(verdict(lens.error_px)), fov=f"{lens.hfov_deg:.0f}", path=str(path), again=again)


@dataclass(frozen=True)
class BoardLensStep:
    """What the empty-board step found of the lens in the board's printed lines, before
    anything is written (:func:`keep_board_lens` writes it once the board is learned)."""

    lens: Lens | None  # the lens to read through from now on
    path: Path  # where the page keeps a lens measured from the board
    write: bool  # ``lens`` is saved to ``path``
    remove: bool  # the earlier board-measured lens at ``path`` is removed (the lines lie straight now)
    phrase: Value
    why: str  # what the lines showed (vision.read.board_lens.BoardLens.why), for the log and the CLI

    @property
    def changed(self) -> bool:
        return self.write or self.remove


def measures_board(spec: "CameraSpec") -> bool:
    """Is the lens measured from the board when it is learned empty: no lens in use, or one
    measured so before (a camera may have been changed since); a ChArUco lens is kept."""
    return spec.lens is None or spec.lens.from_board


def from_board(spec: "CameraSpec", sheet: "Sheet", frames: list[np.ndarray]) -> BoardLensStep:
    """The empty-board step's lens: a wide lens's barrel measured from the board's printed lines
    (:func:`vision.read.board_lens.lens_from_board`). Bowed lines: the lens, saved where the
    lens step saves it. Straight ones: none — and a lens measured from the board before, kept
    beside the calibration, goes (one set as ``[source.camera] lens`` is the admin's file: a
    straight lens is written there)."""
    from vision.read.board_lens import lens_from_board

    board = lens_from_board(sheet, frames)
    path = lens_file(spec.calibration, spec.lens_path)
    if board.lens is not None:
        return BoardLensStep(board.lens, path, True, False, P(
            "; the board's printed lines bow by up to {px} px (a wide lens's barrel): the lens was measured "
            "from them and saved to {path}", px=f"{board.shift_px:.1f}", path=str(path)), board.why)
    if spec.lens is None:
        return BoardLensStep(None, path, False, False, "", board.why)
    if spec.lens_path is not None and path != lens_file(spec.calibration):  # the config's own file
        straight = replace(spec.lens, dist=np.zeros_like(spec.lens.dist))
        return BoardLensStep(straight, path, True, False, P(
            "; the board's printed lines lie straight now: {path}, the lens measured from them before, now holds "
            "a straight lens", path=str(path)), board.why)
    return BoardLensStep(None, path, False, True, P(
        "; the board's printed lines lie straight now: the lens measured from them before ({path}) is no "
        "longer used", path=str(path)), board.why)


def keep_board_lens(step: BoardLensStep) -> None:
    """Writes what :func:`from_board` decided (once the empty board was learned through it)."""
    from .camera_setup import save_calibration

    if step.write and step.lens is not None:
        save_calibration(step.lens, step.path, "the lens")
    elif step.remove:
        try:
            step.path.unlink(missing_ok=True)
        except OSError as exc:  # said as a failed save is: the file and why
            from .camera_setup import SetupError

            raise SetupError(f"{step.path}: cannot remove the lens: {exc.strerror or exc}") from None


def state(spec: "CameraSpec") -> dict[str, Any]:
    """The page's lens line: the file in use, its error and whether the board needs learning again."""
    lens = spec.lens
    err = None if lens is None or np.isnan(lens.error_px) else round(float(lens.error_px), 3)
    return {"path": str(spec.lens_path) if spec.lens_path is not None else None, "error_px": err,
            "verdict": verdict(err) if err is not None else None,
            "saves_to": str(lens_file(spec.calibration, spec.lens_path)), "relearn": relearn_needed(spec)}
