"""The Must-show: `tableref serve` as a subprocess, configured for a serial sensor board (the
reference firmware on a pty, `tableref simulate-board`, another subprocess). Moves are played
on the board; the game is read back through the HTTP API; the server is SIGKILLed and
restarted, and the API shows the same game with every move; play goes on; SIGTERM stops it
cleanly. Every wait is on a condition with a deadline, never a fixed sleep."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from rules import Fidelity, Verdict, explain, get_game
from tableref.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
WIRING = ROOT / "firmware_bridge" / "wiring" / "gyges.json"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
OCC = Fidelity.OCCUPANCY


def plain_line(n: int):
    """``n`` moves from Gygès's default setup, each one a reed board shows unmistakably."""
    def search(state, moves):
        if len(moves) == n:
            return moves
        for m in state.legal_moves():
            after = state.successor(m)
            if explain(state, after.view(OCC), OCC).verdict is Verdict.LEGAL:
                found = search(after, moves + [m])
                if found:
                    return found
        return None

    start = get_game("gyges").default_setup()
    moves = search(start, [])
    assert moves, "no plain line of moves"
    return start, moves


class Proc:
    """A subprocess whose stdout lines are read by a thread, so waits can have deadlines."""

    def __init__(self, argv, tmp_path: Path, name: str, stdin=None) -> None:
        self.err_path = tmp_path / f"{name}.err"
        self.err = open(self.err_path, "w")
        self.p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=self.err, env=ENV, cwd=tmp_path,
                                  text=True, bufsize=1)
        self.lines: queue.Queue[str] = queue.Queue()
        self.out: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.p.stdout:
            self.out.append(line)
            self.lines.put(line)
        self.lines.put("")

    def line(self, timeout: float = 20.0) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output in {timeout} s; stderr: {self.stderr()}") from None
        assert line, f"exited ({self.p.poll()}) without a line; stderr: {self.stderr()}"
        return line.strip()

    def stderr(self) -> str:
        self.err.flush()
        return self.err_path.read_text()

    def end(self) -> None:
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(10)
        self.err.close()


def get(url: str):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def wait_for(what: str, check, timeout: float = 15.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except (urllib.error.URLError, OSError) as exc:
            last = exc
        else:
            if last:
                return last
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; last: {last!r}")


def serve(tmp_path: Path, config: Path, name: str) -> tuple[Proc, str]:
    proc = Proc([sys.executable, "-m", "tableref", "serve", "--config", str(config)], tmp_path, name)
    first = proc.line()
    assert " — open http://127.0.0.1:" in first, first
    return proc, first.split("open ")[1].split()[0]


def play(board: Proc, before, after) -> None:
    """Move the pieces on the simulated board as the players would: lift, then put down."""
    old, new = before.view(OCC), after.view(OCC)
    lifts = [s for s in old.diff(new) if old.get_tokens(s)]
    places = [s for s in old.diff(new) if new.get_tokens(s)]
    board.p.stdin.write("".join(f"lift {s}\n" for s in lifts) + "".join(f"place {s}\n" for s in places))
    board.p.stdin.flush()


def test_serve_on_a_serial_board_survives_sigkill_and_resumes_the_game(tmp_path):
    start, moves = plain_line(3)
    texts, states = [], [start]
    for m in moves:
        texts.append(states[-1].move_text(m))
        states.append(states[-1].successor(m))

    board = Proc([sys.executable, "-m", "tableref.cli.serial", "simulate-board", "--game", "gyges"],
                 tmp_path, "board", stdin=subprocess.PIPE)
    servers: list[Proc] = []
    try:
        device = board.line()
        assert device.endswith("ttyBOARD"), device
        # The players set the board up before the service is switched on.
        board.p.stdin.write("".join(f"place {s}\n" for s in sorted(start.view(OCC).to_dict())))
        board.p.stdin.flush()
        config = tmp_path / "tableref.toml"
        config.write_text(f'''
[game]
name = "gyges"
[source]
kind = "serial"
[source.serial]
port = "{device}"
wiring = "{WIRING}"
[stabiliser]
settle = 0.25
readings = 2
[web]
port = 0
[panel]
enabled = false
[data]
dir = "data"
''')
        proc, url = serve(tmp_path, config, "serve1")
        servers.append(proc)
        health = wait_for("the board connected", lambda: (h := get(url + "api/health"))["source"]["connected"] and h)
        assert health["source"]["kind"] == "serial" and health["source"]["name"] == device
        game_id = health["game"]["id"]

        for i in range(2):
            play(board, states[i], states[i + 1])
            wait_for(f"move {i + 1} accepted", lambda i=i: get(url + "api/state")["moves"] == texts[:i + 1])
        health = get(url + "api/health")
        assert health["game"] == {"id": game_id, "name": "gyges", "ply": 2, "to_move": states[2].to_move,
                                  "over": False}
        assert health["last_decision"]["kind"] == "accepted" and health["last_decision"]["ply"] == 2

        proc.p.send_signal(signal.SIGKILL)  # a power cut, as far as the service can tell
        proc.p.wait(10)

        proc, url = serve(tmp_path, config, "serve2")
        servers.append(proc)
        health = wait_for("the board connected again",
                          lambda: (h := get(url + "api/health"))["source"]["connected"] and h)
        assert (health["game"]["id"], health["game"]["ply"]) == (game_id, 2)
        state = get(url + "api/state")
        assert (state["game_id"], state["moves"], state["to_move"]) == (game_id, texts[:2], states[2].to_move)
        assert state["recent"][-1]["text"] == f"game {game_id} (gyges) resumed at move 2"
        record = get(url + f"api/journal/{game_id}")
        assert (record["moves"], record["finished"]) == (texts[:2], False)

        play(board, states[2], states[3])  # the resumed game goes on
        wait_for("move 3 accepted", lambda: get(url + "api/state")["moves"] == texts)

        proc.p.send_signal(signal.SIGTERM)
        assert proc.p.wait(15) == 0, proc.stderr()
        assert "tableref: stopped" in "".join(proc.out)
    finally:
        for p in servers:
            p.end()
        board.p.stdin.close()
        board.p.terminate()
        board.p.wait(10)
        board.err.close()

    with Journal(tmp_path / "data" / "journal.sqlite3") as journal:
        assert [g.id for g in journal.games()] == [game_id]  # no second game was started
        assert journal.load(game_id).moves == texts
