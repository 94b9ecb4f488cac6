"""What a sensor board's LEDs show for a referee decision (the serial board's per-space LEDs):
below both the service and the ``referee-serial`` command, which each light them."""

from __future__ import annotations

from firmware_bridge.protocol import Led

from decisions import Accepted, Decision, Illegal, NewGame, Partial, Restored, TakenBack


def leds_for(decision: Decision) -> dict[str, Led] | None:
    """What the board's LEDs show for a decision: where a piece must go (steady), what must
    be put right (blinking); ``None`` leaves them as they are."""
    if isinstance(decision, Partial):
        return {f.space: (Led.ON if f.expected else Led.BLINK) for f in decision.pending}
    if isinstance(decision, Illegal):
        return {f.space: Led.BLINK for f in decision.restore}
    if isinstance(decision, (Accepted, Restored, TakenBack, NewGame)):
        return {}
    return None
