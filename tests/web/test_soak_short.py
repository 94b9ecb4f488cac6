"""The club-evening soak (bench/soak_memory.py) in a short setting: a real ``tableref serve``
process, several games in a row, viewers coming and going; the page answers at every sample
and the service's threads do not grow; every game is journalled as the page showed it.
(The long run and its slopes: docs/performance.md.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_short_compressed_evening_keeps_the_page_answering_and_the_threads_flat():
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "soak_memory.py"), "--minutes", "0.4", "--rate", "5",
                           "--viewers", "8", "--game-length", "6", "--warm-up", "5"],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    m = re.search(r"(\d+) moves, (\d+) games, (\d+) viewers", out)
    assert m, out
    moves, games, viewers = map(int, m.groups())
    assert moves >= 6 and games >= 2 and viewers > 8, out  # a new game begun, viewers came and went
    answered = re.search(r"page: answered (\d+)/(\d+) samples", out)
    assert answered and answered.group(1) == answered.group(2), out
    threads = [int(t) for t in re.findall(r"threads\s+(\d+)\s+journal", out)]
    assert len(threads) >= 3 and max(threads) - min(threads) <= 2, threads  # a fixed pool, not one per viewer
    records = re.search(r"records: (\d+) of (\d+) games journalled exactly", out)
    assert records and records.group(1) == records.group(2) and int(records.group(2)) >= 2, out  # nothing lost
