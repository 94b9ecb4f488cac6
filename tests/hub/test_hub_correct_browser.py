"""The arbiter corrects a game on the replay page in headless chromium (Playwright), through the
real hub server on a real Mosquitto: the PIN, a result, then the moves from move 2; the page shows
the correction and the board's own moves. Screenshot: tests/artifacts/hub-correct.png."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hub_web import create_hub_app
from hub_web.server import Fanout, HubServer
from tableref.hub.hub import Hub
from tableref.hub.settings import BrokerConfig, HubServerConfig
from web.auth import AdminStore

from mosquittohelp import needs_mosquitto, wait_for
from hubhelp import make_tables, wait_all_in
from test_hub_corrections import _other_line

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
pytestmark = [needs_mosquitto, pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                                   reason=f"{CHROMIUM} is missing (scripts/ensure-chromium)")]


def test_the_arbiter_corrects_on_the_replay_page(broker, browser, tmp_path):
    expect = pytest.importorskip("playwright.sync_api").expect
    fanout = Fanout(lambda: hub.snapshot())
    hub = Hub(HubServerConfig(broker=BrokerConfig(port=broker.port), data_dir=tmp_path / "hub", event="Cup"),
              on_change=fanout.publish).start()
    server = HubServer(create_hub_app(hub, AdminStore(tmp_path / "a.json", method="scrypt:1024:8:1")), fanout,
                       "127.0.0.1", 0)
    url = server.start()
    tables = make_tables(1, broker.port, tmp_path / "boards")
    page = None
    try:
        wait_for(lambda: hub.link == "connected", 10, "the hub")
        tables[0].play_game()
        wait_all_in(hub, tables)
        own = hub.store.export("table-01", 1)
        line = _other_line(own, 1)
        page = browser.new_page(viewport={"width": 1280, "height": 1200})
        page.goto(url + "archive/table-01/1")
        page.fill("#pin-input", "2468")  # the first PIN, chosen on the hub itself
        page.click("#pin-ok")
        # Unlocked before anything is sent: under load, a correction posted while the PIN's own
        # request was still on its way was refused (403) and the list stayed empty.
        expect(page.locator("body.is-admin")).to_have_count(1, timeout=10000)
        expect(page.locator("#c-winner option")).to_have_count(5, timeout=10000)  # —, A, B, draw, back
        page.fill("#c-by", "Kim")
        page.select_option("#c-winner", "draw")
        page.click("#c-result")
        expect(page.locator("#c-list li")).to_have_count(1, timeout=10000)  # the page reloads with it
        page.fill("#c-by", "Kim")
        page.fill("#c-from", "2")
        page.fill("#c-moves", " ".join(line))
        page.click("#c-apply")
        expect(page.locator("#c-list li")).to_have_count(2, timeout=10000)
        expect(page.locator("#r-corrected")).to_contain_text(own["moves"][1])
        expect(page.locator("#r-moves li")).to_have_count(3)
        assert hub.store.export("table-01", 1)["moves"] == own["moves"][:1] + line
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hub-correct.png"), full_page=True)
        page.goto(url + "arbiter")  # the audit trail, with where each came from
        expect(page.locator("#corrections tr")).to_have_count(2, timeout=10000)
        expect(page.locator("#corrections")).to_contain_text("Kim (127.0.0.1)")
    finally:
        if page is not None:
            page.close()
        tables[0].stop()
        server.stop()
        hub.stop()
