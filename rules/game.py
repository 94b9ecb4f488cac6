"""The game contract every game implements (OpenSpiel-style: one interface, one
conformance suite over all of them).

A :class:`Game` is the factory: it knows the board, the options and how to build
the starting position. A :class:`State` is a frozen value: ``apply`` returns a
new state and never touches the old one. Moves are small frozen, hashable values
of the game's own making; only the state that produced them can print them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .board import Board
from .errors import IllegalMoveError, InvalidStateError
from .phrase import P, Phrase
from .view import Fidelity, View

if TYPE_CHECKING:
    from .explain import SpaceFix
    from .why import Attempt, Reason

Move = Hashable


@dataclass(frozen=True)
class Outcome:
    """How a game ended. ``winner`` is ``None`` for a draw."""

    winner: str | None
    reason: str
    scores: Mapping[str, int] = field(default_factory=dict)
    # The reason as a phrase, for other languages (``reason`` is its English text).
    phrase: Phrase | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, winner: str | None, reason: Phrase, scores: Mapping[str, int] | None = None) -> "Outcome":
        return cls(winner, reason.text, {} if scores is None else scores, reason)

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason, "scores": dict(self.scores)}


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its default, how to read it from ``KEY=VALUE`` text, and what it means."""

    default: Any
    parse: Any  # Callable[[str], Any]; raises ValueError on bad text
    help: str


class State(ABC):
    """A position. Subclasses are frozen dataclasses and must be hashable and comparable."""

    game_name: ClassVar[str]
    # How many moves explain() may assume were made between two stable views. Games whose
    # moves are whole, slow turns (and whose sequence search is costly) set 1.
    max_unseen_moves: ClassVar[int] = 2
    # The most spaces one move can change (``move_spaces``' largest answer), where the game
    # can say: the sequence search then skips, without generating its moves, a position that
    # differs from the board in more spaces than one further move could change.
    max_move_spaces: ClassVar[int | None] = None

    # -- what the position is ---------------------------------------------------------

    @property
    @abstractmethod
    def to_move(self) -> str:
        """The player whose move it is (``"south"``, ``"A"``, ``"blue"``...)."""

    @property
    def phase(self) -> str:
        return "play"

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides in play: the position's own ``players`` where a game varies them (DRIFT
        with 2-6 colours), else the game's."""
        players = getattr(self, "players", None)
        if isinstance(players, tuple) and players and all(isinstance(p, str) for p in players):
            return players
        from .registry import get_game  # imported here: the registry imports the games

        return tuple(get_game(self.game_name).players)

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on."""

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def scores(self) -> Mapping[str, int]:
        return {}

    # -- moves ------------------------------------------------------------------------

    @abstractmethod
    def legal_moves(self) -> Sequence[Move]:
        """Every legal move, each once, in a stable order. Empty when the game is over."""

    @abstractmethod
    def successor(self, move: Move) -> "State":
        """The position after ``move``, which must come from :meth:`legal_moves` (unchecked)."""

    def apply(self, move: Move) -> "State":
        """The position after ``move``; raises :class:`IllegalMoveError` if it is not legal here."""
        if not self.is_legal(move):
            raise IllegalMoveError(f"{self.game_name}: {self.move_text(move)} is not legal here")
        return self.successor(move)

    def is_legal(self, move: Move) -> bool:
        return move in self._legal_set()

    def _legal_set(self) -> frozenset:
        cached = self.__dict__.get("_legal_cache")
        if cached is None:
            cached = frozenset(self.legal_moves())
            object.__setattr__(self, "_legal_cache", cached)
        return cached

    @abstractmethod
    def parse_move(self, text: str) -> Move:
        """Read move notation; :class:`MoveSyntaxError` if unreadable,
        :class:`IllegalMoveError` if not legal here, :class:`AmbiguousMoveError` if it fits several."""

    @abstractmethod
    def move_text(self, move: Move) -> str:
        """The move's notation; ``parse_move(move_text(m)) == m``."""

    def describe_move(self, move: Move) -> str:
        """A sentence for players ("South's triple ring a1 → c3"); defaults to the notation."""
        return self.move_phrase(move).text

    def move_phrase(self, move: Move) -> Phrase:
        """:meth:`describe_move` as a :class:`~rules.phrase.Phrase` (template and values), so it
        can be said in other languages. Games override this one; the default is the notation."""
        return P("{move}", move=self.move_text(move))

    def apply_text(self, text: str) -> "State":
        return self.successor(self.parse_move(text))

    def move_spaces(self, move: Move) -> frozenset[str]:
        """Every space the move's hands touch. Must contain every space whose contents change;
        may contain more (a ring lifted and put back). Games override this with a cheap answer."""
        return self.view(Fidelity.IDENTITY).diff(self.successor(move).view(Fidelity.IDENTITY))

    # -- sensing ------------------------------------------------------------------------

    @abstractmethod
    def view(self, fidelity: Fidelity) -> View:
        """What an ideal sensor of this fidelity would read on the board."""

    def restore(self, observed: View, fixes: tuple["SpaceFix", ...]) -> tuple["SpaceFix", ...]:
        """What to put back when no legal move explains ``observed`` (``fixes``: every space
        that differs from this position). A game whose move is made in independent parts
        keeps the parts already done right (DRIFT: a river turned right stays turned)."""
        return fixes

    def describe_fix(self, fix: "SpaceFix") -> str | None:
        """How to put one space right, in the game's own words, where the tokens say it badly
        (DRIFT: "turn the inner river one arrow clockwise"); ``None`` to leave it to the page."""
        phrase = self.fix_phrase(fix)
        return None if phrase is None else phrase.text

    def fix_phrase(self, fix: "SpaceFix") -> Phrase | None:
        """:meth:`describe_fix` as a phrase; games with their own words override this one."""
        return None

    def why_illegal(self, attempt: "Attempt") -> "Reason | None":
        """Which of the game's rules ``attempt`` (what an illegal board shows was tried: pieces
        lifted and put down) breaks, in the rule text's words (``rules.why``). Asked only about
        a board no legal move explains; answer only what is true of that attempt — ``None``
        when no single rule says why (the page then says what to put back, and no reason)."""
        return None

    def forget(self) -> None:
        """Drop what this state has memoised (legal moves and the like): a state kept only as
        history (for takebacks, replay) need not hold them. Recomputed if asked again."""
        names = {f.name for f in fields(self)} if is_dataclass(self) else set()
        for key in [k for k in self.__dict__ if k not in names]:
            del self.__dict__[key]

    def unseen_moves(self, fidelity: Fidelity) -> tuple[Move, ...]:
        """Legal moves a sensor of this fidelity cannot tell from no move: made off the board
        (resigning, ending a turn) or leaving it looking as it was. Players declare them.
        Cached on the (frozen) state; games may override with a cheap exact answer."""
        cache = self.__dict__.setdefault("_unseen_moves", {})
        found = cache.get(fidelity)
        if found is None:
            same = self.view(fidelity)
            found = tuple(m for m in self.legal_moves() if self.successor(m).view(fidelity) == same)
            cache[fidelity] = found
        return found

    # -- teaching (rules/teach.py) -------------------------------------------------------

    def carries(self, move: Move) -> tuple[tuple[str | None, str], ...] | None:
        """The pieces ``move``'s hands carry, as (from, to) pairs (from ``None``: off the board),
        where the positions alone would name them wrongly; ``None`` (the default): read them
        off the positions (rules/teach.py)."""
        return None

    def lift_marks(self, space: str, moves: tuple[Move, ...]) -> Mapping[str, str]:
        """Spaces on the way of the piece lifted from ``space`` by ``moves`` (its legal moves)
        that matter, each with what happens there (Gygès: ``bounce``; DRIFT: ``attack``)."""
        return {}

    def piece_owner(self, token: str) -> str | None:
        """Whose piece a token is, or ``None`` (nobody's: Gygès' rings, DRIFT's coins). By
        default a token that is a player's name or starts with it (``red-III``, ``blue:N``)."""
        for p in self.sides:
            if token == p or (token.startswith(p) and token[len(p):len(p) + 1] in ("-", ":", "_")):
                return p
        return None

    def reserve_spaces(self) -> frozenset[str]:
        """Spaces where pieces wait to be put into play (Annihilation's ex nihilo zones): a
        piece taken from one is a placement, for the page's "where may a piece go"."""
        return frozenset()

    # -- persistence --------------------------------------------------------------------

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """The position file as a JSON-ready dict (includes ``"game"``)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "State":
        """Build from :meth:`to_dict`'s format; :class:`InvalidStateError` says what is wrong."""


class Game(ABC):
    """A registered game: its board, options and starting positions."""

    name: ClassVar[str]
    title: ClassVar[str]
    players: ClassVar[tuple[str, ...]]
    options: ClassVar[Mapping[str, OptionSpec]] = {}
    state_class: ClassVar[type[State]]

    @abstractmethod
    def board(self) -> Board: ...

    @abstractmethod
    def start(self, options: Mapping[str, Any] | None = None) -> State:
        """The starting position (where setup begins, for games with a setup phase)."""

    def default_setup(self, options: Mapping[str, Any] | None = None) -> State:
        """A documented ready-to-play position; the same as :meth:`start` if there is no setup."""
        return self.start(options)

    def from_dict(self, data: Mapping[str, Any]) -> State:
        if not isinstance(data, Mapping):
            raise InvalidStateError("position: expected a JSON object")
        if "game" in data and data["game"] != self.name:
            raise InvalidStateError(f"position: 'game' is {data['game']!r}, expected {self.name!r}")
        state = self.state_class.from_dict(data)  # names an unknown key (a misspelt 'game' too)
        if "game" not in data:
            raise InvalidStateError(f"{self.name} position: missing key 'game'")
        return state

    def parse_options(self, pairs: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
        """Options from ``KEY=VALUE`` strings or a mapping, checked against :attr:`options`."""
        given: dict[str, Any] = {}
        if pairs is None:
            pairs = {}
        if isinstance(pairs, Mapping):
            given = dict(pairs)
        else:
            for pair in pairs:
                key, sep, value = str(pair).partition("=")
                if not sep:
                    raise InvalidStateError(f"option {pair!r}: expected KEY=VALUE")
                given[key.strip()] = value.strip()
        result = {k: spec.default for k, spec in self.options.items()}
        for key, value in given.items():
            spec = self.options.get(key)
            if spec is None:
                known = ", ".join(self.options) or "none"
                raise InvalidStateError(f"{self.name}: unknown option {key!r} (known: {known})")
            try:
                # Values are always read through the option's parser, whatever their type,
                # so a mapping from code is checked exactly as KEY=VALUE text is.
                result[key] = spec.default if value is None else spec.parse(str(value))
            except ValueError as exc:
                raise InvalidStateError(f"{self.name}: option {key}={value!r}: {exc}") from None
        return result
