"""The referee's side of the game clock (issue 34, part 1; a mixin of
:class:`~tableref.referee.Referee`; docs/clock.md).

Whose clock runs follows the game: the clock runs for ``state.to_move`` and passes when an
accepted move hands the turn on, at the moment the move was made on the board
(``StableView.made``: the hand leaving, the sensor's change) — not when the referee judged it.
Every board that moves nothing on (a move part-way, an obligation still to carry out, an illegal
board, a question waiting for its answer) leaves the mover's clock running, because the clock
only ever moves with an ``Accepted``. A turn of several moves keeps the clock too: ``to_move``
does not change between them.

A flag falls when the running time is out: checked on every item the referee handles, at that
item's time (a board view at its ``made``; a tick ``grace`` seconds back, so that a move made
just in time and still settling is not beaten by the tick). The game is then over on time,
journalled. The clock's state is journalled at every change and every few seconds while it runs
(tableref/clock_journal.py), so a restart resumes it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from decisions import (Accepted, Confirm, Decision, Declare, GameOver, NewGame, StableView, StartGame,
                       TakenBack, Undo, ChooseUnseen, PlayComputerMove)
from decisions.clock import Clocks, ClockTick, ClockWarning, FlagFall, PauseClock, ResumeClock, SetTimeControl
from decisions.remote import RemoteLeft
from rules import State

from . import clock_journal
from .clock import Clock, ClockError, ms
from .clock_config import ClockSettings

log = logging.getLogger("tableref.referee")

CLOCK_COMMANDS = (ClockTick, PauseClock, ResumeClock, SetTimeControl)
ON_THE_GAME = (Confirm, Undo, Declare, ChooseUnseen, PlayComputerMove)  # refused once the game is lost on time
# Phases that are the last mover's obligation, whoever the position names to move: DRIFT's rivers
# are turned by the round's last player, whose turn ends only when they are (docs/rules/drift.md,
# D19), though the position already names the first player.
OBLIGATION_PHASES = frozenset({"drift"})


class GameClock:
    """Mixed into the referee. ``clock``: the current game's, or None (no clock)."""

    clock: Clock | None = None
    clock_settings: ClockSettings = ClockSettings()
    # The time base of the observations, for commands that carry no time (a confirmation, an
    # undo): time.monotonic in the service; None: the latest time any item carried.
    clock_now: Callable[[], float] | None = None
    clock_wall: Callable[[], float] = staticmethod(time.time)  # only to say how long the service was off
    _clock_seen = 0.0
    _clock_saved = 0.0
    _clock_warned: frozenset = frozenset()

    # -- start-up -----------------------------------------------------------------------------------

    def setup_clock(self, settings: ClockSettings | None = None, at: float | None = None) -> list[Decision]:
        """At start-up: resume the current game's journalled clock (the time the service was off
        is nobody's, and shown), or start one for a game not begun yet."""
        if settings is not None:
            self.clock_settings = settings
        at = self._clock_time_now() if at is None else at
        self._clock_seen = max(self._clock_seen, at)
        self.clock = None
        if self.record.finished:
            return []
        saved = clock_journal.load_state(self.journal, self.record.id)
        if saved is None:
            if self.ply:
                return []  # begun without a clock: it stays without one
            return self._clock_new(None, at)
        state, wall = saved
        try:
            clock = Clock.from_dict(state, at)
        except (ClockError, KeyError, TypeError, ValueError) as exc:
            log.error("game %s: the journalled clock is unreadable (%s): the game goes on without one",
                      self.record.id, exc)
            return []
        # A power cut between a move's commit and the clock's: the clock catches up, the move
        # counted as made now (or an undo, taken back now).
        while len(clock.history) < self.ply:
            self.clock = clock
            clock.moved(self._clock_side(self.record.states[len(clock.history) + 1]), at)
        while len(clock.history) > self.ply:
            clock.undo(at)
        self.clock = clock
        off = max(0, ms(self.clock_wall() - wall))
        self._clock_save(at)
        return [self._clock_said(at, "restart", off)]

    def _clock_new(self, chosen: str | None, at: float) -> list[Decision]:
        try:
            control = self.clock_settings.control_for(self.record.game, chosen)
        except ClockError as exc:
            self.clock = None
            return [self.refuse("clock", str(exc))]
        if control is None:
            self.clock = None
            return []
        self.clock = Clock(control, self.state.sides, undo=self.clock_settings.undo)
        self.clock.start(self.state.to_move, at)
        self._clock_warned = frozenset()
        self._clock_save(at)
        return [self._clock_said(at, "new game")]

    def _clock_side(self, state: State) -> str | None:
        """Whose clock runs in ``state``: the side to move, but for an obligation phase's."""
        if state.phase in OBLIGATION_PHASES and self.clock is not None and self.clock.running is not None:
            return self.clock.running
        return state.to_move

    # -- around every item ----------------------------------------------------------------------------

    def _clocked(self, item: Any, handle: Callable[[Any], list[Decision]]) -> list[Decision]:
        """Handle ``item`` (with ``handle``) on the clock: a flag first, then whatever the item did
        to the game moves the clock at the item's time."""
        at, check = self._clock_times(item)
        if isinstance(item, CLOCK_COMMANDS):
            return self._on_clock_command(item, at, check)
        out: list[Decision] = []
        over_on_time = self.clock is not None and self.clock.flagged is not None
        if not over_on_time:
            out += self._clock_flag(check)
            over_on_time = bool(out)
        if over_on_time and isinstance(item, (StableView, *ON_THE_GAME)):
            return out + self._over_on_time(item)
        done = handle(item)
        return out + done + self._clock_follow(item, done, at)

    def _clock_times(self, item: Any) -> tuple[float, float]:
        """When ``item`` happened, and when to check the flag for it."""
        if isinstance(item, StableView):
            self._clock_seen = max(self._clock_seen, item.time)
            at = item.time if item.made is None else item.made
            return at, at
        if isinstance(item, ClockTick):
            self._clock_seen = max(self._clock_seen, item.at)
            return item.at, item.at - self.clock_settings.grace
        given = getattr(item, "at", None)
        at = self._clock_time_now() if given is None else given
        return at, at - self.clock_settings.grace

    def _clock_time_now(self) -> float:
        if self.clock_now is None:
            return self._clock_seen
        now = self.clock_now()
        self._clock_seen = max(self._clock_seen, now)
        return now

    def _on_clock_command(self, item: Any, at: float, check: float) -> list[Decision]:
        if isinstance(item, SetTimeControl):
            return self._on_set_control(item.control, at)
        clock = self.clock
        if clock is None:
            return [] if isinstance(item, ClockTick) else [self.refuse("clock", "this game has no clock")]
        if isinstance(item, PauseClock) or isinstance(item, ResumeClock):
            if clock.flagged is not None or self.record.finished:
                return [self.refuse("clock", "the game is over")]
            out = self._clock_flag(check)
            if out:
                return out
            (clock.pause if isinstance(item, PauseClock) else clock.resume)(at)
            self._clock_save(at)
            return [self._clock_said(at, "paused" if clock.paused else "resumed")]
        out = self._clock_flag(check)
        if out or clock.running is None:
            return out
        out += self._clock_warnings(at)
        if at - self._clock_saved >= self.clock_settings.save_every:
            self._clock_save(at)  # a power cut loses at most this much of the running clock
        return out

    def _on_set_control(self, control: str, at: float) -> list[Decision]:
        """The control for games from now on; a game not begun yet (no move, not over) takes it now."""
        try:
            self.clock_settings = replace(self.clock_settings, control=control, games={})
        except ClockError as exc:
            return [self.refuse("time control", str(exc))]
        if self.ply or self.record.finished:
            return []
        return self._clock_new(None, at)

    def _clock_follow(self, item: Any, done: list[Decision], at: float) -> list[Decision]:
        """Move the clock with what handling the item did to the game."""
        out: list[Decision] = []
        new = next((d for d in done if isinstance(d, NewGame) and not d.resumed), None)
        if new is not None:  # decisions before it were the old game's, closed as it stood
            # a lesson is not on the clock; the game after a match the other table left has the configured one
            chosen = item.clock if isinstance(item, StartGame) else None if isinstance(item, RemoteLeft) else "off"
            out += self._clock_new(chosen, at)
            done = done[done.index(new) + 1:]
        clock = self.clock
        if clock is None:
            return out
        why, seqs = "", None
        for d in done:
            if isinstance(d, Accepted) and d.game_id == self.record.id and d.ply <= self.ply:
                clock.moved(self._clock_side(self.record.states[d.ply]), at)
                mover, told = self.record.states[d.ply - 1].to_move, self._mover_times(d.ply)
                if mover in told and mover != clock.running:  # another table's clock: its word (referee_remote.py)
                    clock.told(mover, told[mover])
                if seqs is None:
                    seqs = self.journal._standing_seqs(self.record.id)  # noqa: SLF001
                clock_journal.save_move(self.journal, self.record.id, seqs[d.ply - 1], clock.times(at),
                                        clock.to_dict(at), self.clock_wall())
                self._clock_saved = at
                why = "move"
            elif isinstance(d, TakenBack) and clock.history:
                clock.undo(at)
                why = "undo"
            elif isinstance(d, GameOver):
                clock.stop(at)
                why = "game over"
        if why:
            self._clock_save(at)
            out.append(self._clock_said(at, why))
        return out

    def _mover_times(self, ply: int) -> dict[str, int]:
        """The times another table's clock said after its move making ``ply`` (referee_remote.py)."""
        return {}

    def _flags_here(self, side: str) -> bool:
        return True

    # -- the flag -------------------------------------------------------------------------------------

    def _clock_flag(self, at: float) -> list[Decision]:
        clock = self.clock
        if clock is None or clock.flagged is not None or self.record.finished:
            return []
        if clock.running is not None and not self._flags_here(clock.running):
            return []  # another table's player: their flag falls there (docs/remote.md)
        side = clock.flag(at)
        if side is None:
            return []
        others = [s for s in clock.sides if s != side]
        # Loss on time; with more than two players no winner is named: the event's arbiter says
        outcome = {"winner": others[0] if len(others) == 1 else None, "reason": f"{side} loses on time",
                   "scores": {}}
        self._outdate()
        clock_journal.finish_on_time(self.journal, self.record, outcome, clock.to_dict(at), self.clock_wall())
        self._clock_saved = at
        times = clock.times(at)
        return [self._emit(FlagFall(self.record.id, self.ply, side, outcome, times)),
                self._emit(GameOver(self.record.id, self.ply, outcome)),
                self._clock_said(at, "flag")]

    def _over_on_time(self, item: Any) -> list[Decision]:
        """The game is over on time: the board is not judged, commands on it are refused."""
        if isinstance(item, StableView):
            self.last_view = item.view  # a new game holds the board as it is
            return []
        if isinstance(item, ON_THE_GAME):
            return [self.refuse(type(item).__name__.lower(), f"the game is over: {self.clock.flagged} lost on time")]
        return []

    def _clock_warnings(self, at: float) -> list[Decision]:
        clock = self.clock
        side = clock.running
        left = clock.remaining_ms(side, at)
        warned = {(s, w) for s, w in self._clock_warned if s != side or left <= w * 1000}  # an increment re-arms
        out = []
        for w in sorted(self.clock_settings.warn, reverse=True):
            if left <= w * 1000 and (side, w) not in warned:
                warned.add((side, w))
                if left > (w - 1) * 1000:  # only as the clock passes it, not all at once after a restart
                    out.append(self._emit(ClockWarning(self.record.id, self.ply, side, w)))
        self._clock_warned = frozenset(warned)
        return out

    # -- saying and saving ----------------------------------------------------------------------------

    def _clock_said(self, at: float, why: str, off_ms: int = 0) -> Decision:
        clock = self.clock
        return self._emit(Clocks(self.record.id, self.ply, clock.control.text(), clock.times(at), clock.running,
                                 clock.paused, clock.flagged, off_ms, why))

    def _clock_save(self, at: float) -> None:
        clock_journal.save_state(self.journal, self.record.id, self.clock.to_dict(at), self.clock_wall())
        self._clock_saved = at
