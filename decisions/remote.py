"""A game between two real boards (issue 34, part 2; docs/remote.md): what the referee publishes
about the other table's moves, and the commands the link gives it. Beside the other decisions,
below every consumer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from . import Decision, Step


@dataclass(frozen=True)
class RemoteTurn(Decision):
    """The other table's turn, to be carried out on this board by a person here: every step, in
    order, as for the computer's move. ``done`` steps are on the board already; ``repeated``
    after the board showed anything else."""

    kind: ClassVar[str] = "remote_move"
    side: str
    table: str
    steps: tuple[Step, ...]
    done: int = 0
    repeated: bool = False

    def text(self) -> str:
        todo = "; then ".join(f"{s.move} ({s.description})" for s in self.steps[self.done:])
        plays = "plays again" if self.repeated else "goes on" if self.done else "plays"
        return f"     {self.table} ({self.side}) {plays}: {todo} — make it on the board"


@dataclass(frozen=True)
class RemoteWaiting(Decision):
    """A side another table plays is to move, and its move has not come yet: the board here is
    to stay as it is."""

    kind: ClassVar[str] = "remote_waiting"
    side: str
    table: str

    def text(self) -> str:
        return f"     waiting for {self.table} ({self.side}) to move"


@dataclass(frozen=True)
class MatchEnded(Decision):
    """The other table left the match (a new game there): the game with it is closed here as it
    stood, unfinished, and a game of people at this table begins."""

    kind: ClassVar[str] = "match_ended"
    table: str

    def text(self) -> str:
        return f"     {self.table} ended the match (a new game there): this game is closed as it stood"


# -- commands --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemoteMove:
    """One move of the game made at the other table: the move that makes the game's ply ``ply``
    (1-based), and the mover's clocks just after it, as that table's clock said (ms left per
    side; empty without a clock)."""

    ply: int
    move: str
    times: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class RemoteMoves:
    """The link has these moves of game ``game_id`` in the journal's inbox (committed, the other
    table told): the referee shows them to carry out, in order. Sent again after a restart."""

    game_id: int
    moves: tuple[RemoteMove, ...]


@dataclass(frozen=True)
class RemoteOver:
    """The other table ended the game off the board (its own player's flag fell): ``outcome`` as
    it journalled it, after ``ply`` moves."""

    game_id: int
    ply: int
    outcome: dict[str, Any]


@dataclass(frozen=True)
class RemoteLeft:
    """The other table closed the game with it unfinished (it began another game) after ``ply``
    moves: the game ends here too, and this table's own game begins."""

    game_id: int
    ply: int
