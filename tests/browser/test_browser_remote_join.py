"""The link an inviting table sends (docs/remote.md, "Invite and accept"): opened on the other
table's page, ``/?join=table-a%20K7M4QX`` fills the code in, on a 360 px phone; the admin presses
Join and the link asks table-a for its game, the page saying so — in English and in French. No
broker is needed for that: the link keeps asking until one answers (the whole match through a
real Mosquitto: tests/browser/test_browser_remote.py)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from browserhelp import choose_pin, open_page, running
from tableref.hub.settings import BrokerConfig
from tableref.remote.settings import RemoteConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hub"))
from mosquittohelp import free_port  # noqa: E402


def wait(ok, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.05)


def test_a_join_link_fills_the_code_in_and_join_asks_for_the_game(browser, tmp_path):
    nobody = RemoteConfig(BrokerConfig("127.0.0.1", free_port()), "table-b")  # no broker listens there
    with running(tmp_path, game="gyges", setup="default", remote=nobody) as (svc, url):
        page, errors = open_page(browser, f"{url}?join=table-a%20K7M4QX", width=360, height=740)
        choose_pin(page)
        page.wait_for_selector("#remote-link:not([hidden])")
        assert page.input_value("#remote-code") == "table-a K7M4QX"  # filled in from the link
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.click("#remote-join")
        wait(lambda: svc.remote_link.status.joining == "table-a K7M4QX", "the link asking table-a")
        page.wait_for_selector("#remote-link .state:has-text('Asking table-a for its game…')")
        assert not errors, errors

        fr = browser.new_page(locale="fr-FR", viewport={"width": 360, "height": 740})
        errors_fr = []
        fr.on("pageerror", lambda e: errors_fr.append(str(e)))
        fr.goto(f"{url}?join=table-c+AB23CD")
        fr.wait_for_selector("#remote-link:not([hidden])")
        assert fr.input_value("#remote-code") == "table-c AB23CD"  # a "+" for the space, as forms write it
        fr.wait_for_selector("#remote-link .state:has-text('Demande de sa partie à table-a…')")
        assert not errors_fr, errors_fr
