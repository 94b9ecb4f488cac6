"""The camera set-up API (/api/setup…): admin only, CSRF on every POST, the snapshot a real
JPEG, the lock's overlay where the camera model put the board, and the calibration steps run
on the live source with clear results — then read with at once, no restart."""

from __future__ import annotations

import re
import time

import cv2
import numpy as np
import pytest

from rules import Fidelity, get_game
from rules.view import View
from tableref.serve import Service
from vision.read.scale import NEEDED_PX_PER_MM, board_scale
from setupscene import SceneCamera, asked_for_less_exposure, camera_feed, finished, reads, search_again, setup_service, until
from webhelp import FAST_SCRYPT, LAN, admin_client, csrf

GAME = "gyges"


@pytest.fixture(scope="module")
def camera():
    return SceneCamera(GAME)


@pytest.fixture
def svc(tmp_path, camera):
    camera.show(View())
    service = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz", GAME)
    yield service
    service.close()


def locked_overlay(client):
    def ok():
        ov = client.get("/api/setup/overlay").get_json()
        return ov if ov["lock"] == "locked" else None

    return until(ok)


def test_a_watcher_gets_403_and_no_csrf_no_post(svc):
    lan = svc.app.test_client()
    token = csrf(lan)
    for path in ("/api/setup", "/api/setup/snapshot.jpg", "/api/setup/overlay", "/api/setup/job"):
        r = lan.get(path, environ_base=LAN)
        assert r.status_code == 403 and "admin PIN" in r.get_json()["error"], path
    r = lan.post("/api/setup/calibrate", json={"step": "empty"}, headers={"X-CSRF-Token": token}, environ_base=LAN)
    assert r.status_code == 403 and "admin PIN" in r.get_json()["error"]
    # The page itself opens (it says to enter the PIN), without the controls' data.
    page = lan.get("/setup", environ_base=LAN)
    assert page.status_code == 200 and b'id="setup-controls" class="side" hidden' in page.data
    admin, post = admin_client(svc)
    r = admin.post("/api/setup/calibrate", json={"step": "empty"})  # no CSRF token
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    assert svc.camera_setup.job() is None


def test_snapshot_is_a_jpeg_encoded_only_when_asked(svc, camera):
    client, _ = admin_client(svc)
    until(lambda: svc.camera_setup.source.latest is not None)
    time.sleep(0.3)
    assert svc.camera_setup.encoded == 0  # frames went by; nobody looked
    r = client.get("/api/setup/snapshot.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.headers["Cache-Control"] == "no-store"
    img = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert img is not None and img.shape == (540, 960, 3)  # 1280x720 sent at the page's 960 px
    # The same frame asked for again is not encoded again (a source held on one frame).
    from types import SimpleNamespace

    from tableref.camera_setup import CameraSetup

    held = SimpleNamespace(latest=svc.camera_setup.source.latest, lock=svc.camera_setup.source.lock)
    setup = CameraSetup(held, svc.camera_setup.spec)
    first = setup.snapshot_jpeg()
    assert setup.snapshot_jpeg() is first and setup.encoded == 1
    held.latest = camera.read()
    assert setup.snapshot_jpeg() != first and setup.encoded == 2


def test_overlay_draws_the_lock_where_the_board_is(svc, camera):
    client, _ = admin_client(svc)
    ov = locked_overlay(client)
    assert (ov["width"], ov["height"]) == (1280, 720) and ov["reading"] == "setup"
    sheet = camera.sheet
    w, h = sheet.size
    truth = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), camera.pose.H)[0]
    assert np.abs(np.float32(ov["outline"]) - truth).max() < 2.0
    assert [s["id"] for s in ov["spaces"]] == [s.id for s in sheet.shapes]
    centres = cv2.perspectiveTransform(np.float32([[(s.x, s.y) for s in sheet.shapes]]), camera.pose.H)[0]
    assert np.abs(np.float32([(s["x"], s["y"]) for s in ov["spaces"]]) - centres).max() < 2.0
    assert {s["verdict"] for s in ov["spaces"]} == {"unknown"}  # set-up mode: nothing read yet
    assert ov["exposure_ev"] is None  # a camera that takes no exposure compensation is not asked
    # the board's scale where it is smallest, measured through the lock's pose: big enough here
    truth = board_scale(camera.pose.H, sheet)
    assert ov["px_per_mm"] == pytest.approx(truth.px_per_mm, rel=0.02) and ov["smallest_at"] == truth.space
    assert ov["needed_px_per_mm"] == NEEDED_PX_PER_MM[GAME] < ov["px_per_mm"]
    state = client.get("/api/setup").get_json()
    assert state["mode"] == "setup" and not state["calibrated"] and state["lens"] is None
    assert svc.feed.status.state == "setup"  # the live page's badge says so


def test_overlay_says_the_exposure_asked_for_the_sheet(svc):
    """A Pi camera asked for less exposure for the sheet (vision/camera/exposure.py): the page
    says so beside the lock (setup.js), in stops."""
    from types import SimpleNamespace

    from tableref.camera_setup import CameraSetup
    from vision.camera.exposure import SheetExposure

    until(lambda: svc.camera_setup.source.latest is not None)
    live = svc.camera_setup.source
    held = SimpleNamespace(latest=live.latest, lock=live.lock, reader=None, last_reading=None, last_read_at=None,
                           exposure_ev=SheetExposure(ev=-0.5).ev)
    assert CameraSetup(held, svc.camera_setup.spec).overlay().to_dict()["exposure_ev"] == -0.5
    held.exposure_ev = None  # a webcam, a video: not asked, nothing said
    assert CameraSetup(held, svc.camera_setup.spec).overlay().to_dict()["exposure_ev"] is None


def test_calibration_says_which_marker_is_missing_then_reads_at_once(svc, camera, tmp_path):
    client, post = admin_client(svc)
    locked_overlay(client)
    camera.show(View(), cover_marker=2)
    search_again(svc.camera_setup.source)
    time.sleep(0.3)
    r = post("/api/setup/calibrate", {"step": "empty"})
    assert r.status_code == 202 and r.get_json()["state"] == "running"
    job = finished(client)
    assert job["state"] == "failed"
    assert "corner marker 2 (bottom-right) was not found" in job["result"], job
    assert not (tmp_path / "cal" / "gyges.npz").exists()

    camera.show(View())
    locked_overlay(client)
    r = post("/api/setup/calibrate", {"step": "empty"})
    assert r.status_code == 202
    busy = post("/api/setup/calibrate", {"step": "empty"})
    assert busy.status_code == 409 and "still running" in busy.get_json()["error"]
    job = finished(client)
    assert job["state"] == "done" and "saved to" in job["result"], job
    assert "small in the picture" not in job["result"]
    assert (tmp_path / "cal" / "gyges.npz").exists()
    # Read with at once (no restart): the empty board, then the game's position, space by space.
    assert until(lambda: {s["verdict"] for s in client.get("/api/setup/overlay").get_json()["spaces"]} == {"empty"})
    view = get_game(GAME).default_setup().view(Fidelity.KIND)
    camera.show(view)

    reads(client, view)
    assert client.get("/api/setup").get_json()["mode"] == "reading"


def test_a_board_too_small_in_the_picture_is_said_with_its_figures(tmp_path):
    """The sheet a third of the picture: it locks, and its far row is too few pixels for the
    tags. The overlay carries the figures (setup.js says them beside the lock), and learning
    the empty board still works but says so, with where, how small and what is needed."""
    camera = SceneCamera(GAME, fill=(0.3, 0.3))
    truth = board_scale(camera.pose.H, camera.sheet)
    assert truth.too_small  # (the scene as the test means it)
    service = setup_service(tmp_path, camera, tmp_path / "cal" / "gyges.npz", GAME)
    try:
        client, post = admin_client(service)
        ov = locked_overlay(client)
        assert ov["px_per_mm"] == pytest.approx(truth.px_per_mm, rel=0.02)
        assert ov["px_per_mm"] < ov["needed_px_per_mm"] == NEEDED_PX_PER_MM[GAME]
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        job = finished(client)
        assert job["state"] == "done", job
        said = re.search(r"; the board is small in the picture: at (\w+) a millimetre is ([0-9.]+) px, and Gygès's "
                         r"pieces are read from ([0-9.]+) px: move the camera closer, or let the board fill more of "
                         r"the picture", job["result"])
        assert said, job
        assert said[1] == truth.space and float(said[2]) == pytest.approx(truth.px_per_mm, abs=0.02)
        assert float(said[3]) == NEEDED_PX_PER_MM[GAME]
    finally:
        service.close()


def test_bad_steps_are_refused_clearly(svc):
    client, post = admin_client(svc)
    r = post("/api/setup/calibrate", {"step": "colours"})
    assert r.status_code == 202
    job = finished(client)
    assert job["state"] == "failed" and "read by tags" in job["result"]
    r = post("/api/setup/calibrate", {"step": "everything"})
    assert r.status_code == 400 and "step must be one of empty, colours" in r.get_json()["error"]
    r = post("/api/setup/calibrate", {"steps": "empty"})
    assert r.status_code == 400 and '"step"' in r.get_json()["error"]


def test_no_camera_no_setup(tmp_path):
    from webhelp import make_service

    service = make_service(tmp_path)
    try:
        client, _ = admin_client(service)
        r = client.get("/api/setup")
        assert r.status_code == 404 and "not a camera" in r.get_json()["error"]
        assert b'id="no-camera"' in client.get("/setup").data
    finally:
        service.close()


def test_a_camera_without_its_calibration_starts_in_setup_mode(tmp_path):
    from tableref.config import load_config
    from tableref.service import _open_camera

    cfg = tmp_path / "t.toml"
    cfg.write_text('[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n'
                   'device = "/dev/video9"\nbackend = "opencv"\n')  # a camera not plugged in: waited for
    config = load_config(cfg)
    config.check_files()  # a calibration not made yet is the set-up state, not an error
    feed = _open_camera(config.source, "gyges")
    assert feed.camera.reader is None and feed.spec.calibration == tmp_path / "cal.npz"


def test_a_colour_game_learns_its_colours_from_the_layout(tmp_path):
    from vision.read.calibration import colour_layout

    camera = SceneCamera("anacund")
    service = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game="anacund", pin_hash=FAST_SCRYPT,
                      settle=0.15, readings=2, feed=camera_feed(camera, tmp_path / "anacund.npz", "anacund"))
    service.start()
    try:
        client, post = admin_client(service)
        state = client.get("/api/setup").get_json()
        layout = colour_layout(camera.sheet)
        assert state["colour_game"] and state["colours"]["layout"] == {s: list(t) for s, t in sorted(layout.items())}
        locked_overlay(client)
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        job = finished(client)
        assert job["state"] == "done" and "now lay out the pieces" in job["result"], job
        assert client.get("/api/setup").get_json()["mode"] == "setup"  # no reader without the colours
        camera.show(layout)
        time.sleep(0.3)
        assert post("/api/setup/calibrate", {"step": "colours", "position": "layout"}).status_code == 202
        job = finished(client)
        assert job["state"] == "done" and f"read back {len(layout)}/{len(layout)} pieces" in job["result"], job
        until(lambda: client.get("/api/setup").get_json()["mode"] == "reading")
    finally:
        service.close()


def test_a_dual_stream_camera_is_set_up_on_its_watched_picture_and_read_at_full_size(tmp_path):
    camera = SceneCamera(GAME, watch=(640, 360))  # the lock watches 640x360; the reader reads 1280x720
    service = setup_service(tmp_path, camera, tmp_path / "gyges.npz", GAME)
    try:
        client, post = admin_client(service)
        ov = locked_overlay(client)
        assert (ov["width"], ov["height"]) == (640, 360)  # the page draws on the watched picture
        assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
        assert finished(client)["state"] == "done"
        view = get_game(GAME).default_setup().view(Fidelity.KIND)
        camera.show(view)

        reads(client, view)
    finally:
        service.close()


def test_the_exposure_the_board_was_learned_at_is_saved_and_asked_again_after_a_restart(tmp_path, camera):
    """A Pi camera metered half a stop down for the sheet: the empty board learned there keeps
    that exposure in its calibration, and the service started again on it asks the camera for
    it at once (before, it read at the camera's own until the meter stepped down again)."""
    from tableref.camera_setup import CameraSpec, first_reader
    from tableref.service import CameraFeed
    from vision.read.empty_board import Calibration
    from vision.read.lock import BoardLock

    calibration = tmp_path / "cal" / "gyges.npz"
    camera.show(View())
    svc = setup_service(tmp_path, camera, calibration, GAME)
    try:
        client, post = admin_client(svc)
        locked_overlay(client)
        with asked_for_less_exposure(camera, svc):
            assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
            assert finished(client)["state"] == "done"
    finally:
        svc.close()
    spec = CameraSpec(GAME, calibration, Fidelity.KIND)
    reader, _ = first_reader(spec)
    assert Calibration.load(calibration, reader.grid).exposure_ev == -0.5 == reader.cal.exposure_ev
    asked: list[float] = []
    camera.takes_exposure_value = True
    camera.set_exposure_value = lambda ev: asked.append(ev) or True
    try:
        feed = CameraFeed(camera, reader, fidelity=Fidelity.KIND, name=camera.name, lock=BoardLock(camera.sheet), spec=spec)
        assert feed.camera.exposure_ev == -0.5
        again = Service(tmp_path / "j2.sqlite3", tmp_path / "admin2.json", game=GAME, pin_hash=FAST_SCRYPT,
                        settle=0.15, readings=2, feed=feed)
        again.start()
        try:
            until(lambda: asked)
        finally:
            again.close()
    finally:
        camera.takes_exposure_value = False
        del camera.set_exposure_value
    assert asked[0] == -0.5
