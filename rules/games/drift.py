"""DRIFT on the Annuli board (Poloidal Games), 2–6 players: pieces by rank, battles, coins,
and the drift phase in which the three rivers turn.

Rulings that settle what the rule text leaves open are in ``docs/rules/drift.md``; each has a
test in ``tests/rules/test_drift.py``. Code: this module (the position, applying moves,
notation, the view), ``drift_moves.py`` (move generation), ``drift_battle.py`` (pieces,
battles, evictions), ``drift_geometry.py`` (the board), ``drift_position.py`` (position files).

A turn is several moves, one per piece action; it ends with ``end`` (declared: the board does
not change), or when the next player's piece moves, or — for the round's last player — when
the rivers are turned. After every round the game is in the ``drift`` phase until ``drift``
(every river turned one arrow in its own direction, everything on it riding along) is seen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..board import Board, load_board
from ..errors import InvalidStateError
from ..explain import SpaceFix
from ..game import Game, OptionSpec, Outcome, State
from ..phrase import P, Phrase
from ..registry import register
from ..view import Fidelity, View
from .drift_battle import Roster, battle, roster, send_home
from .drift_geometry import COIN_TYPES, geometry
from .drift_moves import (
    ATTACK, DRIFT, DROP, END, PILFER, PLACE, STEP, TAKE, Action, end_moves, piece_moves, placements,
)
from .drift_text import describe, move_text, parse_move, river_fix

COLOURS = ("red", "blue", "green", "yellow", "white", "black")
CARRIED = "carried:"  # token prefix of a coin carried on edge by a piece


@dataclass(frozen=True, eq=False)
class DriftState(State):
    players: tuple[str, ...]  # colours in turn order: clockwise from the circle (D2)
    homes: tuple[str, ...]  # each player's geo-marker
    ranks: tuple[int, int, int]  # pieces per player of rank III, II, I
    locs: tuple[int, ...]  # per piece (roster order): its space, -1 out of play
    carried: tuple[str, ...]  # per piece: the coin type it carries, or ""
    lying: tuple[tuple[int, str], ...]  # coins on spaces, sorted (space, type); repeats allowed
    repos: tuple[tuple[str, ...], ...]  # per player: types deposited on its repository
    rots: tuple[int, int, int] = (0, 0, 0)  # steps each river has turned, in its flow direction
    stage: str = "play"  # setup | play | drift
    seat: int = 0
    moved: frozenset[int] = frozenset()  # pieces that have moved this turn
    current: int = -1  # the piece that moved last, which may go on while it has points
    points: int = 0  # the current piece's points left
    left_river: int = -1  # the river the current piece left in this move: not to be entered again (D6)
    crowd: frozenset[int] = frozenset()  # the mover's pieces in its home when the turn began, if 2+ (D4)
    to_place: tuple[int, int, int] = (0, 0, 0)  # setup: coins of each type still to place

    game_name: ClassVar[str] = "drift"

    # -- identity -----------------------------------------------------------------------------

    def _key(self) -> tuple:
        # Pieces of one colour and rank are interchangeable in the rules: positions that differ
        # only in which of them is where are one position (D20), so that a kind sensor is never
        # asked which of two look-alike pieces left a crowded home.
        key = self.__dict__.get("_k")
        if key is None:
            ro = self.roster
            groups: dict[str, list[tuple]] = {}
            for p, kind in enumerate(ro.kind):
                groups.setdefault(kind, []).append(
                    (self.locs[p], self.carried[p], p in self.moved, p == self.current, p in self.crowd))
            going_on = self.current >= 0
            key = (self.players, self.homes, self.ranks, tuple(tuple(sorted(g)) for g in groups.values()),
                   self.lying, self.repos, self.rots, self.stage, self.seat,
                   self.points if going_on else 0, self.left_river if going_on else -1, self.to_place)
            object.__setattr__(self, "_k", key)
        return key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DriftState):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    # -- derived ------------------------------------------------------------------------------

    @property
    def roster(self) -> Roster:
        return roster(self.players, self.ranks)

    @property
    def home_list(self) -> tuple[int, ...]:
        """Each player's home space."""
        cached = self.__dict__.get("_hl")
        if cached is None:
            geo = geometry()
            cached = tuple(geo.home[m] for m in self.homes)
            object.__setattr__(self, "_hl", cached)
        return cached

    @property
    def home_owner(self) -> dict[int, int]:
        cached = self.__dict__.get("_ho")
        if cached is None:
            cached = {h: seat for seat, h in enumerate(self.home_list)}
            object.__setattr__(self, "_ho", cached)
        return cached

    @property
    def adj(self) -> tuple[tuple[int, ...], ...]:
        return geometry().adjacency(self.rots)

    @property
    def occ(self) -> dict[int, tuple[int, ...]]:
        """Space → the pieces on it."""
        cached = self.__dict__.get("_occ")
        if cached is None:
            work: dict[int, list[int]] = {}
            for p, s in enumerate(self.locs):
                if s >= 0:
                    work.setdefault(s, []).append(p)
            cached = {s: tuple(ps) for s, ps in work.items()}
            object.__setattr__(self, "_occ", cached)
        return cached

    def barred_to(self, seat: int, coin: str) -> frozenset[int]:
        """Spaces a piece of ``seat`` carrying ``coin`` may not enter (D17)."""
        if not coin:
            return frozenset()
        own = self.home_list[seat]
        return frozenset(h for h in self.home_list if h != own or coin in self.repos[seat])

    @property
    def to_move(self) -> str:
        return self.players[self.seat]

    @property
    def phase(self) -> str:
        return "over" if self.winner() is not None else self.stage

    def winner(self) -> str | None:
        # "The first player to get one of each type of DRIFT coin to their home repository wins."
        for colour, repo in zip(self.players, self.repos):
            if len(repo) == len(COIN_TYPES):
                return colour
        return None

    def outcome(self) -> Outcome | None:
        w = self.winner()
        return None if w is None else Outcome.of(w, P("one coin of each type on the repository"), self.scores())

    def scores(self) -> Mapping[str, int]:
        """Coins on each player's repository."""
        return {c: len(r) for c, r in zip(self.players, self.repos)}

    # -- moves --------------------------------------------------------------------------------

    def legal_moves(self) -> tuple[Action, ...]:
        cached = self.__dict__.get("_moves")
        if cached is None:
            cached = tuple(self._generate())
            object.__setattr__(self, "_moves", cached)
        return cached

    def _generate(self) -> list[Action]:
        if self.winner() is not None:
            return []
        if self.stage == "setup":
            return placements(self)
        if self.stage == "drift":
            return [Action(DRIFT)]
        own = piece_moves(self)
        ends = end_moves(self, own)
        out = own + ends
        if ends == [Action(END)]:
            after = self._ended(())
            if after.stage == "drift":
                out.append(Action(DRIFT, after_end=True))
            else:
                out += [Action(m.kind, m.piece, m.space, m.coin, m.removed, m.cost, True) for m in piece_moves(after)]
        return out

    def successor(self, move: Action) -> "DriftState":
        if move.after_end:
            return self._ended(()).successor(move.inner())
        kind = move.kind
        if kind == END:
            return self._ended(move.removed)
        if kind == DRIFT:
            geo = geometry()
            rots = tuple((r + 1) % river.size for r, river in zip(self.rots, geo.rivers))
            return self._with(rots=rots, stage="play", seat=0, crowd=self.crowd_of(0, self.locs))
        if kind == PLACE:
            left = list(self.to_place)
            left[COIN_TYPES.index(move.coin)] -= 1
            lying = tuple(sorted(self.lying + ((move.space, move.coin),)))
            if any(left):
                return self._with(lying=lying, to_place=tuple(left))
            return self._with(lying=lying, to_place=tuple(left), stage="play", crowd=self.crowd_of(self.seat, self.locs))
        p = move.piece
        locs, carried = list(self.locs), list(self.carried)
        lying, repos = list(self.lying), [list(r) for r in self.repos]
        points = 0
        going_on = p == self.current
        river_of = geometry().river_of
        left_river = self.left_river if going_on else river_of[self.locs[p]]
        if kind == STEP:
            locs[p] = move.space
            if river_of[move.space] < 0:
                points = (self.points if going_on else self.roster.rank[p]) - move.cost
        elif kind == ATTACK:
            defender = self.occ[move.space][0]
            locs[p] = move.space
            for ev in send_home(self.roster, locs, carried, self.home_list, defender, move.space):
                if ev.dropped:
                    lying.append((ev.origin, ev.dropped))
        elif kind == TAKE:
            lying.remove((self.locs[p], move.coin))
            carried[p] = move.coin
        elif kind == PILFER:
            repos[self.home_owner[self.locs[p]]].remove(move.coin)
            carried[p] = move.coin
        elif kind == DROP:
            carried[p] = ""
            me = self.seat
            if self.locs[p] == self.home_list[me] and move.coin not in repos[me]:
                repos[me] = sorted(repos[me] + [move.coin], key=COIN_TYPES.index)
            else:
                lying.append((self.locs[p], move.coin))
        else:
            raise InvalidStateError(f"drift: not a DRIFT move: {move!r}")
        return self._with(locs=tuple(locs), carried=tuple(carried), lying=tuple(sorted(lying)),
                          repos=tuple(tuple(r) for r in repos), moved=self.moved | {p}, current=p, points=points,
                          left_river=left_river if points > 0 else -1)

    def _ended(self, removed: tuple[int, ...]) -> "DriftState":
        """The turn over: pieces that could not leave a crowded home go out of play (their coins
        stay in the home); then the next player, or after the round's last the drift phase."""
        locs, carried, lying = list(self.locs), list(self.carried), list(self.lying)
        for q in removed:
            if carried[q]:
                lying.append((locs[q], carried[q]))
                carried[q] = ""
            locs[q] = -1
        last = self.seat == len(self.players) - 1
        # The next turn's crowd is counted when it begins: after the drift for the first player.
        crowd = frozenset() if last else self.crowd_of(self.seat + 1, locs)
        return self._with(locs=tuple(locs), carried=tuple(carried), lying=tuple(sorted(lying)),
                          stage="drift" if last else "play", seat=0 if last else self.seat + 1,
                          moved=frozenset(), current=-1, points=0, left_river=-1, crowd=crowd)

    def crowd_of(self, seat: int, locs: tuple[int, ...] | list[int]) -> frozenset[int]:
        """The pieces of ``seat`` in its home, if two or more: those that must leave it (D4)."""
        home = self.home_list[seat]
        inside = frozenset(p for p in self.roster.pieces_of(seat) if locs[p] == home)
        return inside if len(inside) > 1 else frozenset()

    def _with(self, **changes: Any) -> "DriftState":
        return replace(self, **changes)

    def battle_of(self, move: Action):
        """The battle an attack fights, from its best launch space (for the description)."""
        st = self._ended(()) if move.after_end else self
        return best_battle(st, move.piece, move.space)

    def move_spaces(self, move: Action) -> frozenset[str]:
        geo = geometry()
        ids = geo.ids
        kind = move.kind
        if kind == DRIFT:
            return frozenset(r.rotation_space for r in geo.rivers)
        if kind == END:
            return frozenset(ids[self.locs[q]] for q in move.removed)
        if kind == PLACE:
            return frozenset((ids[move.space],))
        here = self.locs[move.piece]
        if kind == STEP:
            return frozenset((ids[here], ids[move.space]))
        if kind == ATTACK:
            locs, carried = list(self.locs), list(self.carried)
            locs[move.piece] = move.space
            evs = send_home(self.roster, locs, carried, self.home_list, self.occ[move.space][0], move.space)
            return frozenset([ids[here], ids[move.space]] + [ids[e.home] for e in evs if e.home >= 0])
        out = {ids[here]}
        if kind == PILFER:
            out.add(geo.repository[self.homes[self.home_owner[here]]])
        elif kind == DROP and here in self.home_owner:
            out.add(geo.repository[self.homes[self.home_owner[here]]])
        return frozenset(out)

    # -- teaching (rules/teach.py) -----------------------------------------------------------------

    def lift_marks(self, space: str, moves: tuple[Action, ...]) -> Mapping[str, str]:
        """The pieces the lifted one may attack (it ends on their space if it wins)."""
        ids = geometry().ids
        return {ids[m.space]: "attack" for m in moves if m.kind == ATTACK}

    # -- notation -----------------------------------------------------------------------------

    def move_text(self, move: Action) -> str:
        return move_text(self, move)

    def parse_move(self, text: str) -> Action:
        return parse_move(self, text)

    def move_phrase(self, move: Action) -> Phrase:
        return describe(self, move)

    # -- sensing ------------------------------------------------------------------------------

    def view(self, fidelity: Fidelity) -> View:
        key = "_view_" + fidelity.value
        cached = self.__dict__.get(key)
        if cached is None:
            if fidelity is Fidelity.OCCUPANCY:
                cached = self.view(Fidelity.KIND).at_fidelity(Fidelity.OCCUPANCY)
            else:
                cached = View(self._tokens(fidelity is Fidelity.IDENTITY))
            object.__setattr__(self, key, cached)
        return cached

    def _tokens(self, identity: bool) -> dict[str, list[str]]:
        # Coins of a type are interchangeable, so a coin reads as its type at every fidelity
        # (D20); a carried coin stands on edge on its piece. River arrows are named by the
        # arrow on the ring, so turning a river changes only its rotation marker's reading.
        geo = geometry()
        ro = self.roster
        names = ro.ids if identity else ro.kind
        spaces: dict[str, list[str]] = {}
        for p, s in enumerate(self.locs):
            if s >= 0:
                spaces.setdefault(geo.ids[s], []).append(names[p])
                if self.carried[p]:
                    spaces[geo.ids[s]].append(CARRIED + self.carried[p])
        for s, t in self.lying:
            spaces.setdefault(geo.ids[s], []).append(t)
        for marker, repo in zip(self.homes, self.repos):
            if repo:
                spaces[geo.repository[marker]] = list(repo)
        for river, r in zip(geo.rivers, self.rots):
            spaces[river.rotation_space] = [str(r)]
        return spaces

    def restore(self, observed: View, fixes: tuple[SpaceFix, ...]) -> tuple[SpaceFix, ...]:
        """A wrong drift: only the rivers turned wrong go back; a river already showing its
        drift (one arrow on, D19) stays as it is (the board is then part-way to the drift)."""
        if not any(m.kind == DRIFT for m in self.legal_moves()):
            return fixes
        drifted = self.successor(Action(DRIFT)).view(Fidelity.KIND)
        rings = {r.rotation_space for r in geometry().rivers}
        return tuple(f for f in fixes if f.space not in rings or f.observed != drifted.get_tokens(f.space))

    def fix_phrase(self, fix: SpaceFix) -> Phrase | None:
        return river_fix(fix)

    def why_illegal(self, attempt: Any) -> Any:
        from .drift_why import why_illegal  # the rules a board can break live apart (rules/why.py)

        return why_illegal(self, attempt)

    # -- persistence --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        from .drift_position import position_dict

        return position_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "DriftState":
        from .drift_position import parse_position

        return parse_position(data)


def best_battle(st: DriftState, piece: int, target: int):
    """The winning battle of ``piece`` against ``target`` with the best margin, over the spaces
    it can launch from (D9). ``None`` if it has no winning launch."""
    geo = geometry()
    ro = st.roster
    pts = st.points if piece == st.current else ro.rank[piece]
    s = st.locs[piece]
    dist, order = {s: 0}, [s]
    barred = st.barred_to(ro.owner[piece], st.carried[piece])
    for u in order:
        if dist[u] >= pts:
            continue
        for v in st.adj[u]:
            if v not in dist and v not in st.occ and v not in barred and geo.river_of[v] < 0:
                dist[v] = dist[u] + 1
                order.append(v)
    best = None
    for launch in order:
        if dist[launch] < pts and target in st.adj[launch]:
            b = battle(ro, st.adj, geo.river_of, st.occ, st.carried, st.home_list, piece, target, launch)
            if b.wins and (best is None or b.attack_total > best.attack_total):
                best = b
    return best


# -- the game ---------------------------------------------------------------------------------


def parse_players(text: str) -> str:
    """``red:circle,blue:square``: each player's colour and drawn geo-marker; returned in turn
    order (clockwise from the circle)."""
    markers = geometry().markers
    pairs = []
    for item in str(text).split(","):
        colour, sep, marker = item.strip().partition(":")
        if not sep or colour not in COLOURS or marker not in markers:
            raise ValueError(f"expected colour:marker pairs (colours {', '.join(COLOURS)}; markers "
                             f"{', '.join(markers)}), not {item.strip()!r}")
        pairs.append((colour, marker))
    if not 2 <= len(pairs) <= 6:
        raise ValueError("DRIFT is for 2 to 6 players")
    if len({c for c, _ in pairs}) != len(pairs) or len({m for _, m in pairs}) != len(pairs):
        raise ValueError("each player needs a colour and a marker of its own")
    pairs.sort(key=lambda cm: markers.index(cm[1]))
    return ",".join(f"{c}:{m}" for c, m in pairs)


def parse_ranks(text: str) -> str:
    """``2,2,2``: pieces per player of rank III, II and I."""
    try:
        counts = [int(x) for x in str(text).split(",")]
    except ValueError:
        raise ValueError(f"expected three counts like 2,2,2, not {text!r}") from None
    if len(counts) != 3 or any(not 0 <= c <= 6 for c in counts) or not 1 <= sum(counts) <= 6:
        raise ValueError("expected three counts (III,II,I), each 0-6, 1-6 pieces in all")
    return ",".join(map(str, counts))


DEFAULT_PLAYERS = "red:circle,blue:square,green:hexagon"


@register
class Drift(Game):
    name = "drift"
    title = "DRIFT on the Annuli board"
    players = COLOURS
    state_class = DriftState
    options = {
        "players": OptionSpec(DEFAULT_PLAYERS, parse_players,
                              "colour:marker for each of 2-6 players (default red:circle,blue:square,green:hexagon)"),
        "ranks": OptionSpec("2,2,2", parse_ranks, "pieces per player of rank III,II,I (default 2,2,2)"),
    }

    def board(self) -> Board:
        return load_board("drift")

    def _empty(self, options: Mapping[str, Any] | None) -> DriftState:
        opts = self.parse_options(options)
        pairs = [p.split(":") for p in opts["players"].split(",")]
        players, homes = tuple(c for c, _ in pairs), tuple(m for _, m in pairs)
        ranks = tuple(int(x) for x in opts["ranks"].split(","))
        geo = geometry()
        ro = roster(players, ranks)
        locs = tuple(geo.home[homes[ro.owner[p]]] for p in range(len(ro.ids)))
        n = len(players)
        return DriftState(players, homes, ranks, locs, ("",) * len(locs), (), ((),) * n, stage="setup",
                          to_place=(n, n, n))

    def start(self, options: Mapping[str, Any] | None = None) -> DriftState:
        """Every piece in its home; the coins still to place (setup)."""
        return self._empty(options)

    def default_setup(self, options: Mapping[str, Any] | None = None) -> DriftState:
        """Ready to play: the coins placed evenly round their rings (docs/rules/drift.md)."""
        st = self._empty(options)
        geo, n = geometry(), len(st.players)
        lying = []
        for coin, ring, first in (("copper", "outer", 2), ("gold", "middle", 3), ("silver", "inner", 1)):
            spaces = geo.land_rings[ring]
            free = [s for s in spaces[first:] + spaces[:first] if s not in geo.home_spaces]
            lying += [(free[k * len(free) // n], coin) for k in range(n)]
        return st._with(lying=tuple(sorted(lying)), stage="play", to_place=(0, 0, 0), crowd=st.crowd_of(0, st.locs))


__all__ = ["Action", "DriftState", "Drift"]
