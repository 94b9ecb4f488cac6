"""The referee's side of the computer's seats (a mixin of :class:`~tableref.referee.Referee`).

When a computer seat is to move, the referee publishes a :class:`~decisions.Thinking` request
with a token; the opponent (tableref/opponent.py) searches on its own thread and answers with
:class:`~decisions.PlayComputerMove`. Anything that changes the game meanwhile (a person's move,
an undo, a new game) moves the token on, so an outdated answer is dropped. The move is then
shown (:class:`~decisions.ComputerMove`) and the board may only show it, each move of the turn
in order: anything else is refused with what to put back and the move said again. Hints are
the same search for a person's seat, shown and never played.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from decisions import ComputerMove, Decision, Hint, Illegal, Partial, PlayComputerMove, ShowHint, Thinking
from rules import Explanation, RulesError, Verdict, View, explain

from .computer_turn import ComputerTurn, put_back


log = logging.getLogger("tableref.referee")


class ComputerSeats:
    """Mixed into the referee: the computer's turn and hints. Uses the referee's record,
    journal and status; never runs a search itself."""

    def _computer_to_move(self) -> bool:
        return not self.state.is_game_over() and self.seats.is_computer(self.state.to_move)

    def _outdate(self) -> None:
        """The game is about to change: any search asked for is outdated, any turn shown void."""
        self._token += 1
        self._thinking, self._hint, self._turn = None, None, None

    def _think(self) -> list[Decision]:
        """Ask the opponent for the computer's move, once per position."""
        if not self._computer_to_move() or self._thinking is not None or self._turn is not None:
            return []
        self._token += 1
        self._thinking = self._token
        side = self.state.to_move
        return [self._emit(Thinking(self.record.id, self.ply, side, self.seats.seat(side).level or 1, self._token,
                                    self.record.game, self.state.to_dict(), state=self.state))]

    def _on_computer_move(self, cmd: PlayComputerMove) -> list[Decision]:
        if cmd.token != self._thinking:
            log.info("an outdated computer move (request %s, now %s) dropped", cmd.token, self._thinking)
            return []
        side = self.state.to_move
        try:
            turn = ComputerTurn.chosen(self.state, side, self.seats.seat(side).level or 1, cmd.moves, cmd.evaluation)
        except (RulesError, ValueError) as exc:  # an engine bug must not stop the game: ask again
            self._thinking = None
            return [self.refuse("computer move", f"{' '.join(cmd.moves)}: {exc}")]
        self._thinking, self._turn = None, turn
        self._status = None
        out = [self._announce(turn)] + self._declare_unseen_steps()
        if self._turn is not None and self.last_view is not None and self.last_view != self.state.view(self.fidelity):
            out += self._on_view(self.last_view)  # the board already shows something: judge it now
        return out

    def _announce(self, turn: ComputerTurn, *, repeated: bool = False) -> Decision:
        if self.seats.is_remote(turn.side):  # another table's turn, carried out the same way
            return self._announce_remote(turn, repeated)
        return self._emit(ComputerMove(self.record.id, self.ply, turn.side, turn.level, turn.steps, turn.done,
                                       turn.evaluation, repeated))

    def _on_view_computer(self, view: View) -> list[Decision] | None:
        """A computer seat is to move and the board changed: the board may only show the
        computer's own moves, each in turn. ``None``: judge it as any board (a takeback)."""
        turn = self._turn
        if self._takeback_depth(view) and (turn is None or not turn.shown(view, self.fidelity)):
            return None  # a person takes back their move: the computer's reply goes with it
        if turn is None:  # still thinking: nothing is to move yet
            fixes = put_back(self.state.view(self.fidelity), view)
            return self._status_change(("illegal", view), Illegal(self.record.id, self.ply, fixes))
        shown = turn.shown(view, self.fidelity)
        if shown:
            out = self._accept_steps(turn, shown) + self._declare_unseen_steps()
            if turn.finished or self.state.is_game_over():
                self._turn = None
            else:  # a turn of several moves, checked step by step: what is still to do
                self._status = ("turn", turn.done)
                out.append(self._announce(turn))
            return out
        e = explain(self.state, view, self.fidelity, max_sequence=1)
        nxt = turn.states[turn.done + 1]
        if e.verdict is Verdict.PARTIAL and any(c.state == nxt for c in e.candidates):
            step = turn.steps[turn.done]
            return self._status_change(("partial", view), Partial(self.record.id, self.ply, (step.move,), e.pending,
                                                                  (step.description,)))
        fixes = put_back(self.state.view(self.fidelity), view)
        out = self._status_change(("illegal", view), Illegal(self.record.id, self.ply, fixes))
        if out:  # the computer's move, said again beside what to put back
            out.append(self._announce(turn, repeated=True))
        return out

    def _people_only(self, e: Explanation, view: View) -> Explanation:
        """A board judged for a person: only moves made by people at this table. Several moves
        shown at once (the person's, then the next side's) must not carry a computer seat's move
        in with them — that one is the computer's to choose (DRIFT: a person's turn ended
        unseen, then a computer's piece moved by hand)."""
        if not self.seats.by_side or e.verdict not in (Verdict.LEGAL, Verdict.AMBIGUOUS, Verdict.PARTIAL):
            return e
        kept = tuple(c for c in e.candidates if not self._moves_for_another(c.moves))
        if len(kept) == len(e.candidates):
            return e
        if not kept:
            fixes = put_back(self.state.view(self.fidelity), view)
            return Explanation(Verdict.ILLEGAL, restore=fixes)
        if e.verdict is Verdict.PARTIAL:
            return replace(e, candidates=kept)
        return replace(e, verdict=Verdict.LEGAL if len(kept) == 1 else Verdict.AMBIGUOUS, candidates=kept)

    def _moves_for_another(self, moves: tuple) -> bool:
        """Any of these moves is the computer's or another table's to choose."""
        s = self.state
        for m in moves:
            if not self.seats.plays_here(s.to_move):
                return True
            s = s.successor(m)
        return False

    def _accept_steps(self, turn: ComputerTurn, shown: int) -> list[Decision]:
        """The next ``shown`` moves of a turn the board shows carried out (the computer's, a
        lesson's step), each recorded in turn."""
        out: list[Decision] = []
        for m in turn.moves[turn.done:turn.done + shown]:
            out += self._accept((m,), confirmed=False)
            turn.done += 1
        return out

    def _declare_unseen_steps(self) -> list[Decision]:
        """The next steps of the computer's turn that the board cannot show (DRIFT's end of a
        turn; a Gygès ring that bumps one back onto the mover's start): the computer declares
        them, as a person would from the page, and they are recorded at once."""
        out: list[Decision] = []
        turn = self._turn
        while turn is not None and not turn.finished and not self.state.is_game_over():
            if turn.states[turn.done + 1].view(self.fidelity) != self.state.view(self.fidelity):
                break
            out += self._accept((turn.moves[turn.done],), confirmed=True)
            turn.done += 1
        if turn is not None and (turn.finished or self.state.is_game_over()):
            self._turn = None
        return out

    def _undo_depth(self) -> int:
        """A person's undo takes back their last move and the computer's reply after it."""
        if not self.seats.computers:
            return 1
        movers = [s.to_move for s in self.record.states[:-1]]
        depth = 0
        while depth < len(movers) and self.seats.is_computer(movers[-1 - depth]):
            depth += 1
        return min(depth + 1, len(movers))

    def _on_ask_hint(self, level: int) -> list[Decision]:
        if self.state.is_game_over():
            return [self.refuse("hint", "the game is over")]
        if self._other_to_move():
            return [self.refuse("hint", "the computer is to move" if self._computer_to_move() else
                                "the other table is to move")]
        self._token += 1
        self._hint = (self._token, level)
        return [self._emit(Thinking(self.record.id, self.ply, self.state.to_move, level, self._token,
                                    self.record.game, self.state.to_dict(), "hint", state=self.state))]

    def _on_show_hint(self, cmd: ShowHint) -> list[Decision]:
        if self._hint is None or cmd.token != self._hint[0]:
            return []  # the game moved on: the hint is outdated
        level, self._hint = self._hint[1], None
        try:
            turn = ComputerTurn.chosen(self.state, self.state.to_move, level, cmd.moves, cmd.evaluation)
        except (RulesError, ValueError) as exc:
            return [self.refuse("hint", f"{' '.join(cmd.moves)}: {exc}")]
        return [self._emit(Hint(self.record.id, self.ply, turn.side, level, turn.steps, cmd.evaluation))]

