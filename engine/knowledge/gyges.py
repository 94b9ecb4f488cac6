"""Gygès: random games last 250–430 plies at 3,600 plies/s with a branching of ~200, and the
result hangs on one thing random play never sees — a ring that can reach the throne. So:
moves that reach the opponent's throne are tried first (in the tree, and by the fallback); no
playout at all (a random ply or two after a leaf only adds noise); a leaf is judged by throne
threats: a mover that can win now has won; the more rings the opponent could bring to the
mover's throne, the worse for the mover."""

from __future__ import annotations

import dataclasses

from rules.games.gyges import PLAYERS, THRONE, RingMove

from . import Knowledge, register


def _wins(state, moves) -> list:
    throne = THRONE[PLAYERS[1 - PLAYERS.index(state.to_move)]]
    return [m for m in moves if isinstance(m, RingMove) and m.end == throne]


def _threats(state, player: str) -> int:
    """Rings ``player`` could bring to the opponent's throne were it ``player``'s move."""
    if state.phase != "play":
        return 0
    turned = dataclasses.replace(state, player=player)
    return len({m.start for m in _wins(turned, turned.legal_moves())})


class Gyges(Knowledge):
    game = "gyges"
    playout_depth = 0  # the threat count judges a leaf better than random plies after it

    def order(self, state, moves, rng):
        wins = _wins(state, moves)
        rest = [m for m in moves if m not in set(wins)] if wins else list(moves)
        rng.shuffle(rest)
        return wins + rest

    def fallback(self, state, moves, rng):
        return self.playout_move(state, moves, rng)

    def playout_move(self, state, moves, rng):
        wins = _wins(state, moves)
        return wins[0] if wins else moves[rng.randrange(len(moves))]

    def value(self, state, players):
        mover = state.to_move
        if state.phase != "play":
            return {p: 0.5 for p in players}
        other = PLAYERS[1 - PLAYERS.index(mover)]
        if _wins(state, state.legal_moves()):
            v = 0.97
        else:
            mine, theirs = _threats(state, mover), _threats(state, other)
            # Blocking one threat is often possible, two rarely; a threat of one's own is worth
            # less, as the opponent moves first.
            v = 0.5 + 0.06 * min(mine, 3) - (0.12, 0.3, 0.4)[min(theirs, 3) - 1] * (theirs > 0)
        return {p: (v if p == mover else 1.0 - v) for p in players}


register(Gyges())
