"""Gygès: random games last 250–430 plies at 3,600 plies/s with a branching of ~200, and the
result hangs on one thing random play never sees — a ring that can reach the throne. So:
moves that reach the opponent's throne are tried first (in the tree, and by the fallback); no
playout at all (a random ply or two after a leaf only adds noise); a leaf is judged by throne
threats: a mover that can win now has won; the more rings the opponent could bring to the
mover's throne, the worse for the mover.

The threats are read from each ring's reach (``GygesState.reach``), not from the legal moves:
those list every space a bumped ring may be put on (~150 moves a position, up to 1,700), three
times a leaf; the reach is six times cheaper, which is three times the search in a turn."""

from __future__ import annotations

from rules.games.gyges import PLAYERS, THRONE, RingMove

from . import Knowledge, register


def _wins(state, moves) -> list:
    throne = THRONE[PLAYERS[1 - PLAYERS.index(state.to_move)]]
    return [m for m in moves if isinstance(m, RingMove) and m.end == throne]


def playable(state, player: str) -> tuple[int | None, list]:
    """The row ``player`` would move from (its nearest row holding a ring that can move) and,
    for each ring there, ``(space, (ends, landings, enters the throne))`` — were it its move."""
    occ = [s for s, _ in state.rings if s not in "NS"]
    for row in sorted({int(s[1]) for s in occ}, reverse=player == PLAYERS[1]):
        rings = [(s, state.reach(s, player)) for s in occ if int(s[1]) == row]
        if any(ends or landings or throne for _, (ends, landings, throne) in rings):
            return row, rings
    return None, []


def threats(rings) -> int:
    """How many of these rings can reach the throne."""
    return sum(1 for _, (_, _, throne) in rings if throne)


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
        if threats(playable(state, mover)[1]):
            v = 0.97
        else:
            theirs = threats(playable(state, other)[1])
            # Blocking one threat is often possible, two rarely.
            v = 0.5 - (0.12, 0.3, 0.4)[min(theirs, 3) - 1] * (theirs > 0)
        return {p: (v if p == mover else 1.0 - v) for p in players}


register(Gyges())
