"""Whether the hub can read a board's game through the rules (issue 33, item 11).

A message can be well-formed (``protocol.decode`` takes it) and still be nonsense: a header
naming a game this hub does not know, an empty start, moves that are not legal. The hub stores
it as the board sent it and acknowledges it (nothing recorded is lost, and the board is not
held up resending it), says so once in its log and its counters, and every page and download
that needs the rules answers with the reason instead of failing (``hub_web``).
"""

from __future__ import annotations

from typing import Any

from rules import Fidelity, RulesError, State, get_game

from ..records import Record

# What the rules may raise on foreign data that their own checks did not foresee.
BAD_DATA = (RulesError, KeyError, TypeError, ValueError, IndexError, AttributeError)


class Unreadable(ValueError):
    """The game cannot be read through the rules; the message says what is wrong."""


def start_of(record: dict[str, Any]) -> State:
    """The game's start as the rules read it: Unreadable naming the game, options, fidelity or
    start that fails."""
    try:
        game = get_game(record["game"])
    except BAD_DATA as exc:
        raise Unreadable(str(exc)) from None
    for what, check in (("options", lambda: game.parse_options(record["options"])),
                        ("fidelity", lambda: Fidelity.parse(record["fidelity"]))):
        try:
            check()
        except BAD_DATA as exc:
            raise Unreadable(f"{what}: {exc}") from None
    try:
        return game.from_dict(record["start"])
    except BAD_DATA as exc:
        raise Unreadable(f"start: {exc or 'empty'}") from None


def header_fault(record: dict[str, Any]) -> str | None:
    """Why the game's header cannot be read (``record``: a header's or a record's fields), or None."""
    try:
        start_of(record)
    except Unreadable as exc:
        return str(exc)
    return None


def replayed(record: dict[str, Any]) -> Record:
    """The record's moves checked through the rules from its start (as ``tableref import``
    checks a record): Unreadable naming the first that fails."""
    start = start_of(record)
    rules = get_game(record["game"])
    try:
        return Record.replay(start, rules.parse_options(record["options"]), Fidelity.parse(record["fidelity"]),
                             list(record["moves"]), record.get("created", 0.0))
    except BAD_DATA as exc:
        raise Unreadable(str(exc)) from None


def record_fault(record: dict[str, Any]) -> str | None:
    """Why the record cannot be read through the rules, or None."""
    try:
        replayed(record)
    except Unreadable as exc:
        return str(exc)
    return None
