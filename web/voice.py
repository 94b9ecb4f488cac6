"""The referee's voice on the page: its state for everyone, the mute toggle for the admin
(CSRF-checked like every state-changing request, ``web/auth.py``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify, request

from .auth import admin_required

bp = Blueprint("voice", __name__)


def speaker() -> Any:
    return current_app.extensions.get("tableref_voice")


@bp.get("/api/voice")
def voice_state() -> Any:
    sp = speaker()
    return jsonify(voice=None if sp is None else sp.status().to_dict())


@bp.post("/api/voice/mute")
@admin_required
def mute() -> Any:
    sp = speaker()
    if sp is None:
        return jsonify(error="the voice is off (voice.level in the config)"), 404
    body = request.get_json(silent=True)
    muted = body.get("muted") if isinstance(body, dict) else None
    if not isinstance(muted, bool):
        return jsonify(error="expected {\"muted\": true or false}"), 400
    sp.set_muted(muted)
    return jsonify(voice=sp.status().to_dict())
