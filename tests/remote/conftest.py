"""The remote tables' tests: a real Mosquitto as the hub tests start it (tests/hub/mosquittohelp.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hub"))
