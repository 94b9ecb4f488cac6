"""The club-evening soak (bench/soak_memory.py) in a short setting: three tables, each a real
service process — the simulated board, a serial board (the reference firmware on a pty) whose
cable is pulled several times, a camera (a filmed game, looped) bumped mid-game — several games
in a row at each, viewers coming and going. At every table the page answers at every sample,
the threads do not grow, every game is journalled as the page showed it, and the camera's games
are the filmed moves. (The long run and its slopes: docs/performance.md.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("cv2")


def table_part(out: str, name: str) -> str:
    m = re.search(rf"^\[{name}\] (.*?)^troubles: (\d+)$", out, re.DOTALL | re.MULTILINE)
    assert m, out
    return m.group(0)


def test_a_short_compressed_evening_at_three_tables():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "soak_memory.py"), "--minutes", "0.5", "--rate", "5",
                           "--viewers", "8", "--game-length", "6", "--warm-up", "5", "--camera-moves", "3",
                           "--camera-rate", "3", "--pull-every", "3"],
                          cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out[-3000:] + proc.stderr[-2000:]
    viewers = int(re.search(r"3 tables, (\d+) viewers", out).group(1))
    assert viewers > 8  # viewers came and went
    for name in ("sim", "serial", "camera"):
        part = table_part(out, name)
        moves, games = map(int, re.search(r"(\d+) moves, (\d+) games", part).groups())
        assert moves >= 3 and games >= 2, part  # a new game begun
        answered = re.search(r"page: answered (\d+)/(\d+) samples", part)
        assert answered and answered.group(1) == answered.group(2), part
        threads = [int(t) for t in re.findall(rf"{name}\s+RSS.*threads\s+(\d+)\s+journal", out)]
        assert len(threads) >= 3 and max(threads) - min(threads) <= 2, (name, threads)  # a fixed pool
        records = re.search(r"records: (\d+) of (\d+) games journalled exactly", part)
        assert records and records.group(1) == records.group(2) and int(records.group(2)) >= 2, part  # nothing lost
        assert part.endswith("troubles: 0"), part
    serial = table_part(out, "serial")
    pulls = int(re.search(r"pulls (\d+)", serial).group(1))
    shown = int(re.search(r"pulls the page showed (\d+)", serial).group(1))
    assert pulls >= 2 and shown == pulls, serial  # every pull seen on the page, and recovered from
    camera = table_part(out, "camera")
    bumps = re.search(r"camera: bumped (\d+) times; (\d+) of (\d+) games refereed exactly as filmed", camera)
    assert bumps and int(bumps.group(1)) >= 1 and bumps.group(2) == bumps.group(3), camera
