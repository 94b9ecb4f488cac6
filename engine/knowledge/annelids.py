"""Annelids: a random player resigns as often as it does anything else (``resign`` is a legal
move at the start of every turn), so the engine never resigns while it has a placement.

The game is Tron's with many heads: a player loses an annelid only when every one of its heads
is blocked, and the game when its last goes, so what decides it is **room** — the empty edges a
player's heads reach before the other's. A cut-off is judged where it stands (no playout) by
that room, as Tron programs judge theirs: a breadth-first search from every head at once over
the empty edges, each edge going to the player whose head reaches it first (a tie to neither),
plus the surviving annelids. Random playouts judged by survivors alone (60 plies) saw none of
it: annelids are removed late, and twice the search did not part the levels (level 4 over 3
47 % of 17); judged by room, level 2 beat the same level with playouts 90 % of 30 (a Pi's pace,
docs/opponent.md).

A turn is as many segments as the player has annelids (up to eight), and a whole turn's search
halves its budget at each segment, so a turn's last segments get a simulation or two: they are
played in the knowledge's order — a segment that leaves its head room to grow first, one that
takes the edge an opponent's head needs next, a removal last."""

from __future__ import annotations

import math

from rules.games.annelids import Place, Remove, Resign
from rules.games.annelids_geometry import geometry

from . import Knowledge, register, score_lead


def territory(state) -> dict[str, int]:
    """Empty edges per player that its heads reach before the other's (growing as the rules
    let a head grow: on from the far end of the edge just taken); an edge both reach at once
    is no one's."""
    geo = geometry()
    onward, other, taken = geo.onward, geo.other, state.is_taken
    owner: dict[str, str] = {}  # edge -> its player, or "" where both arrive together
    # From each head as from an edge just reached (a head's own edge is taken, so in no one's
    # room, and leads its player on).
    frontier = [state.head(a.tail) + (a.colour,) for a in state.annelids]
    while frontier:
        reached: dict[str, str] = {}
        nxt = []
        for f, vertex, colour in frontier:
            if owner.get(f, colour) != colour:
                continue  # contested at this distance: it leads no one on
            for g in onward[(f, vertex)]:
                if g in owner or taken(g):
                    continue
                prev = reached.get(g)
                if prev is None:
                    reached[g] = colour
                    nxt.append((g, other[(g, vertex)], colour))
                elif prev != colour:
                    reached[g] = ""
        owner.update(reached)
        frontier = nxt
    counts: dict[str, int] = {}
    for colour in owner.values():
        if colour:
            counts[colour] = counts.get(colour, 0) + 1
    return counts


class Annelids(Knowledge):
    game = "annelids"
    # Judged by room, level 1 beat random play 40 of 40 with no slip, and level 3 beat level 2
    # only 56 % of 40 with none: so the levels slip, among the search's next three choices at a
    # turn's last segment (the default). Level 5 (never slipping) twice level 4's time beat it
    # only 55 % of 20 with level 4 at 10 %; at 70/45/30/16 % each level beat the one below 62-74 %
    # in 60-100 games, level 1 random play 98 of 100 (a Pi's pace, docs/opponent.md). (With
    # 60-ply playouts judged by survivors, a slip of the last segment cost too much: level 1
    # slipping half its turns won 65 % of 100 against random play.)
    slips = {1: 0.7, 2: 0.45, 3: 0.3, 4: 0.16}
    playout_depth = 0  # the leaf is judged where it stands, by room (above)
    # An edge of room is worth 1/30 of the lead that all but decides (tanh 1 ≈ 0.76);
    # an annelid more, half of it: room is what keeps annelids alive.
    room_scale = 30.0
    annelid_weight = 0.5

    def moves(self, state):
        moves = state.legal_moves()
        kept = [m for m in moves if not isinstance(m, Resign)]
        return kept or moves

    def value(self, state, players):
        edges = territory(state)
        alive = state.scores()
        out = {}
        for p in players:
            d = score_lead(edges, p) / self.room_scale + self.annelid_weight * score_lead(alive, p)
            out[p] = 0.5 + 0.5 * math.tanh(d)
        return out

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
