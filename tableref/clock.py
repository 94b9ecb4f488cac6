"""The game clock (issue 34, part 1): pure arithmetic, no I/O, no threads, no wall clock.

Every time is passed in (``at``, seconds, in whatever base the caller's observations use) and
kept as whole milliseconds, so the arithmetic is exact and a replay gives the same clocks.
The referee drives it (tableref/referee_clock.py); docs/clock.md says what players see.

A :class:`TimeControl` is one or more periods. Written as text (``parse_control``/``text``)::

    10          sudden death: 10 minutes each
    5+3         Fischer: 5 minutes, 3 seconds added after each turn
    10d5        Bronstein delay: 10 minutes; of each turn, up to 5 seconds given back
    40/90+30,30+30   moves in time: 40 turns in 90 minutes, then 30 minutes for the rest,
                     30 s increment in both periods

Minutes and seconds may be decimals (``0.5+1``). Every period but the last names its turns
(``N/``); the last never does (it lasts the rest of the game). A *turn* is a player's whole turn
(Anacund's three placements are one), counted when the clock passes to another player.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

# Sensible defaults per game (docs/clock.md): a club evening's rapid game, longer for the games
# whose turns are several moves or whose boards take longer to put right.
DEFAULTS = {
    "gyges": "10+5",
    "anacund": "10+5",
    "annihilation": "15+5",
    "annelids": "15+5",
    "drift": "20+10",
}
FALLBACK = "10+5"
UNDO_POLICIES = ("restore", "keep")


class ClockError(ValueError):
    """A time control that cannot be read, or a clock asked to do what it cannot."""


@dataclass(frozen=True)
class Period:
    """``ms`` added when the period begins; ``moves`` turns to make in it (None: the rest of the
    game); after each turn in it, ``increment_ms`` added (Fischer) or up to ``delay_ms`` of the
    turn's time given back (Bronstein)."""

    ms: int
    moves: int | None = None
    increment_ms: int = 0
    delay_ms: int = 0

    def text(self) -> str:
        out = f"{self.moves}/" if self.moves else ""
        out += _number(self.ms, 60_000)
        if self.increment_ms:
            out += "+" + _number(self.increment_ms, 1000)
        if self.delay_ms:
            out += "d" + _number(self.delay_ms, 1000)
        return out


@dataclass(frozen=True)
class TimeControl:
    periods: tuple[Period, ...]

    def text(self) -> str:
        return ",".join(p.text() for p in self.periods)

    def __str__(self) -> str:
        return self.text()


_PERIOD = re.compile(r"^(?:(\d+)/)?(\d+(?:\.\d+)?)(?:([+d])(\d+(?:\.\d+)?))?$")


def parse_control(text: str) -> TimeControl | None:
    """``"5+3"`` → a TimeControl; ``"off"``/``"none"`` → None (no clock). ClockError otherwise."""
    spec = str(text).strip().lower().replace(" ", "")
    if spec in ("off", "none", ""):
        return None
    periods = []
    parts = spec.split(",")
    for i, part in enumerate(parts):
        m = _PERIOD.match(part)
        if m is None:
            raise ClockError(f"time control {text!r}: {part!r} is not minutes[+increment|dDelay] "
                             "(e.g. 5+3, 10d5, 40/90+30,30)")
        moves = int(m.group(1)) if m.group(1) else None
        last = i == len(parts) - 1
        if last and moves is not None:
            raise ClockError(f"time control {text!r}: the last period lasts the rest of the game (no 'N/')")
        if not last and not moves:
            raise ClockError(f"time control {text!r}: {part!r}: a period before the last needs its turns ('40/90')")
        ms = _ms_of(m.group(2), 60_000, text)
        extra = _ms_of(m.group(4), 1000, text) if m.group(4) else 0
        if ms <= 0 and i == 0:
            raise ClockError(f"time control {text!r}: the first period needs some time")
        periods.append(Period(ms, moves, extra if m.group(3) == "+" else 0, extra if m.group(3) == "d" else 0))
    return TimeControl(tuple(periods))


def default_control(game: str) -> TimeControl:
    """The game's default time control (:data:`DEFAULTS`)."""
    control = parse_control(DEFAULTS.get(game, FALLBACK))
    assert control is not None
    return control


def _ms_of(number: str, unit: int, text: str) -> int:
    try:
        value = Decimal(number) * unit
    except InvalidOperation:
        raise ClockError(f"time control {text!r}: {number!r} is not a number") from None
    if value != value.to_integral_value():
        raise ClockError(f"time control {text!r}: {number!r} is finer than a millisecond")
    return int(value)


def _number(ms: int, unit: int) -> str:
    value = Decimal(ms) / unit
    return str(value.quantize(Decimal(1)) if value == value.to_integral_value() else value.normalize())


def ms(at: float) -> int:
    """Seconds (an observation's time) as whole milliseconds."""
    return round(at * 1000)


class Clock:
    """Every player's remaining time; at most one clock runs (``running``).

    Methods take ``at`` in seconds. A time earlier than the last change (a board view judged after
    a tick) is taken as that change's time: the clocks never run backwards.

    ``undo``: what an undo does to the times (the arbiter's setting). ``restore``: the clocks go
    back to the moment the undone move was made (the mover's turn goes on from there; the time
    the opponent spent since is given back). ``keep``: nothing is given back — the clocks stand;
    only whose clock runs goes back.
    """

    def __init__(self, control: TimeControl, sides: tuple[str, ...], *, undo: str = "restore") -> None:
        if len(sides) < 1 or len(set(sides)) != len(sides):
            raise ClockError(f"clock: sides must be distinct, got {sides!r}")
        if undo not in UNDO_POLICIES:
            raise ClockError(f"clock: undo must be one of {', '.join(UNDO_POLICIES)}, got {undo!r}")
        self.control = control
        self.sides = tuple(sides)
        self.undo_policy = undo
        first = control.periods[0].ms
        self.base = {s: first for s in sides}  # each player's time at the start of their turn
        self.period = {s: 0 for s in sides}
        self.turns = {s: 0 for s in sides}  # turns made in the current period
        self.running: str | None = None
        self.used = 0  # ms of the running player's turn before ``since``
        self.since: int | None = None  # when the running clock last started (None: stopped)
        self.paused = False
        self.flagged: str | None = None
        self.last = 0  # ms of the last change
        self.history: list[dict[str, Any]] = []  # per accepted move: the clock just before it

    # -- what it shows -----------------------------------------------------------------------------

    def remaining_ms(self, side: str, at: float) -> int:
        if side != self.running:
            return self.base[side]
        return self.base[side] - self._spent(self._at(at))

    def times(self, at: float) -> dict[str, int]:
        """Every player's remaining milliseconds at ``at`` (negative once a flag has fallen)."""
        return {s: self.remaining_ms(s, at) for s in self.sides}

    def _spent(self, now: int) -> int:
        return self.used + (now - self.since if self.since is not None else 0)

    def _at(self, at: float) -> int:
        return max(ms(at), self.last)

    # -- what changes it ---------------------------------------------------------------------------

    def start(self, side: str, at: float) -> None:
        """``side``'s clock starts (a new game's first player)."""
        self._side(side)
        now = self._at(at)
        self.running, self.used, self.last = side, 0, now
        self.since = None if self.paused else now

    def switch(self, to: str, at: float) -> None:
        """The running player's turn ended at ``at``: their time is charged (increment, delay and
        the next period added), and ``to``'s clock starts."""
        self._side(to)
        now = self._at(at)
        side = self.running
        if side is not None:
            spent = self._spent(now)
            p = self.control.periods[self.period[side]]
            self.base[side] += p.increment_ms + min(spent, p.delay_ms) - spent
            self.turns[side] += 1
            if p.moves is not None and self.turns[side] >= p.moves and self.period[side] + 1 < len(self.control.periods):
                self.period[side] += 1
                self.turns[side] = 0
                self.base[side] += self.control.periods[self.period[side]].ms
        self.running, self.used, self.last = to, 0, now
        self.since = None if self.paused else now

    def moved(self, to: str, at: float) -> None:
        """A move was accepted, made at ``at``; ``to`` is to move next. The clock passes only if
        the turn passed (a turn of several moves keeps the mover's clock running). Remembered, so
        that :meth:`undo` can take it back."""
        now = self._at(at)
        self.history.append(self._snapshot(now))
        if to != self.running:
            self.switch(to, at)
        else:
            self.last = now

    def told(self, side: str, left_ms: int) -> None:
        """``side``'s time, as another table's clock said it after that side's move (a game
        between two boards: each table's clock is the truth for its own player; docs/remote.md).
        Only a clock not running is set."""
        self._side(side)
        if side != self.running:
            self.base[side] = int(left_ms)

    def undo(self, at: float) -> None:
        """The last accepted move is taken back at ``at``, as ``undo_policy`` says."""
        if not self.history:
            raise ClockError("clock: no move to take back")
        now = self._at(at)
        snap = self.history.pop()
        if self.undo_policy == "restore":
            self.base, self.period, self.turns = dict(snap["base"]), dict(snap["period"]), dict(snap["turns"])
            self.used = snap["used"]
        else:  # keep: the time spent stays spent; the mover's turn begins anew
            self.base = self.times(at)
            self.used = 0
        self.running, self.last = snap["running"], now
        self.since = None if self.paused else now

    def pause(self, at: float) -> None:
        if self.paused:
            return
        now = self._at(at)
        self.used, self.since, self.paused, self.last = self._spent(now), None, True, now

    def resume(self, at: float) -> None:
        if not self.paused:
            return
        now = self._at(at)
        self.paused, self.last = False, now
        self.since = now if self.running is not None else None

    def flag(self, at: float) -> str | None:
        """The player whose time is out at ``at`` (the clock then stops, that player at 0), or None."""
        if self.flagged is not None:
            return self.flagged
        side = self.running
        if side is None or self.remaining_ms(side, at) > 0:
            return None
        self.base[side], self.used, self.since, self.running = 0, 0, None, None
        self.flagged, self.last = side, self._at(at)
        return side

    def stop(self, at: float) -> None:
        """The game ended (on the board): every clock stands."""
        now = self._at(at)
        if self.running is not None:
            self.base[self.running] -= self._spent(now)
        self.running, self.used, self.since, self.last = None, 0, None, now

    def _side(self, side: str) -> None:
        if side not in self.base:
            raise ClockError(f"clock: no player {side!r} (players: {', '.join(self.sides)})")

    # -- saved and restored (the journal) ----------------------------------------------------------

    def _snapshot(self, now: int) -> dict[str, Any]:
        return {"base": dict(self.base), "period": dict(self.period), "turns": dict(self.turns),
                "running": self.running, "used": self._spent(now)}

    def to_dict(self, at: float) -> dict[str, Any]:
        """Everything, free of the time base (a running clock's turn so far is ``used``): the
        journal keeps it so that a restarted service resumes with :meth:`from_dict`."""
        now = self._at(at)
        data = self._snapshot(now)
        data.update(control=self.control.text(), sides=list(self.sides), undo=self.undo_policy,
                    paused=self.paused, flagged=self.flagged, history=[dict(h) for h in self.history])
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], at: float) -> "Clock":
        """A clock saved by :meth:`to_dict`, running again from ``at`` (the time the service was
        off is nobody's)."""
        control = parse_control(data["control"])
        if control is None:
            raise ClockError("clock: saved without a time control")
        clock = cls(control, tuple(data["sides"]), undo=data.get("undo", "restore"))
        clock.base = {s: int(v) for s, v in data["base"].items()}
        clock.period = {s: int(v) for s, v in data["period"].items()}
        clock.turns = {s: int(v) for s, v in data["turns"].items()}
        clock.running, clock.used = data["running"], int(data["used"])
        clock.paused, clock.flagged = bool(data["paused"]), data.get("flagged")
        clock.history = [dict(h) for h in data.get("history", [])]
        clock.last = ms(at)
        clock.since = None if clock.paused or clock.running is None else clock.last
        return clock


def clock_text(ms_left: int) -> str:
    """``m:ss`` (``h:mm:ss`` from an hour; tenths under ten seconds), as the page shows it."""
    if ms_left <= 0:
        return "0:00"
    if ms_left < 10_000:
        return f"0:0{ms_left // 1000}.{ms_left % 1000 // 100}"
    secs = -(-ms_left // 1000)  # a clock shows the second it is in, rounded up
    h, rest = divmod(secs, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
