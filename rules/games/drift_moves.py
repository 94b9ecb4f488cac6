"""DRIFT moves and their generation (``docs/rules/drift.md``, D3–D8, D15–D19).

A move is one piece's action — a path to a space (``step``), an attack (``attack``), taking up a
coin (``take``), taking one from another player's repository (``pilfer``), dropping one
(``drop``) — or the end of a turn (``end``), the drift (``drift``) or a setup placement
(``place``). A move is its outcome: the path of a step only matters for whether the space is
in reach and what it costs, an attack for whether some launch space wins it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .drift_battle import battle
from .drift_exodus import crowd_at_home, exodus, keeping_the_exodus
from .drift_geometry import COIN_RING, COIN_TYPES, geometry

if TYPE_CHECKING:
    from .drift import DriftState

STEP, ATTACK, TAKE, PILFER, DROP, END, DRIFT, PLACE = (
    "step", "attack", "take", "pilfer", "drop", "end", "drift", "place")
PIECE_ACTIONS = (STEP, ATTACK, TAKE, PILFER, DROP)


@dataclass(frozen=True, order=True)
class Action:
    """One DRIFT move. ``after_end``: the move is the next player's, and ends this turn first
    (the turn also ends when the next player's piece moves; the last player's by the drift)."""

    kind: str
    piece: int = -1
    space: int = -1  # step: where it ends; attack: the target; place: where the coin goes
    coin: str = ""
    removed: tuple[int, ...] = ()  # end: pieces that cannot leave a crowded home, out of play
    cost: int = 0  # step: movement points the shortest path uses
    after_end: bool = False

    def inner(self) -> "Action":
        return Action(self.kind, self.piece, self.space, self.coin, self.removed, self.cost)


def piece_moves(st: "DriftState") -> list[Action]:
    """Every action of the player to move's pieces, III first, then II, then I (D3); while its
    home is crowded, none that strands pieces which could still leave it (D5)."""
    if st.stage != "play":
        return []
    ro = st.roster
    floor = min((ro.rank[p] for p in st.moved), default=4)
    out: list[Action] = []
    for p in ro.pieces_of(st.seat):
        loc = st.locs[p]
        if loc < 0:
            continue
        if p == st.current:
            if st.points <= 0:
                continue
            pts = st.points
        elif p in st.moved or ro.rank[p] > floor:
            continue
        else:
            pts = ro.rank[p]
            if ro.rank[p] == 1:
                out += _coin_moves(st, p, loc)
        out += _paths_and_attacks(st, p, loc, pts)
    if len(crowd_at_home(st)) > 1:
        # "those pieces are permanently removed ... because the surrounding spaces are barred":
        # not because of the order the player moved in.
        out = keeping_the_exodus(st, out)
    return out


def _coin_moves(st: "DriftState", p: int, loc: int) -> list[Action]:
    """Take up, pilfer or drop: a rank-I piece's whole move for the turn (D15–D18)."""
    coin = st.carried[p]
    if coin:
        return [Action(DROP, p, loc, coin)]
    out = [Action(TAKE, p, loc, t) for t in sorted({t for s, t in st.lying if s == loc})]
    owner = st.home_owner.get(loc)
    if owner is not None and owner != st.seat and st.occ[loc] == (p,):
        out += [Action(PILFER, p, loc, t) for t in st.repos[owner]]
    return out


def _paths_and_attacks(st: "DriftState", p: int, s: int, pts: int) -> list[Action]:
    geo = geometry()
    ro = st.roster
    adj, occ = st.adj, st.occ
    river_of = geo.river_of
    coin = st.carried[p]
    me = ro.owner[p]
    barred = st.barred_to(me, coin)
    # "Player pieces may not move around or through a river": a piece that left a river may not
    # enter it again in the same move (D6); another river, from a bank, it may.
    left = river_of[s] if river_of[s] >= 0 else (st.left_river if p == st.current else -1)
    dist = {s: 0}
    order = [s]
    rivers: list[int] = []
    i = 0
    while i < len(order):
        u = order[i]
        i += 1
        d = dist[u]
        if d >= pts:
            continue
        for v in adj[u]:
            if v in dist or v in occ or v in barred or (left >= 0 and river_of[v] == left):
                continue
            dist[v] = d + 1
            if river_of[v] >= 0:
                rivers.append(v)  # entering a river ends the move (D6)
            else:
                order.append(v)
    out = [Action(STEP, p, v, cost=dist[v]) for v in order[1:]]
    out += [Action(STEP, p, v, cost=dist[v]) for v in rivers]
    if coin:
        return out  # "A (I) that is carrying a DRIFT coin may not perform an attack"
    seen: dict[int, bool] = {}
    tried: set[tuple[int, int]] = set()
    for launch in order:
        if dist[launch] >= pts:
            continue  # the initiator needs a point left (D9)
        for t in adj[launch]:
            if seen.get(t):
                continue
            there = occ.get(t)
            if there is None or len(there) != 1 or ro.owner[there[0]] == me:
                continue
            if left >= 0 and river_of[t] == left:
                continue  # the winner would move into the river it left
            key = (t, river_of[launch])
            if key in tried:
                continue
            tried.add(key)
            seen[t] = battle(ro, adj, river_of, occ, st.carried, st.home_list, p, t, launch).wins
    out += [Action(ATTACK, p, t) for t, won in seen.items() if won]
    return out


def end_moves(st: "DriftState", own: list[Action]) -> list[Action]:
    """The end of the turn: refused while a piece that crowded the home when the turn began
    could still leave it; when none can, all but one of those still there go out of play,
    highest rank first (D4, D5)."""
    ro = st.roster
    inside = crowd_at_home(st)
    if len(inside) <= 1:
        return [Action(END)]
    if any(m.kind in (STEP, ATTACK) and m.piece in inside for m in own):
        return []
    if own and exodus(st) > len(st.crowd) - len(inside):
        return []  # a piece paused on the way out may go on and free it for those still inside
    lowest = min(ro.rank[p] for p in inside)
    return [Action(END, removed=tuple(q for q in inside if q != stay))
            for stay in inside if ro.rank[stay] == lowest]


def placements(st: "DriftState") -> list[Action]:
    """Setup: a coin of each type still to place, on any free land space of its ring that is
    not a home (D1)."""
    geo = geometry()
    taken = {s for s, _ in st.lying}
    out = []
    for t, left in zip(COIN_TYPES, st.to_place):
        if left:
            out += [Action(PLACE, space=s, coin=t) for s in geo.land_rings[COIN_RING[t]]
                    if s not in taken and s not in geo.home_spaces]
    return out
