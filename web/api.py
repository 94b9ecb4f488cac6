"""The JSON API under ``/api/`` (documented in docs/api.md).

Reads are open to anyone on the network; every command needs an admin session and the
CSRF token (checked in :mod:`web.auth`). Commands are queued to the referee and answered
``202 Accepted``: what the referee decided arrives on the event stream.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from decisions import SeatError, Seats
from decisions.seats import MAX_LEVEL, MIN_LEVEL
from rules import RulesError, game_names, get_game
from rules.strict import refuse_duplicates
from tableref.i18n import catalog
from tableref.clock import ClockError, parse_control
from tableref.journal import Journal, JournalError

from . import records
from .auth import admin_required
from .boards import board_data
from .i18n import page_language
from .page_words import played, replay_translations
from .live import LiveTable
from .simboard import SimBoardError

bp = Blueprint("api", __name__, url_prefix="/api")


def table() -> LiveTable:
    return current_app.extensions["tableref_table"]


def _journal() -> Journal:
    path = table().journal_path
    if path is None:
        raise JournalError("this service keeps no journal")
    return Journal(path)


def _body() -> dict[str, Any]:
    body = request.get_json(silent=True)
    return body if isinstance(body, dict) else {}


def _error(message: str, status: int) -> tuple[Response, int]:
    return jsonify(error=message), status


# -- reading ------------------------------------------------------------------------------------


@bp.get("/state")
def state() -> Any:
    return jsonify({**table().snapshot(), "event_id": table().broadcaster.last_id})


@bp.get("/health")
def health() -> Any:
    """The service's health (docs/api.md): the source's connection, the game, the last
    decision, uptime, version. From the service's own provider; a bare app reports the game."""
    provider = current_app.config.get("TABLEREF_HEALTH")
    link = current_app.extensions.get("tableref_remote")  # another table ([remote]; docs/remote.md)
    remote = {} if link is None else {"remote": link.status.health()}
    if provider is not None:
        return jsonify({**provider().to_dict(), **remote})
    snap = table().snapshot()
    last = snap["last"]
    return jsonify({
        "ok": True, "version": None, "started": None, "uptime": None,
        "source": {"kind": snap["source"]["name"], "name": snap["source"]["name"], "state": snap["source"]["status"],
                   "connected": True, "detail": snap["source"]["text"], "since": None},
        "game": {"id": snap["game_id"], "name": snap["game"], "ply": snap["ply"], "to_move": snap["to_move"],
                 "over": snap["outcome"] is not None},
        "last_decision": None if last is None else {"kind": last["kind"], "ply": snap["ply"], "at": None},
        "panel": "off", **remote,
    })


@bp.get("/games")
def games() -> Any:
    out = []
    for name in game_names():
        g = get_game(name)
        out.append({
            "name": name, "title": g.title, "players": list(g.players),
            "options": {k: {"default": s.default, "help": s.help} for k, s in g.options.items()},
        })
    return jsonify(out)


@bp.get("/levels")
def levels() -> Any:
    """The computer's levels, for the new-game dialog's seats and the hint."""
    from engine import LEVELS  # the engine is pure and light; imported where the page needs it

    return jsonify([{"number": lv.number, "name": lv.name, "description": lv.description} for lv in LEVELS])


@bp.get("/board/<name>")
def board(name: str) -> Any:
    try:
        return jsonify(board_data(name))
    except RulesError as exc:
        return _error(str(exc), 404)


@bp.get("/journal")
def journal_list() -> Any:
    try:
        with _journal() as j:
            rows = records.game_list(j)
        language = page_language()
        for row in rows:  # the date as the reader's locale writes it
            row["played"] = played(row["created"], language)
        return jsonify(rows)
    except JournalError as exc:
        return _error(str(exc), 500)


@bp.get("/journal/<int:game_id>")
def journal_game(game_id: int) -> Any:
    try:
        with _journal() as j:
            # the rules' texts in the page's other languages, as the live snapshot's "i18n"
            return jsonify({**records.replay(j, game_id), "i18n": replay_translations(j.load(game_id))})
    except JournalError as exc:
        return _error(str(exc), 404 if "no game" in str(exc) else 500)


@bp.get("/journal/<int:game_id>/record")
def journal_record(game_id: int) -> Any:
    try:
        with _journal() as j:
            data = j.export(game_id)
    except JournalError as exc:
        return _error(str(exc), 404 if "no game" in str(exc) else 500)
    resp = jsonify(data)
    resp.headers["Content-Disposition"] = f'attachment; filename="tableref-game-{game_id}.json"'
    return resp


@bp.post("/journal/import")
@admin_required
def journal_import() -> Any:
    # Either record format, told apart by content (docs/records.md): the JSON record this page
    # downloads, or the text record `tableref export` prints.
    from tableref import records as text_records

    upload = request.files.get("record")
    text = None
    if upload is not None:
        name = upload.filename or "upload"
        said = catalog(page_language())._  # the reader's language: the page shows this error as it is
        try:
            text = upload.read().decode("utf-8")
            data = json.loads(text.lstrip("\ufeff"), object_pairs_hook=refuse_duplicates) if _json_like(text) else None
        except UnicodeDecodeError:
            return _error(said("{file}: not a game record (not UTF-8 text)", file=name), 400)
        except json.JSONDecodeError as exc:
            return _error(said("{file}: not a JSON game record (line {line}, column {column})", file=name,
                               line=exc.lineno, column=exc.colno), 400)
        except (ValueError, RecursionError) as exc:  # a key twice, too deep
            return _error(said("{file}: not a JSON game record ({error})", file=name, error=exc), 400)
    else:
        name = "<body>"
        data = request.get_json(silent=True)
        if data is None and request.mimetype == "text/plain":
            text = request.get_data(as_text=True)
        elif data is None:
            return _error("send the game record as JSON or text, or as the file field 'record'", 400)
    try:
        with _journal() as j:
            if data is None:  # the text record, checked line by line before anything is written
                game_id = text_records.import_record(j, text_records.parse_record(text or "", where=name))
            else:
                game_id = records.import_record(j, data)
    except (records.RecordError, text_records.RecordError) as exc:
        return _error(str(exc), 400)
    except JournalError as exc:
        return _error(str(exc), 500)
    return jsonify(id=game_id), 201


def _json_like(text: str) -> bool:
    return text.lstrip("\ufeff \t\r\n").startswith("{")


# -- commands (admin) ---------------------------------------------------------------------------


def _queued() -> Any:
    return jsonify(queued=True), 202


@bp.post("/confirm")
@admin_required
def confirm() -> Any:
    number = _body().get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        return _error("'number' must be the choice's number (1, 2, ...)", 400)
    table().confirm(number)
    return _queued()


@bp.post("/undo")
@admin_required
def undo() -> Any:
    table().undo()
    return _queued()


@bp.post("/unseen")
@admin_required
def unseen() -> Any:
    """Which sequence of moves never seen one by one the players played (docs/api.md)."""
    body = _body()
    first, number = body.get("first_ply"), body.get("number")
    for name, value, low in (("first_ply", first, 0), ("number", number, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            return _error(f"'{name}' must be a whole number from {low}", 400)
    table().choose_unseen(first, number)
    return _queued()


@bp.post("/declare")
@admin_required
def declare() -> Any:
    move = _body().get("move")
    if not isinstance(move, str) or not move.strip():
        return _error("'move' must be the move's notation (e.g. 'resign')", 400)
    table().declare(move.strip())
    return _queued()


@bp.post("/new-game")
@admin_required
def new_game() -> Any:
    body = _body()
    options = body.get("options") or {}
    if not isinstance(options, dict):
        return _error("'options' must be an object of option -> value", 400)
    # Empty fields on the form mean "the default".
    options = {k: v for k, v in options.items() if v not in ("", None)}
    seats = body.get("seats") or {}
    if not isinstance(seats, dict):
        return _error("'seats' must be an object of side -> 'person' or 'computer:N'", 400)
    clock = body.get("clock") or None  # the time control: "10+5", "off"; none: the configured one
    try:
        if clock is not None:
            parse_control(str(clock))  # ClockError (a ValueError) says what is wrong
        opts = table().new_game(str(body.get("game") or table().snapshot()["game"]), options,
                                str(body.get("setup") or "start"), Seats.from_dict(seats),
                                None if clock is None else str(clock))
    except (RulesError, SimBoardError, SeatError, ClockError) as exc:
        return _error(str(exc), 400)
    return jsonify(queued=True, options=opts), 202


@bp.post("/hint")
@admin_required
def hint() -> Any:
    """What the computer would play for the person to move, at the admin's level (config
    ``[opponent] hint_level``, or ``level`` here): shown on the page, never played."""
    level = _body().get("level", current_app.config.get("TABLEREF_HINT_LEVEL", 2))
    if not isinstance(level, int) or isinstance(level, bool) or not MIN_LEVEL <= level <= MAX_LEVEL:
        return _error(f"'level' must be {MIN_LEVEL}..{MAX_LEVEL}", 400)
    table().ask_hint(level)
    return _queued()


@bp.post("/sim/<action>")
@admin_required
def sim(action: str) -> Any:
    if action not in ("take", "put", "move", "discard", "hand_over", "reset"):
        return _error(f"unknown simulated-board action {action!r}", 404)
    body = _body()
    kwargs = {k: body.get(k) for k in ("space", "token", "to")}
    for k, v in kwargs.items():
        if v is not None and not isinstance(v, str):
            return _error(f"'{k}' must be a string", 400)
    if action in ("take", "put", "move") and not kwargs["space"]:
        return _error("'space' is needed", 400)
    if action == "move" and not kwargs["to"]:
        return _error("'to' is needed", 400)
    try:
        table().sim_edit(action, over=bool(body.get("over")), **kwargs)
    except LookupError as exc:
        return _error(str(exc), 409)
    except SimBoardError as exc:  # shown as a toast: in the reader's language
        return _error(catalog(page_language()).say(exc.phrase), 400)
    return jsonify(sim=table().snapshot()["sim"])
