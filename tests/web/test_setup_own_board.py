"""Fitting your own board on the set-up page (/api/setup/board, /api/setup/geometry): four
handles on four named spaces and the stuck-on markers give the board's geometry, saved where
the set-up says; the empty board is then learned on it and positions are read through it.
Refusals name what is wrong (a handle swapped, a marker covered)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from rules import Fidelity, get_game
from rules.view import View
from tableref.serve import Service
from setupscene import SceneCamera, camera_feed, reads, setup_service, until
from webhelp import FAST_SCRYPT, admin_client

pytest.importorskip("vision.sheets.geometry", reason="the own-board fit is not in this checkout")

from setupscene import own_board  # noqa: E402
from vision.simulated.synth import Renderer  # noqa: E402

GAME = "gyges"


@pytest.fixture(scope="module")
def camera():
    sheet = own_board()
    return SceneCamera(GAME, sheet=sheet, renderer=Renderer(sheet))


@pytest.fixture
def svc(tmp_path, camera):
    camera.show(View())
    service = setup_service(tmp_path, camera, tmp_path / "gyges.npz", GAME)
    yield service
    service.close()


def true_px(camera, space):
    import cv2

    s = camera.sheet.by_id[space]
    return [float(v) for v in cv2.perspectiveTransform(np.float32([[(s.x, s.y)]]), camera.pose.H)[0][0]]


def test_fit_my_own_board_then_read_through_it(svc, camera, tmp_path):
    client, post = admin_client(svc)
    until(lambda: svc.camera_setup.source.latest is not None)
    state = client.get("/api/setup").get_json()
    assert state["own_board"] == {"geometry": str(tmp_path / "gyges-geometry.json"), "fitted": False, "why_not": None}
    layout = client.get("/api/setup/board").get_json()
    refs = layout["reference"]
    assert len(refs) == 4 and set(layout["start"]) == set(refs)
    assert {s["id"] for s in layout["spaces"]} == {s.id for s in camera.sheet.shapes}

    truth = {r: true_px(camera, r) for r in refs}
    swapped = dict(truth, **{refs[0]: truth[refs[1]], refs[1]: truth[refs[0]]})
    r = post("/api/setup/geometry", {"handles": swapped})
    assert r.status_code == 400 and "wrong order" in r.get_json()["error"], r.get_json()
    r = post("/api/setup/geometry", {"handles": {k: v for k, v in truth.items() if k != refs[2]}})
    assert r.status_code == 400 and f"expected one for each of {', '.join(refs)}" in r.get_json()["error"]
    assert not (tmp_path / "gyges-geometry.json").exists()

    # Handles a few pixels off, as a finger puts them: the fit holds.
    near = {k: [x + 1.5, y - 1.0] for k, (x, y) in truth.items()}
    r = post("/api/setup/geometry", {"handles": near})
    assert r.status_code == 200, r.get_json()
    assert "now learn the empty board" in r.get_json()["result"]
    assert (tmp_path / "gyges-geometry.json").exists() and r.get_json()["state"]["own_board"]["fitted"]
    until(lambda: client.get("/api/setup/overlay").get_json()["lock"] == "locked")
    assert post("/api/setup/calibrate", {"step": "empty"}).status_code == 202
    job = until(lambda: (j := client.get("/api/setup/job").get_json()) and j["state"] != "running" and j)
    assert job["state"] == "done", job

    view = get_game(GAME).default_setup().view(Fidelity.KIND)
    camera.show(view)

    reads(client, view, timeout=20.0)


def test_a_covered_marker_is_named(svc, camera):
    client, post = admin_client(svc)
    until(lambda: svc.camera_setup.source.latest is not None)
    camera.show(View(), cover_marker=3)
    time.sleep(0.3)
    refs = client.get("/api/setup/board").get_json()["reference"]
    r = post("/api/setup/geometry", {"handles": {k: true_px(camera, k) for k in refs}})
    assert r.status_code == 400 and "corner marker 3 (bottom-left) was not found" in r.get_json()["error"]


def test_drift_says_why_not(tmp_path):
    camera = SceneCamera("drift", seed=2)
    service = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game="drift", pin_hash=FAST_SCRYPT,
                      feed=camera_feed(camera, tmp_path / "drift.npz", "drift"))
    service.start()
    try:
        client, post = admin_client(service)
        why = client.get("/api/setup").get_json()["own_board"]["why_not"]
        assert "rivers turn" in why
        r = post("/api/setup/geometry", {"handles": {}})
        assert r.status_code == 400 and "rivers turn" in r.get_json()["error"]
    finally:
        service.close()


def test_the_service_starts_on_a_saved_fit(tmp_path):
    from setupscene import own_geometry
    from tableref.config import load_config
    from tableref.service import _open_camera

    own_geometry().save(tmp_path / "cal-geometry.json")
    cfg = tmp_path / "t.toml"
    cfg.write_text('[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n'
                   'device = "/dev/video9"\nbackend = "opencv"\n')  # a camera not plugged in: waited for
    feed = _open_camera(load_config(cfg).source, "gyges")
    assert feed.camera.lock.sheet.markers is not None and feed.camera.reader is None  # the fit; set-up mode
    (tmp_path / "cal-geometry.json").write_text('{"version": 1}')
    from tableref.service import SourceError

    with pytest.raises(SourceError, match=r"source\.camera\.geometry: .*cal-geometry\.json: missing key"):
        _open_camera(load_config(cfg).source, "gyges")


def test_the_geometry_key_says_where_the_fit_is(tmp_path):
    from setupscene import own_geometry
    from tableref.config import load_config
    from tableref.service import _open_camera

    (tmp_path / "boards").mkdir()
    own_geometry().save(tmp_path / "boards" / "mine.json")
    cfg = tmp_path / "t.toml"
    cfg.write_text('[game]\nname = "gyges"\n[source]\nkind = "camera"\n[source.camera]\ncalibration = "cal.npz"\n'
                   'geometry = "boards/mine.json"\ndevice = "/dev/video9"\nbackend = "opencv"\n')
    config = load_config(cfg)
    config.check_files()
    assert config.source.geometry == tmp_path / "boards" / "mine.json"
    feed = _open_camera(config.source, "gyges")
    assert feed.spec.geometry == tmp_path / "boards" / "mine.json" and feed.camera.lock.sheet.markers is not None
