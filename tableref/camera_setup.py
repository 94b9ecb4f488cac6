"""The camera's set-up from the page (web/setup.py): what the camera sees with the lock drawn
on it, and the calibration steps of ``tableref calibrate`` run on the live source.

:class:`CameraSetup` sits beside a running :class:`~vision.camera.source.CameraSource`. It never
reads the camera itself: the source keeps a reference to its latest frame, and the page's
snapshot is encoded from that only when someone asks (one encoding per frame, however many
ask). A calibration step is a :class:`CalibrationJob` on its own thread, started by the page
and polled for its progress; its result is saved where the config says
(``[source.camera] calibration``) and handed to the source (``CameraSource.use``), which reads
with it from its next frame: no restart. The lens step ("Measure the lens", from the
ChArUco sheet) is ``tableref/lens_setup.py``.

The service starts with a camera whose calibration file does not exist yet: the source then
keeps the lock but reads nothing (the referee waits) until the empty board is learned here.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules import HIDDEN, OCCUPIED, Fidelity, Joined, P, get_game
from rules.phrase import Value
from rules.view import View

from vision.readers.reasons import HIDDEN_IN_FRONT, UNREADABLE, phrase_of

from .lens_setup import LENS_VIEWS, LENS_WAIT
from .lens_setup import state as lens_state

log = logging.getLogger(__name__)

CORNER_NAMES = {0: "top-left", 1: "top-right", 2: "bottom-right", 3: "bottom-left"}
SNAPSHOT_WIDTH = 960  # px: the page's picture; the overlay is in the frame's own pixels
FRAMES = 5  # frames a calibration step learns from (as `tableref calibrate --frames`)
FRAME_WAIT = 10.0  # s without a new frame before a step gives up


class SetupError(ValueError):
    """A set-up step cannot run (no frames, nothing to learn from); the message says what,
    and ``phrase`` says it in the page's language (tableref/i18n)."""

    def __init__(self, message: Value) -> None:
        super().__init__(str(message))
        self.phrase = message


@dataclass(frozen=True)
class CameraSpec:
    """What the set-up needs beside the source: the game, where the calibration is saved, and
    what the reader is made with (``[source.camera]``)."""

    game: str
    calibration: Path
    fidelity: Fidelity = Fidelity.KIND
    lens: Any = None  # vision.read.lens.Lens, loaded from lens_path
    lens_path: Path | None = None
    pieceset: Any = None  # vision.pieces.pieceset.PieceSet
    geometry: Path | None = None  # an own board's fit; None: beside the calibration (tableref/own_board.py)
    marker_mm: float | None = None  # the stuck-on corner markers' side; None: vision.sheets.geometry's default
    rings: Any = None  # vision.readers.ring_reading.RingModel: Gygès's rings read by their tiers, not tags

    @property
    def colour_game(self) -> bool:
        from vision.sheets import layout

        return layout.DEFAULT_MODE.get(self.game, "tags") == "colour"


def printed_sheet(game: str) -> Any:
    from vision.sheets.layout import Sheet

    return Sheet.for_board(get_game(game).board())


def first_reader(spec: CameraSpec, sheet: Any = None) -> tuple[Any, str]:
    """The reader for the saved calibration, or ``(None, why)`` when the set-up is not done: no
    calibration file yet, or a colour game's colours not learned. A file that exists but is
    bad raises ``CalibrationError`` (it is not silently replaced)."""
    from vision.read.empty_board import Calibration
    from vision.readers.for_game import grid_for, reader_for

    grid = grid_for(sheet if sheet is not None else printed_sheet(spec.game))
    if not spec.calibration.exists():
        return None, f"no calibration yet ({spec.calibration}): learn the empty board on the set-up page"
    cal = Calibration.load(spec.calibration, grid)
    if cal.mode == "colour" and not cal.classes:
        return None, "the piece colours are not learned yet: run the colour step on the set-up page"
    return reader_for(grid, cal, spec.fidelity, lens=spec.lens, pieceset=spec.pieceset, rings=spec.rings), ""


def missing_markers(frame: np.ndarray) -> list[int]:
    """The corner markers not found anywhere in ``frame`` (the lock's own full search)."""
    from vision.read.lock import detect, make_detector
    from vision.sheets.layout import CORNER_IDS

    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = make_detector()
    found = set(detect(detector, grey)) & set(CORNER_IDS)
    if len(found) < 4:  # small markers: as the lock does, on the frame enlarged 2x
        big = cv2.resize(grey, None, fx=2, fy=2, interpolation=cv2.INTER_LINEAR)
        found |= set(detect(detector, big)) & set(CORNER_IDS)
    return [i for i in CORNER_IDS if i not in found]


def markers_text(missing: list[int]) -> Value:
    """"corner marker 1 (top-right) was not found" (str() of it: the English)."""
    names = [P("corner marker {n} ({corner})", n=i, corner=P(CORNER_NAMES[i])) for i in missing]
    if len(names) == 1:
        return P("{markers} was not found", markers=names[0])
    return P("{markers} were not found", markers=P("{items} and {last}", items=Joined(tuple(names[:-1]), ", "),
                                                  last=names[-1]))


# -- the overlay ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpaceMark:
    id: str
    x: float  # frame px
    y: float
    verdict: str  # read | occupied | hidden | empty | unreadable | unknown (nothing read yet)
    tokens: tuple[str, ...] = ()
    why: str = ""  # the reader's reason (vision/readers/reasons.py), in English

    def to_dict(self, say: Callable[[Value], str] | None = None,
                name: Callable[[str], str] | None = None) -> dict[str, Any]:
        """The mark; ``say`` (a catalog's) puts the reason in the reader's language and ``name``
        (the game's :func:`~tableref.i18n.pieces.piece_name`) gives each token's name."""
        return {"id": self.id, "x": self.x, "y": self.y, "verdict": self.verdict, "tokens": list(self.tokens),
                "names": [name(t) for t in self.tokens] if name is not None else list(self.tokens),
                "why": say(phrase_of(self.why)) if say is not None and self.why else str(self.why)}


@dataclass(frozen=True)
class Overlay:
    """The lock as the page draws it over the snapshot, in the frame's pixels."""

    width: int
    height: int
    lock: str  # searching | locked | occluded | no frame
    reading: str  # "setup": no reader yet; "reading"
    outline: tuple[tuple[float, float], ...] = ()  # the sheet's four corners
    spaces: tuple[SpaceMark, ...] = ()
    reading_age: float | None = None  # s since the verdicts were read (None: none yet)
    # the exposure compensation asked of the camera for the sheet (vision/camera/exposure.py);
    # None: this capture is not asked (a webcam, a video)
    exposure_ev: float | None = None
    # the board's smallest scale in the read frame and the game's need (vision/read/scale.py);
    # None: not locked
    px_per_mm: float | None = None
    needed_px_per_mm: float | None = None
    smallest_at: str = ""  # the space where it is smallest

    def to_dict(self, say: Callable[[Value], str] | None = None,
                name: Callable[[str], str] | None = None) -> dict[str, Any]:
        """The overlay as JSON; ``say`` and ``name`` as :meth:`SpaceMark.to_dict`'s."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "spaces"}
        out["outline"] = [list(p) for p in self.outline]
        out["spaces"] = [m.to_dict(say, name) for m in self.spaces]
        return out


def verdicts(sheet: Any, reading: Any) -> dict[str, tuple[str, tuple[str, ...], str]]:
    """Space → (verdict, tokens, why) from a reader's :class:`~vision.readers.reader.Reading`."""
    out: dict[str, tuple[str, tuple[str, ...], str]] = {}
    for s in sheet.shapes:
        if reading is None:
            out[s.id] = ("unknown", (), "")
        elif s.id in reading.unreadable:
            out[s.id] = ("unreadable", (), reading.why.get(s.id) or UNREADABLE)
        else:
            tokens = tuple(reading.view.get_tokens(s.id))
            if HIDDEN in tokens:
                out[s.id] = ("hidden", (), HIDDEN_IN_FRONT)
                continue
            named = tuple(t for t in tokens if t != OCCUPIED)
            out[s.id] = ("read", named, "") if named else (("occupied", (), "") if tokens else ("empty", (), ""))
    return out


# -- calibration jobs -------------------------------------------------------------------------


@dataclass
class JobStatus:
    step: str  # empty | colours | lens
    state: str = "running"  # running | done | failed
    progress: str = "starting"
    fraction: float = 0.0
    result: str = ""
    started: float = field(default_factory=time.time)
    said: dict[str, Value] = field(default_factory=dict, repr=False)  # progress, result as phrases

    def to_dict(self, say: Callable[[Value], str] | None = None) -> dict[str, Any]:
        """The status; ``say`` (a catalog's) puts the progress and result in the reader's language."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "said"}
        if say is not None:
            out.update({key: say(value) for key, value in self.said.items()})
        return out


STEPS = ("empty", "colours", "lens")  # lens: tableref/lens_setup.py
POSITIONS = ("layout", "start")


class CalibrationJob:
    """One calibration step on its own thread: collect still frames, lock on, learn, save,
    swap the reader. ``start()`` runs it; ``status`` is read by the page."""

    def __init__(self, setup: "CameraSetup", step: str, position: str = "layout") -> None:
        if step not in STEPS:
            raise SetupError(f"step must be one of {', '.join(STEPS)}, got {step!r}")
        if position not in POSITIONS:
            raise SetupError(f"position must be one of {', '.join(POSITIONS)}, got {position!r}")
        self.setup, self.step, self.position = setup, step, position
        self.status = JobStatus(step)
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()

    def start(self) -> "CalibrationJob":
        self._thread = threading.Thread(target=self._run, name=f"calibrate-{self.step}", daemon=True)
        self._thread.start()
        return self

    def cancel(self, timeout: float = 5.0) -> None:
        self._cancel.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self.status.state == "running"

    def _say(self, progress: Value, fraction: float) -> None:
        self.status.progress, self.status.fraction = str(progress), fraction
        self.status.said["progress"] = progress

    def _run(self) -> None:
        try:
            result = self._calibrate()
        except SetupError as exc:
            self.status.state, self.status.result = "failed", str(exc)
            self.status.said["result"] = exc.phrase
        except Exception as exc:  # a calibration error of any kind is said on the page, never crashes
            from vision.read.empty_board import CalibrationError

            if not isinstance(exc, (CalibrationError, OSError, ValueError)):
                log.exception("calibration step %s failed", self.step)
            self.status.state, self.status.result = "failed", str(exc) or type(exc).__name__
        else:
            self.status.state, self.status.result = "done", str(result)
            self.status.said["result"] = result
        self.status.fraction = 1.0

    def _frames(self) -> list[np.ndarray]:
        frames: list[np.ndarray] = []
        last = None
        waited_since = time.monotonic()
        while len(frames) < FRAMES:
            if self._cancel.is_set():
                raise SetupError(P("stopped"))
            got = self.setup.source.latest
            if got is not None and got is not last:
                last = got
                # Learned at the full size the reader reads (a dual stream's main frame), as
                # `tableref calibrate` does; the lock is found on it afresh.
                main = getattr(got.image, "main", None)
                frames.append(np.asarray(main if main is not None else got.image))
                waited_since = time.monotonic()
                self._say(P("collecting frames {n}/{of}", n=len(frames), of=FRAMES), 0.6 * len(frames) / FRAMES)
            elif time.monotonic() - waited_since > FRAME_WAIT:
                raise SetupError(P("no frame from the camera in {s} s: is it connected?", s=f"{FRAME_WAIT:.0f}"))
            else:
                time.sleep(0.02)
        return frames

    def _locked(self, frames: list[np.ndarray], lens: Any) -> list[tuple[np.ndarray, Any]]:
        """The frames locked through ``lens`` (None: no lens)."""
        from vision.read.calibration import lock_on

        locked = lock_on(self.setup.sheet, frames, lens=lens)
        if not locked:
            missing = missing_markers(frames[-1])
            if missing:
                raise SetupError(P("{markers}: all four must be in view and uncovered", markers=markers_text(missing)))
            raise SetupError(P("the corner markers were found but would not hold still: keep the camera and board still"))
        return locked

    def _calibrate(self) -> Value:
        from vision.read.empty_board import Calibration
        from vision.read.lock import BoardLock
        from vision.readers.for_game import reader_for

        setup, spec = self.setup, self.setup.spec
        if self.step == "lens":
            from .lens_setup import measure

            return measure(self)
        grid = setup.grid
        if self.step == "colours":
            if not spec.colour_game:
                raise SetupError(P("{game} is read by tags, not by colour: no colours to learn",
                                   game=P(get_game(spec.game).title)))
            if not spec.calibration.exists():
                raise SetupError(P("learn the empty board first"))
            view = position_view(spec.game, self.position, setup.sheet)
        frames = self._frames()
        board_lens = None
        if self.step == "empty":
            from .lens_setup import from_board, measures_board

            if measures_board(spec):  # the board learned through the lens its lines show (written below)
                board_lens = from_board(spec, setup.sheet, frames)
                spec = replace(spec, lens=board_lens.lens,
                               lens_path=board_lens.path if board_lens.lens is not None else None)
        bent: Value = board_lens.phrase if board_lens is not None else ""
        locked = self._locked(frames, spec.lens)
        if self.step == "empty":  # frames of the full size read: no stream to scale from
            from vision.read.scale import board_scale

            small = scale_warning(board_scale(locked[-1][1], setup.sheet), spec.game)
            bent = Joined((bent, small), "") if small else bent
        self._say(P("learning the empty board" if self.step == "empty" else "learning the piece colours"), 0.7)
        if self.step == "empty":
            # kept with it: the exposure the camera was asked for, asked again at the next start
            cal = replace(Calibration.from_empty(grid, locked), exposure_ev=setup.source.exposure_ev or 0.0)
        else:
            cal = Calibration.load(spec.calibration, grid).learn_colours(grid, [(f, H, view) for f, H in locked])
        self._say(P("saving"), 0.85)
        changed = board_lens is not None and board_lens.changed
        if changed:
            from .lens_setup import keep_board_lens

            keep_board_lens(board_lens)
            setup.spec = spec
        save_calibration(cal, spec.calibration)
        lock = {"lock": BoardLock(setup.sheet, lens=spec.lens)} if changed else {}  # the markers fitted through it
        if cal.mode == "colour" and not cal.classes:
            setup.source.use(None, **lock)  # the old colours belong to the old light: learn them again
            return P("empty board learned from {n} frames and saved to {path}{bent}; now lay out the pieces and learn "
                     "their colours", n=len(locked), path=str(spec.calibration), bent=bent)
        reader = reader_for(grid, cal, spec.fidelity, lens=spec.lens, pieceset=spec.pieceset, rings=spec.rings)
        detail: Value = ""
        if self.step == "colours":
            frame, H = locked[-1]
            got = reader.read(frame, H)
            wrong = sorted(s for s, tokens in view.items() if tuple(got.view.get_tokens(s)) != tuple(tokens))
            detail = P("; read back {right}/{all} pieces of the layout right", right=len(view) - len(wrong), all=len(view))
            if wrong:
                detail = Joined((detail, P(" (not {spaces})", spaces=", ".join(wrong[:6]))), "")
        setup.source.use(reader, **lock)
        what = P("empty board") if self.step == "empty" else P("{n} piece colours", n=len(cal.classes))
        if bent:
            detail = Joined((bent, detail), "")
        return P("{what} learned from {n} frames and saved to {path}; reading with it now{detail}", what=what,
                 n=len(locked), path=str(spec.calibration), detail=detail)


def save_calibration(cal: Any, path: Path, what: str = "the calibration") -> None:
    """``cal.save`` written beside, then moved over: a failed write never leaves half a file
    (a calibration, a lens)."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        cal.save(tmp)
        tmp.replace(path)
    except OSError as exc:
        raise SetupError(f"{path}: cannot save {what}: {exc.strerror or exc}") from None


# -- the set-up ---------------------------------------------------------------------------------


class CameraSetup:
    """The set-up page's side of a running camera source (see the module docstring)."""

    def __init__(self, source: Any, spec: CameraSpec, *, sheet: Any = None) -> None:
        from vision.readers.for_game import grid_for

        self.source, self.spec = source, spec
        self.sheet = sheet if sheet is not None else source.lock.sheet
        self.grid = grid_for(self.sheet)
        self._sheet_lock = threading.Lock()
        self._job: CalibrationJob | None = None
        self._jobs = threading.Lock()
        self._encode = threading.Lock()
        self._jpeg: tuple[Any, bytes] | None = None  # (the frame encoded, its JPEG)
        self.encoded = 0  # JPEGs encoded (the snapshot is encoded only when asked, once per frame)
        self.lens_views, self.lens_wait = LENS_VIEWS, LENS_WAIT  # the lens step's (tests make them short)

    def use_sheet(self, sheet: Any) -> None:
        """Calibrate on ``sheet`` from now on (an own board's fit: tableref/own_board.py)."""
        from vision.readers.for_game import grid_for

        grid = grid_for(sheet)
        with self._sheet_lock:
            self.sheet, self.grid = sheet, grid

    # -- what the page shows ----------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        from vision.read.calibration import colour_layout

        source = self.source
        job = self._job
        colours = None
        if self.spec.colour_game:
            colours = {"layout": dict(sorted((s, list(t)) for s, t in colour_layout(self.sheet).items()))}
        return {
            "game": self.spec.game, "title": get_game(self.spec.game).title,
            "mode": "reading" if source.reader is not None else "setup",
            "calibration": str(self.spec.calibration), "calibrated": self.spec.calibration.exists(),
            "colour_game": self.spec.colour_game, "colours": colours,
            "lens": str(self.spec.lens_path) if self.spec.lens_path is not None else None,
            "lens_step": lens_state(self.spec),
            "lock": source.lock.state.value,
            "own_board": self._own_board(),
            "job": job.status.to_dict() if job is not None else None,
        }

    def _own_board(self) -> dict[str, Any] | None:
        from . import own_board

        why = own_board.unavailable(self.spec.game)
        if why and self.spec.game not in own_board.NOT_RIGID:
            return None  # not in this build: nothing to offer
        path = own_board.geometry_path(self.spec)
        return {"geometry": str(path), "fitted": path.exists(), "why_not": why}

    def board_layout(self) -> dict[str, Any]:
        from . import own_board

        return own_board.layout(self)

    def fit_board(self, handles: object) -> Value:
        """Fit an own board to four handles (``SetupError`` says what is wrong); not while a
        calibration step runs."""
        from . import own_board

        with self._jobs:
            if self._job is not None and self._job.running:
                raise SetupError(f"the {self._job.step} step is still running")
            return own_board.fit(self, handles)

    def snapshot_jpeg(self, width: int = SNAPSHOT_WIDTH, quality: int = 80) -> bytes | None:
        """The latest frame as a JPEG (``None``: no frame yet); encoded once per frame."""
        frame = self.source.latest
        if frame is None:
            return None
        with self._encode:
            if self._jpeg is not None and self._jpeg[0] is frame:
                return self._jpeg[1]
            img = np.asarray(frame.image)
            if img.shape[1] > width:
                img = cv2.resize(img, (width, round(img.shape[0] * width / img.shape[1])), interpolation=cv2.INTER_AREA)
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
            if not ok:
                return None
            self._jpeg = (frame, buf.tobytes())
            self.encoded += 1
            return self._jpeg[1]

    def overlay(self) -> Overlay:
        from vision.read.pose import Pose

        source = self.source
        frame = source.latest
        ev = source.exposure_ev
        if frame is None:
            return Overlay(0, 0, "no frame", "setup" if source.reader is None else "reading", exposure_ev=ev)
        h, w = frame.image.shape[:2]
        lock = source.lock
        sheet = lock.sheet
        H, pose = lock.H, lock.pose
        mode = "setup" if source.reader is None else "reading"
        if H is None:
            return Overlay(w, h, lock.state.value, mode, exposure_ev=ev)
        pose = pose if pose is not None else Pose.flat(H)
        sw, sh = sheet.size
        outline = pose.to_px(np.float64([[0, 0], [sw, 0], [sw, sh], [0, sh]]))
        centres = pose.to_px(np.float64([(s.x, s.y) for s in sheet.shapes]))
        reading, at = source.last_reading, source.last_read_at
        seen = verdicts(sheet, reading)
        marks = tuple(SpaceMark(s.id, round(float(x), 1), round(float(y), 1), *seen[s.id])
                      for s, (x, y) in zip(sheet.shapes, centres))
        age = None if reading is None or at is None else max(0.0, round(float(frame.t - at), 2))
        scale = read_scale(pose, sheet, frame.image)
        return Overlay(w, h, lock.state.value, mode, tuple((round(float(x), 1), round(float(y), 1)) for x, y in outline),
                       marks, age, ev, round(scale.px_per_mm, 2), scale.needed, scale.space)

    # -- calibration ------------------------------------------------------------------------

    def calibrate(self, step: str, position: str = "layout") -> JobStatus:
        """Start a calibration step (``SetupError`` if one is running or the step is unknown)."""
        with self._jobs:
            if self._job is not None and self._job.running:
                raise SetupError(f"the {self._job.step} step is still running")
            self._job = CalibrationJob(self, step, position).start()
            return self._job.status

    def job(self) -> JobStatus | None:
        return self._job.status if self._job is not None else None

    def wait(self, timeout: float = 30.0, clock: Callable[[], float] = time.monotonic) -> JobStatus | None:
        """Until the running step ends (tests, scripts)."""
        end = clock() + timeout
        while self._job is not None and self._job.running and clock() < end:
            time.sleep(0.02)
        return self.job()

    def close(self) -> None:
        """Stop a running step (safe twice)."""
        job = self._job
        if job is not None:
            job.cancel()


def read_scale(pose: Any, sheet: Any, image: np.ndarray) -> Any:
    """The board's smallest scale in the frame the reader reads (a watch frame's main stream is
    bigger than the frame the lock's pose is in), kept with the pose: a still board keeps it."""
    from vision.read.scale import board_scale

    scale = pose.kept(("board_scale", id(sheet)), lambda: board_scale(pose, sheet), of=sheet)
    main = getattr(image, "main", None)
    return scale.scaled(main.shape[1] / image.shape[1]) if main is not None else scale


def scale_warning(scale: Any, game: str) -> Value:
    """What the set-up says when the board is too small in the picture ("" when it is not)."""
    if not scale.too_small:
        return ""
    return P("; the board is small in the picture: at {space} a millimetre is {px} px, and {game}'s pieces are read "
             "from {need} px: move the camera closer, or let the board fill more of the picture",
             space=scale.space, px=f"{scale.px_per_mm:.2f}", game=P(get_game(game).title), need=f"{scale.needed:.2f}")


def position_view(game: str, position: str, sheet: Any) -> View:
    from vision.read.calibration import colour_layout

    return colour_layout(sheet) if position == "layout" else get_game(game).start().view(Fidelity.KIND)
