"""In a real browser (Debian chromium, as tests/browser): a French browser gets the French page,
the admin mutes the voice with the header's toggle, the chooser switches the page to English."""

from __future__ import annotations

import sys
from pathlib import Path


from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine

from voicefakes import FakeRunner

sys.path.insert(0, str(Path(__file__).parents[1] / "browser"))
from browserhelp import running  # noqa: E402

def test_french_page_admin_mutes_the_voice_and_switches_to_english(browser, tmp_path):
    runner = FakeRunner()
    sp = Speaker(runner, EspeakEngine(runner), level="normal", work_dir=tmp_path / "v")
    with running(tmp_path, speaker=sp) as (svc, url):
        page = browser.new_page(locale="fr-FR", viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)
        assert page.text_content("#undo") == "Annuler le dernier coup"
        page.wait_for_selector("#turn:has-text('Au tour de')")  # the script's own strings too
        assert page.text_content("#turn").strip() == "Au tour de Sud"
        assert "nouvelle partie — jouez le premier coup" in page.text_content("#decision")
        assert page.is_hidden("#voice-btn")  # watching: no toggle
        page.wait_for_selector("#pin-dialog[open]")  # first run on the Pi itself: choose the PIN
        page.fill("#pin-input", "2468")
        page.click("#pin-ok")
        page.wait_for_selector("#admin-btn:has-text('Se déconnecter')")
        page.wait_for_selector("#voice-btn:has-text('Couper la voix')")
        page.click("#voice-btn")
        page.wait_for_selector("#voice-btn:has-text('Rétablir la voix')")
        assert sp.muted and "Voix coupée" in page.text_content("#toast")
        page.click("#voice-btn")
        page.wait_for_selector("#voice-btn:has-text('Couper la voix')")
        assert not sp.muted
        with page.expect_navigation():
            page.select_option("#lang-choice", "en")
        assert page.text_content("#undo") == "Undo last move"
        page.wait_for_selector("#turn:has-text('South to move')")
        page.wait_for_selector("#voice-btn:has-text('Mute the voice')")
        assert errors == []
        page.close()
    assert sp._thread is None  # closed with the service
