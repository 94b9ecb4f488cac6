"""The service subscribes the speaker: a move on the page's simulated board is said; the page's
admin mute toggle (CSRF and the PIN like every control) mutes it; ``close()`` closes it."""

from __future__ import annotations

import sys
from pathlib import Path

from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine

from voicefakes import Clock, FakeRunner

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


def test_the_real_service_with_the_real_programs_never_fails_for_want_of_a_sound_card(tmp_path, caplog):
    """`tableref serve`'s wiring from a [voice] table, real espeak-ng and aplay (or none): a test
    machine has no sound card, so aplay fails (logged once) or is missing (logged once); the
    referee accepts the move all the same."""
    import logging
    import os
    import shutil
    import time

    from tableref.serve import Service
    from tableref.voice import VoiceConfig

    svc = Service(tmp_path / "j.sqlite3", tmp_path / "a.json", settle=0.05, readings=2, scan_interval=0.01,
                  voice=VoiceConfig(level="normal"))
    with caplog.at_level(logging.WARNING, logger="tableref.voice"):
        with svc:
            assert svc.speaker is not None and svc.speaker._thread is not None
            svc.table.sim_edit("move", space="b1", to="b3")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not (svc.table.snapshot()["moves"] and svc.speaker.said
                                                        and svc.speaker.idle):
                time.sleep(0.05)
            assert svc.table.snapshot()["moves"] == ["b1-b3"]
            said = list(svc.speaker.said)
            assert said and said[-1].topic == "move"
    if shutil.which("aplay") is None and shutil.which("pw-play") is None:
        assert caplog.text.count("no audio output") == 1
    elif not os.path.exists("/dev/snd"):
        assert caplog.text.count("exited") == 1 and "check the sound card" in caplog.text
