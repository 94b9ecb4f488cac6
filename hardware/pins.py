"""Finding the Pi's pins, and checking pin numbers from a configuration.

Every device class here takes ``pin_factory=`` (gpiozero's backend) as a parameter. On a Pi
:func:`default_pin_factory` finds the right one (lgpio on a Pi 5 and, with Raspberry Pi OS
Bookworm, on older Pis too; RPi.GPIO or pigpio where installed). Off a Pi it returns ``None``
and the reason, so the service carries on without a panel instead of crashing.
"""

from __future__ import annotations

import functools
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


@dataclass(frozen=True)
class HeaderPin:
    """One GPIO of the 40-pin header, however it was written: ``GPIO23`` is ``BCM23``,
    ``BOARD16``, ``J8:16``, ``WPI4`` and ``23``."""

    name: str  # gpiozero's primary name, "GPIO23": what the devices are opened with
    bcm: int  # 23
    board: int  # the physical header pin, 16

    def __str__(self) -> str:
        return f"{self.name}, header pin {self.board}"


# All 40-pin Pis (B+ to 5) share J8's GPIO layout; gpiozero's own data for the Pi 5 is used to
# name pins when checking a configuration, on or off a Pi.
_REFERENCE_REVISION = 0xD04170  # Raspberry Pi 5 Model B


@functools.cache
def _header() -> dict[object, HeaderPin]:
    """Every name gpiozero accepts for a J8 GPIO (upper-cased strings, and the BCM int)."""
    from gpiozero.pins.pi import PiBoardInfo

    names: dict[object, HeaderPin] = {}
    for header in PiBoardInfo.from_revision(_REFERENCE_REVISION).headers.values():
        if header.name != "J8":
            continue
        for info in header.pins.values():
            pin = HeaderPin(info.name, int(info.name[4:]), info.number) if "gpio" in info.interfaces else None
            for name in info.names:
                key = name.upper() if isinstance(name, str) else name
                names[key] = pin if pin is not None else info  # a PinInfo: a pin that is not a GPIO
    return names


_NAMES_HELP = 'a BCM number (23) or a name: "GPIO23", "BCM23", "BOARD16", "J8:16", "WPI4"'


def header_pin(value: object, where: str) -> HeaderPin:
    """The header GPIO ``value`` names (any of gpiozero's pin names, any case), or
    :class:`PinConfigError` saying why it names none."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise PinConfigError(f"{where}: a pin is a BCM number or a name like 'GPIO17', got {value!r}")
    if isinstance(value, str) and not value.strip():
        raise PinConfigError(f"{where}: empty pin name")
    key = value.strip().upper() if isinstance(value, str) else value
    found = _header().get(key)
    if isinstance(found, HeaderPin):
        return found
    if found is not None:  # a header pin, but power, ground or the ID EEPROM's
        raise PinConfigError(f"{where}: {value!r} is header pin {found.number} ({found.name}), not a GPIO")
    if isinstance(value, int):
        raise PinConfigError(f"{where}: BCM pin {value} is not on the 40-pin header (GPIO 0-27)")
    raise PinConfigError(f"{where}: {value!r} is not a GPIO of the Pi's 40-pin header ({_NAMES_HELP})")


def check_pin(value: object, where: str) -> PinSpec:
    """``value`` as written, once it is known to name a header GPIO."""
    header_pin(value, where)
    return value  # type: ignore[return-value]


def gpio_name(value: PinSpec) -> str:
    """gpiozero's primary name for a checked pin ("GPIO23"): what the devices open."""
    return header_pin(value, "pin").name


def check_distinct(pins: Mapping[str, PinSpec], where: str) -> None:
    """Refuse two roles on one pin, however each is written (23, "BOARD16" and "J8:16" are the
    same pin). Every pin is checked first; the error names both roles."""
    seen: dict[HeaderPin, tuple[str, PinSpec]] = {}
    for role, pin in pins.items():
        found = header_pin(pin, f"{where}: {role}")
        if found in seen:
            first, written = seen[found]
            same = str(found) if written == pin else f"{written!r} and {pin!r} are both {found}"
            raise PinConfigError(f"{where}: pin {pin!r} is given to both {first!r} and {role!r} ({same})")
        seen[found] = (role, pin)
