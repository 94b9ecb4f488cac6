"""A synthetic camera for the set-up tests: the camera model's renderer filming a scene the
test changes (the empty board, a position, a hand over a marker), delivered in real time as a
capture (vision.camera.capture's interface), each frame a fresh shot (shake, sensor noise)."""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from dataclasses import replace

import numpy as np

from rules import Fidelity, get_game
from rules.view import View
from tableref.camera_setup import CameraSpec
from tableref.service import CameraFeed
from vision.camera.capture import CapturedFrame, watch_frame
from vision.read.lock import BoardLock
from vision.sheets.layout import Sheet
from vision.simulated.synth import Effects, Renderer
from waiting import wait_for


class SceneCamera:
    """``show(view)`` changes what is in front of the camera; ``read`` paces at ``fps``."""

    name = "synthetic camera"

    def __init__(self, game: str = "gyges", *, fps: float = 12.0, seed: int = 3, sheet: Sheet | None = None,
                 renderer: Renderer | None = None, watch: tuple[int, int] | None = None,
                 fill: tuple[float, float] = (0.85, 0.95)) -> None:
        self.sheet = sheet or Sheet.for_board(get_game(game).board())
        self.renderer = renderer or Renderer(self.sheet)
        self.rng = np.random.default_rng(seed)
        # Each frame's exposure on its own generator: read() runs on the source's thread while
        # show() draws on the test's, and a numpy Generator is not to be shared across threads.
        self.shot_rng = np.random.default_rng(seed + 1)
        self.pose = self.renderer.random_pose(self.rng, rotation=8.0, fill=fill)  # the sheet's share of the frame
        self.effects = replace(Effects(), blur=0.6)
        self.fps = fps
        self.watch = watch  # a dual stream: frames this size carrying the full one (capture.WatchFrame)
        self._lock = threading.Lock()
        self._clean: np.ndarray | None = None
        self._closed = threading.Event()
        self._next = 0.0
        self.cover_marker: int | None = None
        self.show(View())

    def show(self, view: View, *, cover_marker: int | None = None, hand: bool = False) -> None:
        """Film ``view`` from now on (``cover_marker``: a corner marker hidden under a card;
        ``hand``: a hand held still over the middle of the board)."""
        effects = self.effects
        if hand:
            w, h = self.renderer.size
            effects = replace(effects, hand=(w / 2, h / 2, -1.5708, 0.1 * w))  # in from below
        clean = self.renderer.frame(view, self.pose, effects, self.rng, noise=False)
        if cover_marker is not None:
            corners = self.sheet.marker_corners()[cover_marker]
            import cv2

            px = cv2.perspectiveTransform(corners[None].astype(np.float32), self.pose.H)[0]
            pad = 6
            x0, y0 = (px.min(axis=0) - pad).astype(int)
            x1, y1 = (px.max(axis=0) + pad).astype(int)
            clean = clean.copy()
            clean[max(0, y0):y1, max(0, x0):x1] = (90, 120, 160)  # a card laid over it
        with self._lock:
            self._clean = clean

    def start(self) -> None:
        self._closed.clear()

    def read(self) -> CapturedFrame | None:
        if self._closed.is_set():
            return None
        wait = self._next - time.monotonic()
        if wait > 0 and self._closed.wait(wait):
            return None
        self._next = max(self._next, time.monotonic()) + 1 / self.fps
        with self._lock:
            clean = self._clean
        assert clean is not None
        image = self.renderer.reshoot(clean, self.effects, self.shot_rng, 0.2)
        return CapturedFrame(image if self.watch is None else watch_frame(image, self.watch), time.monotonic())

    def close(self) -> None:
        self._closed.set()


def camera_feed(camera: SceneCamera, calibration, game: str = "gyges") -> CameraFeed:
    """A camera feed in set-up mode (no reader until the page calibrates it), as the service
    opens one whose calibration file does not exist yet."""
    spec = CameraSpec(game, calibration, Fidelity.KIND)
    return CameraFeed(camera, None, fidelity=Fidelity.KIND, name=camera.name, lock=BoardLock(camera.sheet), spec=spec)


def own_board(game: str = "gyges", **kw: float) -> Sheet:
    """A board that is not the printed sheet (see :func:`own_geometry`), as the camera reads it."""
    return Sheet.from_geometry(get_game(game).board(), own_geometry(game, **kw))


def own_geometry(game: str = "gyges", *, scale: float = 0.8, gap: float = 6.0, marker_mm: float = 30.0):
    """A board that is not the printed sheet: 0.8 of its size, the markers stuck on closer
    to the spaces (its geometry made by the fit itself, from an exact top-down view)."""
    from vision.sheets.geometry import fit_geometry, reference_spaces

    board = get_game(game).board()
    printed = Sheet.for_board(board)
    ox, oy = printed.offset
    xs = [v for s in printed.shapes for v in ((s.rect[0], s.rect[0] + s.rect[2]) if s.rect else (s.x, s.x))]
    ys = [v for s in printed.shapes for v in ((s.rect[1], s.rect[1] + s.rect[3]) if s.rect else (s.y, s.y))]
    x0, x1, y0, y1 = min(xs) - ox, max(xs) - ox, min(ys) - oy, max(ys) - oy  # board-file mm
    m, g = marker_mm / scale, gap / scale + 0.4 * printed.pitch
    origins = {0: (x0 - g - m, y0 - g - m), 1: (x1 + g, y0 - g - m), 2: (x1 + g, y1 + g), 3: (x0 - g - m, y1 + g)}
    px = lambda x, y: (100 + 3 * x, 100 + 3 * y)  # noqa: E731  (any view straight from above)
    markers = {i: np.float32([px(x, y), px(x + m, y), px(x + m, y + m), px(x, y + m)]) for i, (x, y) in origins.items()}
    handles = {r: px(board.space(r).x, board.space(r).y) for r in reference_spaces(board)}
    return fit_geometry(board, handles, markers, marker_mm=marker_mm)


def until(check, timeout: float = 20.0):
    """``check()``'s first true answer, polled (tests/waiting.py)."""
    return wait_for(check, timeout, "the set-up page")


def finished(client, timeout: float = 60.0):
    """The set-up page's calibration job once it is no longer running."""
    def ok():
        job = client.get("/api/setup/job").get_json()
        return job if job and job["state"] != "running" else None

    return until(ok, timeout=timeout)


def reads(client, view: View, timeout: float = 15.0):
    """Wait until the set-up page's overlay reads ``view``, space by space."""
    def read_right():
        spaces = client.get("/api/setup/overlay").get_json()["spaces"]
        return all(tuple(s["tokens"]) == tuple(view.get_tokens(s["id"])) for s in spaces)

    return until(read_right, timeout=timeout)


def setup_service(tmp_path, camera: SceneCamera, calibration, game: str = "gyges"):
    """A started service on ``camera`` in set-up mode (the set-up page's tests): close it after."""
    from tableref.serve import Service
    from webhelp import FAST_SCRYPT

    service = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game=game, pin_hash=FAST_SCRYPT,
                      settle=0.15, readings=2, feed=camera_feed(camera, calibration, game))
    service.start()
    return service


def search_again(source) -> None:
    """As after a bump, the camera's lock searches again: a fresh lock handed to the source's
    own thread (``CameraSource.use``). Resetting the lock from the test's thread raced with the
    source's tracking (a KeyError in ``BoardLock._track``: the source failed)."""
    source.use(source.reader, lock=BoardLock(source.lock.sheet, lens=source.lock.lens))


@contextmanager
def asked_for_less_exposure(camera, svc):
    """The scene camera as a Pi camera that was asked for half a stop less for the sheet."""
    camera.takes_exposure_value = True
    camera.set_exposure_value = lambda ev: True
    svc.feed.camera.exposure.ev = -0.5
    try:
        yield
    finally:
        camera.takes_exposure_value = False
        del camera.set_exposure_value  # the scene camera as it was: it takes no compensation
        svc.feed.camera.exposure.ev = 0.0
