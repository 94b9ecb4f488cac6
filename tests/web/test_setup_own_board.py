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
from setupscene import SceneCamera, camera_feed
from webhelp import FAST_SCRYPT, admin_client

pytest.importorskip("vision.geometry", reason="the own-board fit (vision/geometry.py) is not in this checkout")

from vision.geometry import fit_geometry  # noqa: E402
from vision.layout import Sheet  # noqa: E402
from vision.synth import Renderer  # noqa: E402

GAME = "gyges"


def own_board(game: str = GAME, *, scale: float = 0.8, gap: float = 6.0, marker_mm: float = 30.0) -> Sheet:
    """A board that is not the printed sheet: 0.8 of its size, the markers stuck on closer
    to the spaces (its geometry made by the fit itself, from an exact top-down view)."""
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
    from vision.geometry import reference_spaces

    handles = {r: px(board.space(r).x, board.space(r).y) for r in reference_spaces(board)}
    return Sheet.from_geometry(board, fit_geometry(board, handles, markers, marker_mm=marker_mm))


@pytest.fixture(scope="module")
def camera():
    sheet = own_board()
    return SceneCamera(GAME, sheet=sheet, renderer=Renderer(sheet))


@pytest.fixture
def svc(tmp_path, camera):
    camera.show(View())
    service = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game=GAME, pin_hash=FAST_SCRYPT,
                      settle=0.15, readings=2, feed=camera_feed(camera, tmp_path / "gyges.npz"))
    service.start()
    yield service
    service.close()


def until(check, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s")


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

    def read_right():
        spaces = client.get("/api/setup/overlay").get_json()["spaces"]
        return all(tuple(s["tokens"]) == tuple(view.get_tokens(s["id"])) for s in spaces)

    until(read_right)


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
