"""A first lesson on the live page (issue 31, item 3; docs/teaching.md).

* :class:`LessonDesk` — the live table's part: the step the referee said
  (:class:`~decisions.LessonStep`), or that the lesson is done, for the snapshot's ``lesson``;
  its words as phrases, so the page says them in the reader's language (web/i18n.py).
* ``POST /api/lesson {"game": …}`` starts the game's first lesson (admin, CSRF: it starts a new
  game); ``POST /api/lesson/stop`` ends it (the game goes on as any game); ``GET /api/lesson``
  lists the games that have one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, jsonify, request

from decisions import Decision, LessonDone, LessonStep, NewGame
from rules.lessons import GAMES
from rules.phrase import P, Value

from .auth import admin_required

if TYPE_CHECKING:
    from .live import LiveTable

# The card's words (web/static/lesson.js), sent to the page through web/i18n.py SCRIPT_MESSAGES.
SCRIPT_WORDS = (
    "First lesson", "Lesson: step {n} of {count}", "Your move", "The other side's move: make it on the board",
    "What just happened", "Not this step", "Stop the lesson", "Lesson done", "Close", "This game has no lesson yet.",
    "lesson step", "lesson done",  # the log's kinds of a lesson's decisions
)


class LessonDesk:
    """The snapshot's ``lesson``: ``None``, or ``{"game", "number", "count", "by", "do", "then",
    "steps", "done", "repeated", "wrong", "finished", "end"}``. Used under the live table's lock."""

    def __init__(self) -> None:
        self.shown: dict[str, Any] | None = None
        self.words: dict[str, Value] = {}  # English -> phrase, for the page's other languages

    def fold(self, d: Decision) -> None:
        if isinstance(d, LessonStep):
            self.shown = {**d.to_dict(), "finished": False, "end": ""}
            self.words = {p.text: p for p in (d.do_phrase, d.then_phrase, d.wrong_phrase) if p is not None}
            self.words.update({s.description: s.phrase for s in d.steps if s.phrase is not None})
        elif isinstance(d, LessonDone):
            self.shown = {"game": d.game, "finished": True, "stopped": d.stopped, "then": d.then, "end": d.end,
                          "steps": [], "number": 0, "count": 0, "by": "", "do": "", "wrong": ""}
            self.words = {p.text: p for p in (d.then_phrase, d.end_phrase) if p is not None}
        elif isinstance(d, NewGame):  # a lesson's own game says its first step right after
            self.shown, self.words = None, {}

    def to_dict(self) -> dict[str, Any] | None:
        return self.shown


def log_line(d: Decision) -> Value | None:
    """The log's line for a lesson's decision, as a phrase (the page says it in its language)."""
    if isinstance(d, LessonStep) and d.do_phrase is not None:
        said = "lesson step {n}/{count} (again): {do}" if d.repeated else "lesson step {n}/{count}: {do}"
        return P(said, n=d.number, count=d.count, do=d.do_phrase)
    if isinstance(d, LessonDone):
        return P("lesson stopped") if d.stopped or d.end_phrase is None else P("lesson done: {end}", end=d.end_phrase)
    return None


# -- the API ---------------------------------------------------------------------------------------

bp = Blueprint("lesson", __name__, url_prefix="/api/lesson")


def _table() -> "LiveTable":
    return current_app.extensions["tableref_table"]


@bp.get("")
def games() -> Any:
    return jsonify(games=list(GAMES))


@bp.post("")
@admin_required
def start() -> Any:
    body = request.get_json(silent=True)
    game = body.get("game") if isinstance(body, dict) else None
    if game is None:
        game = _table().snapshot()["game"]
    if game not in GAMES:
        return jsonify(error=f"no lesson for {game!r} (lessons: {', '.join(GAMES)})"), 400
    _table().start_lesson(game)
    return jsonify(queued=True, game=game), 202


@bp.post("/stop")
@admin_required
def stop() -> Any:
    _table().stop_lesson()
    return jsonify(queued=True), 202
