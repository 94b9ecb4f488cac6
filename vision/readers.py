"""The sample grid and reader a game's board needs: DRIFT's turning rings have their own
(:mod:`vision.drift_reader`); every other board the plain ones."""

from __future__ import annotations

from rules.view import Fidelity

from .layout import Sheet
from .lens import Lens
from .pieceset import PieceSet
from .reader import Calibration, Reader
from .samples import SampleGrid


def grid_for(sheet: Sheet) -> SampleGrid:
    if sheet.game == "drift":
        from .drift_reader import DriftGrid

        return DriftGrid(sheet)
    return SampleGrid(sheet)


def reader_for(grid: SampleGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND, *,
               lens: Lens | None = None, pieceset: PieceSet | None = None) -> Reader:
    """A reader for ``grid``'s board (DRIFT's has Reader's interface: ``read(frame, H)``).
    ``lens``: the camera's (sample points mapped through its distortion); ``pieceset``: the
    pieces' heights (default: the game's own, ``vision/piecesets/``)."""
    if grid.sheet.game == "drift":
        from .drift_reader import DriftGrid, DriftReader

        return DriftReader(grid if isinstance(grid, DriftGrid) else DriftGrid(grid.sheet), calibration,
                           fidelity, lens=lens, pieceset=pieceset)  # type: ignore[return-value]
    return Reader(grid, calibration, fidelity, lens=lens, pieceset=pieceset)
