"""Start a real, threaded service for a browser test; collect the page's errors."""

from __future__ import annotations

from contextlib import contextmanager

from tableref.serve import Service


@contextmanager
def running(tmp_path, **kw):
    kw.setdefault("settle", 0.15)
    kw.setdefault("readings", 2)
    kw.setdefault("scan_interval", 0.03)
    kw.setdefault("pin_hash", "scrypt:1024:8:1")
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "admin.json", **kw)
    try:
        svc.start()
        yield svc, svc.serve_http("127.0.0.1", 0)
    finally:
        svc.close()


def open_page(browser, url, *, width=1280, height=900):
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # A refused request (400/403) is the page doing its job and saying so; anything else is not.
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and "status of 400" not in m.text and "status of 403" not in m.text else None)
    page.goto(url)
    return page, errors


def choose_pin(page, pin="2468"):
    page.wait_for_selector("#pin-dialog[open]")
    page.fill("#pin-input", pin)
    page.click("#pin-ok")
    page.wait_for_selector("#admin-btn:has-text('Log out')")


def click_space(page, space, board="#simboard"):
    page.click(f'{board} [data-space="{space}"]')
