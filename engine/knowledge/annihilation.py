"""Annihilation: generating a position's turns is the dear part (every chain of collisions is
worked out: ~0.5 ms here, ~2 ms on a Pi), and a random playout of 8 plies cost eight of them
for a leaf value that was mostly noise. So a leaf is not played out but judged where it stands
by the score race, with one look ahead that costs nothing more: the turns generated for the
leaf (needed anyway when the search comes back to it) say what the player to move can score at
once, and what the other could score were it its turn. Each simulation then costs about one
generation, so each level's extra time buys real lookahead. A node's moves are tried best first
by what they score at once, and the tree widens progressively: a one-move-greedy player is a
strong baseline here."""

from __future__ import annotations

import math
from dataclasses import replace

from ..api import Limit
from . import Knowledge, register

WIN_NOW = 0.97  # the player to move has a turn that reaches the target ahead: all but won
TAKE = 0.8  # the points the mover can score at once count nearly in full (it moves next)
THREAT = 0.4  # the other's: the mover may yet spoil them, or score first
SCALE = 8.0  # points of lead that make the race nearly decided


class Annihilation(Knowledge):
    game = "annihilation"
    playout_depth = 0  # the leaf is judged where it stands (see above)
    widen_base = 6
    # Quiet moves read alike to the search, so its 2nd to 4th choices are all but as good as its
    # first: at 30/20/10/5 % of those the levels above 2 did not part (48 %, 50 %, 50 %). A slip
    # here is any move but the first choice (a beginner's blunder), and the levels stand about
    # 0.13 apart: level 4 at 0 beat level 3 at 15 % 69 % of 40, 15 % over 30 % 62 % of 40 (equal
    # searches, a Pi's pace); level 1 at 60 % still beat random play 93 % of 60, at 75 % 83 %.
    slips = {1: 0.5, 2: 0.4, 3: 0.27, 4: 0.14}
    slip_among = None
    # With a leaf judged where it stands a Pi affords level 1 its whole 40 simulations, and
    # level 2 (~100) then won only 59 % of 64 against it; 20 keep level 1 well above random
    # play (49.5 of 50) and level 2 ahead of it (29 of 40). Figures: docs/opponent.md.
    limits = {1: Limit(nodes=20, time=0.15)}

    def order(self, state, moves, rng):
        k = _index(state, state.to_move)
        points = state.turn_points()
        target = state.target
        scored = []
        for m in moves:
            gain = points.get(m, (0, 0))
            mine, theirs = state.score[k] + gain[k], state.score[1 - k] + gain[1 - k]
            if max(mine, theirs) >= target:
                net = 1000.0 if mine > theirs else -1000.0 if mine < theirs else 0.0
            else:
                net = gain[k] - gain[1 - k]
            scored.append((net + rng.random() * 0.5, m))
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def value(self, state, players):
        mover = state.to_move
        k = _index(state, mover)
        score, target = state.score, max(1, state.target)
        take, wins = best_take(state, k)
        if wins:
            return {p: WIN_NOW if p == mover else 1.0 - WIN_NOW for p in players}
        # ... less what the other could score were it its turn (one more generation of turns)
        other = replace(state, player=SIDES[1 - k])
        lead = score[k] - score[1 - k] + TAKE * take - THREAT * max(0, best_take(other, 1 - k)[0])
        # A point matters more near the target: the race is then nearly over.
        near = 1.0 + max(score) / target
        v = 0.5 + 0.5 * math.tanh(near * lead / SCALE)
        return {p: v if p == mover else 1.0 - v for p in players}


SIDES = ("white", "black")  # score[0] is white's


def _index(state, player) -> int:
    return SIDES.index(player)


def best_take(state, k: int) -> tuple[int, bool]:
    """The most player ``k`` (0 white, 1 black; the player to move in ``state``) can gain on the
    other in one turn, and whether some turn reaches the target ahead (a win at once)."""
    score, target = state.score, state.target
    gains = list(state.turn_points().values())
    best = max((g[k] - g[1 - k] for g in gains), default=0)
    wins = any(score[k] + g[k] >= target and score[k] + g[k] > score[1 - k] + g[1 - k] for g in gains)
    return best, wins


register(Annihilation())
