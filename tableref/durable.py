"""Opening a durable SQLite file (the journal, the club hub's store): WAL, ``synchronous=FULL``
so a committed transaction survives a kill or a power cut, the schema created, its version
checked — one place, one clear error naming the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_durable(path: Path, schema: str, version: int, *, what: str, error: type[Exception],
                 timeout: float = 5.0, check: bool = False, foreign_keys: bool = True) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are begun explicitly), or ``error``:
    "cannot open the <what>", "not a usable <what>", or a schema version this tableref does
    not read. ``check`` runs SQLite's quick_check (a store reopened after a kill)."""
    db: sqlite3.Connection | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=timeout)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        if foreign_keys:
            db.execute("PRAGMA foreign_keys=ON")
        db.executescript(schema)
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if row is None:
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(version),))
        elif row[0] != str(version):
            raise error(f"{path}: {what} schema {row[0]}, this tableref reads {version}")
        if check:
            db.execute("PRAGMA quick_check").fetchone()
    except (sqlite3.DatabaseError, OSError, error) as exc:
        if db is not None:
            db.close()
        if isinstance(exc, error):
            raise
        if isinstance(exc, OSError):
            raise error(f"{path}: cannot open the {what}: {exc.strerror}") from None
        # Never replaced here: what is in it may still be saved. Say how to go on without it.
        raise error(f"{path}: not a usable {what}: {exc}; move it aside (mv '{path}' '{path}.broken'): "
                    f"a new, empty {what} is then made in its place") from None
    return db
