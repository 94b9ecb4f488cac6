"""Anacund: random playouts are cheap (about 40 plies a game, 65,000 plies/s) and the game ends
on a fixed count of placements, so a playout always runs to the end: no cut-off, no heuristic.
The entry exists to say so, and to score a game judged part-way by its squares' points."""

from __future__ import annotations

from . import Knowledge, register


class Anacund(Knowledge):
    game = "anacund"
    playout_depth = None  # to the end: 36 placements at most
    score_scale = 6.0  # points of lead that all but decide a game


register(Anacund())
