"""The pages' own scripts say nothing in English on a French page: every string a script shows
goes through ``TR.t`` and has a French translation — the live and replay pages, and the
camera's set-up page (its strings sent to that page only)."""

import re
from pathlib import Path

from tableref.i18n import catalog
from web.i18n import SCRIPT_MESSAGES
from web.page_words import PAGE_MESSAGES, SETUP_MESSAGES, game_words

STATIC = Path(__file__).resolve().parents[2] / "web" / "static"
PAGE_SCRIPTS = ("common.js", "live.js", "replay.js", "board.js", "setup.js")
SENT = {name: SCRIPT_MESSAGES + PAGE_MESSAGES + game_words() for name in PAGE_SCRIPTS}
SENT["setup.js"] += SETUP_MESSAGES


def test_no_toast_shows_a_bare_english_string():
    for name in PAGE_SCRIPTS:
        text = (STATIC / name).read_text(encoding="utf-8")
        bare = re.findall(r"toast\(\s*[\"'`]", text)
        assert not bare, f"{name}: a toast with a literal string not passed through t()"


def test_every_string_a_script_translates_is_in_the_french_catalog():
    fr = catalog("fr")
    for name in PAGE_SCRIPTS:
        text = (STATIC / name).read_text(encoding="utf-8")
        for literal in re.findall(r"\bt\(\s*\"([^\"]+)\"", text):
            assert literal in SENT[name], f"{name}: t({literal!r}) is not sent to the page (web/i18n.py, web/page_words.py)"
    same = {"Anacund", "Annihilation", "Gygès"}  # the same in French
    everything = SCRIPT_MESSAGES + PAGE_MESSAGES + SETUP_MESSAGES + game_words()
    missing = [m for m in everything if m not in same and fr.messages((m,)).get(m, m) == m]
    assert not missing, f"no French for: {missing}"
