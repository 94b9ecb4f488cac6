"""The sample grid and reader a game's board needs: DRIFT's turning rings have their own
(:mod:`vision.readers.drift_reader`); every other board the plain ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.view import Fidelity

from vision.pieces.pieceset import PieceSet
from vision.read.empty_board import Calibration
from vision.read.lens import Lens
from vision.read.samples import SampleGrid
from vision.sheets.layout import Sheet

from .reader import Reader

if TYPE_CHECKING:
    from .ring_reading import RingModel


def grid_for(sheet: Sheet) -> SampleGrid:
    if sheet.game == "drift":
        from .drift_reader import DriftGrid

        return DriftGrid(sheet)
    return SampleGrid(sheet)


def reader_for(grid: SampleGrid, calibration: Calibration, fidelity: Fidelity = Fidelity.KIND, *,
               lens: Lens | None = None, pieceset: PieceSet | None = None, rings: "RingModel | None" = None) -> Reader:
    """A reader for ``grid``'s board (DRIFT's has Reader's interface: ``read(frame, H)``).
    ``lens``: the camera's (sample points mapped through its distortion); ``pieceset``: the
    pieces' heights (default: the game's own, ``vision/pieces/piecesets/``); ``rings``: Gygès's rings
    read without stickers by their tiers (the "shapes" reading, :mod:`vision.readers.ring_reading`)."""
    if rings is not None:
        from .ring_reading import RingReader

        return RingReader(grid, calibration, rings, fidelity, lens=lens, pieceset=pieceset)
    if grid.sheet.game == "drift":
        from .drift_reader import DriftGrid, DriftReader

        return DriftReader(grid if isinstance(grid, DriftGrid) else DriftGrid(grid.sheet), calibration,
                           fidelity, lens=lens, pieceset=pieceset)  # type: ignore[return-value]
    return Reader(grid, calibration, fidelity, lens=lens, pieceset=pieceset)
