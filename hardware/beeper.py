"""The panel's buzzer and what it plays: each :class:`Pattern` is beeps as (on, off) seconds,
timed by a :class:`~hardware.schedule.Scheduler`. The times are documented, pattern by pattern,
in docs/wiring.md ("Beeps"), and tests/hardware/test_panel_doc.py holds the two together."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from .pins import PinSpec, check_pin, gpio_name
from .schedule import Scheduler, Timer


@dataclass(frozen=True)
class Pattern:
    """Beeps as (on, off) seconds; the buzzer is silent after the last."""

    name: str
    beeps: tuple[tuple[float, float], ...]

    @property
    def duration(self) -> float:
        return sum(on + off for on, off in self.beeps)


CHIRP = Pattern("chirp", ((0.08, 0.0),))  # illegal board, refused command
QUESTION = Pattern("question", ((0.06, 0.08), (0.06, 0.0)))  # ambiguous: confirm a choice
DRIFT = Pattern("drift", ((0.4, 0.2), (0.4, 0.2), (0.4, 0.0)))  # three long: drift the rivers
GAME_OVER = Pattern("game_over", ((0.15, 0.1), (0.15, 0.1), (0.8, 0.0)))
HELD = Pattern("held", ((0.3, 0.0),))  # long press taken: a new game starts
PAGE = Pattern("page", ((0.6, 0.15), (0.06, 0.08), (0.06, 0.0)))  # a question too long to cycle: answer on the page
# The computer's move is ready for a person to carry out: short then long, a rhythm no other
# pattern has (the counts put their long beeps first). Said again after a wrong board, it follows
# the illegal board's chirp, which it would cut short: the chirp is its first beep.
COMPUTER = Pattern("computer", ((0.06, 0.1), (0.3, 0.0)))
COMPUTER_AGAIN = Pattern("computer_again", ((0.08, 0.25), *COMPUTER.beeps))
TIME = Pattern("time", ((0.05, 0.1), (0.05, 0.1), (0.05, 0.0)))  # three pips: the clock is running low

# Counting beeps stay countable up to here (9: long and four short); a question with more
# choices is answered on the page.
MAX_PANEL_CHOICES = 9


COUNT_ONE = (0.05, 0.15)  # a short beep counts one
COUNT_FIVE = (0.3, 0.15)  # a long beep counts five, as V does in Roman numerals: 7 is long, short, short


def count_pattern(n: int) -> Pattern:
    """Which choice is highlighted: a long beep for each five, then a short beep for each one
    (never more than five beeps to count up to MAX_PANEL_CHOICES)."""
    n = max(1, n)
    return Pattern(f"count_{n}", (COUNT_FIVE,) * (n // 5) + (COUNT_ONE,) * (n % 5))


class Beeper:
    """The buzzer. ``tone_hz=None``: an active buzzer (its own oscillator), switched on/off;
    a number: a passive one, driven by PWM at that frequency (half duty while sounding)."""

    def __init__(self, pin: PinSpec = 18, *, pin_factory: Any, scheduler: Scheduler, tone_hz: float | None = None) -> None:
        self.pin = check_pin(pin, "buzzer pin")
        self.pin_factory = pin_factory
        self.scheduler = scheduler
        self.tone_hz = tone_hz
        self._device: Any = None
        self._timers: list[Timer] = []
        self._lock = threading.RLock()
        self.last_pattern: Pattern | None = None

    def start(self) -> None:
        with self._lock:
            if self._device is not None:
                return
            if self.tone_hz is None:
                from gpiozero import Buzzer

                self._device = Buzzer(gpio_name(self.pin), initial_value=False, pin_factory=self.pin_factory)
            else:
                from gpiozero import PWMOutputDevice

                self._device = PWMOutputDevice(
                    gpio_name(self.pin), initial_value=0, frequency=self.tone_hz, pin_factory=self.pin_factory)

    def __enter__(self) -> "Beeper":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._cancel()
            device, self._device = self._device, None
        if device is not None:
            device.close()

    def play(self, pattern: Pattern) -> None:
        """Start ``pattern`` now, cutting short whatever was sounding."""
        with self._lock:
            if self._device is None:
                return
            self._cancel()
            self.last_pattern = pattern
            at = 0.0
            for on, off in pattern.beeps:
                self._timers.append(self.scheduler.call_later(at, self._on))
                self._timers.append(self.scheduler.call_later(at + on, self._off))
                at += on + off

    def _cancel(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()
        self._off()

    def _on(self) -> None:
        with self._lock:
            if self._device is not None:
                self._device.value = 1 if self.tone_hz is None else 0.5

    def _off(self) -> None:
        with self._lock:
            if self._device is not None:
                self._device.value = 0
