"""The club page in headless Debian chromium (Playwright), with 20 simulated tables live on a
real Mosquitto through the real hub server (uvicorn): the grid fills, tiles follow the games,
a table opens full-size, standings show; a French phone at 360 px gets it in French.
Screenshots at desktop width, 390 px and 360 px in French go to tests/artifacts/
(hub-club-desktop.png, hub-club-390.png, hub-club-360-fr.png)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from hub_web import create_hub_app
from hub_web.server import Fanout, HubServer
from tableref.hub.hub import Hub
from tableref.hub.settings import BrokerConfig, HubServerConfig
from tableref.hub.simulate import drive
from web.auth import AdminStore

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import make_tables

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
pytestmark = [needs_mosquitto, pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                                   reason=f"{CHROMIUM} is missing (scripts/ensure-chromium)")]


def test_club_page_with_twenty_tables_live(broker, browser, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    fanout = Fanout(lambda: hub.snapshot())
    hub = Hub(HubServerConfig(broker=BrokerConfig(port=broker.port), data_dir=tmp_path / "hub",
                              event="Thursday club"), on_change=fanout.publish).start()
    server = HubServer(create_hub_app(hub, AdminStore(tmp_path / "a.json", method="scrypt:1024:8:1")), fanout,
                       "127.0.0.1", 0)
    url = server.start()
    tables = make_tables(20, broker.port, tmp_path / "boards")
    hub.store.add_round()
    for i, t in enumerate(tables):
        players = {"A": f"Player {2 * i + 1}", "B": f"Player {2 * i + 2}"}
        hub.store.set_pairing(1, t.name, players)
    wait_for(lambda: hub.link == "connected", 10, "the hub")
    for p in hub.store.pairings(1):
        hub.push_pairing(1, p["board"], p["players"])
    stop = threading.Event()
    player = threading.Thread(target=drive, kwargs={"tables": tables, "interval": 0.4, "stop": stop}, daemon=True)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        wait_for(lambda: all(t.publisher.pairing for t in tables), 10, "the pairings at the boards")
        player.start()
        # the run's one browser (tests/conftest.py): pages are closed, the browser is not
        for width, height, name in ((1280, 900, "desktop"), (390, 844, "390")):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            page.click("#pin-cancel")  # just watch
            # Locators, not wait_for_function: the page's CSP forbids eval (as it should).
            expect(page.locator(".tile")).to_have_count(20, timeout=15000)
            expect(page.locator(".tile .players").filter(has_text="Player")).to_have_count(20, timeout=15000)
            first = page.text_content("#t-table-01 .foot")
            expect(page.locator("#t-table-01 .foot")).not_to_have_text(first, timeout=15000)  # it follows
            assert page.locator("#t-table-01 svg circle").count() > 10
            page.screenshot(path=str(ARTIFACTS / f"hub-club-{name}.png"))
            page.close()
        # A French browser on a 360 px phone: the page's words and the script's in French
        # (hub_web/words.py), nothing wider than the screen.
        page = browser.new_page(viewport={"width": 360, "height": 760}, locale="fr-FR")
        page.goto(url)
        page.click("#pin-cancel")
        expect(page.locator(".tile")).to_have_count(20, timeout=15000)
        expect(page.locator("#club-summary")).to_contain_text("20 tables, ", timeout=15000)
        expect(page.locator("#club-summary")).to_contain_text(" en ligne, ")
        expect(page.locator("#t-table-01 .foot")).to_contain_text("partie", timeout=15000)
        assert page.text_content("nav").split() == ["Tables", "Classement", "Archives", "Arbitre"]
        assert page.text_content("#admin-btn") != "Choose PIN"  # common.js's words too
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.screenshot(path=str(ARTIFACTS / "hub-club-360-fr.png"))
        page.close()
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url + "table/table-03")
        expect(page.locator("#table-players")).to_contain_text("Player 5", timeout=15000)
        page.goto(url + "standings")
        assert "Round 1" in page.text_content("main")
    finally:
        stop.set()
        player.join(10)
        for t in tables:
            t.stop()
        server.stop()
        hub.stop()
