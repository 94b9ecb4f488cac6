"""``tableref hub`` as a process, with a real Mosquitto: SIGKILLed mid-stream and restarted,
its store opens cleanly and it resumes; nothing the boards sent is lost or doubled."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.request

from tableref.hub.store import HubStore

from mosquittohelp import free_port, needs_mosquitto, wait_for
from hubhelp import journal_games, make_tables

pytestmark = needs_mosquitto


def _start(cfg, env):
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "hub", "--config", str(cfg)], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=env)
    seen = []
    for line in proc.stdout:  # the hub's log lines (its link) may come first
        seen.append(line)
        if "club page http://" in line:
            return proc, line.rsplit(" ", 1)[-1].strip()
    raise AssertionError("".join(seen))


def _club(url):
    with urllib.request.urlopen(url + "api/club", timeout=5) as r:
        return json.load(r)


def test_hub_sigkilled_mid_stream_restarts_cleanly_and_resumes(broker, tmp_path):
    port = free_port()
    cfg = tmp_path / "hub.toml"
    cfg.write_text(f'[broker]\nbroker = "mqtt://127.0.0.1:{broker.port}"\n[data]\ndir = "data"\n'
                   f'[web]\nport = {port}\n[event]\nname = "Kill night"\n')
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc, url = _start(cfg, env)
    tables = make_tables(8, broker.port, tmp_path / "boards")
    try:
        wait_for(lambda: len(_club(url)["boards"]) == 8, 10, "every table on the club page")
        for _ in range(3):
            for t in tables:
                for _ in range(4):
                    t.step()
        proc.send_signal(signal.SIGKILL)  # mid-stream: the tables have just played
        proc.wait(5)
        for t in tables:  # play goes on while the hub is down
            t.play_game()
        proc, url = _start(cfg, env)
        expected = {t.name: journal_games(t) for t in tables}
        total = sum(len(g["events"]) for games in expected.values() for g in games.values())

        def caught_up():
            c = _club(url)["counters"]
            return all(t.publisher.link.unacknowledged == 0 for t in tables) and c["stored"] > 0
        wait_for(caught_up, 20, "every board acknowledged by the restarted hub")
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=10)[0]
        for t in tables:
            t.stop()
    assert proc.returncode == 0, out
    db = sqlite3.connect(tmp_path / "data" / "hub.sqlite3")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    store = HubStore(tmp_path / "data" / "hub.sqlite3")
    try:
        assert store.event_count() == total  # nothing lost, nothing doubled
        for name, games in expected.items():
            for gid, g in games.items():
                got = store.export(name, gid)
                assert got["moves"] == g["moves"] and got["outcome"] == g["outcome"]
    finally:
        store.close()
