"""Headless Debian chromium driven by Playwright, against a real threaded service. The
``browser`` fixture is the run's one browser (tests/conftest.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
