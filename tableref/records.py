"""Game records: one game as a versioned, human-readable text file (docs/records.md).

    # tableref game record (docs/records.md)
    Format: tableref-record 1
    Game: gyges
    ...
    Moves: 35

    1. south 1@a1
    ...
    35. south b3-N
    End

:func:`write_record` writes one; :func:`parse_record` reads one and checks everything — the
format version, the game, its options, the start, every move replayed through the rules, and
every derived header line (players, result, scores) against the replay — and refuses a bad
file with one :class:`RecordError` naming the file and the line. The text is canonical:
export → import → export gives the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from decisions import SeatError, Seats, parse_seats
from rules import Fidelity, Game, Outcome, RulesError, State, get_game
from rules.strict import DuplicateKeyError, refuse_duplicates

from .journal import Journal, UnseenGroup

FORMAT = "tableref-record"
VERSION = 1
COMMENT = "# tableref game record (docs/records.md)"
HEADER_KEYS = ("Format", "Game", "Options", "Fidelity", "Start", "Players", "Date", "Result", "Scores", "Moves")
# Written only where it says something: the sides the computer played (``north=computer:3``).
OPTIONAL_KEYS = ("Seats",)
END = "End"
UNFINISHED = "unfinished"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
_MOVE_LINE = re.compile(r"(\d+)\.\s+(\S.*?)\s*$")


class RecordError(ValueError):
    """A game record that cannot be read: ``where`` (the file) and ``line`` (1-based, or None)."""

    def __init__(self, where: str, line: int | None, message: str) -> None:
        super().__init__(f"{where}:{line}: {message}" if line is not None else f"{where}: {message}")
        self.where, self.line, self.message = where, line, message


@dataclass(frozen=True)
class Record:
    """A whole game, checked: every position from the start to the last move."""

    game: str
    options: Mapping[str, Any]  # parsed by the game, every option present
    fidelity: Fidelity
    date: int  # Unix seconds (UTC) the game was started
    moves: tuple[str, ...]  # canonical notation
    states: tuple[State, ...]  # the start, then the position after each move
    unseen: tuple[UnseenGroup, ...] = ()  # moves never seen one by one (written as comments)
    seats: Seats = Seats()  # the sides the computer played, at its level

    @property
    def start(self) -> State:
        return self.states[0]

    @property
    def final(self) -> State:
        return self.states[-1]

    @property
    def outcome(self) -> Outcome | None:
        return self.final.outcome()

    @property
    def players(self) -> tuple[str, ...]:
        return self.start.sides

    @classmethod
    def replay(cls, start: State, options: Mapping[str, Any], fidelity: Fidelity, moves: list[str],
               date: float) -> "Record":
        """Check ``moves`` from ``start``; RulesError (with the move's number) on the first that fails."""
        states, texts = [start], []
        for i, text in enumerate(moves, start=1):
            state = states[-1]
            try:
                move = state.parse_move(text)
                states.append(state.apply(move))
            except RulesError as exc:
                raise type(exc)(f"move {i} {text!r}: {exc}") from None
            texts.append(state.move_text(move))
        return cls(start.game_name, dict(options), fidelity, int(date), tuple(texts), tuple(states))


def result_text(state: State) -> str:
    outcome = state.outcome()
    if outcome is None:
        return UNFINISHED
    head = "draw" if outcome.winner is None else f"{outcome.winner} wins"
    return f"{head} ({outcome.reason})"


def scores_text(state: State) -> str:
    outcome = state.outcome()
    scores = dict(outcome.scores) if outcome is not None and outcome.scores else dict(state.scores())
    return ", ".join(f"{who} {n}" for who, n in scores.items()) or "none"


def start_text(game: Game, options: Mapping[str, Any], start: State) -> str:
    position = start.to_dict()
    if position == game.start(options).to_dict():
        return "start"
    if position == game.default_setup(options).to_dict():
        return "default"
    return json.dumps(position, ensure_ascii=False)


def date_text(date: int) -> str:
    return datetime.fromtimestamp(date, tz=timezone.utc).strftime(DATE_FORMAT)


# -- writing ------------------------------------------------------------------------------------


def record_from_journal(journal: Journal, game_id: int) -> Record:
    """A journalled game (its standing moves; taken-back ones are left out) as a Record."""
    loaded = journal.load(game_id)
    created = journal.summary(game_id).created
    record = Record.replay(loaded.states[0], loaded.options, Fidelity.parse(loaded.fidelity), loaded.moves, created)
    return replace(record, unseen=tuple(loaded.unseen), seats=loaded.seats)


def _unseen_comment(group: UnseenGroup) -> list[str]:
    """Comment lines before moves never seen one by one: a reader knows which they are, and
    an import (which skips comments) reads the moves as recorded."""
    span = f"{group.ply + 1}-{group.ply + group.count}"
    if group.chosen is not None:
        head = f"# moves {span} were never seen one by one (the board showed them at once); the players chose"
        others = [a for i, a in enumerate(group.alternatives) if i != group.chosen]
        return [head, *(f"#   also possible: {a}" for a in others)]
    head = f"# moves {span} were never seen one by one (the board showed them at once); not yet chosen, any of"
    return [head, *(f"#   {a}" for a in group.alternatives)]


def write_record(record: Record) -> str:
    """The record's text, canonical: the same game always gives the same bytes."""
    game = get_game(record.game)
    header = {
        "Format": f"{FORMAT} {VERSION}",
        "Game": record.game,
        "Options": json.dumps(dict(record.options), ensure_ascii=False),
        "Fidelity": record.fidelity.value,
        "Start": start_text(game, record.options, record.start),
        "Players": ", ".join(record.players),
        "Date": date_text(record.date),
        "Result": result_text(record.final),
        "Scores": scores_text(record.final),
        "Moves": str(len(record.moves)),
    }
    if record.seats.by_side:
        header["Seats"] = record.seats.text()
    lines = [COMMENT, *(f"{k}: {header[k]}" for k in (*HEADER_KEYS, *OPTIONAL_KEYS) if k in header), ""]
    before = {g.ply: g for g in record.unseen}
    for i, text in enumerate(record.moves):
        if i in before:
            lines.extend(_unseen_comment(before[i]))
        lines.append(f"{i + 1}. {text}")
    lines.append(END)
    return "\n".join(lines) + "\n"


def export_text(journal: Journal, game_id: int) -> str:
    return write_record(record_from_journal(journal, game_id))


# -- reading ------------------------------------------------------------------------------------


def read_record(path: str | Path, *, game: str | None = None) -> Record:
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(where, None, f"cannot read game record: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise RecordError(where, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_record(text, where=where, game=game)


def parse_record(text: str, *, where: str = "<record>", game: str | None = None) -> Record:
    """Read and check a record; ``game``: refuse a record of any other game."""
    lines = [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), start=1)]
    content = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not content:
        raise RecordError(where, None, "empty: not a tableref game record")
    n, first = content[0]
    if not first.startswith("Format:"):
        raise RecordError(where, n, f"expected 'Format: {FORMAT} {VERSION}' first: not a tableref game record")
    header, at, body = _header(content, where)
    state = _Checked(where, header, at, game)
    record = state.replay(body)
    return record


def _header(content: list[tuple[int, str]], where: str) -> tuple[dict[str, str], dict[str, int], list]:
    header: dict[str, str] = {}
    at: dict[str, int] = {}
    i = 0
    while i < len(content):
        n, line = content[i]
        if _MOVE_LINE.match(line) or line == END:
            break
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or key not in HEADER_KEYS + OPTIONAL_KEYS:
            raise RecordError(where, n, f"expected a header line 'Key: value' (keys: {', '.join(HEADER_KEYS + OPTIONAL_KEYS)}) "
                                        f"or a move line 'N. MOVE', got {line!r}")
        if key in header:
            raise RecordError(where, n, f"{key!r} given twice (first on line {at[key]})")
        if key == "Format":
            _check_format(value.strip(), where, n)
        header[key], at[key] = value.strip(), n
        i += 1
    last = content[i - 1][0] if i else content[0][0]
    for key in HEADER_KEYS:
        if key not in header:
            if i == len(content):
                raise RecordError(where, last, f"the record ends inside its header (no {key!r} line): truncated?")
            raise RecordError(where, content[i][0], f"header line {key!r} missing before the moves")
    return header, at, content[i:]


def _check_format(value: str, where: str, n: int) -> None:
    name, _, version = value.partition(" ")
    if name != FORMAT:
        raise RecordError(where, n, f"expected 'Format: {FORMAT} {VERSION}', got {value!r}")
    if version.strip() != str(VERSION):
        raise RecordError(where, n, f"format version {version.strip()!r}: this tableref reads version {VERSION}")


class _Checked:
    """The header's fields, each checked on its own line."""

    def __init__(self, where: str, header: dict[str, str], at: dict[str, int], expected: str | None) -> None:
        self.where, self.header, self.at = where, header, at

        name = header["Game"]
        try:
            self.game = get_game(name)
        except RulesError as exc:
            raise self.fail("Game", str(exc)) from None
        if expected is not None and name != expected:
            raise self.fail("Game", f"this is a record of {name}, expected a record of {expected}")
        self.options = self._options()
        try:
            self.fidelity = Fidelity.parse(header["Fidelity"])
        except RulesError as exc:
            raise self.fail("Fidelity", str(exc)) from None
        self.start = self._start()
        want = ", ".join(self.start.sides)
        if header["Players"] != want:
            raise self.fail("Players", f"expected {want!r} (the seats of this {name} game), got {header['Players']!r}")
        try:
            self.date = int(datetime.strptime(header["Date"], DATE_FORMAT).replace(tzinfo=timezone.utc).timestamp())
        except ValueError:
            raise self.fail("Date", f"expected a UTC time like 2025-05-01T14:03:22Z, got {header['Date']!r}") from None
        if not header["Moves"].isdigit():
            raise self.fail("Moves", f"expected the number of moves, got {header['Moves']!r}")
        self.count = int(header["Moves"])
        try:
            self.seats = parse_seats(header.get("Seats", ""), where="seats").checked(self.start.sides)
        except SeatError as exc:
            raise self.fail("Seats", str(exc)) from None

    def fail(self, key: str, message: str) -> RecordError:
        return RecordError(self.where, self.at[key], f"{key}: {message}")

    def _options(self) -> dict[str, Any]:
        try:
            given = json.loads(self.header["Options"], object_pairs_hook=refuse_duplicates)
        except json.JSONDecodeError as exc:
            raise self.fail("Options", f"expected a JSON object such as {{}}: {exc.msg} (column {exc.colno})") from None
        except DuplicateKeyError as exc:
            raise self.fail("Options", f"duplicate key '{exc.key}'") from None
        except (ValueError, RecursionError) as exc:
            raise self.fail("Options", f"not valid JSON: {exc}") from None
        if not isinstance(given, dict):
            raise self.fail("Options", f"expected a JSON object such as {{}}, got {self.header['Options']!r}")
        try:
            return self.game.parse_options(given)
        except RulesError as exc:
            raise self.fail("Options", str(exc)) from None

    def _start(self) -> State:
        text = self.header["Start"]
        if text == "start":
            return self.game.start(self.options)
        if text == "default":
            return self.game.default_setup(self.options)
        try:
            position = json.loads(text, object_pairs_hook=refuse_duplicates)
        except DuplicateKeyError as exc:
            raise self.fail("Start", f"duplicate key '{exc.key}' in the position") from None
        except (ValueError, RecursionError):
            raise self.fail("Start", f"expected start, default or a position as one line of JSON, got {text!r}") from None
        try:
            return self.game.from_dict(position)
        except RulesError as exc:
            raise self.fail("Start", str(exc)) from None

    def replay(self, body: list[tuple[int, str]]) -> Record:
        state, moves, states = self.start, [], [self.start]
        last_line = self.at["Moves"]
        if all(line != END for _, line in body):
            # Checked before the moves: a file cut off mid-move is truncated, not an illegal move.
            shown = sum(1 for _, line in body if _MOVE_LINE.match(line))
            at = body[-1][0] if body else last_line
            raise RecordError(self.where, at, f"the record ends without its {END!r} line after {shown} of "
                                              f"{self.count} move lines: truncated?")
        for n, line in body:
            last_line = n
            if line == END:
                break
            m = _MOVE_LINE.match(line)
            if m is None:
                raise RecordError(self.where, n, f"expected a move line 'N. MOVE' or {END!r}, got {line!r}")
            number, text = int(m.group(1)), m.group(2)
            if number != len(moves) + 1:
                raise RecordError(self.where, n, f"expected move {len(moves) + 1}, got move {number}")
            if len(moves) == self.count:
                raise RecordError(self.where, n, f"move {number}: the header says {self.count} moves (Moves:)")
            if state.is_game_over():
                raise RecordError(self.where, n, f"move {number} {text!r}: the game is already over "
                                                 f"({result_text(state)})")
            try:
                move = state.parse_move(text)
                state = state.apply(move)
            except RulesError as exc:
                raise RecordError(self.where, n, f"move {number} {text!r}: {exc}") from None
            moves.append(states[-1].move_text(move))
            states.append(state)
        end_at = last_line
        after = [n for n, _ in body if n > end_at]
        if after:
            raise RecordError(self.where, after[0], f"text after the {END!r} line")
        if len(moves) != self.count:
            raise RecordError(self.where, end_at, f"{END!r} after move {len(moves)}, but the header says "
                                                  f"{self.count} moves (Moves:)")
        for key, want in (("Result", result_text(state)), ("Scores", scores_text(state))):
            if self.header[key] != want:
                raise self.fail(key, f"the moves give {want!r}, the record says {self.header[key]!r}")
        return Record(self.game.name, self.options, self.fidelity, self.date, tuple(moves), tuple(states),
                      seats=self.seats)


# -- importing ------------------------------------------------------------------------------------


def import_record(journal: Journal, record: Record) -> int:
    """Journal a checked record as a finished game (never resumed as the live one); its id."""
    stored = journal.import_game(record.start, record.options, record.fidelity.value, list(record.moves),
                                 created=record.date, seats=record.seats)
    return stored.id
