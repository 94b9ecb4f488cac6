"""The link's view of the journal: the game played with another table, and the inbox of that
table's moves (committed here before they are acknowledged).

:class:`LinkStore` has its own connection to the journal file (WAL: it reads what the referee has
committed without holding it up) and is used by the link's thread alone. It writes only the
``remote_inbox`` table; the game itself is the referee's (the single writer).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from decisions.remote import RemoteMove
from rules import State, get_game

from .. import clock_journal
from ..journal import GameRecord, Journal
from .link import Outgoing

INBOX_SCHEMA = """
-- The other table's moves of a game with it (docs/remote.md), committed before they are
-- acknowledged; the referee plays them once the board here shows them carried out.
CREATE TABLE IF NOT EXISTS remote_inbox(
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    move TEXT NOT NULL,
    times TEXT NOT NULL,
    received REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
"""
CLOCK_WAIT = 2.0  # seconds a move just made waits for its clock's row (its own transaction, right after)


@dataclass
class MatchGame:
    """The journal's game with another table, as the link needs it."""

    record: GameRecord
    match: str
    peer: str
    me: str
    outcome: dict[str, Any] | None
    created: list[float]  # each standing move's commit time
    times: list[dict[str, int] | None]  # each standing move's clocks (None: none journalled)
    clocked: bool
    control: str | None = None  # the game's time control, as journalled
    inbox: list[RemoteMove] = field(default_factory=list)  # the peer's moves past the journal's

    @property
    def game_id(self) -> int:
        return self.record.id

    @property
    def is_host(self) -> bool:
        """The table that invited: its name begins the match's."""
        return self.match.split(".")[0] == self.me

    @property
    def sides(self) -> dict[str, str]:
        """Every side → the table that plays it."""
        remote = self.record.seats.remotes
        return {s: (remote[s].table or "") if s in remote else self.me for s in self.record.states[0].sides}

    def mover(self, ply: int) -> str:
        """The side that made (or makes) the move making ``ply``."""
        return self.record.states[ply - 1].to_move

    def held(self) -> list[str]:
        """Every move of the game held here, in order: the journal's, then the inbox's."""
        out = list(self.record.moves)
        for m in self.inbox:
            if m.ply == len(out) + 1:
                out.append(m.move)
        return out

    def state_after_held(self) -> State:
        s = self.record.state
        for m in self.inbox:
            if m.ply > len(self.record.moves):
                s = s.apply_text(m.move)
        return s

    def mine(self, now: float) -> list[Outgoing]:
        """This table's own moves, with their clocks; a move just made waits a moment for its
        clock's row, so that it goes out with the times. ``now`` is the wall clock's (as the
        journal's commit times): a service killed between a move and its clock's row must send
        the move without times once restarted, not wait for a row that never comes."""
        out = []
        for i, move in enumerate(self.record.moves):
            ply = i + 1
            if self.record.seats.is_remote(self.mover(ply)):
                continue
            times = self.times[i] if i < len(self.times) else None
            if times is None and self.clocked and now - self.created[i] < CLOCK_WAIT:
                break  # its clock is being written: next time
            out.append(Outgoing(ply, move, tuple(sorted((times or {}).items()))))
        return out

    def left_here(self) -> bool:
        """The game was closed unfinished (a new game began): the match is over."""
        return self.record.finished and self.outcome is None and self.record.state.outcome() is None

    def lost_here_on_time(self) -> bool:
        """The game ended off the board with this table's own player's flag."""
        if self.outcome is None or self.record.state.outcome() is not None:
            return False
        loser = str(self.outcome.get("reason", "")).removesuffix(" loses on time")
        return loser in self.record.states[0].sides and not self.record.seats.is_remote(loser)


class LinkStore:
    def __init__(self, journal_path: str | Path, me: str) -> None:
        self.journal = Journal(journal_path)
        self.journal.db.executescript(INBOX_SCHEMA)
        self.me = me

    def close(self) -> None:
        self.journal.close()

    def current(self) -> MatchGame | None:
        """The latest game played with another table (finished or not: its last moves may still
        be on their way), or None."""
        row = self.journal.db.execute(
            "SELECT game_id, seat FROM game_seats WHERE seat LIKE 'remote:%' ORDER BY game_id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        game_id = int(row[0])
        record = self.journal.load(game_id)
        seat = next(iter(record.seats.remotes.values()))
        outcome_text, = self.journal.db.execute("SELECT outcome FROM games WHERE id=?", (game_id,)).fetchone()
        created = [c for _seq, kind, _m, c in self._events(game_id) if kind == "move"]
        control = clock_journal.control_of(self.journal, game_id)
        clocked = control is not None
        times = clock_journal.move_times(self.journal, game_id) if clocked else [None] * len(record.moves)
        game = MatchGame(record, seat.match or "", seat.table or "", self.me,
                         json.loads(outcome_text) if outcome_text else None, created, times, clocked, control)
        game.inbox = self.inbox(game_id)
        return game

    def _events(self, game_id: int) -> list[tuple[int, str, str | None, float]]:
        return list(self.journal.iter_events(game_id))

    def has_match(self, match: str) -> bool:
        return self.journal.db.execute("SELECT 1 FROM game_seats WHERE seat LIKE ? LIMIT 1",
                                       (f"remote:%:{match}",)).fetchone() is not None

    def inbox(self, game_id: int) -> list[RemoteMove]:
        rows = self.journal.db.execute("SELECT ply, move, times FROM remote_inbox WHERE game_id=? ORDER BY ply",
                                       (game_id,)).fetchall()
        return [RemoteMove(ply, move, json.loads(times)) for ply, move, times in rows]

    def keep(self, game_id: int, moves: list[RemoteMove]) -> None:
        """Commit the other table's moves (one transaction): only then are they acknowledged."""
        with self.journal._transaction():  # noqa: SLF001  (this connection's own writes)
            self.journal.db.executemany(
                "INSERT OR IGNORE INTO remote_inbox(game_id, ply, move, times, received) VALUES (?, ?, ?, ?, ?)",
                [(game_id, m.ply, m.move, json.dumps(m.times), time.time()) for m in moves])


def welcome_setup(game: MatchGame) -> str | None:
    """How the guest sets the game up: "default" or "start" — None if the game began elsewhere."""
    rules = get_game(game.record.game)
    start = game.record.states[0]
    opts = rules.parse_options(game.record.options)
    if rules.default_setup(opts) == start:
        return "default"
    if rules.start(opts) == start:
        return "start"
    return None
