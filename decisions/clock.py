"""The game clock's words (issue 34; docs/clock.md): what the referee publishes about the clocks,
and the commands that drive them. Beside the other decisions, below every consumer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from . import Decision


@dataclass(frozen=True)
class Clocks(Decision):
    """Every player's clock, whenever it changes (a turn passed, an undo, a pause, a new game, a
    restart): ``times`` in milliseconds left, ``running`` (None: none runs), ``paused``. A page
    counts ``running`` down from when it heard this. ``off_ms``: after a restart, how long the
    service was off (nobody's clock ran meanwhile). ``why``: what changed it."""

    kind: ClassVar[str] = "clock"
    control: str
    times: dict[str, int]
    running: str | None
    paused: bool = False
    flagged: str | None = None
    off_ms: int = 0
    why: str = ""

    def text(self) -> str:
        shown = "  ".join(f"{'>' if s == self.running else ' '}{s} {_left(t)}" for s, t in self.times.items())
        extra = " (paused)" if self.paused else ""
        extra += f" (the service was off {_left(self.off_ms)})" if self.off_ms else ""
        return f"     clock {self.control}: {shown}{extra}"


def _left(ms_left: int) -> str:
    secs = max(0, -(-ms_left // 1000))
    return f"{secs // 60}:{secs % 60:02d}"


@dataclass(frozen=True)
class ClockWarning(Decision):
    """``side``'s running clock has passed ``seconds`` left (a threshold: the voice says "one
    minute", the panel beeps)."""

    kind: ClassVar[str] = "clock_warning"
    side: str
    seconds: int

    def text(self) -> str:
        return f"     {self.side}: {self.seconds} seconds left"


@dataclass(frozen=True)
class FlagFall(Decision):
    """``side``'s time is out: the game is over on time (``outcome``, journalled), ``times`` as
    the flag fell. A :class:`~decisions.GameOver` with the same outcome follows."""

    kind: ClassVar[str] = "flag_fall"
    side: str
    outcome: dict[str, Any]
    times: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        return f"     flag fall: {self.side} loses on time"


# -- commands --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClockTick:
    """Sent by the service once a second (``at``: its monotonic time, the observations' base): a
    flag may fall, a threshold pass, the clock be saved."""

    at: float


@dataclass(frozen=True)
class PauseClock:
    """The admin stops every clock (``at``: when; None: the referee's now)."""

    at: float | None = None


@dataclass(frozen=True)
class SetTimeControl:
    """The time control of games from now on (the club hub's round: docs/clock.md); a game not
    begun yet takes it at once. ``"off"``: no clock; ``"default"``: each game's own."""

    control: str


@dataclass(frozen=True)
class ResumeClock:
    """The admin starts the clocks again."""

    at: float | None = None
