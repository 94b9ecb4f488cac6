"""A game with another table on the live page (issue 34, part 2; docs/remote.md).

* :class:`RemoteDesk` — the live table's part: the other table's turn to carry out here (or that
  this table waits for it), and the link (connected, the open invitation, the table joined).
* ``GET /api/remote`` — the link's state; ``POST /api/remote/invite {"sides": [...], "clock"?}``
  opens an invitation for the current game (the other table plays ``sides``) and answers its code;
  ``POST /api/remote/join {"code": "table-a K7M4QX"}`` asks that table for its game. Both need
  the admin and the CSRF token (web/auth.py); 404 without ``[remote]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, jsonify, request

from decisions import Accepted, Decision, NewGame
from decisions.remote import MatchEnded, RemoteTurn, RemoteWaiting
from rules import P, RulesError
from rules.phrase import Value

from .auth import admin_required

if TYPE_CHECKING:
    from .live import LiveTable

# The page's words for a remote table (web/static/remote.js), through web/i18n.py SCRIPT_MESSAGES.
SCRIPT_WORDS = (
    "Make {table}'s move on the board", "{player} ({table}) plays:", "Waiting for {table}'s move…",
    "{player}: {table}", "Another table", "Invite a table", "They play", "Invite", "Join",
    "Code from the other table (e.g. table-a K7M4QX)", "Read this code to the other table: {code}",
    "Or send this link: {link}", "Asking {table} for its game…", "Refused: {reason}",
    "Playing {table}: connected", "Playing {table}: the link is down; every move is kept and sent when it is back",
    "{n} moves not yet confirmed by {table}", "This table: {table}", "The match with {table} is over",
)


class RemoteDesk:
    """The snapshot's ``remote``: ``{"turn": {side, table, steps, done, repeated, waiting} | None,
    "link": LinkStatus.to_dict() | None}``. Used under the live table's lock."""

    def __init__(self) -> None:
        self.turn: dict[str, Any] | None = None
        self.link: dict[str, Any] | None = None

    def fold(self, d: Decision) -> dict[str, Value] | None:
        """Take a decision; the phrases of a turn's steps (for the page's words), if it is one."""
        if isinstance(d, RemoteTurn):
            self.turn = {"side": d.side, "table": d.table, "steps": [s.to_dict() for s in d.steps], "done": d.done,
                         "repeated": d.repeated, "waiting": False}
            return {s.description: s.phrase for s in d.steps if s.phrase is not None}
        if isinstance(d, RemoteWaiting):
            self.turn = {"side": d.side, "table": d.table, "steps": [], "done": 0, "repeated": False, "waiting": True}
        elif isinstance(d, NewGame):
            self.turn = None
        elif isinstance(d, Accepted) and self.turn is not None and self.turn["waiting"]:
            self.turn = None
        return None

    def to_dict(self) -> dict[str, Any] | None:
        if self.link is None and self.turn is None:
            return None
        return {"turn": self.turn, "link": self.link}


def remote_log(d: Decision) -> Value | None:
    """The log's line for the other table leaving the match, in the page's words."""
    if isinstance(d, MatchEnded):
        return P("{table} ended the match: this game is closed as it stood", table=d.table)
    return None


bp = Blueprint("remote", __name__, url_prefix="/api/remote")


def _link() -> Any:
    return current_app.extensions.get("tableref_remote")


def _table() -> "LiveTable":
    return current_app.extensions["tableref_table"]


def _no_link() -> Any:
    return jsonify(error="this table has no [remote] link configured (docs/remote.md)"), 404


@bp.get("")
def status() -> Any:
    link = _link()
    return _no_link() if link is None else jsonify(link.status.to_dict())


@bp.post("/invite")
@admin_required
def invite() -> Any:
    link = _link()
    if link is None:
        return _no_link()
    body = request.get_json(silent=True)
    body = body if isinstance(body, dict) else {}
    sides = body.get("sides")
    if isinstance(sides, str):
        sides = [sides]
    if not isinstance(sides, list) or not all(isinstance(s, str) for s in sides):
        return jsonify(error="'sides' must list the sides the other table plays"), 400
    snap = _table().snapshot()
    clock = body.get("clock")
    if clock is not None and not isinstance(clock, str):
        return jsonify(error="'clock' must be a time control such as \"10+5\" or \"off\""), 400
    try:
        code = link.invite(tuple(sides), snap["game"], snap["options"], "default", clock)
    except (RulesError, ValueError) as exc:
        return jsonify(error=str(exc)), 400
    return jsonify(code=code, status=link.status.to_dict())


@bp.post("/join")
@admin_required
def join() -> Any:
    link = _link()
    if link is None:
        return _no_link()
    body = request.get_json(silent=True)
    code = body.get("code") if isinstance(body, dict) else None
    if not isinstance(code, str):
        return jsonify(error="'code' must be the other table's name and code, such as 'table-a K7M4QX'"), 400
    try:
        link.join(code)
    except ValueError as exc:
        return jsonify(error=str(exc)), 400
    return jsonify(queued=True, status=link.status.to_dict()), 202
