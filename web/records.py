"""Journalled games for the replay page, and importing a game record (docs/journal.md).

The web reads and imports through its own :class:`~tableref.journal.Journal` connection:
the referee's connection belongs to the referee's thread. SQLite (WAL, ``BEGIN IMMEDIATE``)
keeps the two writers apart.
"""

from __future__ import annotations

import time
from typing import Any

from decisions import SeatError, Seats
from rules import Fidelity, RulesError, State, get_game
from rules.strict import expect_keys
from tableref import clock_journal
from tableref.journal import Journal, JournalError

from .boards import space_labels


class RecordError(ValueError):
    """A game record that cannot be imported; the message names the field or move at fault."""


def game_list(journal: Journal) -> list[dict[str, Any]]:
    out = []
    for g in journal.games():
        if g.outcome:
            status = f"{g.outcome['winner']} won" if g.outcome.get("winner") else "draw"
        else:
            status = "abandoned" if g.finished else "in progress"
        try:
            title = get_game(g.game).title
        except RulesError:  # a game no longer registered: its name
            title = g.game
        out.append({"id": g.id, "game": g.game, "title": title, "fidelity": g.fidelity, "created": g.created,
                    "finished": g.finished, "outcome": g.outcome, "moves": g.moves, "status": status})
    return out


def replay(journal: Journal, game_id: int) -> dict[str, Any]:
    """The game move by move: each step's position, view, mover and the spaces it touched."""
    record = journal.load(game_id)
    game = get_game(record.game)
    steps = [_step(record.states[0], None, 0)]
    control = clock_journal.control_of(journal, game_id)  # the game clock (docs/clock.md)
    times = clock_journal.move_times(journal, game_id) if control else []
    for ply, text in enumerate(record.moves, start=1):
        before = record.states[ply - 1]
        move = before.parse_move(text)
        step = _step(record.states[ply], text, ply)
        step.update(description=before.describe_move(move), player=before.to_move,
                    highlight=sorted(before.move_spaces(move)),
                    computer=record.seats.computers.get(before.to_move))  # its level, or None: a person
        step["unseen"] = any(g.ply < ply <= g.ply + g.count for g in record.unseen)
        step["clock"] = times[ply - 1] if ply - 1 < len(times) else None  # {side: ms left} after the move
        steps.append(step)
    outcome = record.state.outcome()
    return {
        "id": record.id, "game": record.game, "title": game.title, "players": list(game.players),
        "options": record.options, "fidelity": record.fidelity, "finished": record.finished,
        "outcome": outcome.to_dict() if outcome else None, "moves": list(record.moves), "steps": steps,
        "unseen": [g.to_dict() for g in record.unseen],  # moves never seen one by one
        "seats": record.seats.to_dict(),  # the sides the computer played: "computer:N"
        "clock": control,  # the time control, or None: no clock
    }


def _step(state: State, move: str | None, ply: int) -> dict[str, Any]:
    position = state.to_dict()
    return {
        "ply": ply, "move": move, "description": "start" if move is None else "", "player": None, "highlight": [],
        "view": state.view(Fidelity.KIND).to_dict(), "labels": space_labels(state.game_name, position),
        "to_move": state.to_move, "phase": state.phase, "scores": dict(state.scores()),
        "target": position.get("target"),
    }


# The JSON record's keys (docs/journal.md); a club hub's copy adds where and when it was played.
RECORD_REQUIRED = ("tableref_game", "game", "start", "moves")
RECORD_OPTIONAL = ("options", "fidelity", "outcome", "board", "game_id", "players", "round", "created", "seats",
                   "clock")


def import_record(journal: Journal, data: object) -> int:
    """Check a whole game record, then journal it as a finished game; returns its id.

    Nothing is written unless every move replays, and then all of it in one transaction
    (``Journal.import_game``): stored finished, so it is never resumed as the live game.
    """
    expect_keys(data, required=RECORD_REQUIRED, optional=RECORD_OPTIONAL, where="game record", error=RecordError)
    if data.get("tableref_game") != 1:
        raise RecordError(f"game record: 'tableref_game' must be 1, got {data.get('tableref_game')!r}")
    try:
        game = get_game(str(data.get("game")))
        options = game.parse_options(data.get("options") or {})
        fidelity = Fidelity.parse(str(data.get("fidelity", "kind")))
    except RulesError as exc:
        raise RecordError(f"game record: {exc}") from None
    try:
        start = game.from_dict(data.get("start"))
    except RulesError as exc:
        raise RecordError(f"game record: start: {exc}") from None
    if data.get("outcome") is not None:  # recomputed by the replay, but checked as written
        expect_keys(data["outcome"], required=("winner", "reason", "scores"), where="game record", path="outcome",
                    error=RecordError)
    moves = data.get("moves")
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError("game record: 'moves' must be a list of move texts")
    state = start
    for i, text in enumerate(moves, start=1):
        try:
            state = state.apply(state.parse_move(text))
        except RulesError as exc:
            raise RecordError(f"game record: move {i} ({text!r}): {exc}") from None
    try:  # the sides the computer played: refused naming the side, as the text record does
        seats = Seats.from_dict(data.get("seats") or {}, where="game record: seats").checked(
            start.sides, where="game record: seats")
    except SeatError as exc:
        raise RecordError(str(exc)) from None
    try:  # one transaction: a cut-short import leaves nothing behind
        record = journal.import_game(start, options, fidelity.value, list(moves), created=time.time(), seats=seats)
    except JournalError as exc:
        raise RecordError(f"game record: cannot journal it: {exc}") from None
    return record.id
