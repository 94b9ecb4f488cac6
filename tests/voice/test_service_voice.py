"""The service subscribes the speaker: a move on the page's simulated board is said; the page's
admin mute toggle (CSRF and the PIN like every control) mutes it; ``close()`` closes it."""

from __future__ import annotations

import sys
from pathlib import Path

from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine

from fakes import Clock, FakeRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "web"))
from webhelp import LAN, admin_client, make_service, move  # noqa: E402


def test_a_move_on_the_page_is_said_and_the_admin_can_mute(tmp_path):
    runner = FakeRunner()
    sp = Speaker(runner, EspeakEngine(runner), level="normal", clock=Clock(), work_dir=tmp_path / "v")
    svc = make_service(tmp_path, speaker=sp)
    try:
        sp.pump()  # the greeting
        client, post = admin_client(svc)
        move(post, "b1", "b3")
        said = sp.pump()
        assert [s.topic for s in said] == ["move"] and "b1 to b3" in said[0].text
        watcher = svc.app.test_client()
        assert watcher.get("/api/voice", environ_base=LAN).get_json()["voice"]["muted"] is False
        token = watcher.get("/api/session", environ_base=LAN).get_json()["csrf"]
        r = watcher.post("/api/voice/mute", json={"muted": True}, headers={"X-CSRF-Token": token}, environ_base=LAN)
        assert r.status_code == 403 and not sp.muted  # watching only: no PIN
        assert client.post("/api/voice/mute", json={"muted": True}).status_code == 403  # no CSRF token
        r = post("/api/voice/mute", {"muted": True})
        assert r.status_code == 200 and r.get_json()["voice"]["muted"] is True and sp.muted
        assert post("/api/voice/mute", {"muted": "yes"}).status_code == 400
        move(post, "b3", "b4")
        assert sp.pump() == []
    finally:
        svc.close()
    assert sp._thread is None


def test_no_voice_configured_the_page_says_so(tmp_path):
    svc = make_service(tmp_path)
    try:
        client, post = admin_client(svc)
        assert client.get("/api/voice").get_json() == {"voice": None}
        assert post("/api/voice/mute", {"muted": True}).status_code == 404
    finally:
        svc.close()
