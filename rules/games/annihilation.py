"""Annihilation: charge carriers and annihilators on lines of force, chained collisions,
points of emergence, and the score kept automatically.

Rulings that settle what the rule text leaves open are in ``docs/rules/annihilation.md``;
each has a test in ``tests/rules/test_annihilation.py``. Turn generation and the chain of
collisions live in :mod:`rules.games.annihilation_turns`.

A move is one whole turn, written with its chain (see the docs for the full notation):
``0@d4`` (annihilator placed), ``5@W`` / ``3@W>c3`` (a carrier introduced; the particle
already there knocked to c3), ``c3-e5`` (self-emission ending on e5), ``c3-e5>g7``
(it strikes e5, whose particle moves to g7), ``>g7x`` (meets a particle with zero force:
both annihilated), ``>g7*>g4`` (meets it and self-emits into it), ``c3-c4!d5`` (strikes
d5, whose particle cannot move: force lost, stops on c4), ``pass``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..board import Board, load_board
from ..errors import IllegalMoveError, InvalidStateError, MoveSyntaxError
from ..game import Game, OptionSpec, Outcome, State
from ..phrase import P, Phrase
from ..registry import register
from ..strict import expect_keys
from ..view import OCCUPIED, Fidelity, View
from .annihilation_turns import (
    BLACK,
    CHARGES,
    COLOUR,
    NAME,
    PLAYER_OF,
    PLAYERS,
    WHITE,
    Geometry,
    Result,
    TurnMaker,
    opponent,
)

DEFAULT_TARGET = 20
_TOKEN = re.compile(r"^([WB])(0|1|2|3|5|8)$")
_FULL_SET = Counter(CHARGES) + Counter(CHARGES)  # both players' particles: the box

_GEOMETRY: Geometry | None = None


def _geometry() -> Geometry:
    global _GEOMETRY
    if _GEOMETRY is None:
        _GEOMETRY = Geometry(load_board("annihilation"))
    return _GEOMETRY


@dataclass(frozen=True, order=True)
class Turn:
    """One whole turn: ``kind`` is place, introduce, emit or pass; ``text`` its notation."""

    kind: str
    text: str


PASS = Turn("pass", "pass")


# -- the position ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnihilationState(State):
    particles: tuple[tuple[str, str], ...]  # (point, token "W5"), sorted by point
    reserves: tuple[tuple[int, ...], tuple[int, ...]] = (CHARGES, CHARGES)  # white's, black's, sorted
    player: str = WHITE
    score: tuple[int, int] = (0, 0)  # white, black
    target: int = DEFAULT_TARGET
    over: bool = False

    game_name: ClassVar[str] = "annihilation"
    # A turn is one whole chain, made slowly by hand; two unseen turns are not guessed at
    # (and the two-turn search over reserves is the slow path of explain).
    max_unseen_moves: ClassVar[int] = 1

    # -- queries -----------------------------------------------------------------------

    @property
    def to_move(self) -> str:
        return self.player

    @property
    def phase(self) -> str:
        return "over" if self.over else "play"

    def scores(self) -> Mapping[str, int]:
        return {WHITE: self.score[0], BLACK: self.score[1]}

    def winner(self) -> str | None:
        w, b = self.score
        if not self.over or w == b:
            return None
        return WHITE if w > b else BLACK

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        w, b = self.score
        win = self.winner()
        if win is None:
            reason = P("both reached {target} in one turn with equal totals: a draw", target=self.target)
        elif min(w, b) >= self.target:
            reason = P("both reached {target} in one turn: {player} has the higher total", target=self.target,
                       player=P(NAME[win]))
        else:
            reason = P("{player} reached {target} points", player=P(NAME[win]), target=self.target)
        return Outcome.of(win, reason, self.scores())

    def _board(self) -> dict[int, tuple[str, int]]:
        index = _geometry().index
        return {index[p]: (t[0], int(t[1:])) for p, t in self.particles}

    # -- moves --------------------------------------------------------------------------

    def _turns(self) -> dict[Turn, Result | None]:
        cached = self.__dict__.get("_turn_cache")
        if cached is None:
            cached = self._generate()
            object.__setattr__(self, "_turn_cache", cached)
        return cached

    def _generate(self) -> dict[Turn, Result | None]:
        if self.over:
            return {}
        geo = _geometry()
        board = self._board()
        maker = TurnMaker(geo, board, self.player)
        out: dict[Turn, Result | None] = {}
        mine = COLOUR[self.player]
        for i in sorted(board):
            colour, charge = board[i]
            if colour == mine and charge > 0 and geo.ids[i] in geo.central_set:
                for text, result in maker.emissions(i):
                    out[Turn("emit", text)] = result
        reserve = self.reserves[PLAYERS.index(self.player)]
        for charge in sorted(set(reserve)):
            if charge == 0:
                for text, result in maker.placements():
                    out[Turn("place", text)] = result
            else:
                for text, result in maker.introductions(charge):
                    out[Turn("introduce", text)] = result
        if not out:
            out[PASS] = None  # nothing at all can be done: the turn passes (docs, ruling R13)
        return dict(sorted(out.items(), key=lambda kv: kv[0].text))

    def legal_moves(self) -> tuple:
        cached = self.__dict__.get("_moves")
        if cached is None:
            cached = tuple(self._turns())
            object.__setattr__(self, "_moves", cached)
        return cached

    def turn_points(self) -> Mapping[Turn, tuple[int, int]]:
        """The points each legal turn scores (white's, black's), read off the turns already
        worked out for ``legal_moves`` — for a player weighing every turn without making each
        position after it (the computer opponent's search)."""
        return {t: (r.gains if r is not None else (0, 0)) for t, r in self._turns().items()}

    def successor(self, move: Any) -> "AnnihilationState":
        turns = self._turns()
        if move not in turns:
            raise IllegalMoveError(f"annihilation: {move!r} is not a legal turn here")
        result = turns[move]
        nxt = opponent(self.player)
        if result is None:
            return AnnihilationState(self.particles, self.reserves, nxt, self.score, self.target, self.over)
        ids = _geometry().ids
        particles = tuple(sorted((ids[i], f"{c}{ch}") for i, (c, ch) in result.board))
        reserves = [list(r) for r in self.reserves]
        k = PLAYERS.index(self.player)
        if move.kind in ("place", "introduce"):
            reserves[k].remove(int(move.text.split("@")[0]))
        for j in range(2):
            reserves[j].extend(result.to_reserve[j])
        score = (self.score[0] + result.gains[0], self.score[1] + result.gains[1])
        over = max(score) >= self.target
        return AnnihilationState(particles, (tuple(sorted(reserves[0])), tuple(sorted(reserves[1]))),
                                 nxt, score, self.target, over)

    # -- teaching (rules/teach.py) ---------------------------------------------------------------

    def piece_owner(self, token: str) -> str | None:
        return PLAYER_OF.get(token[:1]) if _TOKEN.match(token) else None

    def reserve_spaces(self) -> frozenset[str]:
        """The ex nihilo zones: a particle taken from one emerges (a placement)."""
        return frozenset(("ex_white", "ex_black"))

    def why_illegal(self, attempt: Any) -> Any:
        """The rule an illegal board breaks (rules/why.py; the checks: annihilation_why.py)."""
        from .annihilation_why import why_illegal

        return why_illegal(self, attempt)

    def move_spaces(self, move: Any) -> frozenset[str]:
        result = self._turns().get(move)
        return result.spaces if result is not None else frozenset()

    # -- notation ---------------------------------------------------------------------------

    def move_text(self, move: Any) -> str:
        if not isinstance(move, Turn):
            raise MoveSyntaxError(f"annihilation: not an Annihilation turn: {move!r}")
        return move.text

    def parse_move(self, text: str) -> Turn:
        t = text.strip()
        kind = _syntax(t, _geometry())
        if kind is None:
            raise MoveSyntaxError(
                f"annihilation: cannot read turn {text!r} (expected e.g. '0@d4', '5@W', '3@W>c3', "
                "'c3-e5', 'c3-e5>g7', 'c3-e5>g7x', 'c3-e5>g7*>g4', 'c3-c4!d5', 'pass')")
        move = Turn(kind, t)
        if move not in self._turns():
            raise IllegalMoveError(f"annihilation: {t} is not legal here ({NAME[self.player]} to move)")
        return move

    def move_phrase(self, move: Any) -> Phrase:
        turns = self._turns()
        if move not in turns:
            raise IllegalMoveError(f"annihilation: {move!r} is not a legal turn here")
        result = turns[move]
        if result is None:
            return P("{player} cannot do anything and passes", player=P(NAME[self.player]))
        return result.phrase

    # -- sensing ------------------------------------------------------------------------------

    def view(self, fidelity: Fidelity) -> View:
        # Particles of one colour and charge are interchangeable: identity reads as kind.
        geo = _geometry()
        res = {geo.reserve[p]: [f"{COLOUR[p]}{c}" for c in self.reserves[k]] for k, p in enumerate(PLAYERS)}
        if fidelity is Fidelity.OCCUPANCY:
            spaces: dict[str, Any] = {p: OCCUPIED for p, _ in self.particles}
            spaces.update({s: [OCCUPIED] * len(toks) for s, toks in res.items()})
            return View(spaces)
        return View({**dict(self.particles), **res})

    # -- persistence ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": "annihilation",
            "to_move": self.player,
            "phase": self.phase,
            "board": dict(self.particles),
            "reserves": {WHITE: list(self.reserves[0]), BLACK: list(self.reserves[1])},
            "scores": {WHITE: self.score[0], BLACK: self.score[1]},
            "target": self.target,
            "winner": self.winner(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AnnihilationState":
        return _parse_position(data)


def _syntax(text: str, geo: Geometry) -> str | None:
    """The kind of turn ``text`` is written as, or None if it cannot be read."""
    if text == "pass":
        return "pass"
    head, sep, rest = text.partition("@")
    if sep:
        if head == "0":
            return "place" if rest in geo.central_set else None
        if not head.isdigit() or head.startswith("0"):
            return None
        if rest in geo.index:
            return "introduce"
        point, arrow, chain = rest.partition(">")
        return "introduce" if arrow and point in geo.index and _chain_ok(chain, geo) else None
    start, dash, chain = text.partition("-")
    return "emit" if dash and start in geo.index and _chain_ok(chain, geo) else None


def _chain_ok(chain: str, geo: Geometry) -> bool:
    """point ( '' | 'x' | '!' point | '>' chain | '*>' chain )"""
    while True:
        m = re.match(r"([A-Za-z0-9_]+?)(x|!|\*>|>|$)", chain)
        if m is None:
            return False
        point, mark = m.group(1), m.group(2)
        if point not in geo.index:
            # Ids may end in 'x': try the longest reading before giving up.
            m2 = re.match(r"([A-Za-z0-9_]+)(x|!|\*>|>|$)", chain)
            if m2 is None or m2.group(1) not in geo.index:
                return False
            point, mark = m2.group(1), m2.group(2)
        rest = chain[len(point) + len(mark):]
        if mark in ("", "x"):
            return rest == ""
        if mark == "!":
            return rest in geo.index
        chain = rest


def _parse_position(data: Mapping[str, Any]) -> AnnihilationState:
    def bad(msg: str) -> InvalidStateError:
        return InvalidStateError(f"annihilation position: {msg}")

    expect_keys(data, required=("board",), where="annihilation position",
                optional=("game", "to_move", "phase", "reserves", "scores", "target", "winner"))
    if data.get("game", "annihilation") != "annihilation":
        raise bad(f"'game' is {data.get('game')!r}, expected 'annihilation'")
    player = data.get("to_move", WHITE)
    if player not in PLAYERS:
        raise bad(f"'to_move' must be 'white' or 'black', not {player!r}")
    geo = _geometry()
    board = data.get("board", {})
    if not isinstance(board, Mapping):
        raise bad("'board' must be an object of point -> particle ('W5', 'B0'...)")
    particles: dict[str, str] = {}
    for point, token in board.items():
        if point not in geo.index:
            raise bad(f"'board': no point {point!r} on the board (a1..g7, W, B)")
        if not isinstance(token, str) or not _TOKEN.match(token):
            raise bad(f"'board': {point}: a particle is a colour W/B and a charge 0,1,2,3,5,8 ('W5'), not {token!r}")
        owner = geo.pe_owner.get(geo.index[point])
        if owner is not None and token[1] == "0":
            raise bad(f"'board': {point}: an annihilator is never on a point of emergence")
        if owner is not None and PLAYER_OF[token[0]] != owner:
            raise bad(f"'board': {point}: a {NAME[PLAYER_OF[token[0]]]} particle on "
                      f"{NAME[owner]}'s point of emergence would have been annihilated")
        particles[point] = token
    reserves = _reserves(data.get("reserves"), particles, bad)
    total = Counter(int(t[1:]) for t in particles.values()) + Counter(reserves[0]) + Counter(reserves[1])
    if total != _FULL_SET:
        raise bad("board and reserves must hold exactly the box's 14 particles "
                  "(2 annihilators; carriers 1,1,1,1,2,2,3,3,5,5,8,8), "
                  f"found {sorted(total.elements())}")
    scores = data.get("scores", {WHITE: 0, BLACK: 0})
    expect_keys(scores, required=PLAYERS, where="annihilation position", path="scores")
    if any(
        not isinstance(scores.get(p), int) or isinstance(scores.get(p), bool) or scores.get(p) < 0 for p in PLAYERS
    ):
        raise bad("'scores' must be {\"white\": n, \"black\": n} with whole numbers >= 0")
    target = data.get("target", DEFAULT_TARGET)
    if not isinstance(target, int) or isinstance(target, bool) or target < 1:
        raise bad(f"'target' must be a whole number >= 1, not {target!r}")
    score = (scores[WHITE], scores[BLACK])
    over = max(score) >= target
    phase = data.get("phase", "over" if over else "play")
    if phase not in ("play", "over"):
        raise bad(f"'phase' must be 'play' or 'over', not {phase!r}")
    if (phase == "over") != over:
        raise bad(f"'phase' is {phase!r} but the scores {score[0]}-{score[1]} "
                  f"{'reach' if over else 'do not reach'} the target {target}")
    winner = data.get("winner")
    expected = None if not over or score[0] == score[1] else (WHITE if score[0] > score[1] else BLACK)
    if winner != expected:
        raise bad(f"'winner' must be {expected!r} with scores {score[0]}-{score[1]} and target {target}")
    return AnnihilationState(tuple(sorted(particles.items())), reserves, player, score, target, over)


def _reserves(raw: Any, particles: Mapping[str, str], bad) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if raw is None:
        # Default: each player's own set, less that player's particles on the board.
        out = []
        for p in PLAYERS:
            left = Counter(CHARGES) - Counter(int(t[1:]) for t in particles.values() if t[0] == COLOUR[p])
            on_board = sum(1 for t in particles.values() if t[0] == COLOUR[p])
            if sum(left.values()) != len(CHARGES) - on_board:
                raise bad(f"{NAME[p]}'s particles on the board are not one player's set: give 'reserves' explicitly")
            out.append(tuple(sorted(left.elements())))
        return out[0], out[1]
    expect_keys(raw, required=PLAYERS, where="annihilation position", path="reserves")
    out = []
    for p in PLAYERS:
        r = raw[p]
        if not isinstance(r, list) or any(c not in CHARGES or isinstance(c, bool) for c in r):
            raise bad(f"'reserves': {p}: a list of charges 0, 1, 2, 3, 5, 8")
        out.append(tuple(sorted(r)))
    return out[0], out[1]


def _target(text: str) -> int:
    n = int(text)
    if n < 1:
        raise ValueError("must be at least 1")
    return n


def _first(text: str) -> str:
    if text not in PLAYERS:
        raise ValueError("must be white or black")
    return text


@register
class Annihilation(Game):
    name = "annihilation"
    title = "Annihilation"
    players = PLAYERS
    state_class = AnnihilationState
    options = {
        "target": OptionSpec(DEFAULT_TARGET, _target, "the winning score (default 20)"),
        "first": OptionSpec(WHITE, _first, "who takes the first turn: white (default) or black"),
    }

    def board(self) -> Board:
        return load_board("annihilation")

    def start(self, options: Mapping[str, Any] | None = None) -> AnnihilationState:
        """Empty board, each player's full set in their ex nihilo zone."""
        opts = self.parse_options(options)
        return AnnihilationState((), (CHARGES, CHARGES), opts["first"], (0, 0), opts["target"], False)
