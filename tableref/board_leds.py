"""What a sensor board's LEDs show for a referee decision (the serial board's per-space LEDs):
below both the service and the ``referee-serial`` command, which each light them.

Two states, one meaning each wherever they come from (docs/protocol.md, SET_LEDS):
**blinking** — lift a piece from here, or put this space right; **steady** — put a piece down
here. An illegal board blinks what to put right, a move part-way lights where its pieces still
go, and the computer's move (or a hint, or the other table's move in a game between two boards)
blinks where hands lift pieces and lights where they put them down.
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware_bridge.protocol import Led

from decisions import (
    Accepted, ComputerMove, Decision, Hint, Illegal, LessonStep, Lifted, NewGame, Partial, Restored, Step, TakenBack,
)
from decisions.remote import RemoteTurn

# Turns a person here carries out, step by step: the computer's, the other table's, a lesson's step.
TURNS = (ComputerMove, RemoteTurn, LessonStep)


def steps_leds(steps: Iterable[Step]) -> dict[str, Led]:
    """The spaces a turn's hands lift from (blinking) and put down on (steady). A space both
    lifted from and put down on (a bumped ring's square, a piece passing through) blinks:
    the hands start there."""
    out: dict[str, Led] = {}
    for step in steps:
        for space in step.lift:
            out[space] = Led.BLINK
        for space in step.place:
            out.setdefault(space, Led.ON)
    return out


def leds_for(decision: Decision) -> dict[str, Led] | None:
    """What the board's LEDs show for a decision: where a piece must go (steady), what must
    be lifted or put right (blinking); ``None`` leaves them as they are."""
    if isinstance(decision, Partial):
        return {f.space: (Led.ON if f.expected else Led.BLINK) for f in decision.pending}
    if isinstance(decision, Illegal):
        return {f.space: Led.BLINK for f in decision.restore}
    if isinstance(decision, TURNS):  # the other table's move and a lesson's step: shown as the computer's move
        # Said again after a wrong board: the illegal board's put-right spaces stay lit until
        # the board is right (BoardLeds then shows the move again).
        return None if decision.repeated else steps_leds(decision.steps[decision.done:])
    if isinstance(decision, Hint):
        return steps_leds(decision.steps)
    if isinstance(decision, Lifted):  # teaching: where the piece in the hand may go (none: as the board status said)
        return {s: Led.ON for s in decision.destinations} if decision.destinations else None
    if isinstance(decision, (Accepted, Restored, TakenBack, NewGame)):
        return {}
    return None


class BoardLeds:
    """:func:`leds_for`, following the game: the computer's move (the other table's, a lesson's
    step) waiting to be carried out is shown again once a wrong board is put right (the referee
    then says only ``restored``). One per board; called on the referee's thread."""

    def __init__(self) -> None:
        self._turn: dict[str, Led] | None = None  # the computer's move still to be made

    def show(self, decision: Decision) -> dict[str, Led] | None:
        if isinstance(decision, TURNS):
            self._turn = steps_leds(decision.steps[decision.done:])
        elif isinstance(decision, (Accepted, TakenBack, NewGame)):
            self._turn = None
        elif isinstance(decision, Restored) and self._turn:
            return dict(self._turn)
        return leds_for(decision)
