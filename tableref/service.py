"""Wiring: a source's observations → stabiliser → referee (in its own thread) → subscribers.

This is the only module that starts threads; the pieces it joins are plain objects that
take their inputs as parameters. :func:`open_feed` turns a configured source into a
:class:`Feed` (nothing opened yet); :class:`~tableref.source_retry.Pump` runs one in a thread, feeding the
stabiliser's stable views to the referee's queue; each feed publishes its connection as a
:class:`SourceStatus` (the page's "source" badge, the panel's red light, ``/api/health``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rules import Fidelity, Observation, State, View

from .board_leds import BoardLeds
from decisions import Decision, StableView
from .referee import Referee, RefereeLoop
from .source_retry import SourceLost
from .stabiliser import Stabiliser

log = logging.getLogger(__name__)


def default_journal_path() -> Path:
    """``$TABLEREF_JOURNAL``, else ``$XDG_DATA_HOME/tableref/journal.sqlite3``."""
    if os.environ.get("TABLEREF_JOURNAL"):
        return Path(os.environ["TABLEREF_JOURNAL"])
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "tableref" / "journal.sqlite3"


def play_observations(
    referee: Referee,
    observations: Iterable[Observation],
    stabiliser: Stabiliser,
    *,
    on_decision: Callable[[Decision], None] | None = None,
    on_loop: Callable[[RefereeLoop], None] | None = None,
) -> None:
    """Feed a source through the stabiliser into a referee running in its own thread,
    until the source ends; then let the referee finish what is queued. ``on_loop`` is
    handed the running loop, for whatever else sends commands (a panel's buttons)."""
    if on_decision is not None:
        referee.subscribe(on_decision)
    loop = RefereeLoop(referee, latest_view_only=False)  # a recording: every settled view counts
    loop.start()
    if on_loop is not None:
        on_loop(loop)
    try:
        for obs in observations:
            view = stabiliser.feed(obs)
            if view is not None:
                loop.submit(StableView(view, obs.time, stabiliser.made))
    finally:
        loop.stop()


def iso(t: float) -> str:
    """A wall-clock time as ISO 8601 in UTC, to the second."""
    return datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as dist_version

    try:
        return dist_version("tableref")
    except PackageNotFoundError:  # run from a checkout without installing
        return "unknown"


# -- the source's connection ------------------------------------------------------------------

# States in which the source is on its way to being read (the page shows them amber).
_ON_THE_WAY = frozenset({"connecting", "syncing", "resyncing", "searching", "occluded", "starting", "setup"})


@dataclass(frozen=True)
class SourceStatus:
    """How the board is being read. ``connected``: readings are arriving and trusted."""

    kind: str  # simulated | serial | gpio | camera | replay
    name: str  # the port, the script file, "simulated board"
    state: str  # connected, connecting, syncing, resyncing, silent, disconnected, wrong_board,
    #             closed, playing, ended, locked, searching, occluded, reconnecting, failed
    connected: bool
    detail: str = ""
    since: float = field(default_factory=time.time)  # wall clock

    def text(self) -> str:
        return f"{self.kind} {self.name}: {self.state}" + (f" ({self.detail})" if self.detail else "")

    @property
    def badge(self) -> str:
        """The page's badge class: steady (green), settling (amber) or lost."""
        if self.connected:
            return "steady"
        return "settling" if self.state in _ON_THE_WAY else "lost"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "state": self.state, "connected": self.connected,
                "detail": self.detail, "since": iso(self.since)}


class SourceError(ValueError):
    """A configured source that cannot be set up (a bad wiring or calibration file, no GPIO,
    a camera this build cannot read); the message names what and where."""


class Feed(ABC):
    """A source of observations the service can start, stop and watch.

    ``start()`` opens the device (and its own thread, if it has one); ``observations()``
    yields until ``stop()`` (from any thread) or the source ends; ``close()`` releases the
    device (safe twice). ``start_state``/``options``: a script decides the game's start.
    ``reopenable``: after a failure, ``release()`` then ``reopen()`` read it again (the Pump's
    retries, tableref/source_retry.py); a recording is not, it would play from its start."""

    kind = "source"
    recorded = False  # a recording: every settled view must be judged, none coalesced
    reopenable = False
    fidelity: Fidelity = Fidelity.OCCUPANCY
    start_state: State | None = None
    options: Mapping[str, Any] | None = None

    def __init__(self, name: str) -> None:
        self.name = name
        self._status = SourceStatus(self.kind, name, "starting", False)
        self._subscribers: list[Callable[[SourceStatus], None]] = []
        self._status_lock = threading.Lock()

    @property
    def status(self) -> SourceStatus:
        return self._status

    def subscribe_status(self, callback: Callable[[SourceStatus], None]) -> None:
        self._subscribers.append(callback)

    def set_status(self, state: str, connected: bool, detail: str = "") -> None:
        with self._status_lock:
            if (state, connected, detail) == (self._status.state, self._status.connected, self._status.detail):
                return
            self._status = status = SourceStatus(self.kind, self.name, state, connected, detail)
        log.info("%s", status.text())
        for callback in list(self._subscribers):
            try:
                callback(status)
            except Exception:  # a broken subscriber must not stop the source
                log.exception("source status subscriber %r failed", callback)

    def resume(self, history: list[View], stabiliser: Stabiliser) -> None:
        """The referee resumed a game whose positions were ``history``: a source that plays a
        recording skips to where it left off; a live board simply shows where it is."""

    def on_decision(self, decision: Decision) -> None:
        """Referee subscriber, for a source that shows something back (the board's LEDs)."""

    def release(self) -> None:
        """After a failure: let the device go, so that ``reopen()`` can open it afresh."""

    def reopen(self) -> None:
        """Open the device again, through the same backend as the first time."""
        self.start()

    @abstractmethod
    def start(self) -> None: ...

    @abstractmethod
    def observations(self) -> Iterator[Observation]: ...

    @abstractmethod
    def stop(self) -> None: ...

    @abstractmethod
    def close(self) -> None: ...


class ScriptFeed(Feed):
    """A board script played once (``simulated`` with a script, or ``replay``)."""

    def __init__(self, script: Any, *, speed: float, kind: str, name: str) -> None:
        from .sources.sim import SimulatedBoard

        self.kind = kind
        self.recorded = True
        super().__init__(name)
        self._stopping = threading.Event()
        self.script = script
        self.fidelity = script.fidelity
        self.start_state, self.options = script.start_state(), script.options
        # The board sleeps on the stop event, so stop() ends a long gap at once.
        self.board = SimulatedBoard(script, speed=speed, clock=time.monotonic, sleep=self._stopping.wait)

    def resume(self, history: list[View], stabiliser: Stabiliser) -> None:
        if not self.board.skip_past(history, stabiliser):
            log.warning("%s never shows the resumed game's position: playing it from the start", self.name)

    def start(self) -> None:
        self.set_status("playing", True)

    def observations(self) -> Iterator[Observation]:
        for obs in self.board.observations():
            if self._stopping.is_set():
                return
            yield obs
        self.set_status("ended", False, "the recording has been played to its end")

    def stop(self) -> None:
        self._stopping.set()

    def close(self) -> None:
        self._stopping.set()


class SerialFeed(Feed):
    """The serial sensor board (firmware_bridge.SerialBoard); its LEDs show the decisions."""

    kind = "serial"
    # Not reopenable here: a pulled cable or a port that will not open is the link's own to
    # reopen (SerialBoard: "disconnected", then backoff), and its observations never raise.

    def __init__(self, port: str, wiring: Any, *, baudrate: int) -> None:
        from firmware_bridge.serial_board import SerialBoard

        super().__init__(port)
        self.wiring = wiring
        self.fidelity = wiring.fidelity
        self.board = SerialBoard(port, wiring, baudrate=baudrate)
        self.board.subscribe_status(self._link)
        self.leds = BoardLeds()  # remembers the computer's move, shown again once a wrong board is put right

    def _link(self, status: Any) -> None:
        from firmware_bridge.serial_board import CONNECTED

        self.set_status(status.state, status.state == CONNECTED, status.detail)

    def on_decision(self, decision: Decision) -> None:
        leds = self.leds.show(decision)
        if leds is not None:
            self.board.set_leds({s: v for s, v in leds.items() if s in self.wiring.channels})

    def start(self) -> None:
        self.board.start()

    def observations(self) -> Iterator[Observation]:
        return self.board.observations()

    def stop(self) -> None:
        self.board.close()  # ends observations(); the port is released with the I/O thread

    def close(self) -> None:
        self.board.close()


class GpioFeed(Feed):
    """A sensor matrix on the Pi's own pins (hardware.GpioMatrix)."""

    kind = "gpio"
    fidelity = Fidelity.OCCUPANCY
    reopenable = True

    def __init__(self, matrix: Any) -> None:
        super().__init__(f"{len(matrix.wiring.rows)}x{len(matrix.wiring.columns)} matrix")
        self.matrix = matrix

    def start(self) -> None:
        self.matrix.start()
        self.set_status("connected", True)

    def observations(self) -> Iterator[Observation]:
        return self.matrix.observations()

    def stop(self) -> None:
        self.matrix.stop()

    def release(self) -> None:
        self.matrix.close()

    def reopen(self) -> None:
        self.matrix.start()  # "connected" once it reads (the Pump): until then, "reconnecting"

    def close(self) -> None:
        self.matrix.close()
        self.set_status("closed", False)


class CameraFeed(Feed):
    """A camera over the board (vision.CameraSource); its status is the board lock."""

    kind = "camera"

    def __init__(self, capture: Any, reader: Any, *, fidelity: Fidelity, name: str, lock: Any = None,
                 spec: Any = None, live: bool = False) -> None:
        """``live``: a camera, not a video file: running out of frames is a failure (unplugged,
        a glitch) to reopen it after, not the end."""
        from vision.camera.exposure import SheetExposure
        from vision.camera.source import CameraSource

        super().__init__(name)
        self.fidelity = fidelity
        self.reopenable = live
        self.spec = spec  # tableref.camera_setup.CameraSpec: the set-up page's (None: no set-up page)
        self._stopping = threading.Event()
        self._capture = capture
        self._reopened = False  # reopened after a failure, no frame read since: still "reconnecting"
        # A looped video (demo-video) started again: the service begins a new game (serve.py)
        self.on_loop: Callable[[], None] | None = None
        # reader None: set-up mode (no calibration yet): the lock is kept, nothing is read
        # the exposure the board was learned at, asked of the camera again (vision/camera/source.py)
        learned_at = getattr(getattr(reader, "cal", None), "exposure_ev", 0.0)
        self.camera = CameraSource(_WatchedCapture(capture, self._frame, self._looped), reader, fidelity=fidelity,
                                   lock=lock, exposure=SheetExposure.resumed(learned_at))

    def _looped(self) -> None:
        if self.on_loop is not None:
            self.on_loop()

    def _frame(self) -> bool:
        """Before each frame: publish the lock as it stands; False once stopping."""
        state = self.camera.lock.state.value
        if self._reopened:  # the first read since reopening: the page says "reconnecting" until it works
            self._reopened = False
        elif self.camera.reader is None:
            self.set_status("setup", False, self._SETUP)
        else:
            self.set_status(state, state == "locked", "" if state == "locked" else self._FROZEN)
        return not self._stopping.is_set()

    _FROZEN = "decisions frozen until the board's corner markers are in view and still"
    _SETUP = "set-up: calibrate the camera on the set-up page (/setup); the referee waits"

    def start(self) -> None:
        self._capture.start()
        self.set_status("searching", False, self._FROZEN)

    def observations(self) -> Iterator[Observation]:
        yield from self.camera.observations()
        if not self._stopping.is_set():
            if self.reopenable:
                raise SourceLost("the camera gives no frames (unplugged, or it stopped sending)")
            self.set_status("ended", False, "the camera or video has no more frames")

    def release(self) -> None:
        self._capture.close()

    def reopen(self) -> None:
        self._capture.start()  # the same capture class and factory: cv2.VideoCapture, Picamera2
        self.camera.gate.reset()  # motion seen before the gap says nothing of the board now
        self._reopened = True

    def stop(self) -> None:
        self._stopping.set()

    def close(self) -> None:
        self._stopping.set()
        self._capture.close()


class _WatchedCapture:
    """A capture whose every read first asks ``before()``: it reports the lock and ends the
    frames once the service is stopping (a camera read cannot be interrupted safely)."""

    def __init__(self, capture: Any, before: Callable[[], bool], looped: Callable[[], None] = lambda: None) -> None:
        self._capture, self._before, self._looped = capture, before, looped
        self.name = getattr(capture, "name", "camera")
        self._loops = 0

    def start(self) -> None:
        self._capture.start()

    def read(self) -> Any:
        if not self._before():
            return None
        frame = self._capture.read()
        loops = getattr(self._capture, "loops", 0)  # a looped video's restarts (OpenCVCapture)
        if loops != self._loops:
            self._loops = loops
            self._looped()  # before the first frame of the new pass is read as the board
        return frame

    @property
    def takes_exposure_value(self) -> bool:
        return bool(getattr(self._capture, "takes_exposure_value", False))

    def set_exposure_value(self, ev: float) -> bool:
        return bool(self._capture.set_exposure_value(ev)) if self.takes_exposure_value else False

    def close(self) -> None:
        self._capture.close()


def open_feed(source: Any, game: str, *, pin_factory: Any = None) -> Feed:
    """The feed for a configured source (``tableref.config``'s ``SourceConfig``): files are
    read, nothing is opened. ``SourceError`` names what is wrong."""
    kind = source.kind
    if kind in ("simulated", "replay"):
        from .sources.sim import BoardScript, BoardScriptError

        path = source.script if kind == "simulated" else source.file
        try:
            script = BoardScript.from_file(path)
        except BoardScriptError as exc:
            raise SourceError(str(exc)) from None
        return ScriptFeed(script, speed=source.speed, kind=kind, name=str(path))
    if kind == "serial":
        from firmware_bridge.wiring import Wiring, WiringError

        try:
            wiring = Wiring.from_file(source.wiring) if source.wiring is not None else Wiring.builtin(game)
        except WiringError as exc:
            raise SourceError(f"source.serial.wiring: {exc}") from None
        return SerialFeed(source.port, wiring, baudrate=source.baudrate)
    if kind == "gpio":
        from hardware.matrix import GpioMatrix, MatrixWiring, WiringError as MatrixWiringError
        from rules import get_game

        if pin_factory is None:
            raise SourceError("source.kind is \"gpio\", but this machine has no GPIO pins (not a Raspberry Pi?)")
        board = get_game(game).board()
        try:
            wiring = MatrixWiring.from_file(source.wiring, board=board) if source.wiring is not None \
                else MatrixWiring.builtin(board=board)
            matrix = GpioMatrix(wiring, pin_factory=pin_factory, rows=source.rows, columns=source.columns,
                                interval=source.interval, debounce=source.debounce)
        except (MatrixWiringError, ValueError) as exc:
            raise SourceError(f"source.gpio: {exc}") from None
        return GpioFeed(matrix)
    if kind == "camera":
        return _open_camera(source, game)
    raise SourceError(f"source.kind: unknown source {kind!r}")


def camera_available() -> str | None:
    """Why the camera source cannot run in this build, or ``None`` if it can."""
    try:
        import vision.camera.source  # noqa: F401  (OpenCV and the reader come with it)
    except ImportError as exc:
        return f"the camera source is not in this build ({exc})"
    return None


def _open_camera(source: Any, game: str) -> Feed:
    missing = camera_available()
    if missing:
        raise SourceError(f"source.kind is \"camera\", but {missing}")
    from vision.camera.capture import (
        OpenCVCapture, Picamera2Capture, Picamera2DualCapture, picamera2_available, read_size, watch_size,
    )
    from vision.read.empty_board import CalibrationError

    from vision.pieces.pieceset import PieceSetError, load_pieceset
    from vision.read.lens import Lens, LensError
    from vision.read.lock import BoardLock

    try:
        # No lens key: the one the set-up page measured, beside the calibration (tableref/lens_setup.py)
        from .lens_setup import beside

        lens_path = source.lens if source.lens is not None else beside(source.calibration)
        lens = Lens.load(lens_path) if lens_path is not None else None
        pieceset = load_pieceset(game, source.pieceset) if source.pieceset is not None else None
    except (LensError, PieceSetError) as exc:
        key = "lens" if isinstance(exc, LensError) else "pieceset"
        raise SourceError(f"source.camera.{key}: {exc}") from None
    rings = None
    if getattr(source, "rings", None) is not None:
        from vision.readers.ring_reading import RingModel

        if game != "gyges":
            raise SourceError(f"source.camera.rings: only Gygès's rings are read without stickers, not {game}'s pieces")
        try:
            rings = RingModel.load(source.rings)
        except CalibrationError as exc:
            raise SourceError(f"source.camera.rings: {exc}") from None
    from .camera_setup import CameraSpec, first_reader
    from .own_board import first_sheet

    spec = CameraSpec(game, source.calibration, source.fidelity, lens=lens, lens_path=lens_path, pieceset=pieceset,
                      geometry=getattr(source, "geometry", None), marker_mm=getattr(source, "marker_mm", None),
                      rings=rings)
    try:
        sheet = first_sheet(spec)  # an own board's saved fit (tableref/own_board.py), else the printed sheet
    except ValueError as exc:
        raise SourceError(f"source.camera.geometry: {exc}") from None
    try:
        # None (set-up mode) while there is no calibration file yet: the set-up page makes it
        reader, _ = first_reader(spec, sheet)  # DRIFT has its own grid and reader
    except (CalibrationError, KeyError, ValueError) as exc:
        raise SourceError(f"source.camera.calibration: {exc}") from None
    device = source.device
    # The size read: the game's (vision/camera/capture.py: READ_SIZES; DRIFT's tags and Annelids'
    # caps need 1080p) unless the config asks. Larger than 720p, it is watched at 720p (the
    # lock, the motion gate) and read in crops.
    size = getattr(source, "size", None) or read_size(game)
    watch = watch_size(size)
    if source.backend == "picamera" or (source.backend == "auto" and picamera2_available()
                                        and not isinstance(device, str)):
        number = device or 0

        def camera() -> Any:
            from picamera2 import Picamera2  # the Pi's own library

            return Picamera2(number)

        capture = Picamera2DualCapture(camera, main=size, lores=watch) if watch else Picamera2Capture(camera, size=size)
        return CameraFeed(capture, reader, fidelity=source.fidelity, name=f"picamera {number}",
                          lock=BoardLock(sheet, lens=lens), spec=spec, live=True)
    target = 0 if device is None else device
    # A camera number, a device node or a stream is live; any other path is a video file.
    live = isinstance(target, int) or target.startswith("/dev/") or "://" in target
    return CameraFeed(OpenCVCapture(target, paced=source.paced, loop=getattr(source, "loop", False) and not live,
                                    size=size, watch=watch),
                      reader, fidelity=source.fidelity,
                      name=f"opencv {target}", lock=BoardLock(sheet, lens=lens), spec=spec, live=live)


# -- health -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LastDecision:
    kind: str
    ply: int
    at: float  # wall clock


@dataclass(frozen=True)
class Health:
    """What ``/api/health`` answers and ``tableref status`` prints."""

    version: str
    started: float  # wall clock
    uptime: float  # seconds
    source: SourceStatus
    game_id: int
    game: str
    ply: int
    to_move: str | None
    over: bool
    last_decision: LastDecision | None
    panel: str  # on, off, unavailable
    hub: Mapping[str, Any] | None = None  # the club hub link (tableref.hub.publisher), if [hub] is set

    @property
    def ok(self) -> bool:
        return self.source.connected

    def to_dict(self) -> dict[str, Any]:
        last = self.last_decision
        return {
            "ok": self.ok, "version": self.version, "started": iso(self.started), "uptime": round(self.uptime, 1),
            "source": self.source.to_dict(),
            "game": {"id": self.game_id, "name": self.game, "ply": self.ply, "to_move": self.to_move,
                     "over": self.over},
            "last_decision": None if last is None else {"kind": last.kind, "ply": last.ply, "at": iso(last.at)},
            "panel": self.panel,
            **({"hub": dict(self.hub)} if self.hub is not None else {}),
        }
