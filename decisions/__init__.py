"""What the referee publishes, and the commands it takes. Typed values, never bare dicts;
``to_dict()`` gives the JSON the web page and the journal tools read."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from rules import Phrase, SpaceFix, View, WhyNot

from .seats import Seat, SeatError, Seats, parse_seat, parse_seats


@dataclass(frozen=True)
class Choice:
    """One answer the players may confirm: a move sequence or a takeback."""

    number: int
    text: str
    description: str
    takeback: int = 0  # moves to take back, for a "the board shows an earlier position" choice
    equivalent: tuple[str, ...] = ()  # other notations of the same outcome (a bump that equals a move)
    then: str = ""  # after the takeback, this move instead (the last move was not finished when taken)
    # ``description`` as a phrase, for the page in other languages (not in the JSON)
    phrase: Phrase | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "text": self.text, "description": self.description,
                "takeback": self.takeback, "equivalent": list(self.equivalent), "then": self.then}


@dataclass(frozen=True)
class Decision:
    kind: ClassVar[str] = "decision"
    game_id: int
    ply: int  # moves in the game once this decision is taken

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            if f.metadata.get("json", True):  # phrases for other languages stay out of the JSON
                data[f.name] = _plain(getattr(self, f.name))
        return data

    def text(self) -> str:
        return self.kind


def _plain(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    return value


@dataclass(frozen=True)
class NewGame(Decision):
    kind: ClassVar[str] = "new_game"
    game: str
    position: dict[str, Any]
    resumed: bool = False
    seats: Seats = field(default_factory=Seats)  # the computer's sides and levels; people left out

    def text(self) -> str:
        verb = "resumed" if self.resumed else "started"
        who = "".join(f"; {s}: the computer, level {n}" for s, n in self.seats.computers.items())
        return f"game {self.game_id} ({self.game}) {verb} at move {self.ply}{who}"


@dataclass(frozen=True)
class Step:
    """One move of a turn as hands carry it out: the move, in words, and where pieces are
    lifted from and put down (a bumped ring's or a removed piece's spaces among them)."""

    move: str
    description: str
    lift: tuple[str, ...]
    place: tuple[str, ...]
    phrase: Phrase | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "description": self.description, "lift": list(self.lift),
                "place": list(self.place)}


@dataclass(frozen=True)
class Thinking(Decision):
    """A computer seat is to move (``purpose="move"``), or a person asked what the computer
    would play (``purpose="hint"``): the opponent searches ``position`` off the referee's thread.
    ``token`` ties its answer to this very request: a board change, an undo or a new game
    meanwhile outdates it."""

    kind: ClassVar[str] = "thinking"
    side: str
    level: int
    token: int
    game: str
    position: dict[str, Any]
    purpose: str = "move"
    state: Any = field(default=None, compare=False, repr=False, metadata={"json": False})  # the rules' State

    def text(self) -> str:
        if self.purpose == "hint":
            return f"     a hint for {self.side}: the computer (level {self.level}) is thinking"
        return f"     the computer ({self.side}, level {self.level}) is thinking"


@dataclass(frozen=True)
class ComputerMove(Decision):
    """The computer's turn, to be carried out on the board by a person: every step, in order.
    ``done`` steps are on the board already; ``repeated`` after the board showed anything else."""

    kind: ClassVar[str] = "computer_move"
    side: str
    level: int
    steps: tuple[Step, ...]
    done: int = 0
    evaluation: float = 0.5
    repeated: bool = False

    def text(self) -> str:
        todo = "; then ".join(f"{s.move} ({s.description})" for s in self.steps[self.done:])
        # said again after a wrong board; or a turn of several moves under way: what is left of it
        plays = "plays again" if self.repeated else "goes on" if self.done else "plays"
        return f"     the computer ({self.side}, level {self.level}) {plays}: {todo} — make it on the board"


@dataclass(frozen=True)
class Hint(Decision):
    """What the computer would play for a person's seat: shown like its own move, never played."""

    kind: ClassVar[str] = "hint"
    side: str
    level: int
    steps: tuple[Step, ...]
    evaluation: float = 0.5

    def text(self) -> str:
        said = "; then ".join(f"{s.move} ({s.description})" for s in self.steps)
        return f"     hint for {self.side} (level {self.level}): {said}"


@dataclass(frozen=True)
class Accepted(Decision):
    kind: ClassVar[str] = "accepted"
    move: str
    description: str
    position: dict[str, Any]
    confirmed: bool = False
    unseen: bool = False  # shown on the board together with other moves, never on its own

    def text(self) -> str:
        how = " (confirmed)" if self.confirmed else ""
        how += " (never seen on its own)" if self.unseen else ""
        return f"{self.ply:3d}. {self.move:<10} {self.description}{how}"


@dataclass(frozen=True)
class UnseenMoves(Decision):
    """Moves ``first_ply``.. were shown all at once, and every sequence in ``alternatives``
    reaches the board: the record keeps them all until the players say which they played.
    Play goes on meanwhile."""

    kind: ClassVar[str] = "unseen"
    first_ply: int
    count: int
    alternatives: tuple[str, ...]
    descriptions: tuple[str, ...]
    chosen: int | None = None
    phrases: tuple[Phrase, ...] = field(default=(), compare=False, repr=False, metadata={"json": False})

    def text(self) -> str:
        opts = "; ".join(f"[{i + 1}] {a}" for i, a in enumerate(self.alternatives))
        return f"     moves {self.first_ply + 1}-… never seen one by one; which was played? {opts}"


@dataclass(frozen=True)
class UnseenChosen(Decision):
    """The players said which sequence they played: the record now holds ``moves`` from
    ``first_ply`` on."""

    kind: ClassVar[str] = "unseen_chosen"
    first_ply: int
    moves: tuple[str, ...]

    def text(self) -> str:
        return f"     moves from {self.first_ply + 1} recorded as played: {' '.join(self.moves)}"


@dataclass(frozen=True)
class Ambiguous(Decision):
    kind: ClassVar[str] = "ambiguous"
    choices: tuple[Choice, ...]

    def text(self) -> str:
        opts = "; ".join(f"[{c.number}] {c.text}" for c in self.choices)
        return f"     ambiguous — confirm one: {opts}"


@dataclass(frozen=True)
class Partial(Decision):
    kind: ClassVar[str] = "partial"
    candidates: tuple[str, ...]
    pending: tuple[SpaceFix, ...]
    descriptions: tuple[str, ...] = ()  # each candidate in words ("Red II attacks Blue I at O7: 2+3 vs 1")

    def text(self) -> str:
        todo = ", ".join(f.text() for f in self.pending)
        return f"     waiting: part-way to {len(self.candidates)} move(s)" + (f"; still to do: {todo}" if todo else "")


@dataclass(frozen=True)
class Mark:
    """A space on the way of a lifted piece that matters: ``kind`` is what happens there
    (``bounce``: a Gygès ring may bounce off the ring there; ``attack``: a DRIFT piece there
    may be attacked)."""

    space: str
    kind: str

    def to_dict(self) -> dict[str, Any]:
        return {"space": self.space, "kind": self.kind}


@dataclass(frozen=True)
class Lifted(Decision):
    """Teaching (issue 31): the board shows a piece lifted off ``space`` (a move under way, or
    a piece that cannot move). ``destinations``: every space it may end on by a legal move
    (``moves``, in notation); ``marks``: spaces on its way that matter. No destinations: it
    cannot move now (``side``, whose piece it is, says if it is not ``to_move``'s). Shown on the
    page, the LEDs (steady) and said (how many); never journalled. Published only while teaching
    is on (``SetTeaching``); the next board status (put back, a move made) replaces it."""

    kind: ClassVar[str] = "lifted"
    space: str
    piece: str
    side: str | None
    to_move: str
    destinations: tuple[str, ...]
    marks: tuple[Mark, ...] = ()
    moves: tuple[str, ...] = ()

    @property
    def wrong_player(self) -> bool:
        return self.side is not None and self.side != self.to_move

    def text(self) -> str:
        if self.destinations:
            return f"     lifted {self.piece} from {self.space}: it may go to {', '.join(self.destinations)}"
        whose = f"; {self.to_move} to move" if self.wrong_player else ""
        return f"     lifted {self.piece} from {self.space}: it cannot move now{whose}"


@dataclass(frozen=True)
class Illegal(Decision):
    kind: ClassVar[str] = "illegal"
    restore: tuple[SpaceFix, ...]
    # What the board shows was tried and the rule it breaks, where one rule says why (rules.why).
    why: WhyNot | None = None

    def text(self) -> str:
        said = "     illegal board — put back: " + ", ".join(f.text() for f in self.restore)
        if self.why is not None and self.why.reason is not None:
            r = self.why.reason
            said += f" — {r.said.text} ({r.rule.section}: \"{r.rule.quote}\")"
        elif self.why is not None and self.why.several:
            said += " — several pieces moved: no single move explains the board"
        return said


@dataclass(frozen=True)
class Restored(Decision):
    kind: ClassVar[str] = "restored"

    def text(self) -> str:
        return "     board matches the game again"


@dataclass(frozen=True)
class TakenBack(Decision):
    kind: ClassVar[str] = "taken_back"
    move: str
    position: dict[str, Any]
    computer: bool = False  # the move was a computer seat's (taken back with the person's before it)

    def text(self) -> str:
        return f"     took back {self.move}" + (" (the computer's move)" if self.computer else "")


@dataclass(frozen=True)
class GameOver(Decision):
    kind: ClassVar[str] = "game_over"
    outcome: dict[str, Any]

    def text(self) -> str:
        w = self.outcome.get("winner")
        return f"     game over: {'draw' if w is None else w + ' wins'} ({self.outcome.get('reason')})"


@dataclass(frozen=True)
class Rejected(Decision):
    kind: ClassVar[str] = "rejected"
    command: str
    reason: str

    def text(self) -> str:
        return f"     {self.command} refused: {self.reason}"


@dataclass(frozen=True)
class LessonStep(Decision):
    """A first lesson (issue 31, item 3; rules/lessons.py): step ``number`` of ``count`` — what to
    do (``do``), what the step before did (``then``), and the moves to make on the board
    (``steps``, lift/place as for the computer's move; none: set the board up as the game
    starts). ``by``: ``you`` (the learner's move) or ``lesson`` (the other side's, carried out by
    hand). ``done``: moves of the step already on the board. Said again (``repeated``) after a
    wrong board, with ``wrong``: why, when the board shows a legal move that is not this step's
    (an illegal one has its reason in the Illegal before it)."""

    kind: ClassVar[str] = "lesson_step"
    game: str
    number: int
    count: int
    by: str
    do: str
    then: str
    steps: tuple[Step, ...] = ()
    done: int = 0
    repeated: bool = False
    wrong: str = ""
    do_phrase: Phrase | None = field(default=None, compare=False, repr=False, metadata={"json": False})
    then_phrase: Phrase | None = field(default=None, compare=False, repr=False, metadata={"json": False})
    wrong_phrase: Phrase | None = field(default=None, compare=False, repr=False, metadata={"json": False})

    def text(self) -> str:
        again = " (again)" if self.repeated else ""
        return f"     lesson step {self.number}/{self.count}{again}: {self.do}"


@dataclass(frozen=True)
class LessonDone(Decision):
    """The lesson is over (``stopped``: ended before its last step); ``end``: how the game is won
    or scored. The game goes on as any game."""

    kind: ClassVar[str] = "lesson_done"
    game: str
    then: str
    end: str
    stopped: bool = False
    then_phrase: Phrase | None = field(default=None, compare=False, repr=False, metadata={"json": False})
    end_phrase: Phrase | None = field(default=None, compare=False, repr=False, metadata={"json": False})

    def text(self) -> str:
        return "     lesson stopped" if self.stopped else f"     lesson done: {self.end}"


# -- what goes into the referee's queue -------------------------------------------------------


@dataclass(frozen=True)
class StableView:
    view: View
    time: float = 0.0
    # When the board came to show it (the hand leaving, a sensor's change; None: ``time``): the
    # moment a game clock switches (docs/clock.md).
    made: float | None = None


@dataclass(frozen=True)
class Confirm:
    """Accept choice ``number`` of the open question. ``text`` (the choice's text, as shown)
    ties the answer to the question the players saw: if the question has changed meanwhile,
    the confirm is refused rather than accepting another move."""

    number: int
    text: str | None = None


@dataclass(frozen=True)
class Undo:
    pass


@dataclass(frozen=True)
class Declare:
    """A move the board cannot show (resign, end turn), declared from the page or a button."""

    move: str


@dataclass(frozen=True)
class StartGame:
    """Close the current game exactly as it stands and begin a new one. ``board``: the board
    as the command itself set it up (the simulated board reset for the new game), judged by
    the new game only — never by the old one as the players taking moves back. ``seats``:
    who plays each side (``None``: everyone at this table)."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    setup: str = "start"  # start | default
    board: View | None = None
    seats: Seats | None = None
    clock: str | None = None  # the time control ("10+5", "off"; None: the game's configured one)


@dataclass(frozen=True)
class PlayComputerMove:
    """The opponent's answer to a :class:`Thinking` request: the turn's moves (notation)."""

    token: int
    moves: tuple[str, ...]
    evaluation: float = 0.5


@dataclass(frozen=True)
class AskHint:
    """A person asks what the computer would play for the side to move, at ``level``."""

    level: int = 3


@dataclass(frozen=True)
class ShowHint:
    """The opponent's answer to a hint request (``token`` from its :class:`Thinking`)."""

    token: int
    moves: tuple[str, ...]
    evaluation: float = 0.5


@dataclass(frozen=True)
class SetTeaching:
    """Teaching on or off for the rest of the service's run (the page's toggle): ``lift`` — say
    where a lifted piece may go (``Lifted``). Never journalled."""

    lift: bool


@dataclass(frozen=True)
class StartLesson:
    """Begin the game's first lesson (a new game from the lesson's start; ``board``: the board as
    the command set it up, as for :class:`StartGame`)."""

    game: str
    board: View | None = None


@dataclass(frozen=True)
class StopLesson:
    """End the lesson; the game goes on as any game."""


@dataclass(frozen=True)
class ChooseUnseen:
    """The players say which of the sequences never seen one by one they played (1-based)."""

    first_ply: int
    number: int


Command = (StableView | Confirm | Undo | Declare | StartGame | ChooseUnseen | PlayComputerMove | AskHint | ShowHint
           | SetTeaching | StartLesson | StopLesson)
