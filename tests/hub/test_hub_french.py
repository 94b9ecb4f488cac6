"""The club pages in French for a French browser, from the same catalogs as a board's page:
every page's words (the templates' and, in their JSON block, the script's and the PIN
dialog's), no English word left where the page itself speaks; English for an English one."""

from __future__ import annotations

import io
import json
import re

import pytest

from hub_web.words import COMMON_MESSAGES, HUB_MESSAGES
from tableref.i18n import catalog
from web.page_words import PAGE_MESSAGES

from mosquittohelp import wait_for
from fakes import FakeBroker
from hubhelp import fake_club

# Words no French sentence of these pages contains.
ENGLISH = set("""the and to of from is are not yet no every each game games round rounds player players
result results moves move wins won draw drawn lost replay record download arbiter standings archive pairings pairing
loading watching enter correct corrected needs your name reason replace with save push set when what by
known none has connected online offline playing""".split())  # (table, points, score, corrections: French too)


def english(html: str, records: tuple[str, ...] = ()) -> set[str]:
    """English words the page itself shows: its text and its attributes a person reads, not
    names the club chose (the event, tables, players), nor its code, nor ``records``: what the
    boards sent (a game's outcome as the board's rules said it, in the record's language)."""
    html = re.sub(r"<script.*?</script>", " ", html, flags=re.S)
    for text in records:
        html = html.replace(text, " ")
    text = " ".join(re.findall(r">([^<]+)<", html) + re.findall(r'(?:placeholder|title|aria-label)="([^"]*)"', html))
    for own in ("Test night", "table-01", "table-02", "Ada", "Bo", "Cy", "Di", "tableref", "CSV", "PIN", "JSON"):
        text = text.replace(own, " ")
    return {w for w in re.findall(r"[A-Za-zÀ-ÿ']+", text) if w.lower() in ENGLISH}


@pytest.fixture
def club(tmp_path):
    hub, app, [table] = fake_club(tmp_path, FakeBroker(), boards=(1,))
    c = app.test_client()
    h = {"X-CSRF-Token": c.get("/api/session").get_json()["csrf"]}
    c.post("/api/pin", json={"pin": "2468"}, headers=h)
    c.post("/api/rounds", headers=h)
    c.post("/api/rounds/1/pairings", data={"csv": (io.BytesIO(b"board,A,B\ntable-01,Ada,Bo\n"), "r.csv")}, headers=h,
           content_type="multipart/form-data")
    c.post("/api/rounds/1/push", headers=h)
    wait_for(lambda: table.publisher.pairing is not None, 5, "the board to get its pairing")
    table.play_game()
    wait_for(lambda: hub.store.games() and all(g.finished for g in hub.store.games()), 10, "the game")
    yield c, tuple(g.outcome["reason"] for g in hub.store.games() if g.outcome), hub
    table.stop()
    hub.stop()


PAGES = ("/", "/standings", "/archive", "/arbiter", "/table/table-01", "/archive/table-01/1")


def test_every_club_page_speaks_french_to_a_french_browser(club):
    club, records, _ = club
    assert records
    club.environ_base["HTTP_ACCEPT_LANGUAGE"] = "fr-FR,fr;q=0.9"
    for url in PAGES:
        html = club.get(url).get_data(as_text=True)
        assert '<html lang="fr">' in html, url
        assert not english(html, records), (url, english(html, records))
        words = json.loads(re.search(r'id="tr-messages">(.*?)</script>', html, re.S).group(1))
        assert words["{who} wins"] == "{who} gagne" and words["Enter the admin PIN"], url
    standings = club.get("/standings").get_data(as_text=True)
    assert "Classement" in standings and "Ronde 1" in standings and "Une victoire vaut 1 point" in standings
    # The game ended by its rules: its outcome found again by replaying its record, said in French.
    assert not any(reason in standings for reason in records) and not english(standings), records


def test_an_english_browser_gets_the_pages_as_before(club):
    club, _, _ = club
    club.environ_base["HTTP_ACCEPT_LANGUAGE"] = "en"
    html = club.get("/standings").get_data(as_text=True)
    assert '<html lang="en">' in html and "<h2>Standings</h2>" in html and "Round 1" in html
    assert ">Tables</a>" in club.get("/").get_data(as_text=True)


def test_every_word_the_club_script_writes_is_in_french():
    fr = catalog("fr")
    said = fr.messages(HUB_MESSAGES + COMMON_MESSAGES + PAGE_MESSAGES)
    assert set(HUB_MESSAGES + COMMON_MESSAGES) <= set(said), set(HUB_MESSAGES + COMMON_MESSAGES) - set(said)
    for msgid in HUB_MESSAGES:
        assert set(re.findall(r"\{(\w+)\}", said[msgid])) == set(re.findall(r"\{(\w+)\}", msgid)), msgid


def test_an_outcome_the_rules_did_not_write_is_shown_as_sent(club):
    """A resignation, a flag fall, the arbiter's word: no replay ends with that text, so it is
    not taken for the rules' phrase (nor is a game the hub does not have)."""
    from hub_web.outcomes import OutcomeWords

    _, records, hub = club
    fr = catalog("fr").say
    words = OutcomeWords(lambda: hub.store)
    assert words.said("table-01", 1, records[0], fr) != records[0]  # the rules' own: in French
    assert words.said("table-01", 1, "Bo resigns", fr) == "Bo resigns"
    assert words.said("table-09", 4, records[0], fr) == records[0]
    assert words.said("table-01", None, records[0], fr) == records[0]
