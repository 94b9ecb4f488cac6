"""The arbiter's corrections of a game at the hub (DGT LiveChess's "correct a game").

A correction never touches what the board sent: its events stay in the hub's store as they
came. It is an audited row of its own (``corrections``: who, from where, when, what it set and
what it replaced), and the game's record at the hub — the archive, the downloads, the
standings — is the board's record with the corrections laid over it, in the order they were
made (:func:`overlay`). They live in the store's SQLite file, so they outlive a restart.

* **moves** — the moves from move ``ply + 1`` on are replaced by others, each checked through
  the rules from the position before it (as ``tableref import`` checks a record); the result is
  then the corrected final position's (none if the game is not over by the rules).
* **result** — a result set by hand (a win for a side, or a draw), over the record's own; or
  ``clear``: back to the record's own.

Corrections are not pushed back to the board (docs/hub.md): the board's journal stays what the
board saw and its referee accepted.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rules import RulesError, get_game

from ..journal import parse_sequence

KINDS = ("moves", "result")
MAX_NOTE = 200


class CorrectionError(ValueError):
    """A correction that cannot be made: the message says which part and why."""


@dataclass(frozen=True)
class Correction:
    id: int
    board: str
    game: int
    kind: str  # moves | result
    at: float
    by: str  # the arbiter's name as given with the correction
    address: str  # where the request came from
    note: str
    data: dict[str, Any]  # moves: {"ply", "moves" (the whole list after it), "outcome"}; result: {"outcome"}
    replaced: dict[str, Any]  # what the record held before: {"moves" (from ply on), "outcome"}

    def to_dict(self, *, address: bool = False) -> dict[str, Any]:
        out = {"id": self.id, "board": self.board, "game": self.game, "kind": self.kind, "at": self.at,
               "by": self.by, "note": self.note, "data": self.data, "replaced": self.replaced}
        if address:
            out["address"] = self.address
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Correction":
        return cls(d["id"], d["board"], d["game"], d["kind"], d["at"], d["by"], d.get("address", ""), d["note"],
                   dict(d["data"]), dict(d["replaced"]))

    def text(self) -> str:
        """One line for the text record (a comment: an import reads the corrected moves)."""
        when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at))
        if self.kind == "moves":
            ply = self.data["ply"]
            what = (f"moves from {ply + 1} set to {' '.join(self.data['moves'][ply:]) or '(none)'}; "
                    f"the board had {' '.join(self.replaced['moves']) or '(none)'}")
        elif self.data["outcome"] is None:
            what = "result back to the record's own"
        else:
            what = f"result set to {_outcome_text(self.data['outcome'])}; it was {_outcome_text(self.replaced['outcome'])}"
        return f"# corrected by the arbiter {self.by} at {when}: {what}" + (f" ({self.note})" if self.note else "")


def _outcome_text(outcome: Mapping[str, Any] | None) -> str:
    if outcome is None:
        return "none"
    head = "a draw" if outcome.get("winner") is None else f"{outcome['winner']} wins"
    return f"{head} ({outcome.get('reason', '')})"


@dataclass(frozen=True)
class Corrected:
    """A game's record with its corrections laid over it."""

    moves: list[str]
    outcome: dict[str, Any] | None
    finished: bool
    corrections: list[Correction]

    @property
    def corrected(self) -> bool:
        return bool(self.corrections)


def overlay(moves: list[str], outcome: dict[str, Any] | None, finished: bool,
            corrections: Iterable[Correction]) -> Corrected:
    """The board's standing ``moves``/``outcome`` with the corrections applied in order. Pure."""
    own, override, done = outcome, None, finished
    applied = []
    for c in corrections:
        applied.append(c)
        if c.kind == "moves":
            moves, own, done = list(c.data["moves"]), c.data["outcome"], True
        elif c.kind == "result":
            override = c.data["outcome"]
    if override is not None:
        return Corrected(moves, override, True, applied)
    return Corrected(moves, own if done else None, done, applied)


# -- making one (the rules check it; the store writes it) ----------------------------------------


def check_by(by: object) -> str:
    if not isinstance(by, str) or not 0 < len(by.strip()) <= 40:
        raise CorrectionError("by: the arbiter's name (1-40 characters) is required with a correction")
    return by.strip()


def check_note(note: object, what: str = "note") -> str:
    if note is None:
        return ""
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise CorrectionError(f"{what}: at most {MAX_NOTE} characters of text")
    return note.strip()


def moves_correction(record: Mapping[str, Any], ply: object, moves: object) -> tuple[dict, dict]:
    """(data, replaced) replacing ``record``'s moves from ``ply`` (0-based) with ``moves``
    (a list of notations, or one space-separated text), every one checked through the rules
    from the position before it. CorrectionError naming the move otherwise."""
    current = list(record["moves"])
    if isinstance(ply, bool) or not isinstance(ply, int) or not 0 <= ply <= len(current):
        raise CorrectionError(f"from: a move number from 1 to {len(current) + 1}, got {ply!r}")
    if isinstance(moves, str):
        texts = _split_sequence(record, current[:ply], moves)
    elif isinstance(moves, list) and all(isinstance(m, str) and m.strip() for m in moves):
        texts = [m.strip() for m in moves]
    else:
        raise CorrectionError("moves: a list of moves in the game's notation (or one text, moves separated by spaces)")
    state = _own_moves(record, current[:ply])
    canonical = []
    for n, text in enumerate(texts, start=ply + 1):
        try:
            move = state.parse_move(text)
        except RulesError as exc:
            raise CorrectionError(f"move {n} {text!r}: {exc}") from None
        canonical.append(state.move_text(move))
        state = state.apply(move)
        if state.is_game_over() and n < ply + len(texts):
            raise CorrectionError(f"move {n} {text!r} ends the game; {ply + len(texts) - n} more given after it")
    new = current[:ply] + canonical
    if new == current:
        raise CorrectionError("these are the moves the record already holds: nothing to correct")
    outcome = state.outcome()
    data = {"ply": ply, "moves": new, "outcome": outcome.to_dict() if outcome else None}
    return data, {"moves": current[ply:], "outcome": record["outcome"]}


def _split_sequence(record: Mapping[str, Any], before: list[str], text: str) -> list[str]:
    """One text of several moves: split as the rules read it (a move's notation may hold spaces)."""
    state = _own_moves(record, before)
    try:
        moves = parse_sequence(state, text)
    except (ValueError, RulesError) as exc:
        raise CorrectionError(f"moves: {exc}") from None
    out = []
    for m in moves:
        out.append(state.move_text(m))
        state = state.apply(m)
    return out


def _own_moves(record: Mapping[str, Any], moves: list[str]) -> Any:
    """The position after the record's own ``moves``; CorrectionError naming the first that is
    not legal (a board sent it: issue 33), so the arbiter corrects from there."""
    state = get_game(record["game"]).from_dict(record["start"])
    for n, text in enumerate(moves, start=1):
        try:
            state = state.apply(state.parse_move(text))
        except RulesError as exc:
            raise CorrectionError(f"move {n} {text!r} of the board's record does not replay ({exc}): "
                                  f"correct from move {n} or before") from None
    return state


def result_correction(record: Mapping[str, Any], winner: object, reason: object) -> tuple[dict, dict]:
    """(data, replaced) setting the result by hand: ``winner`` a side of the game, None for a
    draw, or "clear" (back to the record's own)."""
    if winner == "clear":
        return {"outcome": None}, {"outcome": record["outcome"]}
    sides = list(get_game(record["game"]).from_dict(record["start"]).sides)
    if winner is not None and winner not in sides:
        raise CorrectionError(f"winner: one of {', '.join(sides)}, null (a draw) or \"clear\", got {winner!r}")
    why = check_note(reason, "reason") or "result by the arbiter"
    scores = (record["outcome"] or {}).get("scores") or {}
    return {"outcome": {"winner": winner, "reason": why, "scores": scores}}, {"outcome": record["outcome"]}


def row_to_correction(row: tuple) -> Correction:
    cid, board, game, kind, at, by, address, note, data, replaced = row
    return Correction(cid, board, game, kind, at, by, address, note, json.loads(data), json.loads(replaced))
