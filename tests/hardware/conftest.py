"""A reed-switch matrix simulated on gpiozero's mock pins.

The test decides which switches are closed (which spaces hold a piece); whenever a row pin
changes, every column input reads low exactly where a closed switch (and its diode) joins it
to a row that is driven low — as the real circuit behaves.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from hardware.matrix import MatrixWiring


class RowPin(MockPin):
    """A row line: every change re-evaluates the columns."""

    board: "ReedBoard | None" = None

    def _change_state(self, value):
        changed = super()._change_state(value)
        if self.board is not None:
            self.board.refresh()
        return changed


class ReedBoard:
    def __init__(self, factory: MockFactory, wiring: MatrixWiring) -> None:
        # Made before the scanner opens them, so the scanner gets these pins.
        self.rows = [factory.pin(p, pin_class=RowPin) for p in wiring.rows]
        for row in self.rows:
            row.board = self
        self.columns = [factory.pin(p) for p in wiring.columns]
        self.cells = wiring.spaces
        self.closed: set[tuple[int, int]] = set()
        self.row_selections = 0

    def place(self, occupied: Iterable[str]) -> None:
        """Close exactly the switches under ``occupied``."""
        self.closed = {self.cells[s] for s in occupied}
        self.refresh()

    def refresh(self) -> None:
        low = {r for r, pin in enumerate(self.rows) if pin.function == "output" and not pin.state}
        self.row_selections += bool(low)
        for c, col in enumerate(self.columns):
            if col.function != "input":
                continue
            if any((r, c) in self.closed for r in low):
                col.drive_low()
            else:
                col.drive_high()  # the pull-up wins


@pytest.fixture
def mock_factory():
    factory = MockFactory()
    yield factory
    factory.reset()


@pytest.fixture
def reed_board(mock_factory):
    def make(wiring: MatrixWiring) -> ReedBoard:
        return ReedBoard(mock_factory, wiring)
    return make
