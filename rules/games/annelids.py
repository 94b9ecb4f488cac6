"""Annelids (2011): directional annelids grow along the edges of a 4.8.8 board.

Rulings that settle what the rule text leaves open are in ``docs/rules/annelids.md``; each
has a test in ``tests/rules/test_annelids.py``.

A turn is several moves. A **move** is one placement (``b1e-b2sw``: the annelid whose tail
lies on b1e grows onto b2sw), one removal (``b1e-x``: that annelid extends into an occupied
edge and is taken off the board, tail included), one reconnection (``~c3d4``: the two
segments in the small square between c3 and d4 are moved onto its other two sides), or a
resignation (``resign``). The state knows the turn's quota and how many placements were made
(a removal counts as one); the last one passes the turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..board import Board, load_board
from ..errors import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from ..game import Game, Outcome, State
from ..phrase import P, Phrase
from ..registry import register
from ..view import OCCUPIED, Fidelity, View
from .annelids_geometry import EDGE_RE, SQUARE_RE, geometry

BLUE, GREEN = "blue", "green"
PLAYERS = (BLUE, GREEN)
FIRST_TURN = 4  # Blue's first turn places exactly four segments
SEGMENT = "segment"  # segments are alike whoever placed them

# The starting layout (docs/rules/annelids.md, "Starting layout"): two staggered rows of four
# vertical tails per player, all pointing at the opponent; Green's is Blue's turned a half-turn.
START_TAILS: dict[str, tuple[tuple[str, str], ...]] = {
    BLUE: (("b1e", "N"), ("e1e", "N"), ("h1e", "N"), ("k1e", "N"),
           ("a4e", "N"), ("d4e", "N"), ("g4e", "N"), ("j4e", "N")),
    GREEN: (("j12e", "S"), ("g12e", "S"), ("d12e", "S"), ("a12e", "S"),
            ("k9e", "S"), ("h9e", "S"), ("e9e", "S"), ("b9e", "S")),
}


def _segments(n: int) -> Phrase:
    return P("{n} segment", "{n} segments", n=n)


def opponent(player: str) -> str:
    return GREEN if player == BLUE else BLUE


# -- pieces and moves -----------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Annelid:
    """A tail (its edge, colour and heading: the way its flat end faces) and its segments,
    in order from the tail to the head. Named by its tail's edge: tails never move."""

    tail: str
    colour: str
    heading: str
    segments: tuple[str, ...] = ()

    @property
    def edges(self) -> tuple[str, ...]:
        return (self.tail, *self.segments)

    def to_dict(self) -> dict[str, Any]:
        return {"tail": self.tail, "colour": self.colour, "heading": self.heading, "segments": list(self.segments)}


@dataclass(frozen=True, order=True)
class Place:
    """The annelid with tail ``tail`` grows one segment, onto the empty edge ``edge``."""

    tail: str
    edge: str


@dataclass(frozen=True, order=True)
class Remove:
    """The annelid with tail ``tail`` extends into an occupied edge: it is removed, tail and all."""

    tail: str


@dataclass(frozen=True, order=True)
class Reconnect:
    """The two segments on opposite sides of small square ``square`` move to its other two sides."""

    square: str


@dataclass(frozen=True, order=True)
class Resign:
    """The player to move resigns."""


RESIGN = Resign()


# -- the position ------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnelidsState(State):
    annelids: tuple[Annelid, ...]  # sorted by tail
    player: str = BLUE
    quota: int = FIRST_TURN  # placements this turn
    placed: int = 0  # placements (removals included) made so far this turn
    winner: str | None = None
    reason: str = ""

    game_name: ClassVar[str] = "annelids"

    # -- queries ------------------------------------------------------------------------------

    @property
    def to_move(self) -> str:
        return self.player

    @property
    def phase(self) -> str:
        return "over" if self.winner is not None else "play"

    @property
    def left(self) -> int:
        """Placements still to make this turn."""
        return self.quota - self.placed

    def outcome(self) -> Outcome | None:
        if self.winner is None:
            return None
        # The reason is kept as its English word ("resignation"), the message id to say it by.
        return Outcome(self.winner, self.reason, self.scores(), P(self.reason) if self.reason else None)

    def scores(self) -> Mapping[str, int]:
        """Surviving annelids per player."""
        return {p: sum(1 for a in self.annelids if a.colour == p) for p in PLAYERS}

    def annelid(self, tail: str) -> Annelid:
        return self.annelids[self._index()[2][tail]]

    def _index(self) -> tuple[dict[str, tuple[int, int]], list[list[str]], dict[str, int]]:
        """(edge -> (annelid number, segment position; -1 for the tail),
        each annelid's vertices from its tail's flat end to its head, tail -> annelid number)."""
        cached = self.__dict__.get("_idx")
        if cached is None:
            geo = geometry()
            occ: dict[str, tuple[int, int]] = {}
            paths: list[list[str]] = []
            by_tail: dict[str, int] = {}
            other = geo.other
            for n, a in enumerate(self.annelids):
                by_tail[a.tail] = n
                occ[a.tail] = (n, -1)
                v = geo.towards(a.tail, a.heading)
                path = [v]
                for k, e in enumerate(a.segments):
                    occ[e] = (n, k)
                    v = other[(e, v)]
                    path.append(v)
                paths.append(path)
            cached = (occ, paths, by_tail)
            object.__setattr__(self, "_idx", cached)
        return cached

    def is_taken(self, edge: str) -> bool:
        """An annelid's segment or tail lies on ``edge``."""
        return edge in self._index()[0]

    def head(self, tail: str) -> tuple[str, str]:
        """(the annelid's last edge, the vertex it grows from)."""
        _, paths, by_tail = self._index()
        n = by_tail[tail]
        a = self.annelids[n]
        return (a.segments[-1] if a.segments else a.tail), paths[n][-1]

    # -- move generation ----------------------------------------------------------------------

    def legal_moves(self) -> tuple:
        cached = self.__dict__.get("_moves")
        if cached is None:
            cached = self._generate()
            object.__setattr__(self, "_moves", cached)
        return cached

    def _generate(self) -> tuple:
        if self.winner is not None:
            return ()
        geo = geometry()
        occ, paths, _ = self._index()
        places: list[Place] = []
        removes: list[Remove] = []
        for n, a in enumerate(self.annelids):
            if a.colour != self.player:
                continue
            last = a.segments[-1] if a.segments else a.tail
            hit = False
            for e in geo.onward[(last, paths[n][-1])]:
                if e in occ:
                    hit = True
                else:
                    places.append(Place(a.tail, e))
            if hit:
                removes.append(Remove(a.tail))
        moves: list[Any] = sorted(places) + removes
        moves += sorted(self._reconnections())
        if self.placed == 0:
            moves.append(RESIGN)
        return tuple(moves)

    def _reconnections(self) -> set[Reconnect]:
        geo = geometry()
        occ, _, _ = self._index()
        found: set[Reconnect] = set()
        for a in self.annelids:
            if a.colour != self.player:
                continue
            for e in a.segments:
                where = geo.square_of.get(e)
                if where is None or Reconnect(where[0]) in found:
                    continue
                if self._reconnected(where[0]) is not None:
                    found.add(Reconnect(where[0]))
        return found

    def _reconnected(self, square: str) -> tuple[tuple[int, Annelid], tuple[int, Annelid]] | None:
        """The two annelids after a reconnection at ``square`` (with their numbers), or None
        if the rules do not allow one there now."""
        geo = geometry()
        occ, paths, _ = self._index()
        sides = geo.squares[square]
        taken = [s for s in sides if s in occ]
        if len(taken) != 2:
            return None
        i = sides.index(taken[0])
        if sides[(i + 2) % 4] != taken[1]:
            return None  # two adjacent sides: not a pass
        (na, ia), (nb, ib) = occ[taken[0]], occ[taken[1]]
        if na == nb or ia < 0 or ib < 0:
            return None  # one annelid twice, or a tail in the junction
        a, b = self.annelids[na], self.annelids[nb]
        if self.player not in (a.colour, b.colour):
            return None  # two of the opponent's annelids: only their owner may
        a_in, b_out = paths[na][ia], paths[nb][ib + 1]
        free = [sides[(i + 1) % 4], sides[(i + 3) % 4]]
        join_a = next(s for s in free if a_in in geo.ends[s])  # A's tail part → B's head part
        if b_out not in geo.ends[join_a]:
            return None  # same direction: it would join tail to tail
        join_b = free[1] if join_a == free[0] else free[0]
        before = ia - ib
        after = (len(a.segments) - ia - 1) - (len(b.segments) - ib - 1)
        if before * after <= 0:
            return None  # the longer part before the junction must also be longer after it
        new_a = Annelid(a.tail, a.colour, a.heading, a.segments[:ia] + (join_a,) + b.segments[ib + 1:])
        new_b = Annelid(b.tail, b.colour, b.heading, b.segments[:ib] + (join_b,) + a.segments[ia + 1:])
        return (na, new_a), (nb, new_b)

    # -- applying -------------------------------------------------------------------------------

    def successor(self, move: Any) -> "AnnelidsState":
        if isinstance(move, Place):
            n = self._index()[2][move.tail]
            a = self.annelids[n]
            grown = Annelid(a.tail, a.colour, a.heading, a.segments + (move.edge,))
            return self._placed(self.annelids[:n] + (grown,) + self.annelids[n + 1:])
        if isinstance(move, Remove):
            n = self._index()[2][move.tail]
            rest = self.annelids[:n] + self.annelids[n + 1:]
            if not any(a.colour == self.player for a in rest):
                return AnnelidsState(rest, self.player, self.quota, self.placed + 1, opponent(self.player),
                                     "last annelid removed")
            return self._placed(rest)
        if isinstance(move, Reconnect):
            done = self._reconnected(move.square)
            if done is None:
                raise IllegalMoveError(f"annelids: no reconnection at {move.square} here")
            worms = list(self.annelids)
            for n, a in done:
                worms[n] = a
            return AnnelidsState(tuple(worms), self.player, self.quota, self.placed)
        if isinstance(move, Resign):
            return AnnelidsState(self.annelids, self.player, self.quota, self.placed, opponent(self.player),
                                 "resignation")
        raise IllegalMoveError(f"annelids: not an Annelids move: {move!r}")

    def _placed(self, worms: tuple[Annelid, ...]) -> "AnnelidsState":
        if self.placed + 1 < self.quota:
            return AnnelidsState(worms, self.player, self.quota, self.placed + 1)
        nxt = opponent(self.player)
        return AnnelidsState(worms, nxt, sum(1 for a in worms if a.colour == nxt), 0)

    def move_spaces(self, move: Any) -> frozenset[str]:
        if isinstance(move, Place):
            return frozenset((move.edge,))
        if isinstance(move, Remove):
            return frozenset(self.annelid(move.tail).edges)
        if isinstance(move, Reconnect):
            return frozenset(geometry().squares[move.square])
        return frozenset()

    def why_illegal(self, attempt: Any) -> Any:
        """The rule an illegal board breaks (rules/why.py; the checks: annelids_why.py)."""
        from .annelids_why import why_illegal

        return why_illegal(self, attempt)

    # -- notation -------------------------------------------------------------------------------

    def move_text(self, move: Any) -> str:
        if isinstance(move, Place):
            return f"{move.tail}-{move.edge}"
        if isinstance(move, Remove):
            return f"{move.tail}-x"
        if isinstance(move, Reconnect):
            return f"~{move.square}"
        if isinstance(move, Resign):
            return "resign"
        raise MoveSyntaxError(f"annelids: not an Annelids move: {move!r}")

    def parse_move(self, text: str) -> Any:
        t = text.strip()
        move: Any
        tail, sep, rest = t.partition("-")
        if t == "resign":
            move = RESIGN
        elif t.startswith("~") and SQUARE_RE.fullmatch(t[1:]):
            move = Reconnect(t[1:])
        elif sep and EDGE_RE.fullmatch(tail) and rest == "x":
            move = Remove(tail)
        elif sep and EDGE_RE.fullmatch(tail) and EDGE_RE.fullmatch(rest):
            move = Place(tail, rest)
        elif EDGE_RE.fullmatch(t):
            fits = [m for m in self.legal_moves() if isinstance(m, Place) and m.edge == t]
            if len(fits) > 1:
                names = ", ".join(self.move_text(m) for m in fits)
                raise AmbiguousMoveError(f"annelids: {t}: several annelids can grow there ({names})")
            if not fits:
                raise IllegalMoveError(f"annelids: no {self.player} annelid can grow onto {t} here")
            move = fits[0]
        else:
            raise MoveSyntaxError(
                f"annelids: cannot read move {text!r} (expected e.g. 'b1e-b2sw', 'b2sw', 'b1e-x', '~c3d4', 'resign')"
            )
        if not self.is_legal(move):
            raise IllegalMoveError(f"annelids: {t} is not legal here ({self.player} to move, "
                                   f"{self.left} placement(s) left)")
        return move

    def move_phrase(self, move: Any) -> Phrase:
        who = P(self.player.capitalize())
        if isinstance(move, Place):
            a = self.annelid(move.tail)
            return P("{who} grows the {colour} annelid from tail {tail} onto {edge} ({segments}; {left} placement(s) left)",
                     who=who, colour=P(a.colour), tail=a.tail, edge=move.edge, segments=_segments(len(a.segments) + 1),
                     left=self.left - 1)
        if isinstance(move, Remove):
            a = self.annelid(move.tail)
            return P("{who} runs the {colour} annelid from tail {tail} into an annelid: remove it from the board, "
                     "tail and {segments}", who=who, colour=P(a.colour), tail=a.tail, segments=_segments(len(a.segments)))
        if isinstance(move, Reconnect):
            done = self._reconnected(move.square)
            if done is None:
                return P("{who} reconnects at {square}", who=who, square=move.square)
            (_, x), (_, y) = done
            return P("{who} reconnects at {square}: the {colour} annelid from tail {tail} now has {count} segments, "
                     "the {other} one from {other_tail} {other_count}", who=who, square=move.square,
                     colour=P(x.colour), tail=x.tail, count=len(x.segments), other=P(y.colour), other_tail=y.tail,
                     other_count=len(y.segments))
        if isinstance(move, Resign):
            return P("{who} resigns", who=who)
        raise MoveSyntaxError(f"annelids: not an Annelids move: {move!r}")

    # -- sensing ----------------------------------------------------------------------------------

    def view(self, fidelity: Fidelity) -> View:
        # A tail reads as its colour and heading ("blue:N"); segments are alike, so identity
        # reads as kind.
        key = "_view_occ" if fidelity is Fidelity.OCCUPANCY else "_view_kind"
        cached = self.__dict__.get(key)
        if cached is None:
            spaces: dict[str, str] = {}
            for a in self.annelids:
                if fidelity is Fidelity.OCCUPANCY:
                    spaces[a.tail] = OCCUPIED
                    spaces.update(dict.fromkeys(a.segments, OCCUPIED))
                else:
                    spaces[a.tail] = f"{a.colour}:{a.heading}"
                    spaces.update(dict.fromkeys(a.segments, SEGMENT))
            cached = View(spaces)
            object.__setattr__(self, key, cached)
        return cached

    # -- persistence -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "annelids",
            "to_move": self.player,
            "quota": self.quota,
            "placed": self.placed,
            "annelids": [a.to_dict() for a in self.annelids],
            "winner": self.winner,
            "reason": self.reason or None,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AnnelidsState":
        from .annelids_position import parse_position

        return parse_position(data)


@register
class Annelids(Game):
    name = "annelids"
    title = "Annelids"
    players = PLAYERS
    state_class = AnnelidsState

    def board(self) -> Board:
        return load_board("annelids")

    def start(self, options: Mapping[str, Any] | None = None) -> AnnelidsState:
        self.parse_options(options)
        worms = [Annelid(edge, colour, heading) for colour, tails in START_TAILS.items() for edge, heading in tails]
        return AnnelidsState(tuple(sorted(worms)), BLUE, FIRST_TURN, 0)
