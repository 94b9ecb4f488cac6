"""The game clock on the live page (issue 34, part 1; docs/clock.md).

* :class:`ClockDesk` — the live table's part: the last :class:`~decisions.clock.Clocks` the
  referee said, for the snapshot's ``clock`` with the running time as of the snapshot (a page
  opened mid-turn shows the clock as it stands, then counts down itself: web/static/clock.js).
* ``POST /api/clock {"action": "pause" | "resume"}`` — the admin stops and starts every clock
  (admin, CSRF).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from flask import Blueprint, current_app, jsonify, request

from decisions import Decision, NewGame
from decisions.clock import Clocks, ClockWarning, FlagFall

from .auth import admin_required

if TYPE_CHECKING:
    from .live import LiveTable

CLOCK_DECISIONS = (Clocks, ClockWarning)  # shown on the clock, never a line of the log

# The clock's words (web/static/clock.js), sent to the page through web/i18n.py SCRIPT_MESSAGES.
SCRIPT_WORDS = (
    "Clock", "Pause the clock", "Resume the clock", "Clock paused", "{player} lost on time",
    "The service was off for {time}: nobody's clock ran meanwhile", "Time control (e.g. 10+5, 10d5, off)",
)


class ClockDesk:
    """The snapshot's ``clock``: None (no clock), or ``{"control", "times" (ms left as of the
    snapshot), "running", "paused", "flagged", "off_ms"}``. Used under the live table's lock."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.shown: dict[str, Any] | None = None
        self._at = 0.0  # when the times were said (the service's monotonic time)

    def fold(self, d: Decision) -> bool:
        """Take a clock decision (True), or let the live table fold the others (False)."""
        if isinstance(d, Clocks):
            self.shown = {"control": d.control, "times": dict(d.times), "running": d.running, "paused": d.paused,
                          "flagged": d.flagged, "off_ms": d.off_ms}
            self._at = self.now()
            return True
        if isinstance(d, FlagFall) and self.shown is not None:
            self.shown = {**self.shown, "flagged": d.side, "running": None}
        elif isinstance(d, NewGame) and not d.resumed:
            self.shown = None  # the new game's clock, if any, is said right after
        return isinstance(d, ClockWarning)

    def to_dict(self) -> dict[str, Any] | None:
        if self.shown is None:
            return None
        out = {**self.shown, "times": dict(self.shown["times"])}
        running = out["running"]
        if running is not None and not out["paused"] and running in out["times"]:
            out["times"][running] -= round((self.now() - self._at) * 1000)
        return out


# -- the API ---------------------------------------------------------------------------------------

bp = Blueprint("clock", __name__, url_prefix="/api/clock")


def _table() -> "LiveTable":
    return current_app.extensions["tableref_table"]


@bp.post("")
@admin_required
def pause_or_resume() -> Any:
    body = request.get_json(silent=True)
    action = body.get("action") if isinstance(body, dict) else None
    if action not in ("pause", "resume"):
        return jsonify(error="'action' must be 'pause' or 'resume'"), 400
    _table().pause_clock(action == "pause")
    return jsonify(queued=True), 202
