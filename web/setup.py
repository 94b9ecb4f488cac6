"""The camera's set-up page and its API (``tableref.camera_setup`` does the work).

Admin only: the page itself is open (it says to enter the PIN), every ``/api/setup`` route
answers 403 without the admin session, and every POST also needs the CSRF token
(``web.auth.check_csrf`` runs before every request). The snapshot is a JPEG of the camera's
latest frame, fetched by the page a few times a second while it is open and visible; the
lock is drawn by the page from ``/api/setup/overlay`` (SVG over the picture): the verdicts'
reasons show on hover or tap, and the picture stays the camera's own.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template, request

from .auth import admin_required
from .i18n import page_language


def _say() -> Any:
    """What the set-up says (a step's progress and result, why it cannot run) in the admin's
    language: these answers are the admin's own, not shared."""
    from tableref.i18n import catalog

    return catalog(page_language()).say

bp = Blueprint("setup", __name__)


def _camera() -> Any:
    return current_app.extensions.get("tableref_camera")


def _no_camera() -> tuple[Response, int]:
    return jsonify(error="the source is not a camera: there is nothing to set up here "
                         "([source] kind = \"camera\" in the config)"), 404


@bp.get("/setup")
def setup_page() -> str:
    return render_template("setup.html", page="setup", camera=_camera() is not None)


@bp.get("/api/setup")
@admin_required
def state() -> Any:
    camera = _camera()
    if camera is None:
        return _no_camera()
    data = camera.state()
    if camera.job() is not None:
        data["job"] = camera.job().to_dict(_say())
    return jsonify(data)


@bp.get("/api/setup/snapshot.jpg")
@admin_required
def snapshot() -> Any:
    camera = _camera()
    if camera is None:
        return _no_camera()
    jpeg = camera.snapshot_jpeg()
    if jpeg is None:
        return jsonify(error="no frame from the camera yet"), 503
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/api/setup/overlay")
@admin_required
def overlay() -> Any:
    camera = _camera()
    if camera is None:
        return _no_camera()
    from tableref.i18n import catalog
    from tableref.i18n.pieces import piece_name

    c = catalog(page_language())
    game = camera.spec.game
    resp = jsonify(camera.overlay().to_dict(c.say, lambda token: piece_name(c, game, token)))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.post("/api/setup/calibrate")
@admin_required
def calibrate() -> Any:
    from tableref.camera_setup import SetupError

    camera = _camera()
    if camera is None:
        return _no_camera()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or not isinstance(body.get("step"), str):
        return jsonify(error='expected a JSON object {"step": "empty" | "colours" | "lens"}'), 400
    position = body.get("position", "layout")
    if not isinstance(position, str):
        return jsonify(error='"position" must be "layout" or "start"'), 400
    try:
        status = camera.calibrate(body["step"], position)
    except SetupError as exc:
        return jsonify(error=_say()(exc.phrase)), 409 if "still running" in str(exc) else 400
    return jsonify(status.to_dict(_say())), 202


@bp.get("/api/setup/lens-sheet.png")
@admin_required
def lens_sheet() -> Any:
    """The ChArUco sheet the lens step looks for, to print at 100 % (30 mm squares)."""
    from tableref.lens_setup import sheet_png

    if _camera() is None:
        return _no_camera()
    resp = Response(sheet_png(), mimetype="image/png")
    resp.headers["Content-Disposition"] = 'attachment; filename="charuco-sheet.png"'
    return resp


@bp.get("/api/setup/job")
@admin_required
def job() -> Any:
    camera = _camera()
    if camera is None:
        return _no_camera()
    status = camera.job()
    return jsonify(status.to_dict(_say()) if status is not None else None)


@bp.get("/api/setup/board")
@admin_required
def board() -> Any:
    """The own-board fit's reference spaces, every space's place (mm) and the handles' start."""
    from tableref.camera_setup import SetupError

    camera = _camera()
    if camera is None:
        return _no_camera()
    try:
        return jsonify(camera.board_layout())
    except SetupError as exc:
        return jsonify(error=_say()(exc.phrase)), 409


@bp.post("/api/setup/geometry")
@admin_required
def geometry() -> Any:
    """Fit the own board to the four handles ``{"handles": {space: [x, y]}}`` (frame px)."""
    from tableref.camera_setup import SetupError

    camera = _camera()
    if camera is None:
        return _no_camera()
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "handles" not in body:
        return jsonify(error='expected a JSON object {"handles": {"<space>": [x, y], ...}}'), 400
    try:
        result = camera.fit_board(body["handles"])
    except SetupError as exc:
        return jsonify(error=_say()(exc.phrase)), 409 if "still running" in str(exc) else 400
    return jsonify(result=_say()(result), state=camera.state())
