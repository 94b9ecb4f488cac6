"""Annihilation: a random playout costs about 110 plies at 2,800 plies/s (40 ms: a Pi's whole
level-1 budget in one simulation), so playouts are cut short and the position is judged by
the score race: the lead, scaled by how near the leader is to the target. A node's moves are
tried best first by what they score at once (a whole turn's chain is worked out by the rules, so
one look ahead costs about what generating the moves does), and the tree widens progressively:
a one-move-greedy player is a strong baseline here, and random playouts alone lose to it."""

from __future__ import annotations

import math

from . import Knowledge, register


class Annihilation(Knowledge):
    game = "annihilation"
    playout_depth = 8  # four turns each
    widen_base = 6
    # A move off the search's first choice gives points away in the race: level 1 at Gygès' 85 %
    # won only 85 % of 67 games against random play.
    slips = {1: 0.3, 2: 0.2, 3: 0.1, 4: 0.05}

    def order(self, state, moves, rng):
        me = state.to_move
        scored = []
        for m in moves:
            after = state.successor(m)
            out = after.outcome()
            if out is not None:
                gain = 1000.0 if out.winner == me else -1000.0 if out.winner else 0.0
            else:
                scores = after.scores()
                gain = scores.get(me, 0) - max((v for p, v in scores.items() if p != me), default=0)
            scored.append((gain + rng.random() * 0.5, m))
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def value(self, state, players):
        scores = state.scores()
        target = max(1, getattr(state, "target", 20))
        out = {}
        for p in players:
            mine = scores.get(p, 0)
            other = max((v for q, v in scores.items() if q != p), default=0)
            # A point matters more near the target: the race is then nearly over.
            near = 1.0 + max(mine, other) / target
            out[p] = 0.5 + 0.5 * math.tanh(near * (mine - other) / 8.0)
        return out


register(Annihilation())
