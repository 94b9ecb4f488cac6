"""Helpers shared by the camera tests (imported as ``vision_support``)."""

import cv2

from rules import game_names
from vision.layout import Sheet
from vision.samples import SampleGrid

cv2.setNumThreads(1)

from vision.layout import DEFAULT_MODE

# The games the camera reads (DRIFT's board prints, but its reading is still to come).
GAMES = [g for g in DEFAULT_MODE if g in game_names()]
ALL_GAMES = list(game_names())

_grids: dict[str, SampleGrid] = {}


def grid_for(game: str) -> SampleGrid:
    from rules import get_game

    if game not in _grids:
        _grids[game] = SampleGrid(Sheet.for_board(get_game(game).board()))
    return _grids[game]
