"""The Flask app: pages, the JSON API, the event stream, the admin PIN."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template

from . import api, auth, clock, i18n, lesson, remote, setup, stream, teach, voice
from .auth import AdminStore, Throttle
from .live import LiveTable

# Only our own files: no inline script, nothing from elsewhere.
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def create_app(config: Mapping[str, Any]) -> Flask:
    """``config`` must hold ``TABLEREF_TABLE`` (a :class:`~web.live.LiveTable`) and
    ``TABLEREF_ADMIN`` (an :class:`~web.auth.AdminStore`); other keys go to ``app.config``
    (``TABLEREF_HEARTBEAT``: seconds between SSE keep-alives, default 15)."""
    config = dict(config)
    table = config.pop("TABLEREF_TABLE")
    admin = config.pop("TABLEREF_ADMIN")
    if not isinstance(table, LiveTable) or not isinstance(admin, AdminStore):
        raise TypeError("create_app: TABLEREF_TABLE must be a LiveTable and TABLEREF_ADMIN an AdminStore")
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=admin.secret_key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="tableref_session",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        MAX_CONTENT_LENGTH=2 * 1024 * 1024,
        JSON_SORT_KEYS=False,
    )
    app.config.update(config)
    app.extensions["tableref_table"] = table
    app.extensions["tableref_admin"] = admin
    app.extensions["tableref_voice"] = config.pop("TABLEREF_VOICE", None)  # a tableref.voice.Speaker
    app.extensions["tableref_camera"] = config.pop("TABLEREF_CAMERA", None)  # a tableref.camera_setup.CameraSetup
    app.extensions["tableref_remote"] = None  # a tableref.remote.client.RemoteLink ([remote])
    app.extensions["tableref_throttle"] = config.get("TABLEREF_THROTTLE") or Throttle()

    app.before_request(auth.check_csrf)
    app.register_blueprint(auth.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(stream.bp)
    app.register_blueprint(voice.bp)
    app.register_blueprint(setup.bp)  # the camera's set-up page (/setup)
    app.register_blueprint(teach.bp)  # teaching: the toggle, "show me" (web/teach.py)
    app.register_blueprint(lesson.bp)  # a first lesson (web/lesson.py)
    app.register_blueprint(clock.bp)  # the game clock: pause, resume (web/clock.py)
    app.register_blueprint(remote.bp)  # another table: invite, join (web/remote.py)
    app.context_processor(i18n.context)  # the page's strings in the reader's language

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("Content-Security-Policy", _CSP)
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        return resp

    @app.get("/")
    def live_page() -> str:
        return render_template("live.html", page="live")

    @app.get("/replay")
    def replay_list() -> str:
        return render_template("replay_list.html", page="replay")

    @app.get("/replay/<int:game_id>")
    def replay_page(game_id: int) -> str:
        if game_id < 1:
            abort(404)
        return render_template("replay.html", page="replay", game_id=game_id)

    @app.errorhandler(413)
    def too_large(_: Exception) -> tuple[Response, int]:
        return jsonify(error="request too large (2 MB at most)"), 413

    return app
