"""The link's bookkeeping between two tables, pure (no I/O, no threads, no clock of its own: every
time is passed in), so resending, duplicates and order are tested without sleeping.

Both tables hold the same game, move for move; a move is known by its ply (the move that makes
ply ``n``). Each side of the link says how far it holds the game (``have``: every move up to that
ply committed in its journal or its inbox); that one number is the acknowledgement.

* :class:`Sender` — this table's own moves, committed in its journal, sent until the other table
  has them: everything past the other's ``have`` is sent once per connection, and all of it again
  whenever the other's ``have`` has not moved on for ``resend_after`` seconds while something is
  unacknowledged (a message the broker lost, a table rebooted mid-game).
* :func:`judge` — a move that arrives: the next one (store it), one already held (a duplicate:
  acknowledge again, store nothing), one past a gap (drop it: the sender goes back to the gap,
  in order), or one that contradicts what is held (never stored; said once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True)
class Outgoing:
    """One of this table's moves as the journal holds it: the move making ply ``ply``."""

    ply: int
    move: str
    times: tuple[tuple[str, int], ...] = ()  # the mover's clocks just after it (side, ms)


@dataclass
class Sender:
    resend_after: float = 5.0
    acked: int = 0  # the other table holds the game up to this ply
    sent: int = 0  # sent on this connection up to this ply
    progress_at: float = 0.0  # when ``acked`` last moved on (or the last resend)
    heard: bool = False  # the other table has said how far it holds the game on this connection

    def connected(self, now: float) -> None:
        """A new connection: whatever is not acknowledged goes again."""
        self.sent, self.progress_at, self.heard = self.acked, now, False

    def on_have(self, ply: int, now: float) -> None:
        self.heard = True
        if ply > self.acked:
            self.acked, self.progress_at = ply, now
        if ply < self.acked:
            # The other table holds less than it said before (its journal restored from a
            # backup?): never trusted to go backwards — but what it lacks is sent again.
            self.sent = min(self.sent, ply)

    def due(self, mine: Sequence[Outgoing], now: float) -> list[Outgoing]:
        """The moves to send now, in order (``mine``: this table's moves, by ply)."""
        waiting = [m for m in mine if m.ply > self.acked]
        if not waiting:
            self.progress_at = now
            return []
        if now - self.progress_at >= self.resend_after and self.sent > self.acked:
            self.sent, self.progress_at = self.acked, now  # nothing acknowledged for a while: again
        out = [m for m in waiting if m.ply > self.sent]
        if out:
            self.sent = out[-1].ply
        return out

    def unacknowledged(self, mine: Sequence[Outgoing]) -> int:
        return sum(m.ply > self.acked for m in mine)


class Arrival(Enum):
    NEXT = "next"  # the next move of the game: store it, then acknowledge
    DUPLICATE = "duplicate"  # already held: acknowledge again
    GAP = "gap"  # a move is missing before it: dropped; the sender goes back to the gap
    CONFLICT = "conflict"  # another move than the one held at that ply: never stored


def judge(ply: int, move: str, held: Sequence[str]) -> Arrival:
    """What to do with the move making ply ``ply``, given the game's moves held here (``held``:
    the journal's moves, then the inbox's, in order)."""
    if ply <= len(held):
        return Arrival.DUPLICATE if held[ply - 1] == move else Arrival.CONFLICT
    return Arrival.NEXT if ply == len(held) + 1 else Arrival.GAP


def wanted_welcome(is_host: bool, sender: Sender, now: float, last_sent: float | None, every: float) -> bool:
    """The host sends the game (``welcome``) until the guest has said how far it holds it: at
    once on each connection, then every ``every`` seconds."""
    if not is_host or sender.heard:
        return False
    return last_sent is None or now - last_sent >= every
