"""The game clock in the journal (issue 34; docs/clock.md, docs/journal.md).

Two tables, added to any journal on first use (an older journal opens unchanged; a game without
rows had no clock)::

    clock_games(game_id, control, state, saved_wall)
        the clock's whole state (tableref.clock.Clock.to_dict: free of the time base), rewritten
        at every change and every few seconds while one runs; ``saved_wall``: the wall-clock time
        it was written, so a restart knows how long the service was off
    clock_moves(game_id, seq, times)
        every player's milliseconds left just after the move journalled as event ``seq``

Each write is its own committed transaction, right after the move's: a power cut between the
two leaves the clock one move behind, which the referee puts right on resuming (the move counted
as made at the restart).
"""

from __future__ import annotations

import json
from typing import Any

from .journal import Journal

_SCHEMA = """
CREATE TABLE IF NOT EXISTS clock_games(
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    control TEXT NOT NULL,
    state TEXT NOT NULL,
    saved_wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS clock_moves(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    times TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


def _ensure(journal: Journal) -> None:
    if not getattr(journal, "_clock_tables", False):  # once per open journal
        journal.db.executescript(_SCHEMA)
        journal._clock_tables = True  # type: ignore[attr-defined]


def save_state(journal: Journal, game_id: int, state: dict[str, Any], wall: float) -> None:
    _ensure(journal)
    with journal._transaction():  # noqa: SLF001  (one writer: the referee's thread)
        journal.db.execute(
            "INSERT OR REPLACE INTO clock_games(game_id, control, state, saved_wall) VALUES (?, ?, ?, ?)",
            (game_id, state["control"], json.dumps(state), wall))


def save_move(journal: Journal, game_id: int, seq: int, times: dict[str, int], state: dict[str, Any],
              wall: float) -> None:
    """The times after move ``seq``, and the clock's state, in one transaction."""
    _ensure(journal)
    with journal._transaction():  # noqa: SLF001
        journal.db.execute("INSERT OR REPLACE INTO clock_moves(game_id, seq, times) VALUES (?, ?, ?)",
                           (game_id, seq, json.dumps(times)))
        journal.db.execute(
            "INSERT OR REPLACE INTO clock_games(game_id, control, state, saved_wall) VALUES (?, ?, ?, ?)",
            (game_id, state["control"], json.dumps(state), wall))


def finish_on_time(journal: Journal, record: Any, outcome: dict[str, Any], state: dict[str, Any],
                   wall: float) -> None:
    """A flag fell: the game is finished with ``outcome`` (loss on time) and the clock as it fell,
    in one transaction (the games table as ``Journal.finish`` writes it)."""
    _ensure(journal)
    with journal._transaction():  # noqa: SLF001
        journal.db.execute("UPDATE games SET finished=?, outcome=? WHERE id=?", (wall, json.dumps(outcome), record.id))
        journal.db.execute(
            "INSERT OR REPLACE INTO clock_games(game_id, control, state, saved_wall) VALUES (?, ?, ?, ?)",
            (record.id, state["control"], json.dumps(state), wall))
    record.finished = True


def load_state(journal: Journal, game_id: int) -> tuple[dict[str, Any], float] | None:
    """The clock's saved state and when it was saved (wall clock), or None (no clock)."""
    _ensure(journal)
    row = journal.db.execute("SELECT state, saved_wall FROM clock_games WHERE game_id=?", (game_id,)).fetchone()
    if row is None:
        return None
    return journal._json(row[0], f"game {game_id}: clock"), float(row[1])  # noqa: SLF001


def move_times(journal: Journal, game_id: int) -> list[dict[str, int] | None]:
    """Every standing move's times (None for a move journalled without a clock), in order: what
    export and replay show."""
    _ensure(journal)
    rows = dict(journal.db.execute("SELECT seq, times FROM clock_moves WHERE game_id=?", (game_id,)).fetchall())
    out: list[dict[str, int] | None] = []
    for seq in journal._standing_seqs(game_id):  # noqa: SLF001
        text = rows.get(seq)
        out.append(None if text is None else journal._json(text, f"game {game_id}, event {seq}: clock"))  # noqa: SLF001
    return out


def control_of(journal: Journal, game_id: int) -> str | None:
    _ensure(journal)
    row = journal.db.execute("SELECT control FROM clock_games WHERE game_id=?", (game_id,)).fetchone()
    return None if row is None else str(row[0])
