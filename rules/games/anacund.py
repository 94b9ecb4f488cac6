"""Anacund (Claude Leroy, 2019): pieces placed by group size on a shuffled track, runs captured.

Rulings that settle what the rule text leaves open are in ``docs/rules/anacund.md``; each has
a test in ``tests/rules/test_anacund.py``. The track (the slats' numbers, shuffled every game)
is parsed and the captures along it are found in :mod:`rules.games.anacund_track`.

A move is one placement: ``t12`` (a piece from the group whose size is t12's number),
``t12/5`` (from the group of 5, when no free square numbered 5 remains), with the pieces it
captures appended for the record: ``t12x13,14``. A placement whose piece is landlocked without
capturing anything is followed by the opponent's capture of that run, its own ply ``x12,13``
(see ruling R5: a placed piece that must leave its square cannot be shown as a partial move).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..board import Board, load_board
from ..errors import AmbiguousMoveError, IllegalMoveError, MoveSyntaxError
from ..game import Game, OptionSpec, Outcome, State
from ..phrase import Joined, P, Phrase
from ..registry import register
from ..view import OCCUPIED, Fidelity, View
from .anacund_track import DEFAULT_TRACK, FREE, OTHER, SQUARES, Track, captures_after, make_track, parse_track

A, B = "A", "B"
PLAYERS = (A, B)
GROUPS = 3
GROUP_SIZE = 6
PIECES = GROUPS * GROUP_SIZE  # 18 each
PER_TURN = 3
BONUS_POINTS = 5
SHAPES = ("loop", "line")


def _placed_by(n: int) -> tuple[int, int]:
    """How many pieces A and B have placed after ``n`` placements in all (A starts, 3 each)."""
    a = PER_TURN * (n // (2 * PER_TURN)) + min(n % (2 * PER_TURN), PER_TURN)
    return a, n - a


def _squares_text(cells: tuple[int, ...]) -> str:
    return ", ".join(f"t{i + 1}" for i in cells)


# -- moves ------------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Place:
    """Put a piece taken from a group of ``group`` pieces on square ``square`` (1-based)."""

    square: int
    group: int


@dataclass(frozen=True, order=True)
class Capture:
    """The opponent captures the landlocked run on ``squares`` (1-based) the last placement made."""

    squares: tuple[int, ...]


_PLACE = re.compile(r"^t(\d{1,2})(?:/(\d))?(?:x(\d{1,2}(?:,\d{1,2})*))?$")
_CAPTURE = re.compile(r"^x(\d{1,2}(?:,\d{1,2})*)$")


# -- the position -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AnacundState(State):
    track: Track
    cells: str  # one character per square: . free, A/B a piece, a/b dead (captured by A/B)
    groups: tuple[tuple[int, ...], tuple[int, ...]]  # each player's three group sizes, largest first
    landlocked: tuple[int, ...] = ()  # cell indices of a landlocked run whose capture is the next ply

    game_name: ClassVar[str] = "anacund"

    # -- queries ------------------------------------------------------------------------------

    @property
    def placed(self) -> int:
        """Placements made so far by both players."""
        return 2 * PIECES - sum(self.groups[0]) - sum(self.groups[1])

    @property
    def to_move(self) -> str:
        if self.landlocked:
            return OTHER[self.cells[self.landlocked[0]]]  # the captor takes the landlocked run
        n = self.placed
        return A if n % (2 * PER_TURN) < PER_TURN else B

    @property
    def phase(self) -> str:
        if self.landlocked:
            return "capture"
        return "over" if self._over() else "play"

    def _over(self) -> bool:
        return not self.landlocked and (self.placed == 2 * PIECES or FREE not in self.cells)

    def placed_this_turn(self) -> int:
        """Pieces the player to move has already placed this turn (0, 1 or 2)."""
        return self.placed % PER_TURN

    def scores(self) -> Mapping[str, int]:
        """1 per piece of a player's colour on or beside the squares; the bonus square's counts 1 + 5."""
        score = {A: 0, B: 0}
        for i, c in enumerate(self.cells):
            if c != FREE:
                score[c.upper()] += 1 + (BONUS_POINTS if i + 1 == self.track.bonus else 0)
        return score

    def outcome(self) -> Outcome | None:
        if not self._over():
            return None
        scores = self.scores()
        winner = None if scores[A] == scores[B] else max(PLAYERS, key=lambda p: scores[p])
        reason = P("B has placed its last series of 3") if self.placed == 2 * PIECES else P("no free square remains")
        return Outcome.of(winner, reason, scores)

    # -- move generation -------------------------------------------------------------------------

    def legal_moves(self) -> tuple:
        cached = self.__dict__.get("_moves")
        if cached is None:
            cached = self._generate()
            object.__setattr__(self, "_moves", cached)
        return cached

    def _generate(self) -> tuple:
        if self.landlocked:
            return (Capture(tuple(i + 1 for i in self.landlocked)),)
        if self._over():
            return ()
        free = [i + 1 for i, c in enumerate(self.cells) if c == FREE]
        moves: list[Place] = []
        for k in sorted(set(self.groups[PLAYERS.index(self.to_move)]) - {0}, reverse=True):
            # R2: on a free square numbered k; if none remains, on any free square.
            targets = [s for s in free if self.track.number(s) == k] or free
            moves.extend(Place(s, k) for s in targets)
        return tuple(sorted(moves))

    def captures(self, square: int) -> tuple[tuple[int, ...], bool]:
        """What a piece of the player to move placed on ``square`` would capture (cell indices),
        and whether it is its own landlocked run. Cached per square."""
        cache = self.__dict__.get("_captures")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_captures", cache)
        found = cache.get(square)
        if found is None:
            cells = list(self.cells)
            cells[square - 1] = self.to_move
            found = cache[square] = captures_after(self.track, cells, square - 1, self.to_move)
        return found

    # -- applying --------------------------------------------------------------------------------

    def successor(self, move: Any) -> "AnacundState":
        if isinstance(move, Capture):
            cells = list(self.cells)
            captor = self.to_move.lower()
            for i in self.landlocked:
                cells[i] = captor
            return AnacundState(self.track, "".join(cells), self.groups)
        if not isinstance(move, Place):
            raise IllegalMoveError(f"anacund: not an Anacund move: {move!r}")
        player = self.to_move
        who = PLAYERS.index(player)
        cells = list(self.cells)
        cells[move.square - 1] = player
        caught, own = self.captures(move.square)
        if not own:
            for i in caught:
                cells[i] = player.lower()
        sizes = list(self.groups[who])
        sizes[sizes.index(move.group)] -= 1
        groups = list(self.groups)
        groups[who] = tuple(sorted(sizes, reverse=True))
        return AnacundState(self.track, "".join(cells), (groups[0], groups[1]), caught if own else ())

    def move_spaces(self, move: Any) -> frozenset[str]:
        if isinstance(move, Capture):
            cells = [s - 1 for s in move.squares]
            spaces = set()
        elif isinstance(move, Place):
            cells = list(self.captures(move.square)[0])
            spaces = {f"t{move.square}"}
        else:
            return frozenset()
        # A landlocked placement also names the run its capture will move (the hand's next job).
        return frozenset(spaces | {f"t{i + 1}" for i in cells} | {f"s{i + 1}" for i in cells})

    # -- notation --------------------------------------------------------------------------------

    def move_text(self, move: Any) -> str:
        if isinstance(move, Capture):
            return "x" + ",".join(map(str, move.squares))
        if isinstance(move, Place):
            text = f"t{move.square}"
            if move.group != self.track.number(move.square):
                text += f"/{move.group}"
            caught, own = self.captures(move.square)
            if caught and not own:
                text += "x" + ",".join(str(i + 1) for i in caught)
            return text
        raise MoveSyntaxError(f"anacund: not an Anacund move: {move!r}")

    def parse_move(self, text: str) -> Any:
        t = str(text).strip().lower()
        if m := _CAPTURE.match(t):
            move = Capture(tuple(int(x) for x in m.group(1).split(",")))
            if not self.is_legal(move):
                want = f"the capture is {self.move_text(self.legal_moves()[0])}" if self.landlocked else "no run is landlocked"
                raise IllegalMoveError(f"anacund: {t} is not legal here ({want})")
            return move
        m = _PLACE.match(t)
        if m is None:
            raise MoveSyntaxError(
                f"anacund: cannot read move {text!r} (expected e.g. 't12', 't12/5', 't12x13,14', 'x12,13')")
        square = int(m.group(1))
        if not 1 <= square <= SQUARES:
            raise MoveSyntaxError(f"anacund: no square t{square} (the track has t1..t{SQUARES})")
        on_square = [mv for mv in self.legal_moves() if isinstance(mv, Place) and mv.square == square]
        if m.group(2) is not None:
            chosen = [mv for mv in on_square if mv.group == int(m.group(2))]
        else:
            regular = [mv for mv in on_square if mv.group == self.track.number(square)]
            chosen = regular or on_square
        if not chosen:
            raise IllegalMoveError(f"anacund: {t} is not legal here ({self._why_not(square, m.group(2))})")
        if len(chosen) > 1:
            texts = tuple(self.move_text(mv) for mv in chosen)
            raise AmbiguousMoveError(f"anacund: {t} could come from several groups: {', '.join(texts)}", texts)
        move = chosen[0]
        if m.group(3) is not None:
            said = tuple(int(x) for x in m.group(3).split(","))
            caught, own = self.captures(square)
            real = tuple(i + 1 for i in caught) if not own else ()
            if said != real:
                got = ",".join(map(str, real)) or "nothing"
                raise IllegalMoveError(f"anacund: {t}: the piece on t{square} captures {got}")
        return move

    def _why_not(self, square: int, group: str | None) -> str:
        if self._over():
            return "the game is over"
        if self.landlocked:
            return f"the landlocked run {_squares_text(self.landlocked)} must be captured first"
        if self.cells[square - 1] != FREE:
            return f"t{square} is {'dead' if self.cells[square - 1].islower() else 'occupied'}"
        sizes = sorted(set(self.groups[PLAYERS.index(self.to_move)]) - {0}, reverse=True)
        if group is not None and int(group) not in sizes:
            return f"{self.to_move} has no group of {group} (groups: {', '.join(map(str, sizes))})"
        return (f"{self.to_move}'s groups hold {', '.join(map(str, sizes))} pieces and t{square} is numbered "
                f"{self.track.number(square)}, while a square of each of those numbers is still free")

    def move_phrase(self, move: Any) -> Phrase:
        if isinstance(move, Capture):
            captor = self.to_move
            cells = self.landlocked
            return P("{player} captures {other}'s landlocked {squares}: turn the pieces to {player} and lay them "
                     "beside their squares ({slots})", player=captor, other=OTHER[captor],
                     squares=_squares_text(cells), slots=", ".join(f"s{i + 1}" for i in cells))
        if not isinstance(move, Place):
            raise MoveSyntaxError(f"anacund: not an Anacund move: {move!r}")
        player, n = self.to_move, self.track.number(move.square)
        said = "{player} places a piece from a group of {group} on {square} (a {n}, the bonus square)" \
            if move.square == self.track.bonus else "{player} places a piece from a group of {group} on {square} (a {n})"
        parts: list[Phrase] = [P(said, player=player, group=move.group, square=f"t{move.square}", n=n)]
        if move.group != n:
            parts.append(P(" — no free {group} remains, so any free square", group=move.group))
        caught, own = self.captures(move.square)
        if own:
            parts.append(P("; it is landlocked: {other} captures {squares} next", other=OTHER[player],
                           squares=_squares_text(caught)))
        elif caught:
            parts.append(P("; it captures {other}'s {squares}: turn those pieces to {player} and lay them beside "
                           "their squares ({slots})", other=OTHER[player], squares=_squares_text(caught),
                           player=player, slots=", ".join(f"s{i + 1}" for i in caught)))
        return parts[0] if len(parts) == 1 else P("{move}{more}", move=parts[0], more=Joined(tuple(parts[1:]), ""))

    def why_illegal(self, attempt: Any) -> Any:
        from .anacund_why import why_illegal  # the rules a board can break live apart (rules/why.py)

        return why_illegal(self, attempt)

    # -- sensing -----------------------------------------------------------------------------------

    def view(self, fidelity: Fidelity) -> View:
        # Pieces of one colour are interchangeable: identity reads as kind (the colour).
        spaces: dict[str, str] = {}
        for i, c in enumerate(self.cells):
            if c in OTHER:
                spaces[f"t{i + 1}"] = c
            elif c != FREE:
                spaces[f"s{i + 1}"] = c.upper()
        if fidelity is Fidelity.OCCUPANCY:
            return View({s: OCCUPIED for s in spaces})
        return View(spaces)

    # -- persistence -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        pieces = self.view(Fidelity.KIND)
        data: dict[str, Any] = {
            "game": "anacund",
            "track": self.track.text(),
            "shape": "loop" if self.track.loop else "line",
            "to_move": self.to_move,
            "phase": self.phase,
            "groups": {A: list(self.groups[0]), B: list(self.groups[1])},
            "pieces": {s: pieces[s][0] for s in sorted(pieces, key=lambda s: (s[0] == "s", int(s[1:])))},
        }
        if self.landlocked:
            data["landlocked"] = [i + 1 for i in self.landlocked]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AnacundState":
        from .anacund_position import parse_position  # the position file's checks live apart

        return parse_position(data)


def _shape(value: str) -> str:
    if value not in SHAPES:
        raise ValueError(f"must be one of {', '.join(SHAPES)}")
    return value


@register
class Anacund(Game):
    name = "anacund"
    title = "Anacund"
    players = PLAYERS
    state_class = AnacundState
    options = {
        "track": OptionSpec(
            DEFAULT_TRACK, parse_track,
            "the shuffled slats: 36 numbers 1-6 in track order with '*' after the bonus square's, or the "
            "17 slats left to right joined by '-' (end slats of 3); default: docs/rules/anacund.md"),
        "shape": OptionSpec("loop", _shape, "loop (the closed rectangular track, default) or line (open ends)"),
    }

    def board(self) -> Board:
        return load_board("anacund")

    def start(self, options: Mapping[str, Any] | None = None) -> AnacundState:
        """The empty track: every player's three groups of 6 beside the board, A to place."""
        opts = self.parse_options(options)
        full = (GROUP_SIZE,) * GROUPS
        return AnacundState(make_track(opts["track"], opts["shape"]), FREE * SQUARES, (full, full))
