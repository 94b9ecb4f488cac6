"""The journal: every game, durably, in SQLite.

One transaction per accepted event, committed before the referee publishes it, with
WAL and ``synchronous=FULL`` so a game survives the process being killed (or the
power failing) at any instant. Replay re-applies the accepted moves through the rules,
and checks each against the position recorded beside it.

Tables::

    games(id, game, options, fidelity, start, created, finished, outcome)
    events(game_id, seq, kind, move, position, created)   -- kind: move | undo
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from decisions import SeatError, Seats
from rules import RulesError, State, get_game

from .durable import open_durable

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games(
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    fidelity TEXT NOT NULL,
    start TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS events(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo')),
    move TEXT,
    position TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
-- The club hub's outbox cursor (tableref/hub/outbox.py): what the hub has acknowledged of each
-- game. Added to older journals on open; only the hub publisher writes it.
CREATE TABLE IF NOT EXISTS hub_outbox(
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    header INTEGER NOT NULL DEFAULT 0,
    acked_seq INTEGER NOT NULL DEFAULT -1,
    acked_end TEXT
);
-- Moves never seen one by one: the board showed several at once and more than one sequence of
-- moves reaches it. `ply`: the first of the `count` moves; `alternatives`: JSON list of every
-- sequence's notation (the first was recorded); `chosen`: the players' pick (the events then
-- hold it), if any.
CREATE TABLE IF NOT EXISTS unseen(
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    count INTEGER NOT NULL,
    alternatives TEXT NOT NULL,
    chosen INTEGER,
    PRIMARY KEY (game_id, ply)
);
-- Who played each side that was not a person at this table: `seat` is 'computer:N' (level N).
-- A side with no row was a person here (every game before the computer opponent).
CREATE TABLE IF NOT EXISTS game_seats(
    game_id INTEGER NOT NULL REFERENCES games(id),
    side TEXT NOT NULL,
    seat TEXT NOT NULL,
    PRIMARY KEY (game_id, side)
);
-- The players' names of a game, from the round's pairing the hub pushed to this board.
CREATE TABLE IF NOT EXISTS game_players(
    game_id INTEGER NOT NULL REFERENCES games(id),
    side TEXT NOT NULL,
    name TEXT NOT NULL,
    round INTEGER,
    PRIMARY KEY (game_id, side)
);
"""


class JournalError(RuntimeError):
    """The journal file cannot be used, or a recorded game does not replay."""


@dataclass(frozen=True)
class UnseenGroup:
    """Moves ``ply``..``ply+count-1`` were shown all at once and several sequences reach the
    board: every one is kept (``alternatives``, notations space-separated, the first recorded)
    until the players choose (``chosen``: index, or None while open)."""

    ply: int
    count: int
    alternatives: tuple[str, ...]
    chosen: int | None = None

    @property
    def is_open(self) -> bool:
        return self.chosen is None

    def to_dict(self) -> dict[str, Any]:
        return {"ply": self.ply, "count": self.count, "alternatives": list(self.alternatives), "chosen": self.chosen}


def substitute(before: State, notation: str, after: State) -> tuple[list[str], list[State]]:
    """The moves of ``notation`` (a space-separated sequence) from ``before``, and the states
    they lead to; they must reach ``after`` (ValueError otherwise)."""
    texts, states, s = [], [], before
    state_moves = parse_sequence(before, notation)
    for m in state_moves:
        texts.append(s.move_text(m))
        s = s.apply(m)
        states.append(s)
    if s != after:
        raise ValueError(f"{notation!r} does not reach the recorded position")
    return texts, states


def parse_sequence(state: State, notation: str) -> list[Any]:
    """The moves of a space-separated sequence from ``state``; a move's own notation may
    contain spaces (DRIFT's). ValueError if it is not a sequence of legal moves."""
    words = notation.split()
    if not words:
        return []
    for cut in range(len(words), 0, -1):
        try:
            move = state.parse_move(" ".join(words[:cut]))
        except RulesError:
            continue
        rest = " ".join(words[cut:])
        if not rest:
            return [move]
        try:
            return [move] + parse_sequence(state.apply(move), rest)
        except (RulesError, ValueError):
            continue
    raise ValueError(f"{notation!r} is not a sequence of legal moves")


@dataclass(frozen=True)
class GameSummary:
    id: int
    game: str
    fidelity: str
    created: float
    finished: float | None
    outcome: Mapping[str, Any] | None
    moves: int


@dataclass
class GameRecord:
    """A game rebuilt from the journal: the positions reached and the moves between them."""

    id: int
    game: str
    options: dict[str, Any]
    fidelity: str
    states: list[State]
    moves: list[str] = field(default_factory=list)
    next_seq: int = 0
    finished: bool = False
    unseen: list[UnseenGroup] = field(default_factory=list)  # moves never seen one by one
    seats: Seats = field(default_factory=Seats)  # the computer's sides and levels

    @property
    def state(self) -> State:
        return self.states[-1]


class Journal:
    """An open journal file. Not thread-safe: the referee is its single writer."""

    def __init__(self, path: str | Path, *, exclusive: bool = False) -> None:
        """``exclusive``: this process is the journal's writer (tableref/journal_lock.py): another
        living writer is refused here, before anything is written."""
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._hold = None
        if exclusive:
            from .journal_lock import hold

            self._hold = hold(self.path)
        try:
            db = open_durable(self.path, _SCHEMA, SCHEMA_VERSION, what="journal", error=JournalError)
        except JournalError:
            self.close()
            raise
        self._db = db

    # -- lifecycle ------------------------------------------------------------------------

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._hold is not None:
            self._hold.release()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def db(self) -> sqlite3.Connection:
        if self._db is None:
            raise JournalError(f"{self.path}: journal is closed")
        return self._db

    # -- writing (each call is one committed transaction) ------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        # The connection is in autocommit mode, so a transaction is begun explicitly: every
        # statement inside commits together, or (on any error) none does.
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def new_game(self, state: State, options: Mapping[str, Any], fidelity: str,
                 seats: Seats | None = None) -> GameRecord:
        seats = seats or Seats()
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO games(game, options, fidelity, start, created) VALUES (?, ?, ?, ?, ?)",
                (state.game_name, json.dumps(dict(options)), fidelity, json.dumps(state.to_dict()), time.time()),
            )
            self._write_seats(int(cur.lastrowid), seats)
        return GameRecord(int(cur.lastrowid), state.game_name, dict(options), fidelity, [state], seats=seats)

    def _write_seats(self, game_id: int, seats: Seats) -> None:
        for side, seat in seats.by_side.items():
            self.db.execute("INSERT INTO game_seats(game_id, side, seat) VALUES (?, ?, ?)",
                            (game_id, side, seat.text()))

    def seats(self, game_id: int) -> Seats:
        """Who played each side of a game (people left out); a clear error if a row is unreadable."""
        rows = self.db.execute("SELECT side, seat FROM game_seats WHERE game_id=? ORDER BY side",
                               (game_id,)).fetchall()
        try:
            return Seats.from_dict(dict(rows), where=f"game {game_id}: seats")
        except SeatError as exc:
            raise JournalError(f"{self.path}: {exc}") from None

    def record_move(self, record: GameRecord, move_text: str, state: State) -> None:
        """Append an accepted move and the position it led to (and, if it ends the game, the
        result, in the same transaction); then update ``record``."""
        over = state.is_game_over()
        with self._transaction():
            self._append(record, "move", move_text, state)
            if over:
                self._set_finished(record, state)
        record.next_seq += 1
        record.states.append(state)
        record.moves.append(move_text)
        record.finished = over

    def record_sequence(self, record: GameRecord, moves: list[tuple[str, State]],
                        alternatives: tuple[str, ...] = ()) -> UnseenGroup | None:
        """Append moves the board showed all at once, in one transaction. With more than one
        alternative (each sequence's notation, space-separated; the first is ``moves``), the
        record keeps them all, marked unseen, until the players choose (:meth:`choose_unseen`)."""
        group = None
        with self._transaction():
            first = len(record.moves)
            for i, (text, state) in enumerate(moves):
                self._append(record, "move", text, state, seq=record.next_seq + i)
            if len(alternatives) > 1:
                group = UnseenGroup(first, len(moves), tuple(alternatives))
                self.db.execute("INSERT OR REPLACE INTO unseen(game_id, ply, count, alternatives) VALUES (?, ?, ?, ?)",
                                (record.id, first, len(moves), json.dumps(list(alternatives))))
            if moves[-1][1].is_game_over():
                self._set_finished(record, moves[-1][1])
        for text, state in moves:
            record.next_seq += 1
            record.states.append(state)
            record.moves.append(text)
        record.finished = moves[-1][1].is_game_over()
        if group is not None:
            record.unseen.append(group)
        return group

    def choose_unseen(self, record: GameRecord, ply: int, number: int) -> UnseenGroup:
        """The players say which sequence they played (``number``, 1-based, of the group
        starting at ``ply``): the group's events are rewritten to it (same final position, so
        nothing after them changes), in one transaction."""
        group = next((g for g in record.unseen if g.ply == ply), None)
        if group is None:
            raise JournalError(f"game {record.id}: no unseen moves at move {ply + 1}")
        if not 1 <= number <= len(group.alternatives):
            raise JournalError(f"game {record.id}: choose 1..{len(group.alternatives)}")
        chosen = replace(group, chosen=number - 1)
        texts, states = substitute(record.states[ply], chosen.alternatives[number - 1], record.states[ply + group.count])
        seqs = self._standing_seqs(record.id)[ply:ply + group.count]
        with self._transaction():
            for seq, text, state in zip(seqs, texts, states):
                self.db.execute("UPDATE events SET move=?, position=? WHERE game_id=? AND seq=?",
                                (text, json.dumps(state.to_dict()), record.id, seq))
            self.db.execute("UPDATE unseen SET chosen=? WHERE game_id=? AND ply=?", (number - 1, record.id, ply))
        record.moves[ply:ply + group.count] = texts
        record.states[ply + 1:ply + group.count] = states[:-1]
        record.unseen[record.unseen.index(group)] = chosen
        return chosen

    def _standing_seqs(self, game_id: int) -> list[int]:
        """The event number of each move standing in the game (taken-back ones left out)."""
        stack: list[int] = []
        for seq, kind in self.db.execute("SELECT seq, kind FROM events WHERE game_id=? ORDER BY seq", (game_id,)):
            if kind == "move":
                stack.append(seq)
            elif stack:
                stack.pop()
        return stack

    def record_undo(self, record: GameRecord) -> State:
        """Step the game back one move (takeback); returns the position now current."""
        if not record.moves:
            raise JournalError("nothing to take back")
        previous = record.states[-2]
        with self._transaction():  # one transaction: the undo and the game reopened, or neither
            self._append(record, "undo", None, previous)
            # unseen moves partly taken back are no longer a question: the board decides anew
            self.db.execute("DELETE FROM unseen WHERE game_id=? AND ply + count > ?", (record.id, len(record.moves) - 1))
            if record.finished:
                self.db.execute("UPDATE games SET finished=NULL, outcome=NULL WHERE id=?", (record.id,))
        record.next_seq += 1
        record.states.pop()
        record.moves.pop()
        record.unseen = [g for g in record.unseen if g.ply + g.count <= len(record.moves)]
        record.finished = False
        return previous

    def finish(self, record: GameRecord, state: State | None = None) -> None:
        """Mark a game finished: with ``state``'s outcome, or abandoned without one."""
        with self._transaction():
            self._set_finished(record, state)
        record.finished = True

    def _set_finished(self, record: GameRecord, state: State | None) -> None:
        outcome = state.outcome() if state is not None else None
        self.db.execute(
            "UPDATE games SET finished=?, outcome=? WHERE id=?",
            (time.time(), json.dumps(outcome.to_dict() if outcome else None), record.id),
        )

    def _append(self, record: GameRecord, kind: str, move: str | None, state: State, *,
                seq: int | None = None) -> None:
        self.db.execute(
            "INSERT INTO events(game_id, seq, kind, move, position, created) VALUES (?, ?, ?, ?, ?, ?)",
            (record.id, record.next_seq if seq is None else seq, kind, move, json.dumps(state.to_dict()),
             time.time()),
        )

    # -- reading -------------------------------------------------------------------------------

    def games(self) -> list[GameSummary]:
        rows = self.db.execute(
            "SELECT g.id, g.game, g.fidelity, g.created, g.finished, g.outcome,"
            " (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id AND e.kind = 'move')"
            " - (SELECT COUNT(*) FROM events e WHERE e.game_id = g.id AND e.kind = 'undo')"
            " FROM games g ORDER BY g.id"
        ).fetchall()
        return [
            GameSummary(r[0], r[1], r[2], r[3], r[4], self._json(r[5], f"game {r[0]}: outcome") if r[5] else None, r[6])
            for r in rows
        ]

    def _json(self, text: object, what: str) -> Any:
        """A JSON column, or one clear JournalError naming the journal and what is broken."""
        if not isinstance(text, str):
            raise JournalError(f"{self.path}: {what}: missing")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise JournalError(f"{self.path}: {what}: not valid JSON ({exc.msg})") from None

    def unfinished_game(self) -> int | None:
        row = self.db.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def load(self, game_id: int) -> GameRecord:
        """Rebuild a game by re-applying its moves; every step is checked against the record."""
        row = self.db.execute(
            "SELECT game, options, fidelity, start, finished FROM games WHERE id=?", (game_id,)
        ).fetchone()
        if row is None:
            raise JournalError(f"{self.path}: no game {game_id}")
        name, options, fidelity, start, finished = row
        where = f"game {game_id}"
        try:
            game = get_game(name)
            state = game.from_dict(self._json(start, f"{where}: start position"))
        except RulesError as exc:
            raise JournalError(f"{self.path}: {where}: start position unreadable: {exc}") from None
        record = GameRecord(game_id, name, self._json(options, f"{where}: options"), fidelity, [state],
                            seats=self.seats(game_id))
        for seq, kind, move, position in self.db.execute(
            "SELECT seq, kind, move, position FROM events WHERE game_id=? ORDER BY seq", (game_id,)
        ):
            at = f"{where}, event {seq}"
            if seq != record.next_seq:
                raise JournalError(f"{self.path}: {at}: expected event {record.next_seq}")
            if kind == "move":
                if not isinstance(move, str):
                    raise JournalError(f"{self.path}: {at}: move missing")
                try:
                    new = record.state.apply_text(move)
                except RulesError as exc:
                    raise JournalError(f"{self.path}: {at}: move {move!r} does not replay: {exc}") from None
                record.states.append(new)
                record.moves.append(move)
            else:
                if not record.moves:
                    raise JournalError(f"{self.path}: {at}: undo with no move to take back")
                record.states.pop()
                record.moves.pop()
            if not _same_position(self._json(position, f"{at}: position"), record.state.to_dict()):
                raise JournalError(f"{self.path}: {at}: recorded position differs from the replayed one")
            record.next_seq += 1
        record.finished = finished is not None
        self._load_unseen(record)
        return record

    def _load_unseen(self, record: GameRecord) -> None:
        for ply, count, alternatives, chosen in self.db.execute(
            "SELECT ply, count, alternatives, chosen FROM unseen WHERE game_id=? ORDER BY ply", (record.id,)
        ):
            at = f"game {record.id}, unseen moves at {ply + 1}"
            alts = self._json(alternatives, at)
            if (not isinstance(alts, list) or len(alts) < 2 or not all(isinstance(a, str) for a in alts)
                    or not (chosen is None or (isinstance(chosen, int) and 0 <= chosen < len(alts)))
                    or not 0 <= ply <= ply + count <= len(record.moves)
                    or " ".join(record.moves[ply:ply + count]) != alts[chosen or 0]):
                raise JournalError(f"{self.path}: {at}: does not fit the recorded moves")
            record.unseen.append(UnseenGroup(ply, count, tuple(alts), chosen))

    def iter_events(self, game_id: int) -> Iterator[tuple[int, str, str | None, float]]:
        yield from self.db.execute(
            "SELECT seq, kind, move, created FROM events WHERE game_id=? ORDER BY seq", (game_id,)
        )

    def summary(self, game_id: int) -> GameSummary:
        """One game's row, as :meth:`games` lists it."""
        for g in self.games():
            if g.id == game_id:
                return g
        raise JournalError(f"{self.path}: no game {game_id}")

    def import_game(self, start: State, options: Mapping[str, Any], fidelity: str, moves: list[str], *,
                    created: float, seats: Seats | None = None) -> GameRecord:
        """Journal a whole game from a record (tableref/records.py), as one transaction.

        Every move is replayed first; nothing is written unless all do. The game is stored
        finished (with the final position's outcome, or abandoned), so an imported game is
        never resumed as the live one. Each event is stamped ``created`` (a record has no
        per-move times)."""
        states = [start]
        for i, text in enumerate(moves, start=1):
            try:
                states.append(states[-1].apply(states[-1].parse_move(text)))
            except RulesError as exc:
                raise JournalError(f"{self.path}: import: move {i} {text!r} does not replay: {exc}") from None
        outcome = states[-1].outcome()
        with self._transaction():
            cur = self.db.execute(
                "INSERT INTO games(game, options, fidelity, start, created, finished, outcome)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (start.game_name, json.dumps(dict(options)), fidelity, json.dumps(start.to_dict()), created,
                 time.time(), json.dumps(outcome.to_dict() if outcome else None)),
            )
            game_id = int(cur.lastrowid)
            self._write_seats(game_id, seats or Seats())
            for seq, (text, state) in enumerate(zip(moves, states[1:])):
                self.db.execute(
                    "INSERT INTO events(game_id, seq, kind, move, position, created) VALUES (?, ?, 'move', ?, ?, ?)",
                    (game_id, seq, text, json.dumps(state.to_dict()), created),
                )
        return GameRecord(game_id, start.game_name, dict(options), fidelity, states, list(moves), len(moves), True,
                          seats=seats or Seats())

    def export(self, game_id: int) -> dict[str, Any]:
        """The game record as a documented JSON object (see docs/journal.md)."""
        record = self.load(game_id)
        outcome = record.state.outcome()
        data = {
            "tableref_game": 1,
            "game": record.game,
            "options": record.options,
            "fidelity": record.fidelity,
            "start": record.states[0].to_dict(),
            "moves": list(record.moves),
            "outcome": outcome.to_dict() if outcome else None,
        }
        players = self.db.execute("SELECT side, name FROM game_players WHERE game_id=? ORDER BY side",
                                  (game_id,)).fetchall()
        if players:  # the names from a club hub's pairing (docs/hub.md)
            data["players"] = dict(players)
        if record.seats.by_side:  # the sides the computer played, at its level
            data["seats"] = record.seats.to_dict()
        from .clock_journal import control_of, move_times  # the game clock's own tables (docs/clock.md)

        control = control_of(self, game_id)
        if control is not None:  # each player's milliseconds left after each move
            data["clock"] = {"control": control, "times": move_times(self, game_id)}
            if outcome is None and record.finished:  # a result the board did not give: lost on time
                data["outcome"] = self.summary(game_id).outcome
        return data


def _same_position(recorded: Any, replayed: Any) -> bool:
    """Equal — except that a key the recorded position lacks is one the position format gained
    since it was written (DRIFT's ``turn.crowded``): the replay, by the rules, says what it is."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        return recorded.keys() <= replayed.keys() and all(_same_position(v, replayed[k]) for k, v in recorded.items())
    return recorded == replayed
