"""Who plays each side of a game: a person at this table, or the computer at a level.

A :class:`Seat` is a value with a ``kind``; a third kind (a remote table, issue 34) slots in
beside the two with its own fields, and everything that asks "does the referee wait for a
person here?" asks :attr:`Seat.plays_on_this_board` rather than the kind.

Text form (the command line, the config, the journal, a game record): ``person``,
``computer:N``, or ``remote:TABLE:MATCH`` (another table's player, over the link of
docs/remote.md: the table's name, and the match its invitation began); a game's seats as
``side=seat`` pairs, or ``side:N`` for the computer (``north:3``), the way ``tableref serve
--computer north:3`` reads them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
import re
from typing import Any

PERSON = "person"
COMPUTER = "computer"
REMOTE = "remote"
KINDS = (PERSON, COMPUTER, REMOTE)
# A remote table's name (as the club hub's board names) and a match: "<inviting table>.<code>".
TABLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
MATCH_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}\.[A-Z0-9]{4,12}$")

# The engine's levels (engine.LEVELS) are 1..MAX_LEVEL; the vocabulary checks the range so a
# bad config or record is one clear line, without importing the engine here.
MIN_LEVEL, MAX_LEVEL = 1, 5


class SeatError(ValueError):
    """A seat, or a game's seats, that cannot be read."""


@dataclass(frozen=True)
class Seat:
    kind: str = PERSON
    level: int | None = None  # the computer's level
    table: str | None = None  # a remote seat's table (its name on the broker)
    match: str | None = None  # a remote seat's match ("table-a.K7M4QX": who invited, and the code)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise SeatError(f"seat kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.kind == COMPUTER:
            if not isinstance(self.level, int) or not MIN_LEVEL <= self.level <= MAX_LEVEL:
                raise SeatError(f"computer level {self.level!r}: expected {MIN_LEVEL}..{MAX_LEVEL}")
        elif self.level is not None:
            raise SeatError("only a computer seat has a level")
        if self.kind == REMOTE:
            if not isinstance(self.table, str) or not TABLE_NAME.match(self.table):
                raise SeatError(f"remote table {self.table!r}: expected 1-40 letters, digits, '-' or '_'")
            if not isinstance(self.match, str) or not MATCH_NAME.match(self.match):
                raise SeatError(f"remote match {self.match!r}: expected TABLE.CODE")
        elif self.table is not None or self.match is not None:
            raise SeatError("only a remote seat has a table and a match")

    @classmethod
    def person(cls) -> "Seat":
        return cls(PERSON)

    @classmethod
    def computer(cls, level: int) -> "Seat":
        return cls(COMPUTER, level)

    @classmethod
    def remote(cls, table: str, match: str) -> "Seat":
        return cls(REMOTE, table=table, match=match)

    @property
    def is_remote(self) -> bool:
        return self.kind == REMOTE

    @property
    def plays_on_this_board(self) -> bool:
        """Whose moves the board here makes by its own choice: a person's. The computer's and a
        remote table's are carried out here, only as they were chosen elsewhere."""
        return self.kind == PERSON

    @property
    def is_computer(self) -> bool:
        return self.kind == COMPUTER

    @property
    def is_person(self) -> bool:
        return self.kind == PERSON

    def text(self) -> str:
        if self.is_remote:
            return f"{REMOTE}:{self.table}:{self.match}"
        return f"{COMPUTER}:{self.level}" if self.is_computer else self.kind

    def to_dict(self) -> dict[str, Any]:
        if self.is_remote:
            return {"kind": self.kind, "level": None, "table": self.table, "match": self.match}
        return {"kind": self.kind, "level": self.level}


def parse_seat(text: str) -> Seat:
    """``person``, ``computer``/``computer:N`` (level N; 3 if left out), a bare level ``N``, or
    ``remote:TABLE:MATCH``."""
    raw = str(text).strip()
    if raw.lower().startswith(REMOTE + ":"):
        _, table, match = (raw.split(":", 2) + ["", ""])[:3]
        return Seat.remote(table, match)
    word = raw.lower()
    kind, _, level = word.partition(":")
    if kind.isdigit() and not level:
        kind, level = COMPUTER, kind
    if kind == PERSON and not level:
        return Seat.person()
    if kind == COMPUTER:
        if not level:
            return Seat.computer(3)
        if level.isdigit():
            return Seat.computer(int(level))
    raise SeatError(f"seat {text!r}: expected 'person' or 'computer:N' (N = {MIN_LEVEL}..{MAX_LEVEL})")


@dataclass(frozen=True)
class Seats:
    """The seats of one game, side by side; a side not named is a person at this table."""

    by_side: Mapping[str, Seat] = field(default_factory=dict)

    def __post_init__(self) -> None:
        plain = {s: seat for s, seat in dict(self.by_side).items() if not seat.is_person}
        object.__setattr__(self, "by_side", MappingProxyType(dict(sorted(plain.items()))))

    def __hash__(self) -> int:
        return hash(tuple(self.by_side.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Seats) and dict(self.by_side) == dict(other.by_side)

    def seat(self, side: str) -> Seat:
        return self.by_side.get(side, Seat.person())

    def is_computer(self, side: str) -> bool:
        return self.seat(side).is_computer

    def is_remote(self, side: str) -> bool:
        return self.seat(side).is_remote

    def plays_here(self, side: str) -> bool:
        return self.seat(side).plays_on_this_board

    @property
    def remotes(self) -> dict[str, Seat]:
        """The sides another table plays: side → its remote seat."""
        return {s: seat for s, seat in self.by_side.items() if seat.is_remote}

    @property
    def computers(self) -> dict[str, int]:
        return {s: seat.level for s, seat in self.by_side.items() if seat.is_computer}  # type: ignore[misc]

    def any_person(self, sides: Iterable[str]) -> bool:
        return any(self.seat(s).is_person for s in sides)

    def checked(self, players: Iterable[str], *, where: str = "seats") -> "Seats":
        """These seats with each side named as the game names it (``a`` → Anacund's ``A``);
        a side the game does not have is refused, listing the sides it has."""
        known = {p.lower(): p for p in players}
        out = {}
        for side, seat in self.by_side.items():
            if side.lower() not in known:
                raise SeatError(f"{where}: no side {side!r} in this game (sides: {', '.join(known.values())})")
            out[known[side.lower()]] = seat
        return Seats(out)

    def text(self) -> str:
        """``north=computer:3,south=person``-style (people left out): '' when all are people."""
        return ",".join(f"{s}={seat.text()}" for s, seat in self.by_side.items())

    def to_dict(self) -> dict[str, str]:
        return {s: seat.text() for s, seat in self.by_side.items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, where: str = "seats") -> "Seats":
        if not isinstance(data, Mapping):
            raise SeatError(f"{where}: expected a table of side = seat")
        out = {}
        for side, value in data.items():
            try:
                out[str(side)] = parse_seat(str(value))
            except SeatError as exc:
                raise SeatError(f"{where}.{side}: {exc}") from None
        return cls(out)


def parse_seats(items: Iterable[str] | str, *, where: str = "seats") -> Seats:
    """Seats from ``side:N`` / ``side=computer:N`` / ``side=person`` items (or one
    comma-separated string): ``north:3``, ``red=computer:2,blue=person``."""
    if isinstance(items, str):
        items = [i for i in items.split(",") if i.strip()]
    out: dict[str, Seat] = {}
    for item in items:
        text = str(item).strip()
        if "=" in text:
            side, _, seat = text.partition("=")
        else:
            side, _, seat = text.partition(":")
            seat = f"{COMPUTER}:{seat}" if seat else COMPUTER
        side = side.strip().lower()
        if not side:
            raise SeatError(f"{where}: {text!r}: expected SIDE:LEVEL (north:3) or SIDE=person")
        if side in out:
            raise SeatError(f"{where}: side {side!r} given twice")
        try:
            out[side] = parse_seat(seat)
        except SeatError as exc:
            raise SeatError(f"{where}: {side}: {exc}") from None
    return Seats(out)
