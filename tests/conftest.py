import os
import sys

# Let the suite run from a checkout even before `pip install -e .`.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


import pytest  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]


@pytest.fixture(scope="session")
def browser():
    """Headless Debian chromium through Playwright, one for the whole run: Playwright's sync API
    runs an event loop of its own, so a second one started while this lives would fail.
    Skipped, with the reason, if /usr/bin/chromium is missing (scripts/ensure-chromium installs
    it) or Playwright is not installed."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing and could not be installed (run scripts/ensure-chromium as root)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
