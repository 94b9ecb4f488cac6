"""Turn a stream of noisy observations into stable views.

Sensors flicker, hands cover the board, pieces are lifted for a moment. The referee must
only ever judge a view the board has actually *settled* on, and judge it once. Timing uses
the observations' own ``time`` and never the wall clock, so replaying a recording at any
speed gives exactly the same stable views.

Two ways to settle. A sensor without a hand signal (serial board, GPIO matrix, a script)
must hold a view for ``settle_time`` (0.6 s): it cannot tell a lifted piece from a moved one.
A camera knows when hands are over the board: its observations carry ``hands_clear_since``
(the time nothing has moved over the board since), and a view settles once it has been read
``quiet_readings`` times running with the board quiet for ``quiet`` seconds (0.15 s) since
the hand left — a hand still over the board hides spaces, and such observations reset the
count (docs/vision.md, "Reaction time").
"""

from __future__ import annotations

import math

from rules.view import Observation, View

# Script times are decimal seconds (0.1, 0.7...) whose float differences can fall a hair
# short of the settle time (1.4 - 0.8 < 0.6); a nanosecond of slack keeps that honest.
_EPSILON = 1e-9


class Stabiliser:
    """Report a view once it has been read unchanged for ``settle_time`` seconds over at
    least ``min_readings`` consecutive complete observations.

    A stable view is reported once, when it becomes stable. It is reported again only if
    the board settles on some other view in between (A, B, A gives three reports); settling
    back on the view last reported (after a flicker or a hand over the board) reports nothing.
    """

    def __init__(self, settle_time: float = 0.6, min_readings: int = 3, *, quiet: float = 0.15,
                 quiet_readings: int = 2) -> None:
        if isinstance(settle_time, bool) or not isinstance(settle_time, (int, float)):
            raise ValueError(f"settle_time must be a number of seconds, got {settle_time!r}")
        if not settle_time >= 0:  # also refuses NaN
            raise ValueError(f"settle_time must be >= 0 seconds, got {settle_time!r}")
        if isinstance(min_readings, bool) or not isinstance(min_readings, int):
            raise ValueError(f"min_readings must be an integer, got {min_readings!r}")
        if min_readings < 1:
            raise ValueError(f"min_readings must be >= 1, got {min_readings!r}")
        if isinstance(quiet, bool) or not isinstance(quiet, (int, float)) or not quiet >= 0:
            raise ValueError(f"quiet must be a number of seconds >= 0, got {quiet!r}")
        if isinstance(quiet_readings, bool) or not isinstance(quiet_readings, int) or quiet_readings < 1:
            raise ValueError(f"quiet_readings must be an integer >= 1, got {quiet_readings!r}")
        self.settle_time = float(settle_time)
        self.min_readings = min_readings
        self.quiet = float(quiet)
        self.quiet_readings = quiet_readings
        self.reset()

    def reset(self) -> None:
        """Forget everything: the candidate and the last stable view."""
        self._last_stable: View | None = None
        self._made: float | None = None
        self._forget_candidate()

    def _forget_candidate(self) -> None:
        self._candidate: View | None = None
        self._since = 0.0  # time of the candidate's first reading
        self._readings = 0
        self._settled = False  # the candidate has already been judged stable
        self._last_time: float | None = None

    @property
    def last_stable(self) -> View | None:
        """The view most recently reported stable, or ``None``."""
        return self._last_stable

    @property
    def made(self) -> float | None:
        """When the board came to show the view last reported: the hand leaving it (a camera's
        ``hands_clear_since``), else the view's first reading (a sensor's change). A game clock
        switches then, not when the view settled (docs/clock.md)."""
        return self._made

    @property
    def candidate(self) -> View | None:
        """The view currently being watched (read but not yet stable), for diagnostics."""
        return self._candidate

    def feed(self, obs: Observation) -> View | None:
        """Take one observation; return a view only at the moment it becomes stable."""
        if obs.unreadable or not math.isfinite(obs.time):
            # A hand or glare hides part of the board (or the reading has no usable time):
            # what we can read proves nothing.
            self._forget_candidate()
            return None
        if self._last_time is not None and obs.time < self._last_time:
            # Time went backwards (a source restarted): the readings are not consecutive.
            self._forget_candidate()
        self._last_time = obs.time
        if obs.view != self._candidate:
            self._candidate = obs.view
            self._since = obs.time
            self._readings = 1
            self._settled = False
        else:
            self._readings += 1
        if self._settled:
            return None
        if not self._steady(obs):
            return None
        self._settled = True
        if self._candidate == self._last_stable:
            return None  # back where we were after a flicker or a hand: nothing new
        self._last_stable = self._candidate
        clear = obs.hands_clear_since
        # A view first read long after the hand left (a flicker, the light) was not made by it
        self._made = clear if clear is not None and math.isfinite(clear) and self._since - clear <= self.settle_time \
            else self._since
        return self._candidate

    def _steady(self, obs: Observation) -> bool:
        clear = obs.hands_clear_since
        if clear is None or not math.isfinite(clear):
            # No hand signal: only time tells a lifted piece from a moved one.
            return self._readings >= self.min_readings and obs.time - self._since + _EPSILON >= self.settle_time
        # The source sees hands: the board has been quiet since the hand left, and read alike.
        return self._readings >= self.quiet_readings and obs.time - clear + _EPSILON >= self.quiet
