"""Frame capture with the backend injected: Picamera2 (the Pi camera), ``cv2.VideoCapture``
(a USB webcam index, a video file, a stream URL), or frames from arrays (tests, rendered
video). Each yields :class:`CapturedFrame` (a BGR ``uint8`` image and its time in seconds).

Nothing is opened in a constructor: :meth:`start` opens the device, :meth:`close` releases
it (safe twice); every capture is a context manager. :func:`open_capture` picks a backend
from a source spec as the ``--source`` option gives it.
"""

from __future__ import annotations

import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

log = logging.getLogger(__name__)


WATCH_SIZE = (1280, 720)  # the lock and the motion gate watch frames of this size
# Games whose pieces show too little at 720p (the sheet filling 60 % of the frame's height) are
# read from a larger main stream, in crops round the spaces, while the lock and the motion gate
# watch it shrunk to WATCH_SIZE: DRIFT's 19 mm tags are 2 px a cell at 720p, 3 px at 1080p;
# Annelids' 47 cm board puts a tail's 3 mm dark cap on 3 px at 720p (1 px/mm; at 40 % framing a
# 4 mm bar is 2.5 px), where the path-traced bench read tails read empty and caps not seen.
READ_SIZES = {"drift": (1920, 1080), "annelids": (1920, 1080)}


def read_size(game: str) -> tuple[int, int]:
    """The frame size ``game``'s pieces are read at (a camera's main stream)."""
    return READ_SIZES.get(game, WATCH_SIZE)


def watch_size(size: tuple[int, int]) -> tuple[int, int] | None:
    """The smaller size frames of ``size`` are watched at, or None: watched as read."""
    return WATCH_SIZE if size[0] > WATCH_SIZE[0] and size[1] > WATCH_SIZE[1] else None


class CaptureError(RuntimeError):
    """The camera or video cannot be opened or read; the message names the source."""


@dataclass(frozen=True)
class CapturedFrame:
    image: np.ndarray  # BGR uint8
    t: float  # seconds: the video's own time for files and arrays, the clock for live cameras


class WatchFrame(np.ndarray):
    """A frame of the small *watch* stream (the lock and the motion gate run on it) carrying
    ``main``, the full-resolution frame of the same instant: the reader reads from crops of
    ``main`` only (``Reader.read`` scales the lock to it). An ndarray, so everything that
    watches takes it as any frame."""

    main: np.ndarray

    def __new__(cls, watch: np.ndarray, main: np.ndarray) -> "WatchFrame":
        obj = np.asarray(watch).view(cls)
        obj.main = main
        return obj

    def __array_finalize__(self, obj: object) -> None:
        self.main = getattr(obj, "main", None)  # type: ignore[assignment]


def watch_frame(main: np.ndarray, watch: tuple[int, int]) -> np.ndarray:
    """``main`` shrunk to the watch size, carrying ``main`` (the whole frame if no smaller)."""
    if watch[0] >= main.shape[1] or watch[1] >= main.shape[0]:
        return main
    return WatchFrame(cv2.resize(main, watch, interpolation=cv2.INTER_AREA), main)


class Capture(Protocol):
    name: str

    def start(self) -> None: ...
    def read(self) -> CapturedFrame | None: ...  # None: the source has ended
    def close(self) -> None: ...


class _Base(ABC):
    name = "capture"

    def __enter__(self) -> "_Base":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def start(self) -> None: ...

    @abstractmethod
    def read(self) -> CapturedFrame | None: ...

    @abstractmethod
    def close(self) -> None: ...

    # exposure compensation (libcamera's ExposureValue): only a capture that can take it says so
    takes_exposure_value = False

    def set_exposure_value(self, ev: float) -> bool:
        """Ask the camera's auto exposure to aim ``ev`` stops brighter (negative: darker);
        False when this capture cannot."""
        return False

    def frames(self) -> Iterator[CapturedFrame]:
        """Every frame until the source ends (starts the capture if needed)."""
        while True:
            f = self.read()
            if f is None:
                return
            yield f


class ArrayCapture(_Base):
    """Frames from arrays (a rendered game), stamped ``i / fps`` unless times are given."""

    def __init__(self, frames: Iterable[np.ndarray], *, fps: float = 10.0, times: Iterable[float] | None = None,
                 name: str = "arrays") -> None:
        if not fps > 0:
            raise ValueError(f"fps must be positive, got {fps!r}")
        self._source = frames
        self._times = times
        self.fps = float(fps)
        self.name = name
        self._it: Iterator[tuple[int, np.ndarray]] | None = None
        self._t: Iterator[float] | None = None

    def start(self) -> None:
        if self._it is None:
            self._it = enumerate(iter(self._source))
            self._t = iter(self._times) if self._times is not None else None

    def read(self) -> CapturedFrame | None:
        self.start()
        assert self._it is not None
        try:
            i, img = next(self._it)
        except StopIteration:
            return None
        t = next(self._t) if self._t is not None else i / self.fps
        return CapturedFrame(_bgr(img, self.name), float(t))

    def close(self) -> None:
        self._it = None


class OpenCVCapture(_Base):
    """``cv2.VideoCapture`` on a webcam index, a file or a URL. ``factory`` makes the
    capture object (default ``cv2.VideoCapture``): tests inject their own."""

    def __init__(self, source: int | str, *, factory: Callable[[Any], Any] | None = None,
                 clock: Callable[[], float] = time.monotonic, size: tuple[int, int] | None = (1280, 720),
                 paced: bool = False, sleep: Callable[[float], None] = time.sleep,
                 watch: tuple[int, int] | None = None, loop: bool = False) -> None:
        """``paced``: a video file gives each frame no sooner than its time in the video (as a
        camera would), instead of as fast as it is read. ``size``: the capture size asked of
        a webcam; ``watch``: a smaller size to watch at (lock, motion gate), the reader then
        reading crops of the full frame (:class:`WatchFrame`). ``loop``: a video file starts
        again at its end (``loops`` counts the restarts), its times going on from there."""
        self.source = source
        self._watch = watch
        self._paced, self._sleep = paced, sleep
        self.name = f"opencv:{source}"
        self._factory = factory if factory is not None else cv2.VideoCapture
        self._clock = clock
        self._size = size
        self._cap: Any = None
        self._live = isinstance(source, int) or (isinstance(source, str) and "://" in source)
        self._t0 = 0.0
        self._count = 0
        self._loop, self.loops = loop and not self._live, 0
        self._offset = self._last_t = 0.0  # a looped film's time so far, and its last frame's

    def start(self) -> None:
        if self._cap is not None:
            return
        cap = self._factory(self.source)
        if not cap.isOpened():
            cap.release()
            raise CaptureError(f"{self.name}: {why_unopened(self.source)}")
        if self._live and isinstance(self.source, int) and self._size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self._size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self._size[1])
        self._cap, self._t0, self._count = cap, self._clock(), 0

    def read(self) -> CapturedFrame | None:
        self.start()
        ok, img = self._cap.read()
        if (not ok or img is None) and self._loop and self._count:
            # The film again from its first frame (reopened: seeking is not reliable with every
            # codec); times go on, a frame past its last, so that they never run backwards.
            fps = self._cap.get(cv2.CAP_PROP_FPS) or 10.0
            t0, offset = self._t0, self._last_t + 1.0 / fps
            self.close()
            self.start()
            self._t0, self._offset = t0, offset
            self.loops += 1
            ok, img = self._cap.read()
        if not ok or img is None:
            return None
        if self._live:
            t = self._clock() - self._t0
        else:
            fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
            t = self._count / fps if fps > 0 else self._cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            t += self._offset
            self._last_t = t
            if self._paced:
                wait = self._t0 + t - self._clock()
                if wait > 0:
                    self._sleep(wait)
        self._count += 1
        img = _bgr(img, self.name)
        return CapturedFrame(watch_frame(img, self._watch) if self._watch else img, float(t))

    def close(self) -> None:
        cap, self._cap = self._cap, None
        if cap is not None:
            cap.release()


class Picamera2Capture(_Base):
    """The Pi camera through Picamera2 (``cv2.VideoCapture`` cannot open it). ``camera`` is
    a ``Picamera2`` instance or a factory making one (injected; default: the library's)."""

    def __init__(self, camera: Any = None, *, size: tuple[int, int] = (1280, 720),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = "picamera2"
        self._camera = camera
        self._size = size
        self._clock = clock
        self._cam: Any = None
        self._t0 = 0.0
        self._ev: float | None = None  # the exposure compensation asked: asked again of a reopened camera

    def start(self) -> None:
        if self._cam is not None:
            return
        cam = self._camera
        if cam is None:
            try:
                from picamera2 import Picamera2  # the Pi's own library; absent elsewhere
            except ImportError as exc:
                raise CaptureError(f"picamera2: not installed ({exc})") from None
            cam = Picamera2
        # A factory (the library's class itself has capture_array, as a method: it is made too)
        made = isinstance(cam, type) or (callable(cam) and not hasattr(cam, "capture_array"))
        if made:
            cam = cam()
        try:
            cam.configure(self._configure(cam))
            cam.start()
        except Exception:
            # A camera made here and left open keeps it acquired: every later try would be
            # refused as busy, and the camera would stay failed until the service restarts.
            if made and hasattr(cam, "close"):
                _quietly(cam.close)
            raise
        self._cam, self._t0 = cam, self._clock()
        if self._ev is not None:
            self.set_exposure_value(self._ev)

    def _configure(self, cam: Any) -> Any:
        return cam.create_video_configuration(main={"size": tuple(self._size), "format": "RGB888"})

    takes_exposure_value = True

    def set_exposure_value(self, ev: float) -> bool:
        if self._cam is None:
            return False
        try:
            self._cam.set_controls({"ExposureValue": float(ev)})
        except (RuntimeError, ValueError, KeyError) as exc:  # a camera without the control
            log.warning("%s: exposure compensation refused (%s)", self.name, exc)
            return False
        self._ev = float(ev)
        return True

    def read(self) -> CapturedFrame | None:
        self.start()
        img = self._cam.capture_array("main")
        if img is None:
            return None
        # Picamera2's "RGB888" is laid out B, G, R in memory: already what OpenCV expects.
        return CapturedFrame(_bgr(img, self.name), self._clock() - self._t0)

    def close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is not None:
            try:
                cam.stop()  # a camera that failed may refuse to stop: it must be closed all the same
            finally:
                if hasattr(cam, "close"):
                    cam.close()


class Picamera2DualCapture(Picamera2Capture):
    """The Pi camera's two streams at once: ``lores`` (small, YUV420) to watch — the lock and
    the motion gate — and ``main`` (a large sensor mode, e.g. Camera Module 3's 2304x1296) read
    only in crops round the spaces. Each frame is a :class:`WatchFrame` of the lores image
    carrying the main one of the same request. ``camera``: a Picamera2 (or a factory)."""

    def __init__(self, camera: Any = None, *, main: tuple[int, int] = (2304, 1296),
                 lores: tuple[int, int] = (768, 432), clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(camera, size=main, clock=clock)
        self.name = "picamera2 (lores + main)"
        if lores[0] > main[0] or lores[1] > main[1] or lores[0] % 2 or lores[1] % 2:
            raise CaptureError(f"{self.name}: lores {lores} must be even and no larger than main {main}")
        self._lores = lores

    def _configure(self, cam: Any) -> Any:
        return cam.create_video_configuration(main={"size": tuple(self._size), "format": "RGB888"},
                                              lores={"size": tuple(self._lores), "format": "YUV420"})

    def read(self) -> CapturedFrame | None:
        self.start()
        request = self._cam.capture_request()
        try:
            small = request.make_array("lores")
            big = request.make_array("main")
        finally:
            request.release()
        if small is None or big is None:
            return None
        # lores YUV420 arrives as (h * 3/2, w) planes: I420 to BGR.
        w, h = self._lores
        if small.ndim != 2 or small.shape != (h * 3 // 2, w):
            raise CaptureError(f"{self.name}: lores frame of shape {small.shape}, expected {(h * 3 // 2, w)}")
        watch = cv2.cvtColor(small, cv2.COLOR_YUV2BGR_I420)
        return CapturedFrame(WatchFrame(watch, _bgr(big, self.name)), self._clock() - self._t0)


def picamera2_available() -> bool:
    try:
        import picamera2  # noqa: F401
    except ImportError:
        return False
    return True


def _quietly(action: Callable[[], Any]) -> None:
    """Run a clean-up whose own failure says nothing more than the error being raised."""
    try:
        action()
    except Exception:  # noqa: BLE001 - the error that led here is the one to report
        pass


def why_unopened(source: int | str) -> str:
    """Why OpenCV could not open ``source``, as far as the file system tells: a missing file and
    a file that is not a video are different mistakes, with different fixes."""
    generic = "cannot open the camera or video"
    if not isinstance(source, str) or "://" in source:
        return generic
    path = Path(source)
    if source.startswith("/dev/"):
        return generic if path.exists() else "cannot open the camera: no such device (not plugged in?)"
    if not path.exists():
        return "cannot open the video: no such file"
    if path.is_dir():
        return "cannot open the video: a directory, not a video file"
    return "cannot open the video: not a video OpenCV can read (not a video, or its format or codec is not supported)"


def open_capture(spec: str, size: tuple[int, int] = WATCH_SIZE) -> _Base:
    """A capture for ``--source``: ``picamera`` (the Pi camera), a webcam index (``0``), a
    video file or a stream URL; ``auto`` is the Pi camera when Picamera2 is importable,
    else webcam 0. A camera is asked for ``size`` (a game's :func:`read_size`)."""
    if spec == "picamera" or (spec == "auto" and picamera2_available()):
        return Picamera2Capture(size=size)
    if spec == "auto":
        return OpenCVCapture(0, size=size)
    if spec.isdigit():
        return OpenCVCapture(int(spec), size=size)
    return OpenCVCapture(spec, size=size)


def _bgr(img: np.ndarray, name: str) -> np.ndarray:
    if not isinstance(img, np.ndarray) or img.dtype != np.uint8:
        raise CaptureError(f"{name}: frames must be uint8 arrays, got {getattr(img, 'dtype', type(img).__name__)}")
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim == 3 and img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if img.ndim == 3 and img.shape[2] == 3:
        return img
    raise CaptureError(f"{name}: unexpected frame shape {img.shape}")
