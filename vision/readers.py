"""The sample grid and reader a game's board needs: DRIFT's turning rings have their own
(:mod:`vision.drift_reader`); every other board the plain ones."""

from __future__ import annotations

from rules.view import Fidelity

from .layout import Sheet
from .reader import Calibration, Reader
from .samples import SampleGrid


def grid_for(sheet: Sheet) -> SampleGrid:
    if sheet.game == "drift":
        from .drift_reader import DriftGrid

        return DriftGrid(sheet)
    return SampleGrid(sheet)


def reader_for(grid: SampleGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND) -> Reader:
    """A reader for ``grid``'s board (DRIFT's has Reader's interface: ``read(frame, H)``)."""
    if grid.sheet.game == "drift":
        from .drift_reader import DriftGrid, DriftReader

        return DriftReader(grid if isinstance(grid, DriftGrid) else DriftGrid(grid.sheet), calibration,
                           fidelity)  # type: ignore[return-value]
    return Reader(grid, calibration, fidelity)
