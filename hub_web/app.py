"""The club page's Flask app: pages, JSON, the arbiter's controls, downloads."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, render_template, request, send_from_directory

from rules import Fidelity, RulesError, get_game
from tableref.clock import ClockError, parse_control
from tableref.hub.corrections import (
    Correction, CorrectionError, check_by, check_note, moves_correction, result_correction,
)
from tableref.hub.protocol import check_board_name
from tableref.hub.readable import BAD_DATA, Unreadable, header_fault, record_fault, replayed, start_of
from tableref.hub.standings import results, standings
from tableref.i18n import catalog
from tableref.journal import UnseenGroup
from tableref.records import write_record
from web import auth
from web.auth import AdminStore, Throttle, admin_required
from web.boards import board_data
from web.i18n import page_language

from . import words
from .outcomes import OutcomeWords

WEB_STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


def create_hub_app(hub: Any, admin: AdminStore) -> Flask:
    """``hub``: a started :class:`tableref.hub.hub.Hub` (its store, its boards, push_pairing)."""
    app = Flask(__name__, static_folder=None)
    app.config.update(SECRET_KEY=admin.secret_key, SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict",
                      SESSION_COOKIE_NAME="tableref_hub_session", PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
                      MAX_CONTENT_LENGTH=2 * 1024 * 1024)
    app.extensions["tableref_admin"] = admin
    app.extensions["tableref_throttle"] = Throttle()
    app.before_request(auth.check_csrf)
    app.context_processor(words.context)  # the pages' words in the reader's language
    app.register_blueprint(auth.bp)
    store = lambda: hub.store  # noqa: E731  (the store is opened by hub.start)

    @app.after_request
    def headers(resp: Response) -> Response:
        resp.headers.setdefault("Content-Security-Policy", _CSP)
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        return resp

    @app.get("/static/<path:name>")
    def web_static(name: str) -> Response:  # the board page's own look and drawing
        return send_from_directory(WEB_STATIC, name)

    @app.get("/hub-static/<path:name>")
    def hub_static(name: str) -> Response:
        return send_from_directory(Path(__file__).parent / "static", name)

    outcomes = OutcomeWords(store)

    def page(template: str, name: str, **kw: Any) -> str:
        say = catalog(page_language()).say
        return render_template(template, page=name, event=hub.config.event,
                               reason_of=lambda r: outcomes.said(r.board, r.game, r.outcome["reason"], say)
                               if not r.by_hand else r.outcome["reason"], **kw)

    @app.get("/")
    def club() -> str:
        return page("club.html", "club")

    @app.get("/table/<board>")
    def table(board: str) -> str:
        _board_or_404(board)
        return page("table.html", "club", board=board)

    @app.get("/standings")
    def standings_page() -> str:
        return page("standings.html", "standings", **_standings(hub))

    @app.get("/archive")
    def archive() -> str:
        return page("archive.html", "archive", games=store().games())

    @app.get("/archive/<board>/<int:game>")
    def replay(board: str, game: int) -> str:
        _board_or_404(board)
        return page("replay.html", "archive", board=board, game=game)

    @app.get("/arbiter")
    def arbiter() -> str:
        return page("arbiter.html", "arbiter", rounds=store().rounds(), pairings=store().pairings(),
                    boards=sorted(hub.boards))

    # -- JSON ---------------------------------------------------------------------------------

    @app.get("/api/club")
    def api_club() -> Any:
        return jsonify(hub.snapshot())

    @app.get("/api/board/<name>")
    def api_board(name: str) -> Any:
        try:
            return jsonify(board_data(name))
        except RulesError as exc:
            return jsonify(error=str(exc)), 404

    @app.get("/api/standings")
    def api_standings() -> Any:
        data = _standings(hub)
        return jsonify(rounds=data["rounds"], results=[r.to_dict() for r in data["results"]],
                       standings=[l.to_dict() for l in data["lines"]])

    @app.get("/api/games")
    def api_games() -> Any:
        return jsonify(games=[g.to_dict() for g in store().games()])

    @app.get("/api/games/<board>/<int:game>")
    def api_game(board: str, game: int) -> Any:
        try:
            record = store().export(board, game)
        except KeyError as exc:
            return jsonify(error=str(exc.args[0])), 404
        try:
            first = start_of(record)
        except Unreadable as exc:  # well-formed nonsense from the board (issue 33): kept, not drawn
            return jsonify(error=f"{board} game {game} cannot be replayed: {exc}", unreadable=str(exc),
                           record=record), 422
        rules = get_game(record["game"])
        steps = []
        if any(c["kind"] == "moves" for c in record.get("corrections", ())):
            # the moves as corrected, replayed through the rules (the board's events stay in the store)
            state = rules.from_dict(record["start"])
            for n, text in enumerate(record["moves"]):
                state = state.apply(state.parse_move(text))
                steps.append({"seq": n, "kind": "move", "move": text, "view": state.view(Fidelity.KIND).to_dict()})
        for e in [] if steps else store().positions(board, game):
            try:
                view = rules.from_dict(e["position"]).view(Fidelity.KIND).to_dict()
            except BAD_DATA:
                view = {}
            steps.append({"seq": e["seq"], "kind": e["kind"], "move": e["move"], "view": view})
        # The board's positions are shown as it sent them; "unreadable" says why its moves do
        # not replay through the rules (an illegal move), if they do not.
        return jsonify(record=record, start=first.view(Fidelity.KIND).to_dict(), steps=steps,
                       unreadable=record_fault(record))

    @app.get("/api/games/<board>/<int:game>/record")
    def api_record(board: str, game: int) -> Any:
        try:
            record = store().export(board, game)
        except KeyError as exc:
            return jsonify(error=str(exc.args[0])), 404
        if request.args.get("format") == "json":
            return _download(json.dumps(record, indent=1) + "\n", f"{board}-game-{game}.json", "application/json")
        try:
            text = _text_record(record)
        except Unreadable as exc:
            return jsonify(error=f"{board} game {game} does not replay: {exc}"), 409
        return _download(text, f"{board}-game-{game}.txt", "text/plain")

    @app.get("/api/event.zip")
    def api_zip() -> Response:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for g in store().games():
                record = store().export(g.board, g.game)
                z.writestr(f"{g.board}/game-{g.game}.json", json.dumps(record, indent=1) + "\n")
                try:
                    z.writestr(f"{g.board}/game-{g.game}.txt", _text_record(record))
                except Unreadable:
                    pass  # the JSON is there; the text record needs a game that replays
            data = _standings(hub)
            z.writestr("standings.json", json.dumps({"event": hub.config.event, "results": [
                r.to_dict() for r in data["results"]], "standings": [l.to_dict() for l in data["lines"]]}, indent=1))
        name = "".join(c if c.isalnum() else "-" for c in hub.config.event).strip("-") or "event"
        return _download(buf.getvalue(), f"{name}.zip", "application/zip")

    # -- the arbiter --------------------------------------------------------------------------------

    @app.post("/api/rounds")
    @admin_required
    def new_round() -> Any:
        body = request.get_json(silent=True)
        control = body.get("clock") if isinstance(body, dict) else None  # the round's time control
        if control is not None:
            try:
                if not isinstance(control, str):
                    raise ClockError("'clock' must be a time control such as \"10+5\"")
                parse_control(control)
            except ClockError as exc:
                return jsonify(error=str(exc)), 400
        rnd = store().add_round(control)
        return jsonify(round=rnd) if control is None else jsonify(round=rnd, clock=control)

    @app.post("/api/rounds/<int:rnd>/pairings")
    @admin_required
    def set_pairings(rnd: int) -> Any:
        try:
            pairs = _pairings_from_request()
            for board, players in pairs:
                store().set_pairing(rnd, board, players)
        except ValueError as exc:
            return jsonify(error=str(exc)), 400
        return jsonify(pairings=store().pairings(rnd))

    @app.post("/api/rounds/<int:rnd>/push")
    @admin_required
    def push(rnd: int) -> Any:
        control = store().round_control(rnd)
        pushed = [p["board"] for p in store().pairings(rnd)
                  if hub.push_pairing(rnd, p["board"], p["players"], control)]
        if not pushed:
            return jsonify(error="nothing pushed: no pairings in this round, or the hub is not connected"), 409
        return jsonify(pushed=pushed)

    @app.post("/api/rounds/<int:rnd>/result")
    @admin_required
    def result(rnd: int) -> Any:
        body = request.get_json(silent=True) or {}
        board, winner = body.get("board"), body.get("winner")
        try:
            check_board_name(board, "board")
            if winner == "clear":
                store().set_result(rnd, board, None)
            else:
                pairing = next((p for p in store().pairings(rnd) if p["board"] == board), None)
                if pairing is None:
                    raise ValueError(f"no pairing at {board} in round {rnd}")
                if winner is not None and winner not in pairing["players"]:
                    raise ValueError(f"winner must be one of {', '.join(pairing['players'])} or null (a draw)")
                reason = str(body.get("reason") or "result by the arbiter")[:120]
                store().set_result(rnd, board, {"winner": winner, "reason": reason, "scores": {}})
        except ValueError as exc:
            return jsonify(error=str(exc)), 400
        return jsonify(pairings=store().pairings(rnd))

    @app.post("/api/games/<board>/<int:game>/correct")
    @admin_required
    def correct(board: str, game: int) -> Any:
        """The arbiter corrects a game: ``{"by", "note"?, "kind": "result", "winner": side | null |
        "clear", "reason"?}`` or ``{"by", "note"?, "kind": "moves", "from": N (the first move
        replaced, 1-based), "moves": [...] or "m1 m2 …"}``."""
        _board_or_404(board)
        body = request.get_json(silent=True)
        try:
            record = store().export(board, game)
        except KeyError as exc:
            return jsonify(error=str(exc.args[0])), 404
        fault = header_fault(record)
        if fault is not None:  # no rules to check a correction with
            return jsonify(error=f"{board} game {game} cannot be corrected: {fault}"), 409
        try:
            if not isinstance(body, dict):
                raise CorrectionError("expected a JSON object")
            by, note, kind = check_by(body.get("by")), check_note(body.get("note")), body.get("kind")
            if kind == "result":
                data, replaced = result_correction(record, body.get("winner"), body.get("reason"))
            elif kind == "moves":
                first = body.get("from")
                ply = first - 1 if isinstance(first, int) and not isinstance(first, bool) else first
                data, replaced = moves_correction(record, ply, body.get("moves"))
            else:
                raise CorrectionError('kind: "result" or "moves"')
        except CorrectionError as exc:
            return jsonify(error=str(exc)), 400
        made = store().add_correction(board, game, kind, by=by, address=request.remote_addr or "", note=note,
                                      data=data, replaced=replaced)
        return jsonify(correction=made.to_dict(), record=store().export(board, game))

    @app.get("/api/corrections")
    @admin_required
    def corrections() -> Any:  # the audit trail, with where each came from
        return jsonify(corrections=[c.to_dict(address=True) for c in store().corrections()])

    @app.errorhandler(413)
    def too_large(_: Exception) -> tuple[Response, int]:
        return jsonify(error="request too large (2 MB at most)"), 413

    def _board_or_404(board: str) -> None:
        try:
            check_board_name(board)
        except ValueError:
            abort(404)

    return app


def _standings(hub: Any) -> dict[str, Any]:
    res = results(hub.store.pairings(), hub.store.games())
    return {"rounds": hub.store.rounds(), "results": res, "lines": standings(res)}


def _text_record(record: dict[str, Any]) -> str:
    """As ``tableref export`` writes it on the board (moves never seen one by one as comments),
    with the arbiter's corrections as comments before the end (an import reads the moves)."""
    checked = replayed(record)  # Unreadable if the moves do not replay
    groups = tuple(UnseenGroup(g["ply"], g["count"], tuple(g["alternatives"]), g["chosen"])
                   for g in record.get("unseen", ()))
    text = write_record(replace(checked, unseen=groups))
    notes = [Correction.from_dict(c).text() for c in record.get("corrections", ())]
    if notes:
        head, end = text.rsplit("End\n", 1)
        text = head + "\n".join(notes) + "\nEnd\n" + end
    return text



def _download(data: str | bytes, name: str, mimetype: str) -> Response:
    return Response(data, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _pairings_from_request() -> list[tuple[str, dict[str, str]]]:
    """JSON ``{"pairings": [{"board", "players": {side: name}}]}``, or a CSV file/text whose
    header is ``board,<side>,<side>…`` (``board,A,B``) and each row a table's players."""
    upload = request.files.get("csv")
    body = request.get_json(silent=True)
    if upload is not None or (isinstance(body, dict) and isinstance(body.get("csv"), str)):
        text = upload.read().decode("utf-8-sig", errors="replace") if upload is not None else body["csv"]
        rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
        if not rows or rows[0][0].strip().lower() != "board" or len(rows[0]) < 3:
            raise ValueError("CSV: the first line must be board,<side>,<side>… (such as board,A,B)")
        sides = [s.strip() for s in rows[0][1:]]
        out = []
        for n, row in enumerate(rows[1:], start=2):
            if len(row) != len(sides) + 1:
                raise ValueError(f"CSV line {n}: expected {len(sides) + 1} fields, got {len(row)}")
            out.append((check_board_name(row[0].strip(), f"CSV line {n}: board"),
                        _players(dict(zip(sides, (c.strip() for c in row[1:]))), f"CSV line {n}")))
        return out
    if not isinstance(body, dict) or not isinstance(body.get("pairings"), list):
        raise ValueError('expected {"pairings": [{"board": ..., "players": {side: name}}]} or a CSV')
    out = []
    for i, p in enumerate(body["pairings"]):
        if not isinstance(p, dict):
            raise ValueError(f"pairing {i + 1}: expected an object")
        out.append((check_board_name(p.get("board"), f"pairing {i + 1}: board"),
                    _players(p.get("players"), f"pairing {i + 1}")))
    return out


def _players(players: Any, where: str) -> dict[str, str]:
    if not isinstance(players, dict) or not players or not all(
            isinstance(k, str) and isinstance(v, str) and 0 < len(v.strip()) <= 80 for k, v in players.items()):
        raise ValueError(f"{where}: players must map each side to a name of 1-80 characters")
    return {k.strip(): v.strip() for k, v in players.items()}
