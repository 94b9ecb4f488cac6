"""The game clock in a real browser (issue 34, part 1), against ``tableref serve --clock 5+3``:
on a 360 px phone the clocks are large and fit, the running one is marked and counts down; the
admin pauses and resumes it; a move passes it. Screenshot: tests/artifacts/clock-360.png, copied
into docs/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from browserhelp import choose_pin, click_space, open_page
from opponenthelp import serving

DOCS = Path(__file__).resolve().parents[2] / "docs"


def running(page) -> str:
    return page.get_attribute("#clock .face.running", "data-side") or ""


def test_the_clock_on_a_phone_counts_down_pauses_and_passes(browser, tmp_path, artifacts):
    with serving(tmp_path, "--clock", "5+3", "--setup", "default") as url:
        page, errors = open_page(browser, url, width=360, height=740)
        choose_pin(page)
        page.wait_for_selector("#clock:not([hidden]) .face.running")
        assert page.locator("#clock .face").count() == 2 and running(page) == "south"
        size = page.eval_on_selector("#clock .face .time", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 32, size  # readable at arm's length
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing runs off the phone
        first = page.inner_text("#clock .face.running .time")
        page.wait_for_function("t => document.querySelector('#clock .face.running .time').textContent !== t",
                               arg=first, timeout=5000)  # it counts down by itself
        page.click("#clock .pause")
        page.wait_for_selector("#clock .said:has-text('Clock paused')")
        assert page.locator("#clock .face.running").count() == 0
        page.click("#clock .pause")
        page.wait_for_selector("#clock .face.running")
        click_space(page, "a1")
        click_space(page, "a2")
        page.wait_for_function("() => document.querySelector('#clock .face.running')?.dataset.side === 'north'",
                               timeout=10000)
        page.evaluate("window.scrollTo(0, 0)")
        box = page.locator("#clock").bounding_box()
        page.screenshot(path=str(artifacts / "clock-360.png"),
                        clip={"x": 0, "y": 0, "width": 360, "height": box["y"] + box["height"] + 8})
        if os.environ.get("TABLEREF_UPDATE_DOCS") == "1":  # only when asked: a test run leaves the checkout as it was
            shutil.copy(artifacts / "clock-360.png", DOCS / "clock-360.png")
        assert not errors, errors
