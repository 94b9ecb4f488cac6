"""The journal is the outbox: what the hub has not acknowledged is read back from it and sent
again, in order, after any outage however long.

:class:`Outbox` has its own SQLite connection to the journal file (WAL: it reads what the
referee has committed without ever holding the referee up) and is used by the publisher's
thread alone. It writes only the hub tables (``hub_outbox``, ``game_players``), in short
transactions; losing one of those writes to a power cut only means a message sent twice,
which the hub stores once.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..journal import _SCHEMA, JournalError
from .protocol import Ack, GameEnd, GameEvent, GameHeader, UnseenState, unseen_key


@dataclass(frozen=True)
class Cursor:
    """One game as the outbox sees it: how far the journal goes and what the hub has."""

    game: int
    last_seq: int  # -1: no event yet
    finished: bool
    end_key: str | None  # GameEnd.key while finished
    header_acked: bool
    acked_seq: int
    acked_end: str | None
    unseen_key: str | None = None  # UnseenState.key of the game's unseen groups; None: none ever
    acked_unseen: str | None = None

    @property
    def unseen_due(self) -> bool:
        return self.unseen_key is not None and self.unseen_key != self.acked_unseen

    @property
    def settled(self) -> bool:
        """Everything of a finished game is in: nothing will ever be sent for it again (until the
        players choose among unseen moves: that makes it due again, see :meth:`Outbox.cursors`)."""
        return self.finished and self.header_acked and self.acked_seq == self.last_seq \
            and self.acked_end == self.end_key and not self.unseen_due


def end_key(events: int, outcome: Any) -> str:
    return f"{events}:{json.dumps(outcome, sort_keys=True)}"


class Outbox:
    def __init__(self, journal_path: str | Path) -> None:
        self.path = Path(journal_path)
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10)
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)  # an older journal gains the hub tables
            columns = [r[1] for r in db.execute("PRAGMA table_info(hub_outbox)")]
            if "acked_unseen" not in columns:  # a journal from before the unseen message
                db.execute("ALTER TABLE hub_outbox ADD COLUMN acked_unseen TEXT")
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a usable journal: {exc}") from None
        self.db: sqlite3.Connection | None = db

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def cursors(self, low: int) -> list[Cursor]:
        """Every game from id ``low`` on, in order; and any earlier game whose unseen groups the
        hub does not hold as they are (the players chose one after the game was all in)."""
        rows = self.db.execute(
            "SELECT g.id, g.finished, g.outcome,"
            " (SELECT COALESCE(MAX(seq), -1) FROM events e WHERE e.game_id = g.id),"
            " COALESCE(o.header, 0), COALESCE(o.acked_seq, -1), o.acked_end,"
            " (SELECT COALESCE(MAX(round), 0) FROM game_players p WHERE p.game_id = g.id), o.acked_unseen"
            " FROM games g LEFT JOIN hub_outbox o ON o.game_id = g.id"
            " WHERE g.id >= ? OR g.id IN (SELECT game_id FROM unseen) OR o.acked_unseen IS NOT NULL ORDER BY g.id",
            (low,)).fetchall()
        groups = self._groups({r[0] for r in rows if r[0] < low or r[8] is not None} | self._with_unseen(low))
        out = []
        for gid, finished, outcome, last, header, acked, acked_end, rnd, acked_unseen in rows:
            done = finished is not None
            key = end_key(last + 1, json.loads(outcome) if outcome else None) if done else None
            mine = groups.get(gid, [])
            ukey = unseen_key(mine) if mine or acked_unseen is not None else None
            c = Cursor(gid, last, done, key, header >= 1 + rnd, acked, acked_end, ukey, acked_unseen)
            if gid >= low or c.unseen_due:
                # header holds 1 + the players' round the hub acknowledged: a header acknowledged
                # before the names came is not the one with the names.
                out.append(c)
        return out

    def _with_unseen(self, low: int) -> set[int]:
        return {r[0] for r in self.db.execute("SELECT DISTINCT game_id FROM unseen WHERE game_id >= ?", (low,))}

    def _groups(self, games: set[int]) -> dict[int, list[dict[str, Any]]]:
        out: dict[int, list[dict[str, Any]]] = {}
        if not games:
            return out
        marks = ",".join("?" * len(games))
        for gid, ply, count, alts, chosen in self.db.execute(
                f"SELECT game_id, ply, count, alternatives, chosen FROM unseen WHERE game_id IN ({marks})"
                " ORDER BY game_id, ply", sorted(games)):
            out.setdefault(gid, []).append({"ply": ply, "count": count, "alternatives": json.loads(alts),
                                            "chosen": chosen})
        return out

    def unseen(self, game: int) -> UnseenState:
        """The game's unseen groups as the journal holds them, with the events the players'
        choices rewrote (the standing moves of each chosen group)."""
        groups = self._groups({game}).get(game, [])
        stack: list[tuple[int, str, str]] = []
        count = 0
        for seq, kind, move, position in self.db.execute(
                "SELECT seq, kind, move, position FROM events WHERE game_id=? ORDER BY seq", (game,)):
            count += 1
            if kind == "move":
                stack.append((seq, move, position))
            elif stack:
                stack.pop()
        rewritten = []
        for g in groups:
            if g["chosen"] is not None:
                rewritten += [{"seq": seq, "move": move, "position": json.loads(position)}
                              for seq, move, position in stack[g["ply"]:g["ply"] + g["count"]]]
        return UnseenState(game, count, groups, rewritten)

    def header(self, game: int) -> GameHeader:
        name, options, fidelity, start, created = self.db.execute(
            "SELECT game, options, fidelity, start, created FROM games WHERE id=?", (game,)).fetchone()
        players, rnd = self.players(game)
        try:
            seats = dict(self.db.execute("SELECT side, seat FROM game_seats WHERE game_id=?", (game,)).fetchall())
        except sqlite3.OperationalError:  # a journal from before the computer's seats: people only
            seats = {}
        return GameHeader(game, name, json.loads(options), fidelity, json.loads(start), created, players, rnd,
                          seats)

    def events(self, game: int, after: int, limit: int) -> list[GameEvent]:
        rows = self.db.execute(
            "SELECT seq, kind, move, position, created FROM events WHERE game_id=? AND seq>? ORDER BY seq LIMIT ?",
            (game, after, limit)).fetchall()
        return [GameEvent(game, seq, kind, move, json.loads(pos), created) for seq, kind, move, pos, created in rows]

    def end(self, game: int) -> GameEnd | None:
        row = self.db.execute(
            "SELECT g.finished, g.outcome, (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id)"
            " FROM games g WHERE g.id=?", (game,)).fetchone()
        if row is None or row[0] is None:
            return None
        return GameEnd(game, row[2], json.loads(row[1]) if row[1] else None, row[0])

    def ack(self, ack: Ack) -> None:
        """Record what the hub has committed (never moving backwards)."""
        self.db.execute(
            "INSERT INTO hub_outbox(game_id, header, acked_seq, acked_end, acked_unseen) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(game_id) DO UPDATE SET header = MAX(header, excluded.header),"
            " acked_seq = MAX(acked_seq, excluded.acked_seq), acked_end = COALESCE(excluded.acked_end, acked_end),"
            " acked_unseen = COALESCE(excluded.acked_unseen, acked_unseen)",
            (ack.game, (1 + (ack.round or 0)) if ack.header else 0, ack.seq, ack.end, ack.unseen))

    # -- players ---------------------------------------------------------------------------------

    def players(self, game: int) -> tuple[dict[str, str], int | None]:
        rows = self.db.execute("SELECT side, name, round FROM game_players WHERE game_id=? ORDER BY side",
                               (game,)).fetchall()
        return {side: name for side, name, _ in rows}, (rows[0][2] if rows else None)

    def set_players(self, game: int, players: dict[str, str], rnd: int | None) -> bool:
        """Store the players of ``game``; True if that changed anything (the header is then
        sent again, so the hub has the names too)."""
        if self.players(game) == (dict(sorted(players.items())), rnd if players else None):
            return False
        self.db.execute("BEGIN IMMEDIATE")
        try:
            self.db.execute("DELETE FROM game_players WHERE game_id=?", (game,))
            self.db.executemany("INSERT INTO game_players(game_id, side, name, round) VALUES (?, ?, ?, ?)",
                                [(game, side, name, rnd) for side, name in players.items()])
            self.db.execute("UPDATE hub_outbox SET header=0 WHERE game_id=?", (game,))
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")
        return True

    def round_spent(self, rnd: int) -> bool:
        """A game of this round has ended with a result here: its pairing names no later game."""
        return self.db.execute(
            "SELECT 1 FROM game_players p JOIN games g ON g.id = p.game_id WHERE p.round=?"
            " AND g.finished IS NOT NULL AND g.outcome IS NOT NULL AND g.outcome != 'null' LIMIT 1",
            (rnd,)).fetchone() is not None

    def latest_game(self) -> tuple[int, bool] | None:
        """(id, finished) of the journal's latest game."""
        row = self.db.execute("SELECT id, finished IS NOT NULL FROM games ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else (row[0], bool(row[1]))
