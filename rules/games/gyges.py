"""Gygès (Claude Leroy): rings moved by height, bounces, bumps, throne capture.

Rulings that settle what the rule text leaves open are in ``docs/rules/gyges.md``;
each has a test in ``tests/rules/test_gyges.py``.

A move is identified by its *outcome*, not its path: ``a1-c3`` (the ring on a1 ends on
c3), ``a1-c3/b4`` (it ends on c3 and the ring it landed on is repositioned to b4),
``a1-N`` (it ends on North's throne). Two paths to the same outcome are the same move;
the path only matters for whether the outcome is reachable. Setup placements are
``2@a1``; a Game of Kings repositioning of the winning ring is ``N/c4``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..board import Board, load_board
from ..errors import IllegalMoveError, InvalidStateError, MoveSyntaxError
from ..game import Game, OptionSpec, Outcome, State
from ..phrase import P, Phrase
from ..registry import register
from ..strict import expect_keys
from ..view import OCCUPIED, Fidelity, View

SOUTH, NORTH = "south", "north"
PLAYERS = (SOUTH, NORTH)
THRONE = {SOUTH: "S", NORTH: "N"}
HEIGHT_NAMES = {1: "single", 2: "double", 3: "triple"}
RINGS_PER_HEIGHT = 4  # the box: 4 single, 4 double, 4 triple
SETUP_PER_HEIGHT = 2  # each player sets up 2 of each height
COLUMNS = "abcdef"


def _row(space: str) -> int:
    return int(space[1])


def _opponent(player: str) -> str:
    return NORTH if player == SOUTH else SOUTH


class _Geometry:
    """The board, precomputed for move generation: neighbours with connector bits."""

    def __init__(self, board: Board) -> None:
        self.board = board
        index = {c.key: i for i, c in enumerate(board.connectors)}
        self.adjacent: dict[str, tuple[tuple[str, int], ...]] = {
            s: tuple((nb, 1 << index[c.key]) for nb, c in board.neighbours(s)) for s in board.space_ids
        }
        self.grid: tuple[str, ...] = board.zone("grid")
        self.grid_set = frozenset(self.grid)
        self.starting_line = {SOUTH: board.zone("starting_line_south"), NORTH: board.zone("starting_line_north")}


_GEOMETRY: _Geometry | None = None


def _geometry() -> _Geometry:
    global _GEOMETRY
    if _GEOMETRY is None:
        _GEOMETRY = _Geometry(load_board("gyges"))
    return _GEOMETRY


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Placement:
    """Setup: put a ring of ``height`` on ``space`` of its player's starting line."""

    space: str
    height: int


@dataclass(frozen=True)
class RingMove:
    """A ring's whole turn: from ``start`` it ends on ``end``; ``bump_to`` if it bumped."""

    start: str
    end: str
    bump_to: str | None = None

    def sort_key(self) -> tuple[str, str, str]:
        return (self.start, self.end, self.bump_to or "")


@dataclass(frozen=True, order=True)
class Reposition:
    """Game of Kings: the loser moves the winning ring off ``throne`` to ``end``."""

    throne: str
    end: str


_PLACEMENT = re.compile(r"^([123])@([a-f][1-6])$")
_RING_MOVE = re.compile(r"^([a-f][1-6])-([a-f][1-6]|[NS])(?:/([a-f][1-6]))?$")
_REPOSITION = re.compile(r"^([NS])/([a-f][1-6])$")


# -- the position ------------------------------------------------------------------------


@dataclass(frozen=True)
class GygesState(State):
    rings: tuple[tuple[str, int], ...]  # (space, height), sorted by space
    player: str = SOUTH
    stage: str = "play"  # setup | play | reposition | over
    winner: str | None = None
    kings: bool = False  # Game of Kings variant: captures until `needed`, repositioning
    captures: tuple[int, int] = (0, 0)  # throne captures so far (south, north)
    needed: tuple[int, int] = (1, 1)  # captures each needs to win (handicap)
    _occ: dict[str, int] = field(default=None, compare=False, repr=False, hash=False)  # type: ignore[assignment]

    game_name: ClassVar[str] = "gyges"
    max_move_spaces: ClassVar[int | None] = 3  # a move's start, end and a bumped ring's new space

    def __post_init__(self) -> None:
        object.__setattr__(self, "_occ", dict(self.rings))

    # -- queries ---------------------------------------------------------------------

    @property
    def to_move(self) -> str:
        return self.player

    @property
    def phase(self) -> str:
        return self.stage

    def ring_at(self, space: str) -> int | None:
        """Height of the ring on ``space``, or ``None``."""
        return self._occ.get(space)

    def nearest_row(self, player: str, occ: Mapping[str, int] | None = None) -> int | None:
        """The player's nearest non-empty row (thrones do not count)."""
        rows = {_row(s) for s in (occ if occ is not None else self._occ) if s not in "NS"}
        if not rows:
            return None
        return min(rows) if player == SOUTH else max(rows)

    def outcome(self) -> Outcome | None:
        if self.stage != "over":
            return None
        reason = P("throne captured") if self.needed[PLAYERS.index(self.winner)] == 1 \
            else P("throne captured for the last time")
        return Outcome.of(self.winner, reason, self.scores())

    def scores(self) -> Mapping[str, int]:
        return {SOUTH: self.captures[0], NORTH: self.captures[1]} if self.kings else {}

    # -- move generation ---------------------------------------------------------------

    def legal_moves(self) -> tuple:
        cached = self.__dict__.get("_moves")
        if cached is None:
            cached = self._generate()
            object.__setattr__(self, "_moves", cached)
        return cached

    def _generate(self) -> tuple:
        if self.stage == "over":
            return ()
        if self.stage == "setup":
            return tuple(sorted(self._placements()))
        if self.stage == "reposition":
            throne = THRONE[self.player]  # the loser repositions the ring standing on their throne
            occ = {s: h for s, h in self._occ.items() if s != throne}
            return tuple(Reposition(throne, z) for z in self._reposition_targets(occ, self.player))
        rows = sorted({_row(s) for s in self._occ if s not in "NS"}, reverse=self.player == NORTH)
        for row in rows:
            moves: set[RingMove] = set()
            for space in sorted(s for s in self._occ if s not in "NS" and _row(s) == row):
                moves |= self._ring_moves(space)
            if moves:
                return tuple(sorted(moves, key=RingMove.sort_key))
        # Unreachable with Gygès' rings (see docs/rules/gyges.md, "passing"): a single ring
        # always has a move. Say so loudly rather than hang the game.
        raise InvalidStateError(f"gyges: {self.player} has no legal move in this position")

    def _placements(self) -> set[Placement]:
        geo = _geometry()
        out: set[Placement] = set()
        for player in PLAYERS:
            line = geo.starting_line[player]
            placed = [self._occ[s] for s in line if s in self._occ]
            free = [s for s in line if s not in self._occ]
            for h in (1, 2, 3):
                if placed.count(h) < SETUP_PER_HEIGHT:
                    out.update(Placement(s, h) for s in free)
        return out

    def _reposition_targets(self, occ: Mapping[str, int], mover: str) -> list[str]:
        """Empty grid spaces not behind the mover's opponent's nearest non-empty row."""
        limit = self.nearest_row(_opponent(mover), occ)
        targets = []
        for z in _geometry().grid:
            if z in occ:
                continue
            if limit is not None and (_row(z) > limit if mover == SOUTH else _row(z) < limit):
                continue
            targets.append(z)
        return targets

    def _ring_moves(self, start: str) -> set[RingMove]:
        ends, landings, captures = self._reach(start)
        enemy = THRONE[_opponent(self.player)]
        moves = {RingMove(start, e) for e in ends}
        if captures:
            moves.add(RingMove(start, enemy))
        occ = self._occ
        for y in landings:
            after = {s: h for s, h in occ.items() if s not in (start, y)}
            after[y] = occ[start]
            for z in self._reposition_targets(after, self.player):
                moves.add(RingMove(start, y, z))
        return moves

    def reach(self, start: str, player: str) -> tuple[set[str], set[str], bool]:
        """Where the ring on ``start`` may end, the rings it may land on (to bounce off or
        bump), and whether it may enter the throne of ``player``'s opponent, were it
        ``player``'s to move — whoever is to move, and whatever its row. Far cheaper than
        ``legal_moves`` (no repositions listed): the engine's judgement of a position asks it."""
        return self._reach(start, player)

    def _reach(self, start: str, player: str | None = None) -> tuple[set[str], set[str], bool]:
        """Where the ring on ``start`` may end, the rings it may land on (to bounce off or
        bump), and whether it may enter the enemy throne (the mover's, or ``player``'s)."""
        geo = _geometry()
        occ = self._occ
        height = occ[start]
        player = player or self.player
        own, enemy = THRONE[player], THRONE[_opponent(player)]
        ends: set[str] = set()
        landings: set[str] = set()
        captures = False
        seen: set[tuple[str, int, int]] = set()
        # Depth-first over (space, steps left in this segment, connectors used so far):
        # the same connector is never used twice in one turn, in either direction.
        stack = [(start, height, 0)]
        while stack:
            key = stack.pop()
            if key in seen:
                continue
            seen.add(key)
            pos, left, used = key
            for nb, bit in geo.adjacent[pos]:
                if used & bit or nb == own:
                    continue
                if nb == enemy:
                    # A throne is entered only as the last step of a segment.
                    if left == 1:
                        captures = True
                    continue
                occupied = nb != start and nb in occ
                if left > 1:
                    if not occupied:
                        stack.append((nb, left - 1, used | bit))
                elif not occupied:
                    if nb != start:  # a turn may not end where it began
                        ends.add(nb)
                else:
                    landings.add(nb)
                    stack.append((nb, occ[nb], used | bit))  # bounce off the ring landed on
        return ends, landings, captures

    # -- applying -------------------------------------------------------------------------

    def successor(self, move: Any) -> "GygesState":
        occ = dict(self._occ)
        if isinstance(move, Placement):
            occ[move.space] = move.height
            done = len(occ) == 12
            return self._with(occ, player=SOUTH if done else self._setup_player(occ), stage="play" if done else "setup")
        if isinstance(move, Reposition):
            occ[move.end] = occ.pop(move.throne)
            return self._with(occ, player=_opponent(self.player), stage="play")
        if isinstance(move, RingMove):
            height = occ.pop(move.start)
            if move.bump_to is not None:
                occ[move.bump_to] = occ[move.end]
            occ[move.end] = height
            if move.end in "NS":
                i = PLAYERS.index(self.player)
                caps = list(self.captures)
                caps[i] += 1
                if caps[i] >= self.needed[i]:
                    return self._with(occ, stage="over", winner=self.player, captures=tuple(caps))
                # Game of Kings: the loser repositions the winning ring, then the winner plays again.
                return self._with(occ, player=_opponent(self.player), stage="reposition", captures=tuple(caps))
            return self._with(occ, player=_opponent(self.player))
        raise IllegalMoveError(f"gyges: not a Gygès move: {move!r}")

    def _setup_player(self, occ: Mapping[str, int]) -> str:
        south_left = any(s not in occ for s in _geometry().starting_line[SOUTH])
        return SOUTH if south_left else NORTH

    def _with(self, occ: Mapping[str, int], **changes: Any) -> "GygesState":
        fields = {
            "rings": tuple(sorted(occ.items())),
            "player": self.player,
            "stage": self.stage,
            "winner": self.winner,
            "kings": self.kings,
            "captures": self.captures,
            "needed": self.needed,
        }
        fields.update(changes)
        return GygesState(**fields)

    def move_spaces(self, move: Any) -> frozenset[str]:
        if isinstance(move, Placement):
            return frozenset((move.space,))
        if isinstance(move, RingMove):
            return frozenset(s for s in (move.start, move.end, move.bump_to) if s)
        if isinstance(move, Reposition):
            return frozenset((move.throne, move.end))
        return frozenset()

    # -- teaching (rules/teach.py) -----------------------------------------------------------

    def carries(self, move: Any) -> tuple[tuple[str | None, str], ...] | None:
        # The moving ring only: a ring landing on one of its own height and bumping it on reads,
        # by the positions, as if it went straight to the bumped ring's new space.
        if isinstance(move, RingMove):
            return ((move.start, move.end),)
        if isinstance(move, Reposition):
            return ((move.throne, move.end),)
        if isinstance(move, Placement):
            return ((None, move.space),)
        return None

    def lift_marks(self, space: str, moves: tuple[Any, ...]) -> Mapping[str, str]:
        """The rings the ring on ``space`` may land on: to bounce off (or bump)."""
        if self.stage != "play" or not any(isinstance(m, RingMove) and m.start == space for m in moves):
            return {}
        return {y: "bounce" for y in self._reach(space)[1]}

    def why_illegal(self, attempt: Any) -> Any:
        from .gyges_why import why_illegal  # the rules a board can break live apart (rules/why.py)

        return why_illegal(self, attempt)

    # -- notation ------------------------------------------------------------------------

    def move_text(self, move: Any) -> str:
        if isinstance(move, Placement):
            return f"{move.height}@{move.space}"
        if isinstance(move, RingMove):
            return f"{move.start}-{move.end}" + (f"/{move.bump_to}" if move.bump_to else "")
        if isinstance(move, Reposition):
            return f"{move.throne}/{move.end}"
        raise MoveSyntaxError(f"gyges: not a Gygès move: {move!r}")

    def parse_move(self, text: str) -> Any:
        t = text.strip()
        move: Any
        if m := _PLACEMENT.match(t):
            move = Placement(m.group(2), int(m.group(1)))
        elif m := _RING_MOVE.match(t):
            move = RingMove(m.group(1), m.group(2), m.group(3))
        elif m := _REPOSITION.match(t):
            move = Reposition(m.group(1), m.group(2))
        else:
            raise MoveSyntaxError(
                f"gyges: cannot read move {text!r} (expected e.g. 'a1-c3', 'a1-c3/b4', 'a1-N', '2@a1', 'N/c4')"
            )
        if not self.is_legal(move):
            raise IllegalMoveError(f"gyges: {t} is not legal here ({self.player} to move, {self.stage})")
        return move

    def move_phrase(self, move: Any) -> Phrase:
        who = P(self.player.capitalize())
        if isinstance(move, Placement):
            side = SOUTH if _row(move.space) == 1 else NORTH
            return P("{side} sets up {ring} on {space}", side=P(side.capitalize()),
                     ring=P(f"a {HEIGHT_NAMES[move.height]} ring"), space=move.space)
        if isinstance(move, RingMove):
            ring = P(f"{HEIGHT_NAMES[self._occ[move.start]]} ring")
            if move.end in "NS":
                return P("{who}'s {ring} {start} → {end} throne: captured", who=who, ring=ring, start=move.start,
                         end=move.end)
            if move.bump_to:
                return P("{who}: {ring} {start} → {end}, bumping the {bumped} to {to}", who=who, ring=ring,
                         start=move.start, end=move.end, bumped=P(f"{HEIGHT_NAMES[self._occ[move.end]]} ring"),
                         to=move.bump_to)
            return P("{who}: {ring} {start} → {end}", who=who, ring=ring, start=move.start, end=move.end)
        if isinstance(move, Reposition):
            return P("{who} repositions the winning ring from the {throne} throne to {end}", who=who,
                     throne=move.throne, end=move.end)
        raise MoveSyntaxError(f"gyges: not a Gygès move: {move!r}")

    # -- sensing ----------------------------------------------------------------------------

    def unseen_moves(self, fidelity: Fidelity) -> tuple[Any, ...]:
        # Only a ring that bumps the ring it lands on back onto its own start leaves every
        # space occupied as before; at kind fidelity the two rings must also be of one height.
        occ = self._occ
        return tuple(
            m for m in self.legal_moves()
            if isinstance(m, RingMove) and m.bump_to == m.start
            and (fidelity is Fidelity.OCCUPANCY or occ.get(m.start) == occ.get(m.end))
        )

    def view(self, fidelity: Fidelity) -> View:
        # Rings of one height are interchangeable in the rules: identity reads as kind.
        if fidelity is Fidelity.OCCUPANCY:
            return View({s: OCCUPIED for s in self._occ})
        return View({s: str(h) for s, h in self._occ.items()})

    # -- persistence -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "gyges",
            "to_move": self.player,
            "phase": self.stage,
            "rings": dict(self.rings),
            "winner": self.winner,
            "variant": "kings" if self.kings else "standard",
            "captures": {SOUTH: self.captures[0], NORTH: self.captures[1]},
            "needed": {SOUTH: self.needed[0], NORTH: self.needed[1]},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "GygesState":
        return _parse_position(data)


def _parse_position(data: Mapping[str, Any]) -> GygesState:
    def bad(msg: str) -> InvalidStateError:
        return InvalidStateError(f"gyges position: {msg}")

    expect_keys(data, required=("rings",), where="gyges position",
                optional=("game", "to_move", "phase", "winner", "variant", "captures", "needed"))
    if data.get("game", "gyges") != "gyges":
        raise bad(f"'game' is {data.get('game')!r}, expected 'gyges'")
    player = data.get("to_move", SOUTH)
    if player not in PLAYERS:
        raise bad(f"'to_move' must be 'south' or 'north', not {player!r}")
    stage = data.get("phase", "play")
    winner = data.get("winner")
    if winner is not None and winner not in PLAYERS:
        raise bad(f"'winner' must be null, 'south' or 'north', not {winner!r}")
    if stage not in ("setup", "play", "reposition", "over"):
        raise bad(f"'phase' must be setup, play, reposition or over, not {stage!r}")
    if winner is not None and stage not in ("over",):
        if "phase" in data:
            raise bad(f"a winner is set but 'phase' is {stage!r}")
        stage = "over"
    if stage == "over" and winner is None:
        raise bad("'phase' is 'over' but no 'winner' is set")
    variant = data.get("variant", "standard")
    if variant not in ("standard", "kings"):
        raise bad(f"'variant' must be 'standard' or 'kings', not {variant!r}")
    kings = variant == "kings"

    def pair(key: str, default: int) -> tuple[int, int]:
        raw = data.get(key, {SOUTH: default, NORTH: default})
        expect_keys(raw, required=PLAYERS, where="gyges position", path=key)
        if any(
            not isinstance(raw.get(p), int) or isinstance(raw.get(p), bool) or raw.get(p) < 0 for p in PLAYERS
        ):
            raise bad(f"'{key}' must be {{\"south\": n, \"north\": n}} with whole numbers ≥ 0")
        return (raw[SOUTH], raw[NORTH])

    needed = pair("needed", 3 if kings else 1)
    captures = pair("captures", 0)
    if min(needed) < 1:
        raise bad("'needed' must be at least 1 for each player")
    if not kings and needed != (1, 1):
        raise bad("'needed' other than 1 requires the 'kings' variant")

    if stage == "reposition" and not kings:
        raise bad("'phase' 'reposition' exists only in the 'kings' variant")
    if stage != "over" and any(c >= n for c, n in zip(captures, needed)):
        raise bad("a player already has the captures needed to win, but the game is not over")

    rings = data.get("rings")
    if not isinstance(rings, Mapping):
        raise bad("'rings' must be an object of space -> height (1, 2 or 3)")
    geo = _geometry()
    occ: dict[str, int] = {}
    for space, h in rings.items():
        if not geo.board.has_space(space):
            raise bad(f"'rings': no space {space!r} on the board (a1..f6, N, S)")
        if h not in (1, 2, 3) or isinstance(h, bool):
            raise bad(f"'rings': {space}: height must be 1, 2 or 3, not {h!r}")
        occ[space] = h
    for h in (1, 2, 3):
        n = sum(1 for v in occ.values() if v == h)
        if n > RINGS_PER_HEIGHT:
            raise bad(f"{n} {HEIGHT_NAMES[h]} rings; the game has only {RINGS_PER_HEIGHT}")
    on_thrones = [s for s in occ if s in "NS"]
    if stage != "setup" and len(occ) == len(on_thrones):
        raise bad("no ring on the grid: nobody could move")
    if stage == "setup" and len(occ) == 12:
        raise bad("all 12 rings are set up: the phase is 'play', not 'setup'")
    if stage in ("setup", "play") and on_thrones:
        raise bad(f"a ring stands on the {on_thrones[0]} throne but the game is in {stage}")
    if stage == "over" and on_thrones != [THRONE[_opponent(winner)]]:
        raise bad(f"{winner} won, so exactly one ring must stand on the {THRONE[_opponent(winner)]} throne")
    if stage == "reposition" and on_thrones != [THRONE[player]]:
        raise bad(f"in 'reposition' the winning ring must stand on {player}'s throne {THRONE[player]}")
    if stage == "setup":
        for p in PLAYERS:
            line = geo.starting_line[p]
            for s in occ:
                if s not in geo.starting_line[SOUTH] and s not in geo.starting_line[NORTH]:
                    raise bad(f"in setup, rings go only on the starting lines; {s} is not on one")
            heights = [occ[s] for s in line if s in occ]
            for h in (1, 2, 3):
                if heights.count(h) > SETUP_PER_HEIGHT:
                    raise bad(f"{p} has set up more than {SETUP_PER_HEIGHT} {HEIGHT_NAMES[h]} rings")
    return GygesState(tuple(sorted(occ.items())), player, stage, winner, kings, captures, needed)


def _count(text: str) -> int:
    n = int(text)
    if n < 1:
        raise ValueError("must be at least 1")
    return n


@register
class Gyges(Game):
    name = "gyges"
    title = "Gygès"
    players = PLAYERS
    state_class = GygesState
    options = {
        "variant": OptionSpec("standard", lambda v: _choice(v, ("standard", "kings")), "standard or kings (Game of Kings)"),
        "south_captures": OptionSpec(None, _count, "Game of Kings: throne captures South needs (default 3)"),
        "north_captures": OptionSpec(None, _count, "Game of Kings: throne captures North needs (default 3)"),
    }

    def board(self) -> Board:
        return load_board("gyges")

    def _base(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        opts = self.parse_options(options)
        kings = opts["variant"] == "kings"
        if not kings and (opts["south_captures"] or opts["north_captures"]):
            raise InvalidStateError("gyges: south_captures/north_captures need variant=kings")
        default = 3 if kings else 1
        needed = (opts["south_captures"] or default, opts["north_captures"] or default)
        return {"kings": kings, "needed": needed}

    def start(self, options: Mapping[str, Any] | None = None) -> GygesState:
        return GygesState((), SOUTH, "setup", **self._base(options))

    def default_setup(self, options: Mapping[str, Any] | None = None) -> GygesState:
        """Both starting lines, west to east: single, double, triple, triple, double, single."""
        line = (1, 2, 3, 3, 2, 1)
        occ = {f"{c}1": h for c, h in zip(COLUMNS, line)} | {f"{c}6": h for c, h in zip(COLUMNS, line)}
        return GygesState(tuple(sorted(occ.items())), SOUTH, "play", **self._base(options))


def _choice(value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"must be one of {', '.join(allowed)}")
    return value
