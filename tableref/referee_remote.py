"""The referee's side of a remote table's seats (a mixin of :class:`~tableref.referee.Referee`;
issue 34, part 2; docs/remote.md).

The other table's moves come from the link (tableref/remote/client.py) as :class:`RemoteMoves`,
already committed to this journal's inbox. They are carried out on this board exactly as the
computer's move is: shown as a turn (:class:`~tableref.computer_turn.ComputerTurn`, announced as
:class:`RemoteTurn`), and the board may then only show those moves, in order — the same
machinery as the computer's (tableref/referee_seats.py). Nothing is taken back in a game between
two tables: an undo, a takeback shown on the board or a later choice among unseen moves would
leave the two journals holding different games.

The clocks (docs/remote.md, "The clocks"): each table's clock is the truth for its own player's
moves. When the other table's move is carried out here, the mover's time is set to what its own
clock said just after it (the move's ``times``); a flag falls only on the table of the player
whose time is out, and reaches this one as :class:`RemoteOver`.
"""

from __future__ import annotations

import logging

from decisions import Decision, GameOver, StartGame
from decisions.clock import FlagFall
from decisions.remote import MatchEnded, RemoteLeft, RemoteMove, RemoteMoves, RemoteOver, RemoteTurn, RemoteWaiting
from rules import RulesError, get_game

from . import clock_journal
from .computer_turn import ComputerTurn

log = logging.getLogger("tableref.referee")

NO_TAKEBACK = "a game with another table: moves are not taken back (agree it with your opponent)"


class RemoteSeats:
    """Mixed into the referee: the other table's turn. ``_remote_in``: the other table's moves
    of the current game the link has handed over, by ply."""

    def _remote_reset(self) -> None:
        self._remote_in: dict[int, RemoteMove] = {}
        self._remote_waiting: int | None = None  # the ply a RemoteWaiting was said for

    @property
    def remote_game(self) -> bool:
        return bool(self.seats.remotes)

    def _remote_to_move(self) -> bool:
        return not self.state.is_game_over() and self.seats.is_remote(self.state.to_move)

    def _other_to_move(self) -> bool:
        """The side to move is not played by a person here (the computer, another table)."""
        return not self.state.is_game_over() and not self.seats.plays_here(self.state.to_move)

    def _on_remote_moves(self, cmd: RemoteMoves) -> list[Decision]:
        if cmd.game_id != self.record.id or self.record.finished:
            log.info("remote moves of game %s dropped: game %s is under way", cmd.game_id, self.record.id)
            return []
        for m in cmd.moves:
            if m.ply > self.ply:
                self._remote_in.setdefault(m.ply, m)
        return self._remote_next()

    def _remote_next(self) -> list[Decision]:
        """Show the other table's turn as far as its moves have come (a turn of several moves may
        come move by move: the turn shown grows, the steps done stay done)."""
        if not self._remote_to_move():
            return []
        turn = self._turn
        side = self.state.to_move
        start = turn.states[0] if turn is not None else self.state
        first = self.ply - (turn.done if turn is not None else 0)
        texts, s = [], start
        while (first + len(texts) + 1) in self._remote_in and not s.is_game_over() and s.to_move == side:
            text = self._remote_in[first + len(texts) + 1].move
            try:
                s = s.apply(s.parse_move(text))
            except RulesError as exc:  # the link checks every move before it keeps it: a bug if here
                log.error("the other table's move %d %r cannot be played here: %s", first + len(texts) + 1, text, exc)
                break
            texts.append(text)
        if not texts or (turn is not None and len(texts) == len(turn.moves)):
            return []
        new = ComputerTurn.chosen(start, side, 0, tuple(texts), 0.5)
        new.done = turn.done if turn is not None else 0
        self._turn, self._status = new, None
        out = [self._announce(new)] + self._declare_unseen_steps()
        if self._turn is not None and self.last_view is not None and self.last_view != self.state.view(self.fidelity):
            out += self._on_view(self.last_view)  # the board already shows something: judge it now
        return out

    def _announce_remote(self, turn: ComputerTurn, repeated: bool) -> Decision:
        table = self.seats.seat(turn.side).table or "?"
        return self._emit(RemoteTurn(self.record.id, self.ply, turn.side, table, turn.steps, turn.done, repeated))

    def _await_remote(self) -> list[Decision]:
        """After every item: the other table's next turn if its moves are here, else (once per
        position) that this table waits for it."""
        if not self._remote_to_move() or self._turn is not None:
            return []
        out = self._remote_next()
        if self._turn is None and self._remote_waiting != self.ply:
            self._remote_waiting = self.ply
            side = self.state.to_move
            out.append(self._emit(RemoteWaiting(self.record.id, self.ply, side, self.seats.seat(side).table or "?")))
        return out

    def _on_remote_left(self, cmd: RemoteLeft) -> list[Decision]:
        """The other table began another game: this one is closed as it stands (unfinished, as
        there) and a game of people here begins — the same game and set-up, the configured
        clock; the board as it is held until it is set up, as after the panel's new game."""
        if cmd.game_id != self.record.id or self.record.finished:
            return []
        if cmd.ply != self.ply:
            log.warning("the other table left game %s after %d moves; this table holds %d", self.record.id,
                        cmd.ply, self.ply)
        table = next(iter(self.seats.remotes.values())).table or "?"
        game = get_game(self.record.game)
        setup = "default" if game.default_setup(game.parse_options(self.record.options)) == self.record.states[0] \
            else "start"
        ended = self._emit(MatchEnded(self.record.id, self.ply, table))
        return [ended] + self._on_start(StartGame(self.record.game, dict(self.record.options), setup))

    # -- the clocks ---------------------------------------------------------------------------------

    def _mover_times(self, ply: int) -> dict[str, int]:
        """The times the other table's clock said just after its move making ``ply`` (empty: a
        move made here, or no clock)."""
        got = self._remote_in.get(ply)
        return dict(got.times) if got is not None else {}

    def _flags_here(self, side: str) -> bool:
        """Only the table whose player it is lets that player's flag fall: its clock is the truth."""
        return not self.seats.is_remote(side)

    def _on_remote_over(self, cmd: RemoteOver) -> list[Decision]:
        """The other table's player lost on time there: the game ends here the same way."""
        if cmd.game_id != self.record.id or self.record.finished:
            return []
        if cmd.ply != self.ply:
            log.warning("the other table ended game %s after %d moves; this table holds %d", self.record.id,
                        cmd.ply, self.ply)
        at = self._clock_time_now()
        self._outdate()
        clock = self.clock
        if clock is not None:
            clock.stop(at)
            clock_journal.finish_on_time(self.journal, self.record, cmd.outcome, clock.to_dict(at), self.clock_wall())
        else:
            self.journal.finish(self.record)
        side = (cmd.outcome.get("reason") or "").removesuffix(" loses on time")
        times = clock.times(at) if clock is not None else {}
        return [self._emit(FlagFall(self.record.id, self.ply, side, cmd.outcome, times)),
                self._emit(GameOver(self.record.id, self.ply, cmd.outcome))]
