"""The referee's side of teaching at the table (issue 31, item 1; a mixin of
:class:`~tableref.referee.Referee`).

A board that shows a piece lifted is already judged ``partial`` (a move under way) or
``illegal`` (no move lifts it). While teaching is on, the referee then also publishes
:class:`~decisions.Lifted`: where that piece may go, from the position's cached legal moves
(rules/teach.py). Never journalled; the next board status replaces it. Off while a computer
seat is to move: the board then shows the computer's own move (tableref/referee_seats.py).
"""

from __future__ import annotations

from decisions import Decision, Illegal, Lifted, Mark, Partial, SetTeaching
from rules import View
from rules.teach import destinations


class Teaching:
    """Mixed into the referee. ``teach``: publish :class:`Lifted` (off unless the service
    turns it on: ``[teach] lift``, the page's toggle)."""

    teach: bool = False

    def _on_set_teaching(self, cmd: SetTeaching) -> list[Decision]:
        self.teach = bool(cmd.lift)
        return []

    def _taught(self, out: list[Decision], view: View) -> list[Decision]:
        """``out``: what judging ``view`` published. A new partial or illegal status that is
        one piece lifted is followed by where it may go."""
        if not self.teach or not out or not isinstance(out[-1], (Partial, Illegal)) or self._computer_to_move():
            return out
        found = destinations(self.state, view, self.fidelity)
        if found is None:
            return out
        state = self.state
        lifted = Lifted(self.record.id, self.ply, found.space, found.piece, found.side, found.to_move,
                        found.destinations, tuple(Mark(s, k) for s, k in found.marks),
                        tuple(state.move_text(m) for m in found.moves))
        return out + [self._emit(lifted)]
