"""Annihilation: the board's geometry and the generation of whole turns with their chains.

A turn is resolved here into a :class:`Result` (the board, reserves and score gains after
it, the spaces it changes, and a sentence describing its chain); ``annihilation.py`` holds
the position, the notation and persistence. Rulings are in ``docs/rules/annihilation.md``.

Points are indexed 0..n-1 (the central zone and the points of emergence); sets of points
are int bitmasks. A self-emission is searched as self-avoiding walks, pruned once every
(point, steps left) pair a subtree could still reach has been found: the outcome of a walk
depends only on where it ends (or what it strikes, with what force, from which point).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..board import Board
from ..errors import InvalidBoardError
from ..phrase import Joined, P, Phrase, Value

WHITE, BLACK = "white", "black"
PLAYERS = (WHITE, BLACK)
COLOUR = {WHITE: "W", BLACK: "B"}
PLAYER_OF = {"W": WHITE, "B": BLACK}
NAME = {WHITE: "White", BLACK: "Black"}
CHARGES = (0, 1, 1, 2, 3, 5, 8)  # one player's set: the annihilator and six charge carriers


def opponent(player: str) -> str:
    return BLACK if player == WHITE else WHITE


class Geometry:
    """The board file read for play: points, lines of force, adjacency, distances."""

    def __init__(self, board: Board) -> None:
        self.board = board
        try:
            self.central: tuple[str, ...] = board.zone("central")
            self.pe = {p: board.zone(f"emergence:{p}")[0] for p in PLAYERS}
            self.reserve = {p: board.zone(f"ex_nihilo:{p}")[0] for p in PLAYERS}
        except (KeyError, IndexError):
            raise InvalidBoardError(
                f"{board.name}: an Annihilation board needs zones 'central', 'emergence:white', "
                "'emergence:black', 'ex_nihilo:white' and 'ex_nihilo:black'") from None
        lines = [v for k, v in board.zones.items() if k.startswith("line:")]
        if not lines:
            raise InvalidBoardError(f"{board.name}: no lines of force (zones named 'line:...')")
        self.ids: tuple[str, ...] = tuple(dict.fromkeys([*self.central, *self.pe.values(), *(p for ln in lines for p in ln)]))
        self.index = {s: i for i, s in enumerate(self.ids)}
        self.n = n = len(self.ids)
        self.central_set = frozenset(self.central)
        neighbours: list[set[int]] = [set() for _ in range(n)]
        rays: list[list[tuple[int, ...]]] = [[] for _ in range(n)]
        for line in lines:
            idx = [self.index[p] for p in line]
            for a, b in zip(idx, idx[1:]):
                neighbours[a].add(b)
                neighbours[b].add(a)
            for k, i in enumerate(idx):
                if k + 1 < len(idx):
                    rays[i].append(tuple(idx[k + 1:]))
                if k > 0:
                    rays[i].append(tuple(reversed(idx[:k])))
        self.adj: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(s)) for s in neighbours)
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(tuple(r) for r in rays)
        self.pe_index = {p: self.index[self.pe[p]] for p in PLAYERS}
        self.pe_owner = {self.pe_index[p]: p for p in PLAYERS}
        # Shortest path (in points) to each player's point of emergence, and for every point
        # the neighbours that are one step closer to it (rule 6's "towards").
        self.dist = {p: self._bfs(self.pe_index[p]) for p in PLAYERS}
        self.closer = {
            p: tuple(sum(1 << v for v in self.adj[i] if self.dist[p][v] < self.dist[p][i]) for i in range(n))
            for p in PLAYERS
        }
        # within[i][k]: points at most k steps from i (any occupancy): the pruning bound.
        all_d = [self._bfs(i) for i in range(n)]
        self.within = tuple(
            tuple(sum(1 << j for j in range(n) if all_d[i][j] <= k) for k in range(17)) for i in range(n)
        )
        self._bound: dict[tuple[int, int], int] = {}

    def _bfs(self, source: int) -> tuple[int, ...]:
        far = 10 ** 6
        dist = [far] * self.n
        dist[source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for u in frontier:
                for v in self.adj[u]:
                    if dist[v] == far:
                        dist[v] = dist[u] + 1
                        nxt.append(v)
            frontier = nxt
        return tuple(dist)

    def bound(self, i: int, left: int) -> int:
        """Every (point, steps left) pair a walk at ``i`` with ``left`` steps could reach."""
        key = (i, left)
        mask = self._bound.get(key)
        if mask is None:
            mask = 0
            for lv in range(left):
                mask |= self.within[i][left - lv] << (lv * self.n)
            self._bound[key] = mask
        return mask

    def point_name(self, i: int) -> Value:
        owner = self.pe_owner.get(i)
        return P("{player}'s point of emergence", player=P(NAME[owner])) if owner else self.ids[i]


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """What a turn leaves: the board (point index -> (colour, charge)), particles returned
    to each reserve, score gains (white, black), changed spaces, and the chain in words."""

    board: tuple[tuple[int, tuple[str, int]], ...]
    to_reserve: tuple[tuple[int, ...], tuple[int, ...]]
    gains: tuple[int, int]
    spaces: frozenset[str]
    phrase: Phrase

    @property
    def text(self) -> str:
        return self.phrase.text


class _Sim:
    """One branch of a chain being resolved (copied at every choice)."""

    __slots__ = ("board", "emitted", "dead", "gains", "parts")

    def __init__(self, board: dict[int, int], emitted: frozenset[int], dead: tuple, gains: tuple[int, int], parts: tuple) -> None:
        self.board = board  # point -> particle id
        self.emitted = emitted  # particles that have self-emitted this turn
        self.dead = dead  # annihilated particle ids
        self.gains = gains
        self.parts = parts  # description fragments (phrases)

    def copy(self) -> "_Sim":
        return _Sim(dict(self.board), self.emitted, self.dead, self.gains, self.parts)


class TurnMaker:
    """Resolves every turn of ``player`` on a board of {point index: (colour, charge)}."""

    def __init__(self, geo: Geometry, board: Mapping[int, tuple[str, int]], player: str) -> None:
        self.geo = geo
        self.player = player
        self.colour = COLOUR[player]
        self.original = dict(board)
        self.start = {i: i for i in board}  # point -> particle id
        # Particle ids: the point each stands on at the start of the turn; -1 is an introduced carrier.
        self.parts: dict[int, tuple[str, int]] = dict(board)
        self.occ = sum(1 << i for i in board)

    # -- naming -------------------------------------------------------------------------------

    def _name(self, pid: int) -> Value:
        colour, charge = self.parts[pid]
        what: Value = P("annihilator") if charge == 0 else str(charge)
        return what if colour == self.colour else P("{player}'s {what}", player=P(NAME[PLAYER_OF[colour]]), what=what)

    # -- the chain --------------------------------------------------------------------------

    def _annihilate(self, sim: _Sim, pids: tuple[int, ...], at: int) -> Value:
        """Annihilate ``pids`` at point ``at``; score them if it is a point of emergence."""
        sim.dead += pids
        owner = self.geo.pe_owner.get(at)
        if owner is None:
            return ""
        spots = sum(self.parts[p][1] for p in pids)
        scorer = opponent(owner)
        g = list(sim.gains)
        g[PLAYERS.index(scorer)] += spots
        sim.gains = (g[0], g[1])
        return P(", +{spots} {player}", spots=spots, player=P(NAME[scorer]))

    def _rest(self, sim: _Sim, pid: int, at: int) -> Value:
        """``pid`` ends its motion on the empty point ``at``: on its opponent's point of
        emergence it is annihilated (rule 5)."""
        owner = PLAYER_OF[self.parts[pid][0]]
        if self.geo.pe_owner.get(at) == opponent(owner):
            return P(": annihilated{note}", note=self._annihilate(sim, (pid,), at))
        sim.board[at] = pid
        return ""

    def _moves_for(self, sim: _Sim, at: int, force: int) -> list[tuple[int, int]]:
        """(end, point before end) of every straight move of ``force`` from ``at``: the points
        passed must be empty and the line must be long enough."""
        out = []
        board = sim.board
        for ray in self.geo.rays[at]:
            if len(ray) < force:
                continue
            if any(ray[k] in board for k in range(force - 1)):
                continue
            out.append((ray[force - 1], ray[force - 2] if force > 1 else at))
        return out

    def transfer(self, sim: _Sim, striker: int, at: int, force: int, text: Value):
        """``striker`` (in transit) passes ``force`` to the particle on ``at``, which moves
        straight ``force`` points; the striker takes its place. Yields (chain, sim) per
        direction; nothing if the struck particle cannot move."""
        struck = sim.board[at]
        for end, before in self._moves_for(sim, at, force):
            s = sim.copy()
            del s.board[at]
            note = self._rest(s, striker, at)
            word = P("{text}{note}, {struck} moved {force} to {point}", text=text, note=note,
                     struck=self._name(struck), force=force, point=self.geo.point_name(end))
            for chain, done in self.arrive(s, struck, end, before, word):
                yield f">{chain}", done

    def arrive(self, sim: _Sim, mover: int, at: int, before: int, text: Value):
        """``mover`` ends a straight move on ``at`` with zero force (rules 4 and 5)."""
        ident = self.geo.ids[at]
        other = sim.board.get(at)
        if other is None:
            note = self._rest(sim, mover, at)
            sim.parts += (Joined((text, note), "") if note else text,)
            yield ident, sim
            return
        colour, charge = self.parts[other]
        s = sim.copy()
        del s.board[at]
        note = self._annihilate(s, (mover, other), at)
        s.parts += (P("{text} and met {other}: both annihilated{note}", text=text, other=self._name(other), note=note),)
        yield f"{ident}x", s
        if charge == 0:
            return
        mine = self.parts[mover][0] == self.colour
        if mine and mover not in sim.emitted:
            mcharge = self.parts[mover][1]
            s = sim.copy()
            s.emitted = s.emitted | {mover}
            word = P("{text} and self-emitted into {other}", text=text, other=self._name(other))
            for chain, done in self.transfer(s, mover, at, mcharge, word):
                yield f"{ident}*{chain}", done

    # -- turns -------------------------------------------------------------------------------

    def placements(self):
        for i, ident in enumerate(self.geo.ids):
            if ident in self.geo.central_set and i not in self.start:
                sim = _Sim(dict(self.start), frozenset(), (), (0, 0), ())
                sim.board[i] = -2
                self.parts[-2] = (self.colour, 0)
                head = P("{player} places an annihilator on {point}", player=P(NAME[self.player]), point=ident)
                yield f"0@{ident}", self._result(sim, head, (0,))

    def introductions(self, charge: int):
        pe = self.geo.pe_index[self.player]
        self.parts[-1] = (self.colour, charge)
        # "an 8", "a 5": the article is part of the message (other languages have their own)
        said = "{player} introduces an {charge} on {point}" if charge == 8 else "{player} introduces a {charge} on {point}"
        head = P(said, player=P(NAME[self.player]), charge=charge, point=self.geo.point_name(pe))
        base = _Sim(dict(self.start), frozenset({-1}), (), (0, 0), ())
        if pe not in base.board:
            base.board[pe] = -1
            yield f"{charge}@{self.geo.ids[pe]}", self._result(base, head, (charge,))
            return
        word = P("{charge} hit {other} there", charge=charge, other=self._name(base.board[pe]))
        for chain, sim in self.transfer(base, -1, pe, charge, word):
            yield f"{charge}@{self.geo.ids[pe]}{chain}", self._result(sim, head, (charge,))

    def emissions(self, start: int):
        """Every self-emission of the carrier on ``start`` (rules 3, 4, 5 and 6)."""
        geo = self.geo
        charge = self.parts[start][1]
        head = P("{player} self-emits the {charge} on {point}", player=P(NAME[self.player]), charge=charge,
                 point=geo.ids[start])
        reached = self._walks(start, charge)
        n = geo.n
        board0 = dict(self.start)
        del board0[start]
        seen: set[str] = set()
        forbid = self._forbid(start)
        for left in range(charge, 0, -1):
            level = (reached >> ((left) * n)) & ((1 << n) - 1) if left < charge else (1 << start)
            q = 0
            while level:
                if level & 1:
                    for p in geo.adj[q]:
                        if p in board0 and not (forbid[q] >> p & 1):
                            yield from self._strike(start, q, p, left - 1, board0, head, seen)
                level >>= 1
                q += 1
        rest = reached & ((1 << n) - 1)
        q = 0
        while rest:
            if rest & 1:
                sim = _Sim(dict(board0), frozenset({start}), (), (0, 0), ())
                note = self._rest(sim, start, q)
                sim.parts += (P("{charge} moved to {point}{note}", charge=charge, point=geo.point_name(q), note=note),)
                yield f"{geo.ids[start]}-{geo.ids[q]}", self._result(sim, head, ())
            rest >>= 1
            q += 1

    def _strike(self, start: int, before: int, at: int, force: int, board0: dict, head: Phrase, seen: set):
        geo = self.geo
        origin = geo.ids[start]
        target = board0[at]
        tcolour, tcharge = self.parts[target]
        name = self._name(start)
        if tcharge == 0 or force == 0:
            key = f"{origin}-{geo.ids[at]}x"
            if key in seen:
                return
            seen.add(key)
            sim = _Sim(dict(board0), frozenset({start}), (), (0, 0), ())
            del sim.board[at]
            note = self._annihilate(sim, (start, target), at)
            said = "{name} hit {target} at {point}: both annihilated{note}" if tcharge == 0 \
                else "{name} met {target} at {point}: both annihilated{note}"
            sim.parts += (P(said, name=name, target=self._name(target), point=geo.point_name(at), note=note),)
            yield key, self._result(sim, head, ())
            return
        sim = _Sim(dict(board0), frozenset({start}), (), (0, 0), ())
        word = P("{name} hit {target} at {point}", name=name, target=self._name(target), point=geo.point_name(at))
        found = False
        for chain, done in self.transfer(sim, start, at, force, word):
            found = True
            key = f"{origin}-{geo.ids[at]}{chain}"
            if key not in seen:
                seen.add(key)
                yield key, self._result(done, head, ())
        if not found and before != start:
            key = f"{origin}-{geo.ids[before]}!{geo.ids[at]}"
            if key not in seen:
                seen.add(key)
                sim = _Sim(dict(board0), frozenset({start}), (), (0, 0), ())
                note = self._rest(sim, start, before)
                sim.parts += (P("{name} stopped at {before} against {target} at {point}: force lost{note}", name=name,
                                before=geo.point_name(before), target=self._name(target), point=geo.point_name(at),
                                note=note),)
                yield key, self._result(sim, head, ())

    def _forbid(self, start: int) -> tuple[int, ...]:
        """Rule 6, per point: the steps the emitting carrier may not take from there."""
        dist = self.geo.dist[opponent(self.player)]
        others = [dist[i] for i, (c, ch) in self.original.items() if c == self.colour and ch > 0 and i != start]
        lead = min(others) if others else 10 ** 6
        closer = self.geo.closer[opponent(self.player)]
        return tuple(closer[i] if dist[i] <= lead else 0 for i in range(self.geo.n))

    def _walks(self, start: int, charge: int) -> int:
        """Bitmask of (point, steps left) pairs, bit ``left * n + point``, reachable by a
        self-avoiding walk of the carrier through empty points obeying rule 6."""
        geo = self.geo
        n = geo.n
        occ = self.occ & ~(1 << start)
        forbid = self._forbid(start)
        adj = geo.adj
        # Directed distances from the start through empty points: pairs farther than the
        # walk could go are marked found at once, so they never stop the pruning.
        far = 10 ** 6
        dist = [far] * n
        dist[start] = 0
        frontier = [start]
        while frontier:
            nxt = []
            for u in frontier:
                bad = occ | forbid[u]
                for v in adj[u]:
                    if dist[v] == far and not (bad >> v & 1):
                        dist[v] = dist[u] + 1
                        nxt.append(v)
            frontier = nxt
        found = 0
        for left in range(charge):
            feasible = sum(1 << q for q in range(n) if q != start and dist[q] <= charge - left)
            found |= (((1 << n) - 1) & ~feasible) << (left * n)
        impossible = found
        bound = geo.bound

        def walk(cur: int, left: int, visited: int) -> None:
            nonlocal found
            if not (bound(cur, left) & ~found):
                return
            bad = visited | occ | forbid[cur]
            shift = (left - 1) * n
            for v in adj[cur]:
                if bad >> v & 1:
                    continue
                found |= 1 << (shift + v)
                if left > 1:
                    walk(v, left - 1, visited | (1 << v))

        walk(start, charge, 1 << start)
        return found & ~impossible

    # -- the result ----------------------------------------------------------------------------

    def _result(self, sim: _Sim, head: Phrase, taken: tuple[int, ...]) -> Result:
        geo = self.geo
        final = {i: self.parts[pid] for i, pid in sim.board.items()}
        back: tuple[list[int], list[int]] = ([], [])
        for pid in sim.dead:
            colour, charge = self.parts[pid]
            back[0 if colour == "B" else 1].append(charge)  # flipped to the other shade
        spaces = {geo.ids[i] for i in set(final) | set(self.original) if final.get(i) != self.original.get(i)}
        if taken:
            spaces.add(geo.reserve[self.player])
        for k, p in enumerate(PLAYERS):
            if back[k]:
                spaces.add(geo.reserve[p])
        said = P("{head}: {chain}", head=head, chain=Joined(sim.parts, ", ")) if sim.parts else head
        return Result(tuple(sorted(final.items())), (tuple(back[0]), tuple(back[1])), sim.gains, frozenset(spaces), said)
