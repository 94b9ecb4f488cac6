"""Two tables in one test: a ``tableref serve`` service of each on a real broker, a person's
hand on its simulated board, and their journals compared (the same game, move for move: what
``tableref export`` writes of it, less what is each table's own: its seats, its times of day)."""

from __future__ import annotations

import time
from pathlib import Path

from rules import Fidelity
from tableref import clock_journal
from tableref.hub.settings import BrokerConfig
from tableref.journal import Journal
from tableref.remote.settings import RemoteConfig
from tableref.serve import Service


def wait(ok, what, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, f"timed out: {what() if callable(what) else what}"
        time.sleep(0.05)


def service(tmp_path: Path, name: str, port: int) -> Service:
    """Table ``name``'s service (Gygès, its own journal) linked through the broker on ``port``."""
    d = tmp_path / name
    d.mkdir()
    svc = Service(d / "j.sqlite3", d / "admin.json", game="gyges", setup="default", settle=0.15, readings=2,
                  scan_interval=0.03, pin_hash="scrypt:1024:8:1",
                  remote=RemoteConfig(BrokerConfig("127.0.0.1", port), name))
    return svc.start()


def show(svc: Service, state) -> None:
    """A person at that table makes the board show ``state``."""
    with svc.table._lock:
        svc.table.sim.reset(state.view(Fidelity.KIND))
    svc.table._sim_changed()


def remote_game(path: Path) -> dict:
    """The journal's latest game with another table: start, moves, result, each move's clocks."""
    with Journal(path) as j:
        gid = j.db.execute("SELECT game_id FROM game_seats WHERE seat LIKE 'remote:%' ORDER BY game_id DESC"
                           " LIMIT 1").fetchone()[0]
        record = j.load(gid)
        outcome = j.db.execute("SELECT outcome FROM games WHERE id=?", (gid,)).fetchone()[0]
        undos = j.db.execute("SELECT COUNT(*) FROM events WHERE game_id=? AND kind='undo'", (gid,)).fetchone()[0]
        return {"game": record.game, "options": record.options, "start": record.states[0].to_dict(),
                "moves": list(record.moves), "finished": record.finished, "outcome": outcome, "undos": undos,
                "control": clock_journal.control_of(j, gid),
                "seats": {s: seat.table for s, seat in record.seats.remotes.items()}}
