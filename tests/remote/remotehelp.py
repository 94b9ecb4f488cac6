"""Two tables' journals compared: the same game, move for move (what ``tableref export`` writes
of it, less what is each table's own: its seats, its times of day)."""

from __future__ import annotations

from pathlib import Path

from tableref.journal import Journal
from tableref import clock_journal


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
