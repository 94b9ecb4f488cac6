"""The GPIO panel: four buttons, three LEDs and a buzzer beside the board.

Buttons put commands on the referee's queue (``submit``, normally ``RefereeLoop.submit``);
the LEDs and the buzzer follow the referee's decisions (subscribe :meth:`Panel.on_decision`).

========== =================================================================================
confirm    on release: ``Confirm(n)`` for the highlighted choice (1 until *cycle* moves it)
undo       on press: ``Undo()``
end turn   on press: ``Declare(end_turn_move)`` — a turn end the board cannot show ("drift done")
cycle      on press: highlight the next choice of an open question (wrapping); beeps its number
hold       the *hold button* (confirm) held ``hold_time`` s: ``StartGame`` — the configured new
           game (``new_game``), or the game being played if another was started from the page
lesson     cycle pressed within ``LESSON_WINDOW`` s of that new game: ``StartLesson`` — the new
           game's first lesson instead (issue 31, item 3; no question is open on a new game, so
           cycle has nothing else to do then)
========== =================================================================================

A question of more than ``MAX_PANEL_CHOICES`` (9) choices is answered on the page: it sounds
the PAGE pattern, and cycle and confirm only chirp. Numbers are beeped in fives (a long beep
is five). Every time and pattern is in docs/wiring.md, which tests/hardware/test_panel_doc.py
drives through gpiozero's MockFactory.

LEDs: green *ready* (the board matches the game: play on), amber *waiting* blinking (a move
part-way, a question to answer, or a reminder phase such as DRIFT's drift), red *illegal*
(steady: put the pieces back; blinking: the sensors are disconnected). Green blinks slowly
once the game is over.

The computer's move (a computer seat, issue 30) — and the other table's in a game between two
boards (docs/remote.md) — is beeped when it is ready for a person to carry out (COMPUTER: short,
long) and when it is said again after a wrong board (COMPUTER_AGAIN: the illegal board's chirp,
then COMPUTER).

**Reminder phases** (the hook for DRIFT and later games): any decision that carries a
``position`` whose ``phase`` is a key of ``reminders`` turns the amber LED on blinking, and
plays that phase's pattern once when the phase is entered. Nothing here knows DRIFT: the
default ``reminders`` are ``{"drift": DRIFT}``; a game with another hand-carried phase adds
its phase name and a :class:`Pattern`.

Timing goes through a :class:`~hardware.schedule.Scheduler`, never ``sleep``: the Pi uses a
``ThreadScheduler`` (the panel makes and owns one if none is given), tests a ``ManualScheduler``.
"""

from __future__ import annotations

import enum
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from decisions import Choice, Command, Confirm, Decision, Declare, StartGame, StartLesson, Undo
from rules.lessons import GAMES as LESSON_GAMES

from .beeper import (  # noqa: F401  (the patterns are part of the panel's interface)
    CHIRP, COMPUTER, COMPUTER_AGAIN, COUNT_FIVE, COUNT_ONE, DRIFT, GAME_OVER, HELD, MAX_PANEL_CHOICES, PAGE, QUESTION,
    TIME, Beeper, Pattern, count_pattern,
)
from .pins import PinConfigError, PinSpec, check_distinct, check_pin, default_pin_factory, gpio_name
from .schedule import Scheduler, ThreadScheduler, Timer

log = logging.getLogger(__name__)

LESSON_WINDOW = 3.0  # seconds after a long press's new game in which cycle starts its first lesson


class _Managed:
    """A context manager over the subclass's start() and close()."""

    def __enter__(self):
        self.start()  # type: ignore[attr-defined]
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # type: ignore[attr-defined]


# -- pins -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PanelPins:
    """BCM pin numbers; defaults as in docs/wiring.md (clear of the matrix's 13 pins)."""

    confirm: PinSpec = 23
    undo: PinSpec = 24
    end_turn: PinSpec = 25
    cycle: PinSpec = 12
    ready: PinSpec = 17  # green LED
    waiting: PinSpec = 27  # amber LED
    illegal: PinSpec = 22  # red LED
    buzzer: PinSpec = 18  # PWM0, for a passive buzzer too

    def __post_init__(self) -> None:
        self._check(self.to_dict(), "panel.pins")

    @staticmethod
    def _check(pins: Mapping[str, object], where: str) -> None:
        """Every role on a header GPIO, no two on one pin; errors start with ``where`` once."""
        for role, pin in pins.items():
            check_pin(pin, f"{where}.{role}")
        check_distinct(pins, where)  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls, data: object, *, where: str = "panel.pins") -> "PanelPins":
        """From a configuration's ``{"confirm": 23, ...}``; missing roles keep their default."""
        if not isinstance(data, Mapping):
            raise PinConfigError(f"{where}: expected an object of role -> pin, got {type(data).__name__}")
        known = [f.name for f in fields(cls)]
        for key in data:
            if key not in known:
                raise PinConfigError(f"{where}: unknown role {key!r} (known: {', '.join(known)})")
        pins = {**cls().to_dict(), **dict(data)}
        cls._check(pins, where)  # named by the caller's ``where``, before the constructor's own check
        return cls(**pins)

    def to_dict(self) -> dict[str, PinSpec]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


# -- buzzer patterns: hardware/beeper.py (re-exported here) ------------------------------------


# -- LEDs ---------------------------------------------------------------------------------------


class LightMode(enum.Enum):
    OFF = "off"
    READY = "ready"  # green steady
    WAITING = "waiting"  # amber blinking
    ILLEGAL = "illegal"  # red steady
    DISCONNECTED = "disconnected"  # red blinking
    OVER = "over"  # green blinking slowly


# mode -> (led role, blink half-period in seconds, 0 = steady)
_MODES: dict[LightMode, tuple[str | None, float]] = {
    LightMode.OFF: (None, 0.0),
    LightMode.READY: ("ready", 0.0),
    LightMode.WAITING: ("waiting", 0.5),
    LightMode.ILLEGAL: ("illegal", 0.0),
    LightMode.DISCONNECTED: ("illegal", 0.25),
    LightMode.OVER: ("ready", 1.0),
}


class Lights(_Managed):
    """Three LEDs, one lit at a time; blinking is timed by the scheduler."""

    ROLES = ("ready", "waiting", "illegal")

    def __init__(self, *, pin_factory: Any, scheduler: Scheduler, ready: PinSpec = 17, waiting: PinSpec = 27,
                 illegal: PinSpec = 22) -> None:
        self.pins = {"ready": check_pin(ready, "ready LED pin"), "waiting": check_pin(waiting, "waiting LED pin"),
                     "illegal": check_pin(illegal, "illegal LED pin")}
        check_distinct(self.pins, "LED pins")
        self.pin_factory = pin_factory
        self.scheduler = scheduler
        self._leds: dict[str, Any] = {}
        self._timer: Timer | None = None
        self._lock = threading.RLock()
        self.mode = LightMode.OFF

    def start(self) -> None:
        from gpiozero import LED

        with self._lock:
            if self._leds:
                return
            opened: dict[str, Any] = {}
            try:
                for role in self.ROLES:
                    opened[role] = LED(gpio_name(self.pins[role]), initial_value=False, pin_factory=self.pin_factory)
            except Exception:
                for led in opened.values():  # do not leave half the pins reserved
                    led.close()
                raise
            self._leds = opened
            self._apply()

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            leds, self._leds = self._leds, {}
        for led in leds.values():
            led.off()
            led.close()

    def show(self, mode: LightMode) -> None:
        with self._lock:
            if mode is self.mode:
                return  # a blink keeps its rhythm
            self.mode = mode
            self._apply()

    def _apply(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._leds:
            return
        role, half = _MODES[self.mode]
        for r, led in self._leds.items():
            if r != role:
                led.off()
        if role is None:
            return
        self._leds[role].on()
        if half:
            self._timer = self.scheduler.call_later(half, lambda: self._toggle(role, half))

    def _toggle(self, role: str, half: float) -> None:
        with self._lock:
            if not self._leds or _MODES[self.mode] != (role, half):
                return
            self._leds[role].toggle()
            self._timer = self.scheduler.call_later(half, lambda: self._toggle(role, half))


# -- buttons ----------------------------------------------------------------------------------


class Buttons(_Managed):
    """Push buttons to ground (internal pull-ups). ``handler(name, held)`` is called on press
    for every button but the hold button, which reports on release (``held=False``) or when
    held ``hold_time`` seconds (``held=True``, nothing more on release)."""

    NAMES = ("confirm", "undo", "end_turn", "cycle")

    def __init__(self, handler: Callable[[str, bool], None], *, pin_factory: Any, scheduler: Scheduler,
                 confirm: PinSpec = 23, undo: PinSpec = 24, end_turn: PinSpec = 25, cycle: PinSpec = 12,
                 hold_button: str | tuple[str, ...] = "confirm", hold_time: float = 3.0,
                 bounce_time: float | None = 0.03) -> None:
        holders = (hold_button,) if isinstance(hold_button, str) else tuple(hold_button)
        for name in holders:
            if name not in self.NAMES:
                raise ValueError(f"hold_button must be one of {', '.join(self.NAMES)}, got {name!r}")
        if not hold_time > 0:
            raise ValueError(f"hold_time must be > 0 seconds, got {hold_time!r}")
        self.pins = {"confirm": check_pin(confirm, "confirm button pin"), "undo": check_pin(undo, "undo button pin"),
                     "end_turn": check_pin(end_turn, "end turn button pin"), "cycle": check_pin(cycle, "cycle button pin")}
        check_distinct(self.pins, "button pins")
        self.handler = handler
        self.pin_factory = pin_factory
        self.scheduler = scheduler
        self.hold_buttons = holders
        self.hold_time = float(hold_time)
        self.bounce_time = bounce_time
        self._devices: dict[str, Any] = {}
        self._hold_timers: dict[str, Timer] = {}
        self._held: set[str] = set()
        self._lock = threading.Lock()

    @property
    def hold_button(self) -> str:
        """The button whose long press starts a new game."""
        return self.hold_buttons[0]

    def start(self) -> None:
        # DigitalInputDevice, not gpiozero's Button: Button starts a hold thread of its own
        # in its constructor; the hold is timed here by the scheduler instead.
        from gpiozero import DigitalInputDevice

        with self._lock:
            if self._devices:
                return
            opened: dict[str, Any] = {}
            try:
                for name in self.NAMES:
                    dev = DigitalInputDevice(gpio_name(self.pins[name]), pull_up=True, bounce_time=self.bounce_time,
                                             pin_factory=self.pin_factory)
                    dev.when_activated = self._callback(self._pressed, name)
                    dev.when_deactivated = self._callback(self._released, name)
                    opened[name] = dev
            except Exception:
                for dev in opened.values():
                    dev.close()
                raise
            self._devices = opened

    def close(self) -> None:
        with self._lock:
            devices, self._devices = self._devices, {}
            for timer in self._hold_timers.values():
                timer.cancel()
            self._hold_timers.clear()
        for dev in devices.values():
            dev.when_activated = dev.when_deactivated = None
            dev.close()

    @staticmethod
    def _callback(method: Callable[[str], None], name: str) -> Callable[[], None]:
        def fire() -> None:
            method(name)
        return fire

    def _pressed(self, name: str) -> None:
        if name not in self.hold_buttons:
            self.handler(name, False)
            return
        with self._lock:
            self._held.discard(name)
            if name in self._hold_timers:
                self._hold_timers[name].cancel()
            self._hold_timers[name] = self.scheduler.call_later(self.hold_time, lambda: self._hold_reached(name))

    def _hold_reached(self, name: str) -> None:
        with self._lock:
            if self._hold_timers.pop(name, None) is None:
                return
            self._held.add(name)
        self.handler(name, True)

    def _released(self, name: str) -> None:
        if name not in self.hold_buttons:
            return
        with self._lock:
            timer = self._hold_timers.pop(name, None)
            if timer is None:
                # held already reported, or a release with no press seen (opened while held down)
                self._held.discard(name)
                return
            timer.cancel()
        self.handler(name, False)


# -- the panel ------------------------------------------------------------------------------


class Panel(_Managed):
    """Buttons, LEDs and buzzer together. ``submit`` takes the commands (thread-safe, e.g.
    ``RefereeLoop.submit``); subscribe :meth:`on_decision` to the referee."""

    def __init__(self, submit: Callable[[Command], None], *, pin_factory: Any, pins: PanelPins | None = None,
                 scheduler: Scheduler | None = None, hold_time: float = 3.0, hold_button: str = "confirm",
                 new_game: StartGame | None = None, end_turn_move: str = "end",
                 reminders: Mapping[str, Pattern] | None = None, tone_hz: float | None = None,
                 bounce_time: float | None = 0.03,
                 on_highlight: Callable[[int], None] | None = None,
                 on_undo_hold: Callable[[], Any] | None = None) -> None:
        self.pins = pins if pins is not None else PanelPins()
        self.submit = submit
        self._own_scheduler = scheduler is None
        self.scheduler: Scheduler = scheduler if scheduler is not None else ThreadScheduler()
        self.new_game = new_game
        self.end_turn_move = end_turn_move
        self.reminders = dict(reminders) if reminders is not None else {"drift": DRIFT}
        self.on_highlight = on_highlight
        # With a hook for it (the voice's mute), undo's long press is taken: undo then acts
        # on release, so that a hold is not also an undo.
        self.on_undo_hold = on_undo_hold
        self.hold_button = hold_button
        holders = (hold_button, "undo") if on_undo_hold is not None and hold_button != "undo" else (hold_button,)
        p = self.pins
        self.buttons = Buttons(self._button, pin_factory=pin_factory, scheduler=self.scheduler,
                               confirm=p.confirm, undo=p.undo, end_turn=p.end_turn, cycle=p.cycle,
                               hold_button=holders, hold_time=hold_time, bounce_time=bounce_time)
        self.lights = Lights(pin_factory=pin_factory, scheduler=self.scheduler,
                             ready=p.ready, waiting=p.waiting, illegal=p.illegal)
        self.beeper = Beeper(p.buzzer, pin_factory=pin_factory, scheduler=self.scheduler, tone_hz=tone_hz)
        self._lock = threading.RLock()
        self._started = False
        self.choices: tuple[Choice, ...] = ()
        self.highlighted = 1
        self._base = LightMode.READY  # what the lights show when the board matches the game
        self._mode = LightMode.READY
        self._phase: str | None = None
        self._game: str | None = None
        self._lesson_offer: tuple[str, float] | None = None  # (the long press's game, until when)
        self.connected = True

    # -- life cycle -------------------------------------------------------------------------------

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            try:
                if isinstance(self.scheduler, ThreadScheduler) and self._own_scheduler:
                    self.scheduler.start()
                self.lights.start()
                self.beeper.start()
                self.buttons.start()
            except Exception:
                self._close_parts()
                raise
            self._started = True
            self._show()

    def close(self) -> None:
        with self._lock:
            self._started = False
        self._close_parts()

    def _close_parts(self) -> None:
        self.buttons.close()
        self.lights.close()
        self.beeper.close()
        if self._own_scheduler and isinstance(self.scheduler, ThreadScheduler):
            self.scheduler.close()

    # -- decisions in -------------------------------------------------------------------------------

    def on_decision(self, decision: Decision) -> None:
        """React to one referee decision (called on the referee's thread)."""
        sound: Pattern | None = None
        with self._lock:
            kind = decision.kind
            position = getattr(decision, "position", None)
            if isinstance(position, Mapping):
                sound = self._enter_position(position)
            if kind == "new_game":
                self._game = getattr(decision, "game", self._game)
            if kind in ("new_game", "accepted", "taken_back", "restored"):
                self.choices = ()
                self._mode = self._base
            elif kind == "partial":
                self.choices = ()
                self._mode = LightMode.WAITING
            elif kind == "ambiguous":
                self.choices = tuple(getattr(decision, "choices", ()))
                self.highlighted = 1
                self._mode = LightMode.WAITING
                sound = sound or (QUESTION if self.on_panel else PAGE)
            elif kind == "illegal":
                self.choices = ()
                self._mode = LightMode.ILLEGAL
                sound = CHIRP
            elif kind == "game_over":
                self.choices = ()
                self._mode = LightMode.OVER
                sound = GAME_OVER
            elif kind == "rejected":
                sound = CHIRP
            elif kind == "clock_warning":  # the running clock passed a threshold: a minute, ten seconds
                sound = TIME
            elif kind in ("computer_move", "remote_move"):
                # Its move (or the other table's) is ready for hands to carry out, or said again
                # after a wrong board; the next step of a turn under way is not beeped again. The
                # lights stay as they are (an illegal board stays red until put right).
                if getattr(decision, "repeated", False):
                    sound = COMPUTER_AGAIN
                elif not getattr(decision, "done", 0):
                    sound = COMPUTER
            self._show()
        if sound is not None:
            self.beeper.play(sound)

    def _enter_position(self, position: Mapping[str, Any]) -> Pattern | None:
        """The generic reminder hook: a phase in ``reminders`` keeps the amber LED blinking and
        sounds its pattern once on entry."""
        phase = position.get("phase")
        phase = phase if isinstance(phase, str) else None
        entered = phase != self._phase
        self._phase = phase
        if phase in self.reminders:
            self._base = LightMode.WAITING
            return self.reminders[phase] if entered else None
        self._base = LightMode.READY
        return None

    @property
    def on_panel(self) -> bool:
        """Whether the open question can be answered with cycle and confirm: at most
        MAX_PANEL_CHOICES choices (a beep count longer than that cannot be followed)."""
        return len(self.choices) <= MAX_PANEL_CHOICES

    def next_game(self) -> StartGame | None:
        """What the long press starts: ``new_game`` (the configured game, options and set-up)
        while that is the game being played; another game started from the page is started
        again with its default options and the configured set-up; ``None`` before any game."""
        template = self.new_game
        if self._game is None or (template is not None and template.game == self._game):
            return template
        return StartGame(self._game, {}, template.setup if template is not None else "default")

    def set_connected(self, connected: bool) -> None:
        """The board's sensors went away (red blinking) or came back."""
        with self._lock:
            changed = connected != self.connected
            self.connected = connected
            self._show()
        if changed and not connected:
            self.beeper.play(CHIRP)

    def _show(self) -> None:
        if self._started:
            self.lights.show(self._mode if self.connected else LightMode.DISCONNECTED)

    # -- buttons out ------------------------------------------------------------------------------

    def _button(self, name: str, held: bool) -> None:
        command: Command | None = None
        sound: Pattern | None = None
        if held and name == "undo" and name != self.hold_button:
            self._undo_held()
            return
        with self._lock:
            offer, self._lesson_offer = self._lesson_offer, None
            if held:
                command = self.next_game()
                sound = HELD if command is not None else CHIRP
                if command is not None:
                    self._lesson_offer = (command.game, self.scheduler.now() + LESSON_WINDOW)
            elif name == "cycle" and offer is not None and self.scheduler.now() <= offer[1]:
                command = StartLesson(offer[0]) if offer[0] in LESSON_GAMES else None
                sound = HELD if command is not None else CHIRP
            elif name in ("confirm", "cycle") and not self.on_panel:
                sound = CHIRP  # too many choices to count by beeps: answered on the page
            elif name == "confirm":
                chosen = next((c for c in self.choices if c.number == self.highlighted), None)
                command = Confirm(self.highlighted, chosen.text) if chosen else Confirm(1)
            elif name == "undo":
                command = Undo()
            elif name == "end_turn":
                command = Declare(self.end_turn_move)
            elif name == "cycle":
                if self.choices:
                    self.highlighted = self.highlighted % len(self.choices) + 1
                    sound = count_pattern(self.highlighted)
                else:
                    sound = CHIRP  # nothing to choose between
            highlighted = self.highlighted
        if sound is not None:
            self.beeper.play(sound)
        lesson = isinstance(command, StartLesson)  # the lesson's gesture: no choice was highlighted
        if name == "cycle" and self.on_highlight is not None and sound is not CHIRP and not lesson:
            self.on_highlight(highlighted)
        if command is not None:
            self.submit(command)  # outside the lock: a synchronous referee calls on_decision back


    def _undo_held(self) -> None:
        """Undo held: the hook (mute or unmute the voice); the HELD beep says it was taken."""
        try:
            self.on_undo_hold()
        except Exception:  # the voice must not take the buttons down with it
            log.exception("panel: the undo long-press hook failed")
            self.beeper.play(CHIRP)
            return
        self.beeper.play(HELD)


def open_panel(submit: Callable[[Command], None], *, pins: PanelPins | None = None,
               pin_factory: Any | None = None, **options: Any) -> Panel | None:
    """A started panel on this machine's pins, or ``None`` (logged once, clearly) where
    there are none: off a Pi the service runs on without buttons and lights."""
    if pin_factory is None:
        found = default_pin_factory()
        if found.factory is None:
            log.warning("%s", found.notice)
            return None
        pin_factory = found.factory
    panel = Panel(submit, pin_factory=pin_factory, pins=pins, **options)
    try:
        panel.start()
    except Exception as exc:  # pins busy or refused: the referee still works without a panel
        log.warning("GPIO panel could not start (%s); running without it", exc)
        panel.close()
        return None
    return panel
