"""Annelids: a random player resigns as often as it does anything else (``resign`` is a legal
move at the start of every turn), which makes random playouts meaningless — so the engine never
resigns while it has a placement, and judges a cut-off playout by the surviving annelids (the
game's own scores: the last annelid removed loses).

A turn is as many segments as the player has annelids (up to eight), and a whole turn's search
halves its budget at each segment, so a turn's last segments get a simulation or two: they are
played in the knowledge's order. Random order there (and in playouts) ran annelids into dead
ends and removed them by choice; so a segment that leaves its head room to grow comes first,
one that takes the edge an opponent's head needs next, and a removal last. Playouts stay
uniform: a random playout removes an annelid as often as its head is blocked, which is what the
count of survivors at the cut-off reads."""

from __future__ import annotations

from rules.games.annelids import Place, Remove, Resign
from rules.games.annelids_geometry import geometry

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

    def room(self, state, move) -> float:
        """How good a segment looks before any search: free edges ahead of the new head, and
        an opponent's head's next edge taken (more when it was that head's last way on)."""
        if isinstance(move, Remove):
            return -10.0
        if not isinstance(move, Place):
            return 0.0
        geo = geometry()
        ahead = geo.other[(move.edge, state.head(move.tail)[1])]
        free = sum(1 for f in geo.onward[(move.edge, ahead)] if not state.is_taken(f))
        score = float(min(free, 2))  # one way on is enough to live; two is room
        for a in state.annelids:
            if a.colour == state.player:
                continue
            onward = geo.onward[state.head(a.tail)]
            if move.edge in onward:
                left = sum(1 for f in onward if not state.is_taken(f))
                score += 1.5 if left == 1 else 0.5
        return score

    def order(self, state, moves, rng):
        scored = [(self.room(state, m) + 0.01 * rng.random(), m) for m in moves]
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def fallback(self, state, moves, rng):
        return self.order(state, moves, rng)[0]


register(Annelids())
