"""A real Mosquitto broker per test, on a free 127.0.0.1 port (skipped, saying why, when the
program is missing: ``scripts/ensure-mosquitto`` installs it)."""

from __future__ import annotations

import pytest

from mosquittohelp import MOSQUITTO, Broker


@pytest.fixture
def broker(tmp_path):
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (sh scripts/ensure-mosquitto installs Debian's package)")
    b = Broker(tmp_path / "broker").start()
    yield b
    b.stop()
