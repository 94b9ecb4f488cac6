"""Gygès: random games last 250–430 plies at 3,600 plies/s with a branching of ~200, and the
result hangs on one thing random play never sees — a ring that can reach the throne. So: no
playout at all (a random ply or two after a leaf only adds noise); a leaf is judged where it
stands: a mover that can win now has won; else by the opponent's throne threats and the
position (below). The search tries a node's moves best first by that judgement one move ahead
and widens progressively from its best four: with ~200 moves a node and a few thousand
simulations a turn, a move tried among all the others in random order was judged by the mean
of two or three random replies, so twice the search found no more (level 5 beat level 4 42 %
of 50); tried against the opponent's best replies first it does (26 of 30 at a Pi's pace). The
order is dear (~20 ms a node opened here, a successor and a judgement a move), so a turn is a
few dozen simulations, spent on the few moves and replies that matter.

The threats are read from each ring's reach (``GygesState.reach``), not from the legal moves:
those list every space a bumped ring may be put on (~150 moves a position, up to 1,700), three
times a leaf; the reach is six times cheaper (0.13 ms a judgement here, 0.78 ms before).

A position without a threat in one move is not even: judged 0.5 throughout, the search's
choices in a quiet position were all equal, and twice the search found nothing more. What
tells them apart, fitted (logistic) on 1,900 positions of slip-free searches against each other
with the game's result: how far each player's nearest row has *advanced* — every row between
a player's throne and the rings it may move is empty, so those rings are near the opponent's
throne and far from its own (+0.40 a row the mover's advanced, −0.37 the opponent's, in log-odds);
and the rings each may *land on* (to bounce off or bump: the moves that reach far or put a ring
where it blocks or threatens: +0.07 each of the mover's, −0.06 the opponent's). The mover's
tempo is worth +0.43; the opponent's threats −0.36 / −0.56 / −0.65 (one / two / three or more:
the mover moves first, and often parries several through the one ring they all bounce off)."""

from __future__ import annotations

import math

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


def landings(rings) -> int:
    """How many rings these rings could land on (to bounce off, or bump)."""
    return len({space for _, (_, landed, _) in rings for space in landed})


def advance(player: str, row: int | None) -> int:
    """The empty rows between ``player``'s throne and the row it moves from."""
    if row is None:
        return 0
    return row - 1 if player == PLAYERS[0] else 6 - row


# The judgement of a position without a throne move for the mover, in log-odds of its winning
# (the module's docstring says where the weights come from): (mover's, opponent's) weights.
TEMPO = 0.43
THREATS = (0.0, 0.36, 0.56, 0.65)  # the opponent's rings that can reach the throne: 0, 1, 2, 3+
ADVANCE = (0.40, 0.37)
LANDINGS = (0.07, 0.06)
ORDER_MOST = 160  # moves a node's order judges, at most (a typical position has ~150)


class Gyges(Knowledge):
    game = "gyges"
    playout_depth = 0  # the threat count judges a leaf better than random plies after it
    widen_base = 4  # a node's first children: its best four by the order; 4 + 2√n after n visits
    # The levels' slips here: the search tries the best moves first, so its 2nd to 4th choices
    # are good ones and a slip costs little; with the levels' own (85/65/45/25 %) level 2 beat
    # level 1 14 of 30 and level 3 level 2 17 of 30; with these, 26 of 40 and 28 of 40.
    slips = {1: 0.95, 2: 0.65, 3: 0.35, 4: 0.1}

    def order(self, state, moves, rng):
        """Best first by the judgement one move ahead (a win first, a loss last), the tree
        widening from there: the opponent's strongest replies are the ones tried, so a move's
        value is what it leaves against them — with every move tried in random order, a move
        was judged by the mean of a few random replies, and twice the search found no more.

        At most ``ORDER_MOST`` moves are judged (a win always first): a position rich in bumps
        has over a thousand moves (every space a bumped ring may go to), and ordering them all
        took ~0.1 s here, past level 1's whole turn, where the search cannot stop it. Beyond
        that, a random sample of them is judged and the rest follow in random order."""
        mover = state.to_move
        wins = _wins(state, moves)
        rest = [m for m in moves if m not in set(wins)] if wins else list(moves)
        rng.shuffle(rest)
        judged, unjudged = rest[:ORDER_MOST], rest[ORDER_MOST:]
        scored = []
        for move in judged:
            after = state.successor(move)
            out = after.outcome()
            if out is None:
                v = self.value(after, PLAYERS)[mover]
            else:
                v = 2.0 if out.winner == mover else -1.0
            scored.append((-v, move))
        scored.sort(key=lambda t: t[0])  # stable: ties keep the shuffled order
        return wins + [move for _, move in scored] + unjudged

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
        row, mine = playable(state, mover)
        if threats(mine):
            v = 0.97
        else:
            their_row, theirs = playable(state, other)
            z = TEMPO - THREATS[min(threats(theirs), 3)]
            z += ADVANCE[0] * advance(mover, row) - ADVANCE[1] * advance(other, their_row)
            z += LANDINGS[0] * landings(mine) - LANDINGS[1] * landings(theirs)
            v = 1.0 / (1.0 + math.exp(-z))
        return {p: (v if p == mover else 1.0 - v) for p in players}


register(Gyges())
