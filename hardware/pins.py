"""Finding the Pi's pins, and checking pin numbers from a configuration.

Every device class here takes ``pin_factory=`` (gpiozero's backend) as a parameter. On a Pi
:func:`default_pin_factory` finds the right one (lgpio on a Pi 5 and, with Raspberry Pi OS
Bookworm, on older Pis too; RPi.GPIO or pigpio where installed). Off a Pi it returns ``None``
and the reason, so the service carries on without a panel instead of crashing.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PinSpec = int | str  # a BCM number (17) or a gpiozero pin name ("GPIO17", "BOARD11")


@dataclass(frozen=True)
class FactoryLookup:
    """The pin factory found, or ``None`` with ``reason`` saying why not."""

    factory: Any | None
    reason: str = ""

    @property
    def notice(self) -> str:
        if self.factory is not None:
            return f"GPIO: using {type(self.factory).__name__}"
        return f"GPIO not available ({self.reason}); running without the panel and GPIO sensors"


def default_pin_factory() -> FactoryLookup:
    """gpiozero's default pin factory (honours ``GPIOZERO_PIN_FACTORY``), or ``None`` with
    the reason: gpiozero missing, or no backend works on this machine."""
    try:
        from gpiozero import Device
        from gpiozero.exc import GPIOZeroError
    except ImportError as exc:
        return FactoryLookup(None, f"gpiozero is not installed: {exc}")
    fallbacks: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            factory = Device._default_pin_factory()
        except (GPIOZeroError, ImportError, OSError, RuntimeError) as exc:
            # Each backend gpiozero tried says why it failed in a fallback warning.
            fallbacks = [str(w.message) for w in caught]
            detail = "; ".join(fallbacks) if fallbacks else str(exc)
            return FactoryLookup(None, f"no GPIO pin factory works here: {detail}")
    return FactoryLookup(factory)


class PinConfigError(ValueError):
    """Pin numbers in a configuration are wrong; the message says which and where."""


def check_pin(value: object, where: str) -> PinSpec:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise PinConfigError(f"{where}: a pin is a BCM number or a name like 'GPIO17', got {value!r}")
    if isinstance(value, int) and not 0 <= value <= 27:
        raise PinConfigError(f"{where}: BCM pin {value} is not on the 40-pin header (0-27)")
    if isinstance(value, str) and not value.strip():
        raise PinConfigError(f"{where}: empty pin name")
    return value


def check_distinct(pins: Mapping[str, PinSpec], where: str) -> None:
    """Refuse two roles on one pin (compared as written: 17 and "GPIO17" are both caught)."""
    seen: dict[str, str] = {}
    for role, pin in pins.items():
        key = _canonical(pin)
        if key in seen:
            raise PinConfigError(f"{where}: pin {pin!r} is given to both {seen[key]!r} and {role!r}")
        seen[key] = role


def _canonical(pin: PinSpec) -> str:
    if isinstance(pin, int):
        return f"GPIO{pin}"
    text = pin.strip().upper()
    if text.startswith("BCM"):
        text = "GPIO" + text[3:]
    return f"GPIO{text}" if text.isdigit() else text
