"""``tableref serve`` end to end: a real process, a real HTTP server, threads, SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rules import Fidelity
from tableref.serve import Service, add_parser

ROOT = Path(__file__).resolve().parents[2]


def test_add_parser_registers_serve_with_its_options():
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--host", "0.0.0.0", "--port", "0", "--game", "anacund",
                              "--journal", "j.sqlite3", "--fidelity", "occupancy", "--option", "shape=line"])
    assert (args.host, args.port, args.game, args.fidelity, args.options) == (
        "0.0.0.0", 0, "anacund", "occupancy", ["shape=line"])
    assert args.func.__name__ == "cmd_serve"


def test_the_threaded_service_judges_edits_and_publishes_them(tmp_path):
    svc = Service(tmp_path / "j.sqlite3", tmp_path / "a.json", settle=0.05, readings=2, scan_interval=0.01)
    with svc:
        b = svc.table.broadcaster
        seen = b.last_seq
        svc.table.sim_edit("move", space="b1", to="b3")
        deadline = time.monotonic() + 5
        kinds = []
        while "accepted" not in kinds and time.monotonic() < deadline:
            events = b.wait(seen, 0.5) or []
            seen = events[-1].seq if events else seen
            kinds += [e.data["decision"]["kind"] for e in events if e.kind == "decision"]
        assert "accepted" in kinds
        assert svc.table.snapshot()["moves"] == ["b1-b3"]
    svc.close()  # twice is fine


def test_serve_prints_the_url_serves_and_stops_cleanly_on_sigterm(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tableref.serve", "--port", "0", "--journal", str(tmp_path / "j.sqlite3"),
         "--fidelity", "occupancy"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )
    try:
        line = proc.stdout.readline()
        assert "open http://127.0.0.1:" in line, line + proc.stderr.read()
        url = line.split("open ")[1].split()[0]
        state = json.load(urllib.request.urlopen(url + "api/state", timeout=5))
        assert state["game"] == "gyges" and state["fidelity"] == "occupancy"
        page = urllib.request.urlopen(url, timeout=5).read().decode()
        assert 'id="board"' in page
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in out
    assert (tmp_path / "web-admin.json").exists()  # beside the journal


def test_serve_refuses_bad_arguments_with_one_clear_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args, message in ((["--game", "chess"], "unknown game 'chess'"),
                          (["--option", "colour=red"], "unknown option 'colour'"),
                          (["--port", "70000"], "--port must be 0..65535"),
                          (["--settle", "-1"], "settle_time must be >= 0")):
        r = subprocess.run([sys.executable, "-m", "tableref.serve", "--journal", str(tmp_path / "j.sqlite3"), *args],
                           capture_output=True, text=True, env=env, timeout=30)
        assert r.returncode == 2 and message in r.stderr, (args, r.stderr)


def test_a_busy_port_is_one_clear_error(tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        r = subprocess.run([sys.executable, "-m", "tableref.serve", "--port", str(port),
                            "--journal", str(tmp_path / "j.sqlite3")], capture_output=True, text=True, env=env,
                           timeout=30)
    assert r.returncode == 2 and f"cannot listen on 127.0.0.1:{port}" in r.stderr


def test_resumes_the_unfinished_game(tmp_path):
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", threaded=False, settle=0, readings=1) as svc:
        svc.table.sim_edit("move", space="b1", to="b3")
        assert svc.table.snapshot()["moves"] == ["b1-b3"]
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", threaded=False, settle=0, readings=1) as svc:
        snap = svc.table.snapshot()
        assert (snap["game_id"], snap["moves"], snap["to_move"]) == (1, ["b1-b3"], "north")
        assert snap["sim"]["view"]["b3"] == ["2"]  # the simulated board kept its position too
        assert snap["recent"][0]["text"] == "game 1 (gyges) resumed at move 1"
    with Service(tmp_path / "j.sqlite3", tmp_path / "a.json", threaded=False, fidelity=Fidelity.OCCUPANCY) as svc:
        assert svc.table.snapshot()["game_id"] == 2  # another fidelity: a new game
