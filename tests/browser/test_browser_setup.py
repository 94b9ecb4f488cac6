"""The camera set-up page in headless Debian chromium, against a real threaded service whose
camera films a synthetic scene (the camera model's renderer): the snapshot with the lock drawn
on it, the empty-board calibration run from the page, then moves refereed through it; a
watcher sees no set-up controls and gets 403."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from rules import Fidelity, get_game
from rules.view import View
from tableref.serve import Service
from browserhelp import choose_pin, open_page

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from setupscene import SceneCamera, asked_for_less_exposure, camera_feed, search_again  # noqa: E402

def _service(tmp_path, camera):
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", game="gyges", pin_hash="scrypt:1024:8:1",
                  settle=0.15, readings=2, feed=camera_feed(camera, tmp_path / "gyges.npz"))
    svc.start()
    return svc, svc.serve_http("127.0.0.1", 0)


def _verdicts(page, verdict):
    return page.locator(f"#overlay circle[data-verdict='{verdict}']").count()


def _wait_count(page, selector, n, timeout=20.0):
    """Until ``selector`` matches ``n`` elements (polled from here: the page's CSP forbids the
    string evaluation a page-side wait would need)."""
    end = time.monotonic() + timeout
    while page.locator(selector).count() != n:
        assert time.monotonic() < end, f"{selector}: {page.locator(selector).count()} != {n}"
        page.wait_for_timeout(100)


def test_setting_up_the_camera_on_the_page_then_playing(browser, tmp_path, artifacts):
    camera = SceneCamera("gyges")
    spaces = len(camera.sheet.shapes)
    svc, url = _service(tmp_path, camera)
    try:
        page, errors = open_page(browser, url + "setup")
        choose_pin(page)  # the first run, on the machine itself
        # The camera's picture with the lock on it; set-up mode says what to do.
        page.wait_for_selector("#overlay polygon.o-outline")
        _wait_count(page, "#overlay circle", spaces)
        assert page.is_visible("#setup-banner") and "not calibrated yet" in page.inner_text("#setup-banner")
        assert _verdicts(page, "unknown") == spaces
        assert page.evaluate("document.querySelector('#setup-view img:not([hidden])').naturalWidth") == 960
        assert "none (an ideal pinhole)" in page.inner_text("#lens-file")
        assert not page.is_visible("#colour-step")  # Gygès is read by tags

        # A card over a corner marker: the step says which.
        camera.show(View(), cover_marker=1)
        search_again(svc.feed.camera)
        page.click("#cal-empty")
        page.wait_for_selector("#job-result[data-state='failed']", timeout=20000)
        assert "corner marker 1 (top-right) was not found" in page.inner_text("#job-result")

        camera.show(View())
        page.wait_for_selector("#lock-state:has-text('Board locked')")
        assert "Exposure" not in page.inner_text("#lock-state")  # this camera is not asked
        assert "small in the picture" not in page.inner_text("#lock-state")  # big enough
        # a Pi camera asked for half a stop less for the sheet: the page says so beside the lock
        with asked_for_less_exposure(camera, svc):
            page.wait_for_selector("#lock-state:has-text('Exposure turned down 0.5 stop for the sheet')")
        page.click("#cal-empty")
        page.wait_for_selector("#job-result[data-state='done']", timeout=20000)
        assert "saved to" in page.inner_text("#job-result") and (tmp_path / "gyges.npz").exists()
        _wait_count(page, "#overlay circle[data-verdict='empty']", spaces)
        assert not page.is_visible("#setup-banner")

        # The game's pieces put out: each space read, named on hover or tap.
        start = get_game("gyges").default_setup()
        view = start.view(Fidelity.KIND)
        camera.show(view)
        _wait_count(page, "#overlay circle[data-verdict='read']", len(view))
        b1 = "#overlay circle[data-space='b1']"
        name = {"1": "single ring", "2": "double ring", "3": "triple ring"}[view.get_tokens("b1")[0]]
        assert page.locator(f"{b1} title").text_content() == f"b1: read: {name}"  # its name, not its token
        page.click(b1, force=True)
        assert page.inner_text("#space-info") == f"b1: read: {name}"
        page.wait_for_selector("#toast:not(.show)", timeout=6000)
        page.screenshot(path=str(artifacts / "setup-desktop.png"), full_page=True)
        assert not errors, errors

        # A hand held over the board: the spaces under it are unreadable, and say why.
        camera.show(view, hand=True)
        end = time.monotonic() + 20
        while not page.locator("#overlay circle[data-verdict='unreadable']").count():
            assert time.monotonic() < end, "no space read unreadable under the hand"
            page.wait_for_timeout(100)
        under = page.locator("#overlay circle[data-verdict='unreadable']").first
        why = under.locator("title").text_content()
        assert ": unreadable — " in why and len(why.split(" — ")[1]) > 3, why
        under.click(force=True)
        assert page.inner_text("#space-info") == why
        camera.show(view)

        # Then play: a move on the board is refereed through the new calibration.
        camera.show(start.apply_text("b1-b3").view(Fidelity.KIND))
        live, live_errors = open_page(browser, url)
        live.wait_for_selector("#decision .headline:has-text('South played b1-b3')", timeout=20000)
        assert svc.referee.record.moves == ["b1-b3"]
        assert not live_errors, live_errors

        # A phone: the picture fits the screen, no sideways scrolling.
        phone, phone_errors = open_page(browser, url + "setup", width=390, height=844)
        phone.click("#admin-btn")
        choose_pin(phone)
        _wait_count(phone, "#overlay circle", spaces)
        wide = phone.evaluate("[...document.querySelectorAll('*')].filter(e => e.scrollWidth > 391)"
                              ".map(e => e.tagName + '#' + e.id + '.' + e.className + ':' + e.scrollWidth).slice(0, 12)")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390, wide
        box = phone.locator("#setup-view").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        phone.wait_for_selector("#toast:not(.show)", timeout=6000)  # "you can control the game now" gone
        phone.screenshot(path=str(artifacts / "setup-390.png"), full_page=True)
        assert not phone_errors, phone_errors
    finally:
        svc.close()


def test_a_board_too_small_in_the_picture_is_said_beside_the_lock(browser, tmp_path, artifacts):
    """The sheet a third of the picture: the page says, beside the lock, where it is too small,
    how small and what the game needs — on a 360 px phone, with no sideways scrolling."""
    from vision.read.scale import NEEDED_PX_PER_MM, board_scale

    camera = SceneCamera("gyges", fill=(0.3, 0.3))
    truth = board_scale(camera.pose.H, camera.sheet)
    svc, url = _service(tmp_path, camera)
    try:
        page, errors = open_page(browser, url + "setup", width=360, height=780)
        choose_pin(page)
        page.wait_for_selector("#lock-state:has-text('The board is small in the picture')")
        said = page.inner_text("#lock-state")
        assert said.startswith("Board locked") and f"at {truth.space} a millimetre is " in said, said
        assert f"pieces are read from {NEEDED_PX_PER_MM['gyges']:.2f} px. Move the camera closer" in said, said
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        page.wait_for_selector("#toast:not(.show)", timeout=6000)
        page.screenshot(path=str(artifacts / "setup-small-board-360.png"), full_page=True)
        assert not errors, errors
    finally:
        svc.close()


def test_a_watcher_sees_no_setup_controls(browser, tmp_path):
    camera = SceneCamera("gyges")
    svc, url = _service(tmp_path, camera)
    try:
        svc.app.extensions["tableref_admin"].set_pin("2468")
        page, errors = open_page(browser, url + "setup")
        page.wait_for_selector("#setup-watch:has-text('enter the PIN')")
        for sel in ("#setup-controls", "#setup-view", "#cal-empty"):
            assert not page.is_visible(sel), sel
        assert page.locator("nav a[href='/setup']").is_hidden()
        status = page.evaluate("fetch('/api/setup/overlay').then(r => r.status)")
        assert status == 403
        assert svc.camera_setup.encoded == 0  # nothing encoded for a watcher
        assert not errors, errors
    finally:
        svc.close()


def _true_px(camera, space):
    import cv2
    import numpy as np

    s = camera.sheet.by_id[space]
    return cv2.perspectiveTransform(np.float32([[(s.x, s.y)]]), camera.pose.H)[0][0]


def _screen(page, frame_xy, frame_size):
    box = page.locator("#overlay").bounding_box()
    return (float(box["x"] + frame_xy[0] * box["width"] / frame_size[0]),
            float(box["y"] + frame_xy[1] * box["height"] / frame_size[1]))


def test_fitting_my_own_board_by_dragging_four_handles_then_playing(browser, tmp_path, artifacts):
    import pytest

    pytest.importorskip("vision.sheets.geometry", reason="the own-board fit is not in this checkout")
    from setupscene import own_board
    from vision.simulated.synth import Renderer

    sheet = own_board("gyges")
    camera = SceneCamera("gyges", sheet=sheet, renderer=Renderer(sheet))
    size = camera.renderer.size
    svc, url = _service(tmp_path, camera)
    try:
        page, errors = open_page(browser, url + "setup")
        choose_pin(page)
        page.wait_for_selector("#overlay polygon.o-outline")
        page.click("#fit-start")
        _wait_count(page, "#overlay circle.handle", 4)
        assert page.locator("#fit-help li").all_inner_texts() == [
            f"Put the {r} handle on the centre of {r}." for r in ("a6", "f6", "f1", "a1")]
        # Drag each handle onto its space's centre in the picture; the rest follow live.
        for ref in ("a6", "f6", "f1", "a1"):
            handle = page.locator(f"#overlay circle.handle[data-handle='{ref}']")
            box = handle.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            target = _screen(page, _true_px(camera, ref), size)
            page.mouse.move(target[0] + 3, target[1] + 3, steps=4)
            page.mouse.move(*target, steps=2)
            page.mouse.up()
        for space in ("c3", "d4", "b5"):  # spaces no handle is on: placed by the four handles
            c = page.locator(f"#overlay circle.o-fit[data-fit='{space}']")
            got = (float(c.get_attribute("cx")), float(c.get_attribute("cy")))
            truth = _true_px(camera, space)
            assert abs(got[0] - truth[0]) < 4 and abs(got[1] - truth[1]) < 4, (space, got, truth)
        page.wait_for_selector("#toast:not(.show)", timeout=6000)
        page.screenshot(path=str(artifacts / "setup-fit.png"), full_page=True)
        page.click("#fit-save")
        page.wait_for_selector("#job-result[data-state='done']", timeout=20000)
        assert "now learn the empty board" in page.inner_text("#job-result")
        assert (tmp_path / "gyges-geometry.json").exists()
        page.wait_for_selector("#lock-state:has-text('Board locked')")
        page.click("#cal-empty")
        page.wait_for_selector("#job-result[data-state='done']:has-text('empty board learned')", timeout=20000)
        _wait_count(page, "#overlay circle[data-verdict='empty']", len(sheet.shapes))

        start = get_game("gyges").default_setup()
        camera.show(start.view(Fidelity.KIND))
        _wait_count(page, "#overlay circle[data-verdict='read']", len(start.view(Fidelity.KIND)))
        live, live_errors = open_page(browser, url)
        camera.show(start.apply_text("b1-b3").view(Fidelity.KIND))
        live.wait_for_selector("#decision .headline:has-text('South played b1-b3')", timeout=20000)
        after = start.apply_text("b1-b3")
        camera.show(after.apply_text("b6-b4").view(Fidelity.KIND))
        live.wait_for_selector("#decision .headline:has-text('North played b6-b4')", timeout=20000)
        assert svc.referee.record.moves == ["b1-b3", "b6-b4"]
        assert not errors, errors
        assert not live_errors, live_errors
    finally:
        svc.close()
