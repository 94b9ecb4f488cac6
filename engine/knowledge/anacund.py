"""Anacund: random playouts are cheap (about 40 plies a game, 65,000 plies/s) and the game ends
on a fixed count of placements, so a playout always runs to the end: no cut-off. What a small
search lacks is order: a turn is three placements, and at level 1 the later two get only a few
simulations each — so a node's placements are tried best first by the points they score at
once (six to eighteen placements: cheap to look at), which is also the choice when the budget
is spent mid-turn.

Its levels barely slip: its search alone separates them from level 2 up (71 %, 69 %, 75 % over
the level below with no slip at all), while a placement off the search's first choice costs so
much that level 1 slipping as in Gygès lost to a random player half the time (54 % of 100 games
when each placement slipped 85 %; 89–91 % at 20–40 %; 83–92 % with the turn's last placement
slipping 25–50 % of turns). So only level 1 slips, one turn in five. Its window is narrow, and
what it wins against random play is about 93 % whatever the slip (94 % of 300 at 20 %, 92 % of
300 at 12 %: a 40-simulation search of a three-placement turn is itself that weak), while level
2's lead over it is the slip's (67 % of 300 at 20 %, 60 % of 300 at 12 %)."""

from __future__ import annotations

from . import Knowledge, register, score_lead


class Anacund(Knowledge):
    game = "anacund"
    playout_depth = None  # to the end: 36 placements at most
    score_scale = 6.0  # points of lead that all but decide a game
    slips = {1: 0.2}  # and none above: measured, docs/opponent.md

    def order(self, state, moves, rng):
        me = state.to_move
        scored = [(score_lead(state.successor(m).scores(), me) + 0.5 * rng.random(), m) for m in moves]
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def fallback(self, state, moves, rng):
        return self.order(state, moves, rng)[0]


register(Anacund())
