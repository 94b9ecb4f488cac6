"""``[clock]`` in the config: the game clock (issue 34; docs/clock.md). Read with
``tableref.config``'s reader helpers, as ``[teach]`` is, so every error names its key::

    [clock]
    control = "10+5"      # every game; "default": each game's own (tableref.clock.DEFAULTS); "off"
    drift = "20+10"       # a game's own control, over ``control``
    undo = "restore"      # an undo gives the time back ("restore") or not ("keep")
    grace = 1.0           # seconds a flag waits for a move still settling on the board
    warn = [60, 10]       # seconds left said aloud, and beeped

No ``[clock]``: no clock (a game at home is not on the clock unless asked).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.registry import game_names

from .clock import UNDO_POLICIES, ClockError, TimeControl, default_control, parse_control


@dataclass(frozen=True)
class ClockSettings:
    """``[clock]`` (tableref/clock_config.py). ``control``: a time control, ``"default"`` (each
    game's own, tableref.clock.DEFAULTS) or None (no clock); ``games``: a control per game over
    it. ``undo``: ``restore`` | ``keep`` (tableref.clock.Clock). ``grace``: seconds a tick waits for
    a move still settling before a flag falls. ``warn``: seconds left said aloud."""

    control: str | None = None
    games: Mapping[str, str] = field(default_factory=dict)
    undo: str = "restore"
    grace: float = 1.0
    warn: tuple[int, ...] = (60, 10)
    save_every: float = 5.0

    def __post_init__(self) -> None:
        if self.undo not in UNDO_POLICIES:
            raise ClockError(f"clock undo must be one of {', '.join(UNDO_POLICIES)}, got {self.undo!r}")
        for text in (self.control, *self.games.values()):
            if text not in (None, "default"):
                parse_control(text)  # refused now, not at the first game

    def control_for(self, game: str, chosen: str | None = None) -> TimeControl | None:
        """The control for a new game of ``game``: ``chosen`` at new game, else the game's own
        setting, else ``control``."""
        text = chosen if chosen is not None else self.games.get(game, self.control)
        if text is None:
            return None
        return default_control(game) if text.strip().lower() == "default" else parse_control(text)


def _control(reader: Any, t: Any, name: str, default: str | None) -> str | None:
    text = t.get(name, str, default)
    if text is None or text.strip().lower() in ("default", "off", "none"):
        return None if text is not None and text.strip().lower() in ("off", "none") else text
    try:
        parse_control(text)
    except ClockError as exc:
        raise reader.error(t.path(name), str(exc)) from None
    return text


def read_clock(reader: Any, t: Any) -> ClockSettings:
    """``t`` None: no clock."""
    if t is None:
        return ClockSettings()
    control = _control(reader, t, "control", "default")
    games = {}
    for name in game_names():
        if name in t.data:
            text = _control(reader, t, name, None)
            games[name] = "off" if text is None else text
        else:
            t.known.append(name)
    undo = t.get("undo", str, "restore")
    if undo not in UNDO_POLICIES:
        raise reader.error(t.path("undo"), f"expected one of {', '.join(UNDO_POLICIES)}, got {undo!r}")
    grace = reader.number(t, "grace", 1.0)
    if grace < 0:
        raise reader.error(t.path("grace"), f"expected seconds >= 0, got {grace}")
    warn = t.get("warn", list, [60, 10])
    if not all(isinstance(w, int) and not isinstance(w, bool) and w > 0 for w in warn):
        raise reader.error(t.path("warn"), f"expected whole seconds > 0, got {warn!r}")
    t.done()
    return ClockSettings(control, games, undo, grace, tuple(warn))


def with_clock_flag(settings: ClockSettings, text: str | None) -> ClockSettings:
    """``tableref serve --clock 10+5`` over the file (``off``: none; ``default``: each game's own)."""
    if text is None:
        return settings
    if text.strip().lower() != "default":
        parse_control(text)  # ClockError names what is wrong
    control = None if text.strip().lower() in ("off", "none") else text
    return ClockSettings(control, {}, settings.undo, settings.grace, settings.warn, settings.save_every)
