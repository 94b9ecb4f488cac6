"""A game in progress survives SIGKILL at any instant and resumes with nothing lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tableref.journal import Journal
from tableref.sources.sample import sample_game

ROOT = Path(__file__).resolve().parents[2]


def expected_positions():
    start, moves = sample_game()
    states = [start]
    for m in moves:
        states.append(states[-1].successor(m))
    return states


def run_service(journal: Path, speed: float) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tableref", "run", "--journal", str(journal), "--speed", str(speed), "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT,
    )


def accepted_lines(stdout: bytes) -> tuple[int, list[str]]:
    """The ply the run resumed at, and the moves it published as accepted."""
    first, moves = 0, []
    for line in stdout.decode().splitlines():
        d = json.loads(line)
        if d["kind"] == "new_game":
            first = d["ply"]
        elif d["kind"] == "accepted":
            moves.append(d["move"])
        elif d["kind"] == "taken_back":
            moves.pop()
    return first, moves


def test_sigkill_at_random_points_then_resume(tmp_path):
    journal_path = tmp_path / "journal.sqlite3"
    expected = expected_positions()
    rng = random.Random(20261122)
    seen_progress = []
    for _ in range(4):
        proc = run_service(journal_path, speed=30)
        # Start the clock once the game exists (its first decision is printed), so a slow
        # start on a loaded machine cannot turn the kill into a kill before the game began.
        first = proc.stdout.readline()
        time.sleep(rng.uniform(0.1, 0.6))
        proc.send_signal(signal.SIGKILL)
        # Not communicate(): it reads the pipe past the lines readline() already buffered, and
        # they would be lost (tests/drills/test_kill_drill.py, rest_of_output). The run is dead.
        rest = proc.stdout.read()
        proc.communicate()  # stderr, and the exit status
        out = first + rest
        assert proc.returncode == -signal.SIGKILL
        first, printed = accepted_lines(out)
        with Journal(journal_path) as journal:
            game_id = journal.unfinished_game()
            assert game_id is not None, "the game finished before the kill; kill sooner"
            record = journal.load(game_id)  # replays every move through the rules, checking each
        # Nothing published was lost, nothing was invented, and the game is the same game.
        # (Moves are compared by the positions they reach: two notations may name one outcome.)
        assert record.states == expected[: len(record.states)]
        # Every move published was journalled first.
        assert record.moves[first : first + len(printed)] == printed
        assert not seen_progress or len(record.moves) >= seen_progress[-1]
        seen_progress.append(len(record.moves))
    assert seen_progress[-1] > seen_progress[0], "the game did not advance across restarts"

    proc = run_service(journal_path, speed=0)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()
    with Journal(journal_path) as journal:
        games = journal.games()
        assert len(games) == 1, "resuming must continue the same game, not start another"
        final = journal.load(games[0].id)
    assert final.states == expected
    assert final.state.outcome().winner is not None
