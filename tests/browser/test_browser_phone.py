"""The pages on a phone (issue 33, item 2), in Debian's chromium at 360 and 390 px, English and
French, with the PIN entered and the voice on (the header at its fullest: the set-up link, the
mute button, "Se déconnecter"): no page scrolls sideways, and on the live page what the players
must do now — an undo's "put the triple ring back" — is on the first screen, above the board.
Screenshot: tests/artifacts/phone-360-fr-putback.png (copied to docs/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tableref.voice import Speaker
from tableref.voice.audio import EspeakEngine
from browserhelp import running

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "voice"))
from voicefakes import FakeRunner  # noqa: E402

PHONES = [("en-US", 360, 740), ("fr-FR", 360, 740), ("en-US", 390, 844), ("fr-FR", 390, 844)]
FITS = "() => [document.documentElement.scrollWidth, innerWidth]"
WIDE = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 0.5 && e.getClientRects().length)
  .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}`).slice(0, 8)"""


def fits(page, where: str) -> None:
    width, screen = page.evaluate(FITS)
    assert width <= screen, f"{where}: the page is {width} px wide on a {screen} px screen: {page.evaluate(WIDE)}"


@pytest.fixture
def service(tmp_path):
    runner = FakeRunner()
    speaker = Speaker(runner, EspeakEngine(runner), level="normal", work_dir=tmp_path / "v")
    with running(tmp_path, speaker=speaker) as (svc, url):
        yield svc, url


@pytest.mark.parametrize("locale, width, height", PHONES)
def test_every_page_fits_a_phone_and_the_instructions_are_on_the_first_screen(browser, service, artifacts, locale,
                                                                                width, height):
    svc, url = service
    context = browser.new_context(locale=locale, viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("#pin-dialog[open]")
    page.fill("#pin-input", "2468")
    page.click("#pin-ok")
    page.wait_for_selector("body.is-admin")
    page.wait_for_selector("#voice-btn:not([hidden])")
    for button in ("#admin-btn", "#voice-btn", "#lang-choice"):
        box = page.locator(button).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, button

    # A move, then undo: the page says what to put back where.
    ply = svc.table.snapshot()["ply"]
    svc.table.sim_edit("move", space="c1", to="c3")
    page.wait_for_selector(f"#moves li:nth-child({ply + 1})")
    page.click("#undo")
    page.wait_for_selector("#decision[data-kind='taken_back']")
    page.wait_for_timeout(200)  # the board drawn from the same snapshot
    page.evaluate("() => scrollTo(0, 0)")  # the first screen, as the players look up from the table
    fits(page, f"live, {locale} {width}")
    card = page.locator("#decision").bounding_box()
    assert page.evaluate("scrollY") == 0
    assert card["y"] >= 0 and card["y"] + card["height"] <= height, card  # seen without scrolling
    assert card["y"] < page.locator("#board").bounding_box()["y"]  # above the board
    if (locale, width) == ("fr-FR", 360):
        assert "ramenez l'anneau triple de c3 en c1" in page.inner_text("#decision")
        page.evaluate("() => document.querySelector('#toast').classList.remove('show')")  # "logged in" faded
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / "phone-360-fr-putback.png"))
    svc.table.sim_edit("move", space="c3", to="c1")
    page.wait_for_selector("#decision:not(:has(li))")

    for path in ("replay", "replay/1", "setup"):
        page.goto(url + path)
        page.wait_for_selector("#game-rows a, #step .headline, #no-camera")
        page.wait_for_timeout(200)
        fits(page, f"{path}, {locale} {width}")
    assert errors == []
    context.close()
