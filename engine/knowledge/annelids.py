"""Annelids: a random player resigns as often as it does anything else (``resign`` is a legal
move at the start of every turn), which makes random playouts meaningless — so the engine never
resigns while it has a placement, and judges a cut-off playout by the surviving annelids (the
game's own scores: the last annelid removed loses)."""

from __future__ import annotations

from rules.games.annelids import Resign

from . import Knowledge, register


class Annelids(Knowledge):
    game = "annelids"
    # A turn here is several moves (segments; pieces by rank): a slipped move in it costs more
    # than Gygès' one-move turn, and level 1 at Gygès' 85 % lost to random play (Annelids: 39 %
    # of 100 games, when every move of a turn could slip). Its slip is the turn's last segment
    # (engine/players.py), at most half the turns.
    slips = {1: 0.5, 2: 0.3, 3: 0.15, 4: 0.05}
    playout_depth = 60  # about seven turns of both players; the count of annelids says the rest
    score_scale = 1.5

    def moves(self, state):
        moves = state.legal_moves()
        kept = [m for m in moves if not isinstance(m, Resign)]
        return kept or moves


register(Annelids())
