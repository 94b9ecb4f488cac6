"""The hub's store: every board's games in one SQLite file, with the journal's durability
rules (WAL, ``synchronous=FULL``): a batch of messages is committed in one transaction
*before* any of it is acknowledged, and storing is idempotent on (board, game, seq) — a
message sent twice (after an outage, or a lost acknowledgement) is stored once.

The store does not judge games: the board's referee did. A record is checked through the
rules only when it is turned into a text game record for download.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..durable import open_durable

from .corrections import Correction, overlay, row_to_correction
from .protocol import Ack, GameEnd, GameEvent, GameHeader, Message, UnseenState

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games(
    board TEXT NOT NULL, game INTEGER NOT NULL,
    name TEXT NOT NULL, options TEXT NOT NULL, fidelity TEXT NOT NULL, start TEXT NOT NULL,
    created REAL NOT NULL, players TEXT NOT NULL DEFAULT '{}', round INTEGER,
    end_events INTEGER, outcome TEXT, finished REAL,
    PRIMARY KEY (board, game)
);
CREATE TABLE IF NOT EXISTS events(
    board TEXT NOT NULL, game INTEGER NOT NULL, seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo')), move TEXT, position TEXT NOT NULL,
    created REAL NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (board, game, seq)
);
-- The sides the computer played in a board's game (its header's seats: side -> "computer:N");
-- a table of its own so that stores written before the computer's seats open unchanged.
CREATE TABLE IF NOT EXISTS game_seats(
    board TEXT NOT NULL, game INTEGER NOT NULL, seats TEXT NOT NULL, PRIMARY KEY (board, game)
);
CREATE TABLE IF NOT EXISTS rounds(number INTEGER PRIMARY KEY, created REAL NOT NULL);
-- A round's time control (docs/clock.md), pushed with its pairings; a table of its own so that
-- stores written before the clock open unchanged. No row: the boards' own.
CREATE TABLE IF NOT EXISTS round_clocks(number INTEGER PRIMARY KEY REFERENCES rounds(number), control TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pairings(
    round INTEGER NOT NULL REFERENCES rounds(number), board TEXT NOT NULL, players TEXT NOT NULL,
    result TEXT,  -- the arbiter's result by hand (JSON {"winner", "reason"}), over the board's
    PRIMARY KEY (round, board)
);
-- The arbiter's corrections (tableref/hub/corrections.py): audited, in the order made, laid over
-- the board's record; the board's events above are never changed by them.
CREATE TABLE IF NOT EXISTS corrections(
    id INTEGER PRIMARY KEY, board TEXT NOT NULL, game INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('moves', 'result')),
    at REAL NOT NULL, by TEXT NOT NULL, address TEXT NOT NULL, note TEXT NOT NULL,
    data TEXT NOT NULL, replaced TEXT NOT NULL
);
-- A board's moves never seen one by one (its journal's unseen table, docs/journal.md), as its
-- latest UnseenState said; unseen_state keeps that state's order and key.
CREATE TABLE IF NOT EXISTS unseen(
    board TEXT NOT NULL, game INTEGER NOT NULL, ply INTEGER NOT NULL, count INTEGER NOT NULL,
    alternatives TEXT NOT NULL, chosen INTEGER, PRIMARY KEY (board, game, ply)
);
CREATE TABLE IF NOT EXISTS unseen_state(
    board TEXT NOT NULL, game INTEGER NOT NULL, events INTEGER NOT NULL, chosen INTEGER NOT NULL,
    key TEXT NOT NULL, PRIMARY KEY (board, game)
);
"""


class StoreError(RuntimeError):
    """The hub's store cannot be used; the message names the file."""


@dataclass(frozen=True)
class GameRow:
    board: str
    game: int
    name: str
    players: dict[str, str]
    round: int | None
    moves: int
    events: int
    outcome: dict[str, Any] | None
    finished: bool  # the end covers every event stored (an undo after it reopens the game)
    created: float
    corrected: bool = False  # the arbiter corrected it (moves, outcome and finished are as corrected)
    seats: dict[str, str] = field(default_factory=dict)  # side -> "computer:N": the sides the computer played

    def to_dict(self) -> dict[str, Any]:
        return {"board": self.board, "game": self.game, "name": self.name, "players": self.players,
                "round": self.round, "moves": self.moves, "events": self.events, "outcome": self.outcome,
                "finished": self.finished, "created": self.created, "corrected": self.corrected,
                "seats": self.seats}


class HubStore:
    """Used by the hub's writer thread for writes; reads take the same lock (one connection)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock = threading.RLock()
        db = open_durable(self.path, _SCHEMA, SCHEMA_VERSION, what="hub store", error=StoreError, timeout=10,
                          check=True, foreign_keys=False)
        self.db = db
        self._next: dict[tuple[str, int], int] = {}  # (board, game) → first seq not yet stored
        self.last_new: list[GameEvent] = []
        self.replaced: set[tuple[str, int]] = set()  # (board, game) sent again by a different journal

    def close(self) -> None:
        with self.lock:
            if self.db is not None:
                self.db.close()
                self.db = None  # type: ignore[assignment]

    # -- writing ----------------------------------------------------------------------------------

    def apply(self, batch: Iterable[tuple[str, Message]],
              staged: Callable[[list[GameEvent]], None] | None = None) -> list[tuple[str, Ack]]:
        """Store a batch in one transaction; then the acknowledgements it earns (one per game
        touched: what the hub now holds of it, counted without gaps). ``staged`` is called with
        the events stored for the first time once they are written, *before* the commit's fsync:
        the club page may show a move then (the board has it committed), nothing may be
        acknowledged (it must not raise)."""
        now = time.time()
        touched: dict[tuple[str, int], None] = {}
        new: list[GameEvent] = []
        with self.lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                for board, m in batch:
                    if (board, m.game) in self.replaced or isinstance(m, GameHeader) and self._replaced(board, m):
                        touched[(board, m.game)] = None
                        continue  # another journal's game under a number this board used: kept out
                    if isinstance(m, GameHeader):
                        db.execute(
                            "INSERT INTO games(board, game, name, options, fidelity, start, created, players, round)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(board, game) DO UPDATE SET"
                            " players=excluded.players, round=excluded.round"
                            # A header sent again brings the names of a pairing; an older copy
                            # arriving late (queued in a bridge) must not take them away.
                            " WHERE excluded.round IS NOT NULL AND (games.round IS NULL OR excluded.round >= games.round)",
                            (board, m.game, m.name, json.dumps(m.options), m.fidelity, json.dumps(m.start), m.created,
                             json.dumps(m.players), m.round))
                        if m.seats:
                            db.execute("INSERT OR REPLACE INTO game_seats(board, game, seats) VALUES (?, ?, ?)",
                                       (board, m.game, json.dumps(m.seats)))
                    elif isinstance(m, GameEvent):
                        cur = db.execute(
                            "INSERT OR IGNORE INTO events(board, game, seq, kind, move, position, created, received)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (board, m.game, m.seq, m.kind, m.move, json.dumps(m.position), m.created, now))
                        if cur.rowcount:
                            new.append(m)
                    elif isinstance(m, GameEnd):
                        db.execute("UPDATE games SET end_events=?, outcome=?, finished=? WHERE board=? AND game=?",
                                   (m.events, json.dumps(m.outcome), m.finished, board, m.game))
                    elif isinstance(m, UnseenState):
                        self._unseen(db, board, m)
                    else:
                        continue
                    touched[(board, m.game)] = None
                if staged is not None:
                    staged(new)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            self.last_new = new  # the events this batch stored for the first time (repeats left out)
            return [(board, self._ack(board, game)) for board, game in touched]

    @staticmethod
    def _unseen(db: Any, board: str, m: UnseenState) -> None:
        """The board's unseen groups, replacing what the hub held, and the events the players'
        choices rewrote — unless the hub holds a later state, or lacks an event to rewrite (it
        then acknowledges the older key, and the board sends this again)."""
        row = db.execute("SELECT events, chosen FROM unseen_state WHERE board=? AND game=?", (board, m.game)).fetchone()
        if row is not None and tuple(row) > m.order:
            return  # an older copy, late
        seqs = [e["seq"] for e in m.rewritten]
        if seqs:
            held = db.execute(f"SELECT COUNT(*) FROM events WHERE board=? AND game=? AND seq IN ({','.join('?' * len(seqs))})",
                              (board, m.game, *seqs)).fetchone()[0]
            if held != len(set(seqs)):
                return
        for e in m.rewritten:
            db.execute("UPDATE events SET move=?, position=? WHERE board=? AND game=? AND seq=? AND kind='move'",
                       (e["move"], json.dumps(e["position"]), board, m.game, e["seq"]))
        db.execute("DELETE FROM unseen WHERE board=? AND game=?", (board, m.game))
        db.executemany("INSERT INTO unseen(board, game, ply, count, alternatives, chosen) VALUES (?, ?, ?, ?, ?, ?)",
                       [(board, m.game, g["ply"], g["count"], json.dumps(g["alternatives"]), g["chosen"])
                        for g in m.groups])
        db.execute("INSERT INTO unseen_state(board, game, events, chosen, key) VALUES (?, ?, ?, ?, ?)"
                   " ON CONFLICT(board, game) DO UPDATE SET events=excluded.events, chosen=excluded.chosen,"
                   " key=excluded.key", (board, m.game, *m.order, m.key))

    def _replaced(self, board: str, header: GameHeader) -> bool:
        """A header for a game number this board already used, begun at another time: the board's
        journal was replaced under the same name. Nothing of that game is acknowledged, so the
        board keeps it (and says so, its messages unacknowledged) instead of it being taken for
        repeats; the club must give the board a new name (docs/hub.md)."""
        row = self.db.execute("SELECT created FROM games WHERE board=? AND game=?", (board, header.game)).fetchone()
        if row is None or abs(row[0] - header.created) < 1e-3:
            return False
        if (board, header.game) not in self.replaced:
            log.error("hub: %s sent game %d begun at %s, but its game %d began at %s: a new journal under an old "
                      "name? Nothing of it is acknowledged; give the board a new name.", board, header.game,
                      header.created, header.game, row[0])
        self.replaced.add((board, header.game))
        return True

    def _ack(self, board: str, game: int) -> Ack:
        key = (board, game)
        if key in self.replaced:
            return Ack(game, False, -1)
        nxt = self._next.get(key, 0)
        for (seq,) in self.db.execute("SELECT seq FROM events WHERE board=? AND game=? AND seq>=? ORDER BY seq",
                                      (board, game, nxt)):
            if seq != nxt:
                break
            nxt += 1
        self._next[key] = nxt
        row = self.db.execute("SELECT end_events, outcome, round FROM games WHERE board=? AND game=?",
                              (board, game)).fetchone()
        end = None
        if row is not None and row[0] is not None:
            end = f"{row[0]}:{json.dumps(json.loads(row[1]), sort_keys=True)}"
        unseen = self.db.execute("SELECT key FROM unseen_state WHERE board=? AND game=?", (board, game)).fetchone()
        return Ack(game, row is not None, nxt - 1, end, row[2] if row is not None else None,
                   unseen[0] if unseen else None)

    # -- rounds and pairings ----------------------------------------------------------------------

    def add_round(self, control: str | None = None) -> int:
        """A new round; ``control``: its time control (checked by the caller)."""
        with self.lock:
            row = self.db.execute("SELECT COALESCE(MAX(number), 0) + 1 FROM rounds").fetchone()
            self.db.execute("INSERT INTO rounds(number, created) VALUES (?, ?)", (row[0], time.time()))
            if control is not None:
                self.db.execute("INSERT INTO round_clocks(number, control) VALUES (?, ?)", (row[0], control))
            return int(row[0])

    def round_control(self, rnd: int) -> str | None:
        """The round's time control, or None (the boards' own)."""
        with self.lock:
            row = self.db.execute("SELECT control FROM round_clocks WHERE number=?", (rnd,)).fetchone()
            return None if row is None else str(row[0])

    def rounds(self) -> list[int]:
        with self.lock:
            return [r[0] for r in self.db.execute("SELECT number FROM rounds ORDER BY number")]

    def set_pairing(self, rnd: int, board: str, players: dict[str, str]) -> None:
        with self.lock:
            if self.db.execute("SELECT 1 FROM rounds WHERE number=?", (rnd,)).fetchone() is None:
                raise ValueError(f"no round {rnd}")
            self.db.execute("INSERT INTO pairings(round, board, players) VALUES (?, ?, ?) ON CONFLICT(round, board)"
                            " DO UPDATE SET players=excluded.players", (rnd, board, json.dumps(players)))

    def set_result(self, rnd: int, board: str, result: dict[str, Any] | None) -> None:
        """The arbiter's result by hand (None: back to the board's own)."""
        with self.lock:
            cur = self.db.execute("UPDATE pairings SET result=? WHERE round=? AND board=?",
                                  (None if result is None else json.dumps(result), rnd, board))
            if cur.rowcount == 0:
                raise ValueError(f"no pairing at {board} in round {rnd}")

    def pairings(self, rnd: int | None = None) -> list[dict[str, Any]]:
        with self.lock:
            rows = self.db.execute(
                "SELECT round, board, players, result FROM pairings" + (" WHERE round=?" if rnd is not None else "")
                + " ORDER BY round, board", (() if rnd is None else (rnd,))).fetchall()
        return [{"round": r, "board": b, "players": json.loads(p), "result": json.loads(res) if res else None}
                for r, b, p, res in rows]

    # -- reading ----------------------------------------------------------------------------------

    def games(self, board: str | None = None) -> list[GameRow]:
        where, args = ("WHERE g.board=?", (board,)) if board is not None else ("", ())
        with self.lock:
            rows = self.db.execute(
                "SELECT g.board, g.game, g.name, g.players, g.round, g.end_events, g.outcome, g.created,"
                " (SELECT COUNT(*) FROM events e WHERE e.board=g.board AND e.game=g.game),"
                " (SELECT COUNT(*) FROM events e WHERE e.board=g.board AND e.game=g.game AND e.kind='move'),"
                " (SELECT seats FROM game_seats s WHERE s.board=g.board AND s.game=g.game)"
                f" FROM games g {where} ORDER BY g.board, g.game", args).fetchall()
        corrected = {(c.board, c.game) for c in self.corrections(board)}
        out = []
        for b, g, name, players, rnd, end_events, outcome, created, events, moves, seats_json in rows:
            seats = json.loads(seats_json) if seats_json else {}
            finished = end_events is not None and end_events == events
            if (b, g) in corrected:  # the record as corrected, not as the board sent it
                record = self._board_record(b, g)
                c = overlay(record["moves"], record["outcome"], record.pop("finished"), self.corrections(b, g))
                out.append(GameRow(b, g, name, json.loads(players), rnd, len(c.moves), events, c.outcome,
                                   c.finished, created, True, seats))
                continue
            out.append(GameRow(b, g, name, json.loads(players), rnd, moves - (events - moves), events,
                               json.loads(outcome) if finished and outcome else None, finished, created,
                               seats=seats))
        return out

    def export(self, board: str, game: int) -> dict[str, Any]:
        """The game as ``tableref export`` prints it (docs/journal.md), plus board and players; with
        the arbiter's corrections laid over it (``corrections``: each, in order; ``board_record``:
        the moves and outcome as the board sent them) and its moves never seen one by one
        (``unseen``), where it has any."""
        record = self._board_record(board, game)
        finished = record.pop("finished")
        fixes = self.corrections(board, game)
        if fixes:
            own = {"moves": record["moves"], "outcome": record["outcome"]}
            c = overlay(record["moves"], record["outcome"], finished, fixes)
            record.update(moves=c.moves, outcome=c.outcome, corrections=[f.to_dict() for f in fixes], board_record=own)
        groups = self._unseen_groups(board, game, record["moves"])
        if groups:
            record["unseen"] = groups
        return record

    def _unseen_groups(self, board: str, game: int, moves: list[str]) -> list[dict[str, Any]]:
        """The unseen groups that fit the moves (as the board's journal keeps only those: an undo
        into a group ends it; so does an arbiter's correction of its moves)."""
        with self.lock:
            rows = self.db.execute("SELECT ply, count, alternatives, chosen FROM unseen WHERE board=? AND game=?"
                                   " ORDER BY ply", (board, game)).fetchall()
        out = []
        for ply, count, alts, chosen in rows:
            alternatives = json.loads(alts)
            if ply + count <= len(moves) and " ".join(moves[ply:ply + count]) == alternatives[chosen or 0]:
                out.append({"ply": ply, "count": count, "alternatives": alternatives, "chosen": chosen})
        return out

    def _board_record(self, board: str, game: int) -> dict[str, Any]:
        with self.lock:
            row = self.db.execute("SELECT name, options, fidelity, start, players, round, end_events, outcome,"
                                  " created FROM games WHERE board=? AND game=?", (board, game)).fetchone()
            if row is None:
                raise KeyError(f"no game {game} from {board}")
            events = self.db.execute("SELECT seq, kind, move FROM events WHERE board=? AND game=? ORDER BY seq",
                                     (board, game)).fetchall()
            seats = self.db.execute("SELECT seats FROM game_seats WHERE board=? AND game=?", (board, game)).fetchone()
        name, options, fidelity, start, players, rnd, end_events, outcome, created = row
        moves: list[str] = []
        for i, (seq, kind, move) in enumerate(events):
            if seq != i:
                break  # a gap: the rest has not arrived yet
            if kind == "move":
                moves.append(move)
            elif moves:
                moves.pop()
        finished = end_events is not None and end_events == len(events)
        out = {"tableref_game": 1, "game": name, "options": json.loads(options), "fidelity": fidelity,
               "start": json.loads(start), "moves": moves,
               "outcome": json.loads(outcome) if finished and outcome else None,
               "board": board, "game_id": game, "players": json.loads(players), "round": rnd, "created": created,
               "finished": finished}
        if seats is not None:  # the sides the computer played, as `tableref export` writes them
            out["seats"] = json.loads(seats[0])
        return out

    # -- the arbiter's corrections ------------------------------------------------------------------

    def add_correction(self, board: str, game: int, kind: str, *, by: str, address: str, note: str,
                       data: dict[str, Any], replaced: dict[str, Any]) -> Correction:
        """One audited correction, committed before this returns (it survives a restart)."""
        at = time.time()
        with self.lock:
            if self.db.execute("SELECT 1 FROM games WHERE board=? AND game=?", (board, game)).fetchone() is None:
                raise KeyError(f"no game {game} from {board}")
            cur = self.db.execute("INSERT INTO corrections(board, game, kind, at, by, address, note, data, replaced)"
                                  " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  (board, game, kind, at, by, address, note, json.dumps(data), json.dumps(replaced)))
        log.info("hub: %s corrected %s game %d (%s): %s", by, board, game, kind, data)
        return Correction(int(cur.lastrowid), board, game, kind, at, by, address, note, data, replaced)

    def corrections(self, board: str | None = None, game: int | None = None) -> list[Correction]:
        where = " WHERE board=?" if board is not None else ""
        args: tuple = (board,) if board is not None else ()
        if game is not None:
            where, args = where + " AND game=?", args + (game,)
        with self.lock:
            rows = self.db.execute("SELECT id, board, game, kind, at, by, address, note, data, replaced"
                                   f" FROM corrections{where} ORDER BY id", args).fetchall()
        return [row_to_correction(r) for r in rows]

    def positions(self, board: str, game: int) -> list[dict[str, Any]]:
        """Every event of a game with the position after it (the replay page steps through them)."""
        with self.lock:
            rows = self.db.execute("SELECT seq, kind, move, position FROM events WHERE board=? AND game=?"
                                   " ORDER BY seq", (board, game)).fetchall()
        return [{"seq": s, "kind": k, "move": m, "position": json.loads(p)} for s, k, m, p in rows]

    def event_count(self) -> int:
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
