"""The set-up page's lens step ("Measure the lens"): admin only, CSRF on its POST; on a camera
filming the ChArUco sheet (the camera model's shots through a k1 -0.2 lens) it ends with a lens
file close to the truth, saved beside the calibration, and the running lock and reader using it
at once; a camera that never shows the sheet ends with a clear error after the time-out."""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import replace

import cv2
import numpy as np
import pytest

from rules.view import View
from setupscene import SceneCamera, finished, setup_service, until
from vision.camera.capture import CapturedFrame
from vision.read.lens import Lens, charuco_board
from vision.simulated.camera_model import CameraSetup
from vision.simulated.scene_film import charuco_shots
from vision.simulated.synth import Renderer
from webhelp import LAN, admin_client, csrf

GAME = "gyges"
SIZE = (960, 540)  # small frames keep the test fast; the lens is measured at the stream's size
TRUTH = CameraSetup(size=SIZE, k1=-0.2, tilt_deg=20)


class SheetCamera(SceneCamera):
    """The board camera of the set-up tests, which can also film the ChArUco sheet held up in
    front of it: ``hold(images)`` shows those shots one after another, round and round."""

    def __init__(self) -> None:
        from rules import get_game
        from vision.sheets.layout import Sheet

        sheet = Sheet.for_board(get_game(GAME).board())
        super().__init__(GAME, sheet=sheet, renderer=Renderer(sheet, size=SIZE))
        self._held: itertools.cycle | None = None
        self._held_lock = threading.Lock()

    def hold(self, images: list[np.ndarray] | None) -> None:
        with self._held_lock:
            self._held = itertools.cycle(images) if images else None

    def read(self) -> CapturedFrame | None:
        got = super().read()  # keeps the pace (and the close)
        with self._held_lock:
            held = next(self._held) if self._held is not None else None
        if got is None or held is None:
            return got
        return CapturedFrame(held.copy(), got.t)


@pytest.fixture(scope="module")
def shots():
    return [s.image for s in charuco_shots(charuco_board(), TRUTH)]


@pytest.fixture
def camera():
    return SheetCamera()


@pytest.fixture
def svc(tmp_path, camera):
    service = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz", GAME)
    yield service
    service.close()


def test_the_lens_step_is_for_the_admin_only(svc):
    lan = svc.app.test_client()
    token = csrf(lan)
    assert lan.get("/api/setup/lens-sheet.png", environ_base=LAN).status_code == 403
    r = lan.post("/api/setup/calibrate", json={"step": "lens"}, headers={"X-CSRF-Token": token}, environ_base=LAN)
    assert r.status_code == 403 and "admin PIN" in r.get_json()["error"]
    admin, _ = admin_client(svc)
    r = admin.post("/api/setup/calibrate", json={"step": "lens"})  # no CSRF token
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    assert svc.camera_setup.job() is None
    # The admin downloads the sheet the step looks for: the whole ChArUco board is found in it.
    r = admin.get("/api/setup/lens-sheet.png")
    assert r.status_code == 200 and r.mimetype == "image/png" and "attachment" in r.headers["Content-Disposition"]
    img = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_GRAYSCALE)
    _, ids, _, _ = cv2.aruco.CharucoDetector(charuco_board()).detectBoard(img)
    assert ids is not None and len(ids) == 6 * 4  # every inner corner of the 7 x 5 squares
    page = admin.get("/setup").data
    assert b'id="cal-lens"' in page and b'href="/api/setup/lens-sheet.png"' in page


def test_measure_the_lens_then_read_through_it_at_once(svc, camera, shots, tmp_path):
    client, post = admin_client(svc)
    source = svc.camera_setup.source
    # The empty board first (learned through no lens), so that a reader is running.
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    job = finished(client)
    assert job["state"] == "done", job
    until(lambda: source.reader is not None)
    state = client.get("/api/setup").get_json()
    assert state["lens"] is None and not state["lens_step"]["relearn"]
    assert state["lens_step"]["saves_to"] == str(tmp_path / "cal" / "gyges-lens.json")

    camera.hold([s for s in shots for _ in (0, 1)])  # the admin holds the sheet up, turning it, pausing
    svc.camera_setup.lens_views = len(shots)
    svc.camera_setup.lens_wait = 5.0
    r = post("/api/setup/calibrate", {"step": "lens"})
    assert r.status_code == 202 and r.get_json()["step"] == "lens"
    seen = set()

    def done():
        job = client.get("/api/setup/job").get_json()
        seen.add(job["progress"])
        return job if job["state"] != "running" else None

    job = until(done, timeout=60)
    assert job["state"] == "done", job
    assert any(f"of {len(shots)} views" in p for p in seen), seen  # progress counted the views
    assert any("too alike skipped" in p for p in seen), seen  # the same shot seen again is not kept
    path = tmp_path / "cal" / "gyges-lens.json"
    assert f"saved to {path}" in job["result"] and "(good)" in job["result"], job
    assert "learn it again" in job["result"]
    lens = Lens.load(path)
    assert lens.size == SIZE and lens.error_px < 1.0
    # Within a sensible error of the truth: where each lens bends a pinhole's points. The nine
    # views of the sheet reach the middle of the frame well, its corners less (k2 is left free
    # there: 6 px off at 10 % from a corner), so: the middle 60 % within 2 px, the median of
    # the middle 80 % within half a pixel.
    truth = Lens(TRUTH.K, TRUTH.dist, SIZE)
    assert abs(lens.K[0, 0] - TRUTH.K[0, 0]) / TRUTH.K[0, 0] < 0.03

    def off(f):
        xs, ys = np.meshgrid(np.linspace(0.5 - f / 2, 0.5 + f / 2, 9) * SIZE[0],
                             np.linspace(0.5 - f / 2, 0.5 + f / 2, 5) * SIZE[1])
        ideal = np.stack([xs.ravel(), ys.ravel()], axis=1)
        return np.hypot(*(lens.distort_points(ideal) - truth.distort_points(ideal)).T)

    assert off(0.6).max() < 2.0 and np.median(off(0.8)) < 0.5, (off(0.6).max(), np.median(off(0.8)))

    # In use at once, no restart: the lock and the reader (the saved calibration) through it.
    camera.hold(None)
    until(lambda: source.lock.lens is not None and source.reader is not None)
    assert np.allclose(source.lock.lens.K, lens.K) and np.allclose(source.reader.lens.K, lens.K)
    assert svc.camera_setup.spec.lens_path == path
    state = client.get("/api/setup").get_json()
    assert state["lens"] == str(path) and state["lens_step"]["relearn"]
    assert state["lens_step"]["error_px"] == pytest.approx(lens.error_px, abs=1e-3)
    # Learning the empty board again (through the new lens) clears the note.
    time.sleep(0.05)  # the file times differ
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    assert finished(client)["state"] == "done"
    assert not client.get("/api/setup").get_json()["lens_step"]["relearn"]


def test_a_camera_that_never_shows_the_sheet_ends_with_a_clear_error(svc, camera, tmp_path):
    client, post = admin_client(svc)
    camera.show(View())
    svc.camera_setup.lens_wait = 1.0
    t0 = time.monotonic()
    assert post("/api/setup/calibrate", {"step": "lens"}).status_code == 202
    busy = post("/api/setup/calibrate", {"step": "empty"})
    assert busy.status_code == 409 and "lens step is still running" in busy.get_json()["error"]
    job = finished(client, timeout=15)
    assert job["state"] == "failed" and "ChArUco sheet was not seen in 1 s" in job["result"], job
    assert time.monotonic() - t0 < 10
    assert not (tmp_path / "cal" / "gyges-lens.json").exists()
    assert svc.camera_setup.source.lock.lens is None


def test_the_service_loads_the_lens_the_page_saved(tmp_path):
    """No [source.camera] lens key: the next start uses the lens saved beside the calibration;
    with the key, that file (and the page saves there)."""
    from tableref.config import load_config
    from tableref.service import _open_camera

    cfg = tmp_path / "t.toml"
    head = '[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n' \
           'device = "none.avi"\nbackend = "opencv"\n'
    cfg.write_text(head)
    feed = _open_camera(load_config(cfg).source, "gyges")
    assert feed.spec.lens is None and feed.camera.lock.lens is None
    Lens(TRUTH.K, TRUTH.dist, SIZE, 0.3).save(tmp_path / "cal-lens.json")
    feed = _open_camera(load_config(cfg).source, "gyges")
    assert feed.spec.lens_path == tmp_path / "cal-lens.json" and np.allclose(feed.camera.lock.lens.K, TRUTH.K)
    cfg.write_text(head + 'lens = "mine.json"\n')
    Lens(TRUTH.K * [[1.1], [1.1], [1]], TRUTH.dist, SIZE, 0.3).save(tmp_path / "mine.json")
    feed = _open_camera(load_config(cfg).source, "gyges")
    assert feed.spec.lens_path == tmp_path / "mine.json" and feed.camera.lock.lens.K[0, 0] > 1.05 * TRUTH.K[0, 0]
    from tableref.lens_setup import state

    assert state(feed.spec)["saves_to"] == str(tmp_path / "mine.json")


class BarrelCamera(SceneCamera):
    """The board filmed by the camera model through a wide lens's barrel (k1 -0.1), no lens file."""

    def __init__(self) -> None:
        from rules import get_game
        from vision.sheets.layout import Sheet
        from vision.simulated.camera_model import CameraModel

        sheet = Sheet.for_board(get_game(GAME).board())
        self.model = CameraModel(sheet, CameraSetup(size=(1280, 720), tilt_deg=25, fill=0.6, k1=-0.1, yaw_deg=3.0))
        super().__init__(GAME, sheet=sheet, renderer=Renderer(sheet, size=(1280, 720)))

    def show(self, view: View, **_: object) -> None:
        from vision.simulated.camera_model import Scene

        clean = self.model.render(Scene(view=view, heights=1.0, seed=7))
        with self._lock:
            self._clean = clean


def test_the_empty_board_step_measures_a_wide_lens_from_the_board(tmp_path):
    """No lens file, a barrel: learning the empty board measures the lens from its printed
    lines, saves it where the lens step would, and the lock and reader use it at once; the
    board's position is then read right, space by space."""
    from rules import Fidelity, get_game
    from setupscene import reads

    camera = BarrelCamera()
    svc = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz", GAME)
    try:
        client, post = admin_client(svc)
        source = svc.camera_setup.source
        until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        job = finished(client)
        path = tmp_path / "cal" / "gyges-lens.json"
        assert job["state"] == "done" and "printed lines bow by up to" in job["result"], job
        assert f"saved to {path}" in job["result"]
        lens = Lens.load(path)
        assert lens.dist[0] < 0
        until(lambda: source.lock.lens is not None and source.reader is not None and source.reader.lens is not None)
        assert np.allclose(source.lock.lens.dist, lens.dist) and np.allclose(source.reader.lens.dist, lens.dist)
        state = client.get("/api/setup").get_json()
        assert state["lens"] == str(path) and not state["lens_step"]["relearn"]
        view = get_game(GAME).default_setup().view(Fidelity.KIND)
        camera.show(view)
        reads(client, view)
    finally:
        svc.close()


def test_a_lens_measured_from_the_board_is_measured_again_each_time_it_is_learned_empty(tmp_path):
    """The camera changed since the board's lines showed a barrel (a standard lens now): learning
    the empty board again measures them again, finds them straight and removes the lens saved
    beside the calibration; the lock and reader then read without one, and read the board right.
    A lens measured on the ChArUco sheet is the admin's: never measured from the board."""
    from rules import Fidelity, get_game
    from setupscene import reads
    from tableref.lens_setup import measures_board
    from vision.simulated.camera_model import CameraModel

    camera = BarrelCamera()
    svc = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz", GAME)
    try:
        client, post = admin_client(svc)
        source = svc.camera_setup.source
        path = tmp_path / "cal" / "gyges-lens.json"
        until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        assert finished(client)["state"] == "done" and Lens.load(path).from_board
        until(lambda: source.lock.lens is not None)
        camera.model = CameraModel(camera.model.sheet, CameraSetup(size=(1280, 720), tilt_deg=25, fill=0.6, yaw_deg=3.0))
        camera.show(View())
        time.sleep(0.5)
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        job = finished(client)
        assert job["state"] == "done" and f"lie straight now: the lens measured from them before ({path})" in job["result"], job
        assert not path.exists()
        until(lambda: source.lock.lens is None and source.reader is not None and source.reader.lens is None)
        assert client.get("/api/setup").get_json()["lens"] is None
        view = get_game(GAME).default_setup().view(Fidelity.KIND)
        camera.show(view)
        reads(client, view)
        assert not measures_board(replace(svc.camera_setup.spec, lens=Lens(TRUTH.K, TRUTH.dist, SIZE, 0.3)))
    finally:
        svc.close()


def test_the_board_lens_is_written_only_once_the_board_is_learned(tmp_path):
    """Measuring the lines writes nothing: a lock that then fails leaves no lens file behind."""
    from tableref.camera_setup import CameraSpec
    from tableref.lens_setup import from_board, keep_board_lens
    from vision.simulated.camera_model import Scene

    camera = BarrelCamera()
    frames = [camera.model.render(Scene(view=View(), heights=1.0, seed=s)) for s in range(3)]
    spec = CameraSpec(GAME, tmp_path / "cal.npz")
    step = from_board(spec, camera.model.sheet, frames)
    assert step.lens is not None and step.write and not (tmp_path / "cal-lens.json").exists()
    keep_board_lens(step)
    assert Lens.load(tmp_path / "cal-lens.json").from_board


def test_a_configured_lens_file_measured_from_the_board_is_made_straight_not_removed(tmp_path):
    """``[source.camera] lens`` is the admin's file: when the board's lines lie straight again, a
    board-measured lens there is rewritten straight (the config still names it) and the page says so."""
    from tableref.camera_setup import CameraSpec
    from tableref.lens_setup import from_board, keep_board_lens
    from vision.simulated.camera_model import CameraModel, Scene

    barrel = BarrelCamera()
    straight = CameraModel(barrel.model.sheet, CameraSetup(size=(1280, 720), tilt_deg=25, fill=0.6, yaw_deg=3.0))
    frames = [straight.render(Scene(view=View(), heights=1.0, seed=s)) for s in range(3)]
    own = tmp_path / "etc" / "wide-lens.json"
    bent = Lens(TRUTH.K, np.array([-0.1, 0, 0, 0, 0], float), (1280, 720), float("nan"), True)
    spec = CameraSpec(GAME, tmp_path / "cal.npz", lens=bent, lens_path=own)
    step = from_board(spec, barrel.model.sheet, frames)
    assert step.write and not step.remove and step.path == own, step
    assert f"{own}, the lens measured from them before, now holds a straight lens" in str(step.phrase)
    keep_board_lens(step)
    kept = Lens.load(own)
    assert np.all(kept.dist == 0) and not (tmp_path / "cal-lens.json").exists()


def test_a_lens_that_cannot_be_removed_is_said_with_its_file(tmp_path):
    """A board-measured lens beside the calibration that the lines no longer need, but that cannot
    be removed: one SetupError naming the file, nothing raised past it."""
    from tableref.camera_setup import SetupError
    from tableref.lens_setup import BoardLensStep, keep_board_lens

    path = tmp_path / "cal-lens.json"
    path.mkdir()  # not a file: unlink fails (EISDIR)
    with pytest.raises(SetupError, match=f"^{path}: cannot remove the lens: "):
        keep_board_lens(BoardLensStep(None, path, False, True, "", "straight"))
