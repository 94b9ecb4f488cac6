"""The crowded home's exodus (``docs/rules/drift.md``, D4 and D5).

*"It is not required to move player pieces unless those pieces are in the home space at the
beginning of the movement turn and there is more than one piece in that space"*: the pieces that
were in the mover's home when its turn began, if two or more (``DriftState.crowd``), must all but
one leave it this turn. Pieces are removed only *"because the surrounding spaces are barred"*, so a
move that lowers how many of them can still leave — a I moved first, stranding a III and a II
that rank order (D3) now holds at home — is refused while they still could.

``exodus(st)`` counts how many of the crowd have left or can still leave, capped at all but one.
The pieces still at home that may yet move are walked in rank order (III first), each leaving
onto the board as it best can against what is on it: a piece that can get past the home's
neighbouring spaces (or win an attack from a space it reaches) takes none of them; one that can
only stop next to the home takes one of those spaces for the pieces after it (a river arrow
first: land next to the home may still lead a later piece further). A piece paused on a space
next to the home with points left is taken to go on (a hand pausing is not a new move, D3).
``keeping_the_exodus`` settles most moves by bounds (who rank order still lets move; how many
free neighbours the home has) and walks the board only for the rest; a test checks it against
the definition on random crowds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .drift_battle import battle
from .drift_geometry import geometry

if TYPE_CHECKING:
    from .drift import DriftState


def crowd_at_home(st: "DriftState") -> list[int]:
    """The pieces of the crowd still in the home."""
    home = st.home_list[st.seat]
    return [q for q in st.crowd if st.locs[q] == home]


def exodus(st: "DriftState") -> int:
    """How many of the crowd have left the home or can still leave it this turn (at most all
    but one). 0 when there is no crowd."""
    if len(st.crowd) < 2:
        return 0
    need, gone, movers = _standing(st, st.moved)
    if gone >= need:
        return need
    occupied = _occupied(st)
    low, high = _bounds(st, need, gone, movers, occupied)
    return low if low == high else _walk(st, need, gone, movers, occupied)


def _occupied(st: "DriftState") -> set[int]:
    """The occupied spaces, but for a piece under way on a neighbour of the home that can go on
    off it: a hand pausing mid-path is not where the piece stops."""
    occupied = set(st.occ)
    p = st.current
    if p < 0 or st.points <= 0:
        return occupied
    home = st.home_list[st.seat]
    exits = st.adj[home]
    here = st.locs[p]
    if here not in exits:
        return occupied
    river_of = geometry().river_of
    barred = st.barred_to(st.seat, st.carried[p])
    if any(v not in occupied and v != home and v not in exits and v not in barred
           and not (st.left_river >= 0 and river_of[v] == st.left_river) for v in st.adj[here]):
        occupied.discard(here)
    return occupied


def keeping_the_exodus(st: "DriftState", moves: list) -> list:
    """The mover's piece actions that leave as many of the crowd able to leave as before. Bounds
    settle most steps without walking the board: how many of those at home rank order still
    lets move, and how many free neighbours the home has for them."""
    from .drift_moves import STEP

    can = exodus(st)
    home = st.home_list[st.seat]
    exits = set(st.adj[home])
    occ = st.occ
    free = sum(1 for v in exits if v not in occ)
    standing: dict[int, tuple[int, int, list[int]]] = {}
    out = []
    for m in moves:
        p = m.piece
        if m.kind != STEP:
            if exodus(st.successor(m)) >= can:
                out.append(m)
            continue
        if p not in standing:
            standing[p] = _standing(st, st.moved | {p}, left=p)
        need, gone, movers = standing[p]
        if gone >= can:
            out.append(m)
            continue
        origin = st.locs[p]
        # Counting the space it steps to as taken even if it may go on off it (see _occupied):
        # the low bound stays a bound.
        after = free + (origin in exits and occ[origin] == (p,)) - (m.space in exits)
        if min(gone + len(movers), need) < can:
            continue
        if min(gone + min(len(movers), after), need) >= can or exodus(st.successor(m)) >= can:
            out.append(m)
    return out


def _standing(st: "DriftState", moved: frozenset[int], left: int = -1) -> tuple[int, int, list[int]]:
    """All but one of the crowd must leave; how many have (``left``: a piece leaving now); and
    who of those still at home may yet move: not moved, and not above a rank that has (D3)."""
    ro = st.roster
    home = st.home_list[st.seat]
    at_home = [q for q in st.crowd if st.locs[q] == home and q != left]
    floor = min((ro.rank[q] for q in moved), default=4)
    movers = sorted((q for q in at_home if q not in moved and ro.rank[q] <= floor), key=lambda q: -ro.rank[q])
    return len(st.crowd) - 1, len(st.crowd) - len(at_home), movers


def _bounds(st: "DriftState", need: int, gone: int, movers: list[int], occupied: set[int]) -> tuple[int, int]:
    """At most every mover leaves; at least as many as the home has free neighbours (each can
    step onto one: homes never neighbour homes, so no coin bars them)."""
    free = sum(1 for v in st.adj[st.home_list[st.seat]] if v not in occupied)
    return min(gone + min(len(movers), free), need), min(gone + len(movers), need)


def _walk(st: "DriftState", need: int, gone: int, movers: list[int], occ: set[int]) -> int:
    """The movers in rank order, each leaving as it best can against the board."""
    ro = st.roster
    home = st.home_list[st.seat]
    river_of = geometry().river_of
    adj = st.adj
    exits = set(adj[home])
    taken: set[int] = set()  # spaces next to the home that earlier leavers stop on
    count = 0
    for q in movers:
        if gone + count >= need:
            break
        pts = ro.rank[q]
        barred = st.barred_to(st.seat, st.carried[q])
        dist = {home: 0}
        order = [home]
        stops: list[int] = []
        for u in order:
            d = dist[u]
            if d >= pts:
                continue
            for v in adj[u]:
                if v in dist or v in occ or v in taken or v in barred:
                    continue
                dist[v] = d + 1
                stops.append(v)
                if river_of[v] < 0:
                    order.append(v)
        if any(v not in exits for v in stops) or _wins_a_way_out(st, q, order, dist, pts):
            count += 1
        elif stops:
            taken.add(min(stops, key=lambda v: (river_of[v] < 0, v)))
            count += 1
    return min(gone + count, need)


def _wins_a_way_out(st: "DriftState", q: int, launches: list[int], dist: dict[int, int], pts: int) -> bool:
    if st.carried[q]:
        return False  # "A (I) that is carrying a DRIFT coin may not perform an attack"
    ro, occ, adj = st.roster, st.occ, st.adj
    river_of = geometry().river_of
    for launch in launches:
        if dist[launch] >= pts:
            continue
        for t in adj[launch]:
            there = occ.get(t)
            if there is None or len(there) != 1 or ro.owner[there[0]] == st.seat:
                continue
            if battle(ro, adj, river_of, occ, st.carried, st.home_list, q, t, launch).wins:
                return True
    return False
