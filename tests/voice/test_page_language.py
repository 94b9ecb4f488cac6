"""The live page's own strings come from the catalogs: French for a French browser, the chooser's
cookie over the browser, English for a language with no catalog; the scripts get theirs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "web"))
from webhelp import make_service  # noqa: E402


def page(client, **headers):
    return client.get("/", headers=headers).get_data(as_text=True)


def test_the_page_in_the_browsers_language_or_the_chosen_one(tmp_path):
    svc = make_service(tmp_path)
    try:
        client = svc.app.test_client()
        fr = page(client, **{"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.8"})
        assert '<html lang="fr">' in fr and "Annuler le dernier coup" in fr and "Undo last move" not in fr
        messages = json.loads(re.search(r'id="tr-messages">(.*?)</script>', fr).group(1))
        assert messages["Drift phase: turn the rivers on the board now"].startswith("Phase de dérive")
        assert '<option value="fr" selected>Français</option>' in fr
        de = page(client, **{"Accept-Language": "de-DE, de;q=0.9"})
        assert '<html lang="en">' in de and "Undo last move" in de
        assert json.loads(re.search(r'id="tr-messages">(.*?)</script>', de).group(1)) == {}
        client.set_cookie("tableref_lang", "en")
        assert "Undo last move" in page(client, **{"Accept-Language": "fr"})
        client.set_cookie("tableref_lang", "xx")  # not a shipped language: the browser's
        assert "Annuler le dernier coup" in page(client, **{"Accept-Language": "fr"})
        assert "En direct" in client.get("/replay", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    finally:
        svc.close()
