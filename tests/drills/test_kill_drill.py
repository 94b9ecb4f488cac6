"""Drill: SIGKILL the running service at random points of a scripted game, again and again.

Each run is ``tableref run --speed 0`` (the sample Gygès game as fast as it goes, so most of
the time is spent judging and journalling: a kill lands mid-commit as often as anywhere)
killed at a random ply of what is left of the game plus a random few milliseconds; the next
run resumes the journal. After every kill: the
journal opens cleanly (SQLite's integrity check, every game replayed through the rules),
every move the killed run published as accepted is in the journal (journal before publish),
and the journal holds exactly the scripted game so far. A game that finishes is checked
whole and the drill goes on in a fresh journal. Quick: 8 kills; ``TABLEREF_DRILLS=full``: 50.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from drills_common import strength
from tableref.journal import Journal
from tableref.sources.sample import sample_game

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(strength(8, 50))


def expected_positions():
    start, moves = sample_game()
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    return states


def published(stdout: bytes) -> tuple[int, list[str]]:
    """The ply the run resumed at, and the moves it published as accepted (net of takebacks)."""
    first, moves = 0, []
    for line in stdout.decode().splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue  # the line the kill cut short
        if d["kind"] == "new_game":
            first = d["ply"]
        elif d["kind"] == "accepted":
            moves.append(d["move"])
        elif d["kind"] == "taken_back":
            moves.pop()
    return first, moves


def rest_of_output(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """What a killed run printed after the lines already read with ``readline()``, and its stderr.

    Not ``proc.communicate()``: that reads the pipes' descriptors, past the bytes ``readline()``
    had already pulled into ``proc.stdout``'s buffer, and those lines are lost. On a loaded
    machine the run prints several lines ahead of the reader (a long ``partial`` line is read in
    chunks that take the next lines with them), so the drill saw journalled moves as never
    published. The run is dead (SIGKILL) or done, so reading each pipe to its end cannot block."""
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    proc.wait(timeout=30)
    return out, err


def check_opens_cleanly(path: Path) -> list:
    """The journal after a kill: SQLite finds nothing wrong, and every game replays."""
    db = sqlite3.connect(path)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        db.close()
    with Journal(path) as journal:
        return [journal.load(g.id) for g in journal.games()]


def test_sigkill_at_random_points_loses_nothing(tmp_path):
    expected = expected_positions()
    rng = random.Random(int(os.environ.get("TABLEREF_DRILL_SEED", "20261122")))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    journal_no, killed_mid_game, finished_games = 0, 0, 0
    path = tmp_path / f"journal-{journal_no}.sqlite3"
    for kill in range(KILLS):
        proc = subprocess.Popen(
            [sys.executable, "-m", "tableref", "run", "--journal", str(path), "--speed", "0", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)
        # The random point is a random ply of what is left of the game, plus a random few
        # milliseconds (the next moves are being judged and committed): counted in moves, not
        # seconds, so a loaded machine moves the kill no nearer the end of the game.
        head = proc.stdout.readline()  # new_game: the game exists
        resumed_at = published(head)[0]
        # Three moves short of the end at most: on a quiet, fast machine the few milliseconds
        # after the read are several moves, and a kill must still land mid-game most times.
        for _ in range(rng.randrange(max(1, len(expected) - 4 - resumed_at))):
            head += proc.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.02))
        proc.send_signal(signal.SIGKILL)
        rest, err = rest_of_output(proc)
        assert proc.returncode in (-signal.SIGKILL, 0), err.decode()[-2000:]
        resumed_at, printed = published(head + rest)

        records = check_opens_cleanly(path)
        assert len(records) == 1, f"kill {kill}: resuming must continue the one game, not start another"
        record = records[0]
        where = f"kill {kill} (after ply {resumed_at})"
        # Nothing invented: the journal holds the scripted game so far, position by position.
        assert record.states == expected[: len(record.states)], where
        # Nothing accepted lost: every move published was journalled first.
        assert record.moves[resumed_at: resumed_at + len(printed)] == printed, where
        if record.finished:
            assert record.states == expected and record.state.outcome().winner == "south", where
            finished_games += 1
            journal_no += 1
            path = tmp_path / f"journal-{journal_no}.sqlite3"  # the next kills drill a new game
        else:
            killed_mid_game += 1
    assert killed_mid_game >= KILLS // 2, "most kills must land mid-game; the delays are too long"
    # Whether a kill happened to land after the last move depends on timing; what must hold
    # is that the last killed game, resumed once more and left alone, ends exactly as scripted.
    done = subprocess.run(
        [sys.executable, "-m", "tableref", "run", "--journal", str(path), "--speed", "0", "--json"],
        capture_output=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    records = check_opens_cleanly(path)
    assert len(records) == 1 and records[0].finished
    assert records[0].states == expected and records[0].state.outcome().winner == "south"


def test_lines_printed_ahead_of_the_reader_are_not_lost():
    """The drill's reading itself: lines the run printed before the drill read its first are
    all seen (they were lost with ``communicate()``, as journalled moves 'never published')."""
    lines = b"".join(json.dumps({"kind": "accepted", "move": f"m{i}"}).encode() + b"\n" for i in range(5))
    # One write of a few hundred bytes reaches the pipe whole, so the first readline() pulls all
    # five lines into the buffer at once: what a loaded machine does by chance, every time.
    child = f"import sys, time; sys.stdout.buffer.write({lines!r}); sys.stdout.flush(); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    head = proc.stdout.readline()
    proc.send_signal(signal.SIGKILL)
    rest, _ = rest_of_output(proc)
    assert published(head + rest)[1] == [f"m{i}" for i in range(5)]
