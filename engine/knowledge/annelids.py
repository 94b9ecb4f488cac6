"""Annelids: a random player resigns as often as it does anything else (``resign`` is a legal
move at the start of every turn), which makes random playouts meaningless — so the engine never
resigns while it has a placement, and judges a cut-off playout by the surviving annelids (the
game's own scores: the last annelid removed loses)."""

from __future__ import annotations

from rules.games.annelids import Resign

from . import Knowledge, register


class Annelids(Knowledge):
    game = "annelids"
    # No level slips here: one segment off the search's first choice hands annelids over — level 1
    # slipping the last segment of half its turns won 65 % of 100 games against random play (97 %
    # of 30 with no slip). The search alone separates the levels.
    slips: dict[int, float] = {}
    playout_depth = 60  # about seven turns of both players; the count of annelids says the rest
    score_scale = 1.5

    def moves(self, state):
        moves = state.legal_moves()
        kept = [m for m in moves if not isinstance(m, Resign)]
        return kept or moves


register(Annelids())
