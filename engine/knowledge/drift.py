"""DRIFT: random games never end (2,000 plies and no winner: a random rank-I piece wanders and
never brings three coins home), so playouts are short and the cut-off is judged by the race
itself — coins on the repository, a coin carried and how far from home, and how far each free
rank-I piece is from a coin type its player still needs. Moves that take, deposit or pilfer a
coin are tried first and taken at once in playouts; the tree widens progressively, best
guesses first (branching is ~47 a move and a turn is several moves).

The engine never plays another player's move: DRIFT's ``after_end`` moves (the next player's
piece moving, which ends the turn on the board) are for the referee, and ``end`` says it here.
"""

from __future__ import annotations

import math

from rules.games.drift_geometry import COIN_TYPES, geometry
from rules.games.drift_moves import ATTACK, DROP, END, PILFER, TAKE

from ..api import Limit
from . import Knowledge, register

_FAR = 12  # spaces: beyond this, further is no worse
_CACHE_MAX = 4096  # distance tables kept (each 108 small ints)


class Drift(Knowledge):
    game = "drift"
    # A turn here is several moves (pieces by rank, then the end), and its last move is rarely a
    # real choice: a slip kept for it was played in about 6 turns of 10 drawn. So a slip comes at
    # the turn's first real choice, is any move but the first choice (the search's next three
    # were all but as good), and goes on for the rest of the turn (``slip_turn``): a slip of one
    # move, the rest of the turn searched again, cost next to nothing, and levels whose chances
    # stood 0.12-0.18 apart parted by 51-68 % (a Pi's pace, docs/opponent.md). A slipped turn
    # is a wasted turn in the race: level 4 at 12 % beat level 3 at 25 % 75 % of 40 (seed 96).
    # Level 1 slips 60 % of its turns with 20 simulations, and still beat random play 60 of 60.
    slips = {1: 0.6, 2: 0.4, 3: 0.25, 4: 0.12}
    slip_turn = True
    # Level 1 searches 20, not 40: with one-move slips its 40 left level 2 over it at 60 % of 100;
    # at 20 with whole-turn slips, level 2 over it 62 % of 60 (seed 96).
    limits = {1: Limit(nodes=20, time=0.15)}
    slip_among = None
    slip_early = True
    playout_depth = 10
    widen_base = 4
    # Children ≤ 4 + √visits (the level's rate is 2√n): at a Pi's budget (~120-420 simulations
    # a turn of ~5 moves) 2√n added a child nearly every visit, so a turn's first move was chosen
    # among ~30 children of a few noisy playouts each (four searches of one position at level 4
    # agreed on the first three moves 1 time in 48) and level 4 beat level 3 4 times in 12;
    # with √n, 4 of 4 (and 3 of 3 with no playouts), probes at a Pi's pace (docs/opponent.md).
    widen_k = 1.0
    scale = 2.0  # heuristic points (a deposited coin is 3) that all but decide a game

    def __init__(self) -> None:
        self._dist: dict[tuple, tuple[int, ...]] = {}

    def players(self, state):
        return tuple(state.players)

    def moves(self, state):
        moves = state.legal_moves()
        return [m for m in moves if not m.after_end] or moves

    # -- what a move is for -------------------------------------------------------------------

    def _urgent(self, state, moves):
        """Deposits, needed coins taken up, pilfers: the moves that make the race."""
        seat = state.seat
        home = state.home_list[seat] if state.stage == "play" else -1
        repo = state.repos[seat] if state.stage == "play" else ()
        out = []
        for m in moves:
            if m.kind == DROP and m.space == home and m.coin not in repo:
                out.append(m)
            elif m.kind in (TAKE, PILFER) and m.coin not in repo:
                out.append(m)
        return out

    def order(self, state, moves, rng):
        if state.stage != "play":
            out = list(moves)
            rng.shuffle(out)
            return out
        urgent = self._urgent(state, moves)
        players = self.players(state)
        me = state.to_move
        scored = []
        for m in moves:
            after = state.successor(m)
            v = 1.0 if after.is_game_over() else self.value(after, players)[me]
            bonus = 0.2 if m in urgent else 0.05 if m.kind == ATTACK else 0.0
            scored.append((v + bonus + 1e-6 * rng.random(), m))
        scored.sort(key=lambda x: -x[0])
        return [m for _, m in scored]

    def fallback(self, state, moves, rng):
        # Out of time mid-turn: make the race's move if there is one, else end the turn (the
        # pieces stay where the search left them) rather than wander.
        if state.stage == "play":
            urgent = self._urgent(state, moves)
            if urgent:
                return urgent[0]
            ends = [m for m in moves if m.kind == END]
            if ends:
                return ends[0]
        return moves[rng.randrange(len(moves))]

    def playout_move(self, state, moves, rng):
        if state.stage == "play":
            urgent = self._urgent(state, moves)
            if urgent:
                return urgent[0]
            if rng.random() < 0.15:  # random walkers take long turns; a turn ends, in time
                ends = [m for m in moves if m.kind == END]
                if ends:
                    return ends[0]
        return moves[rng.randrange(len(moves))]

    # -- the judgement at the cut-off ---------------------------------------------------------

    def _distances(self, rots, start: int) -> tuple[int, ...]:
        key = (rots, start)
        found = self._dist.get(key)
        if found is None:
            adj = geometry().adjacency(rots)
            dist = [_FAR] * len(adj)
            dist[start] = 0
            frontier = [start]
            for d in range(1, _FAR):
                nxt = []
                for u in frontier:
                    for v in adj[u]:
                        if dist[v] == _FAR:
                            dist[v] = d
                            nxt.append(v)
                frontier = nxt
            if len(self._dist) >= _CACHE_MAX:
                self._dist.clear()
            found = self._dist[key] = tuple(dist)
        return found

    def race(self, state, seat: int) -> float:
        """Heuristic points of one player: 3 a deposited coin, less for a coin on its way."""
        ro = state.roster
        repo = state.repos[seat]
        h = 3.0 * len(repo)
        home = state.home_list[seat]
        carried = set()
        free = []
        for p in ro.pieces_of(seat):
            loc = state.locs[p]
            if loc < 0:
                h -= 0.1
                continue
            if ro.rank[p] != 1:
                continue
            coin = state.carried[p]
            if coin and coin not in repo:
                carried.add(coin)
                h += 1.6 - 0.08 * self._distances(state.rots, home)[loc]
            elif not coin:
                free.append(loc)
        if free:
            tables = [self._distances(state.rots, loc) for loc in free]
            for t in COIN_TYPES:
                if t in repo or t in carried:
                    continue
                d = min((tab[s] for s, c in state.lying if c == t for tab in tables), default=_FAR)
                h += 0.6 - 0.04 * d
        return h

    def value(self, state, players):
        if state.stage == "setup":
            return {p: 0.5 for p in players}
        points = {c: self.race(state, seat) for seat, c in enumerate(state.players)}
        out = {}
        for p in players:
            other = max((v for q, v in points.items() if q != p), default=0.0)
            out[p] = 0.5 + 0.5 * math.tanh((points.get(p, 0.0) - other) / self.scale)
        return out


register(Drift())
