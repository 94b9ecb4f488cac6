"""Teaching on the live page (issue 31, items 1 and 4; docs/teaching.md).

* :class:`TeachDesk` — the live table's part: whether teaching is on (the config's
  ``[teach] destinations``, then the admin's toggle for the service's run) and the piece the
  board shows lifted (the referee's :class:`~decisions.Lifted`), for the snapshot's ``teach``.
  A Lifted decision is shown on the board, never written in the log; the next board status
  (put back, a move made, an illegal board) clears it.
* ``/api/teach`` — the toggle (admin, CSRF), and ``/api/teach/moves?space=…`` — "show me": a
  piece's legal moves, or (no space) where a placement may go, from the page's own copy of the
  position through rules/teach.py. Refused while teaching is off (a tournament's tables) or the
  computer is to move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, jsonify, request

from decisions import Accepted, Decision, Illegal, Lifted, NewGame, Partial, Restored, TakenBack
from rules import RulesError
from rules.teach import Lift, piece_moves, placements
from tableref.i18n import catalog

from .auth import admin_required

if TYPE_CHECKING:
    from .live import LiveTable

# The card's words (web/static/teach.js), sent to the page through web/i18n.py SCRIPT_MESSAGES;
# the last three are this API's refusals, shown as they come.
SCRIPT_WORDS = (
    "may end here", "may bounce off this ring", "may attack this piece", "Not your piece: {player} to move",
    "Lifted from {space} — where it may go: {n}", "That piece cannot move now",
    "Show me: tap a piece on the board to see its moves.", "Where can a piece be placed?",
    "Moves of the piece on {space}: {n}", "Where a piece may be placed: {n} moves", "No placement is legal now",
    "and {n} more", "Clear", "Teaching is off at this table.", "Teaching: show where a lifted piece may go",
    "teaching is off at this table", "the game is over", "the computer is to move",
)

MAX_LISTED = 60  # moves listed by "show me"; the destinations are always all lit

# What ends a lifted piece's showing: anything that says what the board is now.
_CLEARS = (Partial, Illegal, Restored, Accepted, TakenBack, NewGame)


class TeachDesk:
    """The snapshot's ``teach``: ``{"on": bool, "lifted": {...} | None}``. Used under the live
    table's lock."""

    def __init__(self, on: bool = True) -> None:
        self.on = on
        self.lifted: dict[str, Any] | None = None

    def fold(self, d: Decision) -> None:
        if isinstance(d, Lifted):
            self.lifted = d.to_dict() if self.on else None
        elif isinstance(d, _CLEARS):
            self.lifted = None

    def set(self, on: bool) -> None:
        self.on = bool(on)
        if not self.on:
            self.lifted = None

    def to_dict(self) -> dict[str, Any]:
        return {"on": self.on, "lifted": self.lifted}


# -- the API ---------------------------------------------------------------------------------------

bp = Blueprint("teach", __name__, url_prefix="/api/teach")


def _table() -> "LiveTable":
    return current_app.extensions["tableref_table"]


@bp.post("")
@admin_required
def toggle() -> Any:
    """Teaching on or off for the rest of the service's run: ``{"on": true|false}``."""
    body = request.get_json(silent=True)
    on = body.get("on") if isinstance(body, dict) else None
    if not isinstance(on, bool):
        return jsonify(error="'on' must be true or false"), 400
    _table().set_teaching(on)
    return jsonify(on=on)


@bp.get("/moves")
def moves() -> Any:
    """Show me: the legal moves of the piece on ``space`` (where each ends, the marks on the
    way, each move in words in the page's language); without ``space``, where a placement
    may go."""
    table = _table()
    snap = table.teach.to_dict()
    if not snap["on"]:
        return jsonify(error="teaching is off at this table"), 409
    # The position is a frozen value: the reference is read once, no lock needed.
    state, seats = table.state, table.seats
    if state.is_game_over():
        return jsonify(error="the game is over"), 409
    if seats.is_computer(state.to_move):
        return jsonify(error="the computer is to move"), 409
    space = request.args.get("space", "")
    if space and not isinstance(space, str):
        return jsonify(error="'space' must be a space's name"), 400
    try:
        found = piece_moves(state, space, table.fidelity) if space else placements(state, table.fidelity)
    except RulesError as exc:
        return jsonify(error=str(exc)), 400
    return jsonify(_said(found, state))


def _said(found: Lift, state: Any) -> dict[str, Any]:
    from .i18n import page_language  # web.i18n imports this module's words

    c = catalog(page_language())
    out = found.to_dict()
    out["count"] = len(found.moves)
    out["moves"] = [{"move": state.move_text(m), "description": c.say(state.move_phrase(m))}
                    for m in found.moves[:MAX_LISTED]]
    return out
