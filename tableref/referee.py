"""The referee: the single writer of the game record.

It takes stable views (from the stabiliser) and commands (from the page and the buttons),
asks the rules to explain the board, appends every accepted event to the journal *before*
publishing it, and publishes decisions to its subscribers. An unexplained board never
moves the game on: it is reported and waited out (precision over recall).

:class:`Referee` does the work synchronously (``handle(item) -> decisions``) so it can be
tested without threads; :class:`RefereeLoop` runs one in a thread fed by a queue.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any

from rules import Fidelity, Joined, P, Phrase, RulesError, SpaceFix, State, Verdict, View, explain, get_game, why_not

from decisions import (
    Accepted,
    Ambiguous,
    AskHint,
    PlayComputerMove,
    Seats,
    SetTeaching,
    ShowHint,
    Choice,
    ChooseUnseen,
    Command,
    Confirm,
    Decision,
    Declare,
    GameOver,
    Illegal,
    NewGame,
    Partial,
    Rejected,
    Restored,
    StableView,
    StartGame,
    StartLesson,
    StopLesson,
    TakenBack,
    Undo,
    UnseenChosen,
    UnseenMoves,
)
from decisions.remote import RemoteLeft, RemoteMoves, RemoteOver
from .computer_turn import ComputerTurn
from .referee_remote import NO_TAKEBACK, RemoteSeats
from .referee_seats import ComputerSeats
from .referee_teach import Teaching
from .referee_clock import GameClock
from .referee_lesson import IN_LESSON, Lessons
from .journal import GameRecord, Journal, JournalError, UnseenGroup, parse_sequence

log = logging.getLogger(__name__)

Subscriber = Callable[[Decision], None]


class Referee(ComputerSeats, Teaching, Lessons, RemoteSeats, GameClock):
    def __init__(self, journal: Journal, record: GameRecord, *, max_sequence: int = 2) -> None:
        self.journal = journal
        self.record = record
        self.fidelity = Fidelity.parse(record.fidelity)
        self.max_sequence = max_sequence
        self._subscribers: list[Subscriber] = []
        self._choices: tuple[Choice, ...] = ()
        self._choice_view: View | None = None
        self._status: tuple[str, Any] | None = None  # last published board status, to avoid repeats
        self.last_view: View | None = None
        self._held_view: View | None = None  # the board as it was at an undo: to be put back
        # The computer's seats: a request to the opponent is answered with its token; anything
        # that changes the game meanwhile moves the token on, so an outdated answer is dropped.
        self._token = 0
        self._thinking: int | None = None  # the token of the search for a computer seat's turn
        self._hint: tuple[int, int] | None = None  # (token, level) of a hint being searched
        self._turn: ComputerTurn | None = None  # the computer's (or another table's) turn, being carried out
        self._remote_reset()  # another table's moves, handed over by the link (referee_remote.py)

    # -- construction -------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        journal: Journal,
        game: str,
        *,
        options: Mapping[str, Any] | None = None,
        fidelity: Fidelity = Fidelity.KIND,
        start: State | None = None,
        setup: str = "start",
        resume: bool = True,
        seats: Seats | None = None,
        computer: bool = True,
    ) -> "Referee":
        """Resume the journal's unfinished game of this kind, or begin a new one from
        ``start`` (default: the game's start, or its default setup if ``setup="default"``).
        ``seats``: the sides the computer plays in a new game (a resumed game keeps its own).
        ``computer=False``: the caller has no opponent to answer for the computer (``tableref
        run``, ``referee-serial``): a game with a computer seat is not resumed, nor begun."""
        rules_game = get_game(game)
        opts = rules_game.parse_options(options)
        if resume:
            game_id = journal.unfinished_game()
            if game_id is not None:
                record = journal.load(game_id)
                if record.state.is_game_over():
                    journal.finish(record, record.state)  # over but never marked so: close it
                elif ((record.game, record.fidelity, record.options) == (game, fidelity.value, opts)
                      and (computer or not record.seats.computers)):
                    return cls(journal, record)
        if start is None:
            start = rules_game.default_setup(opts) if setup == "default" else rules_game.start(opts)
        seats = (seats or Seats()).checked(start.sides, where="seats")
        if seats.computers and not computer:
            raise ValueError("seats: the computer cannot play here (no opponent): use tableref serve")
        return cls(journal, journal.new_game(start, opts, fidelity.value, seats))

    def subscribe(self, callback: Subscriber) -> None:
        self._subscribers.append(callback)

    def greeting(self) -> Decision:
        """The decision announcing the current game (published once at start-up); then, if a
        computer seat is to move, the request for its move."""
        said = self._emit(NewGame(self.record.id, self.ply, self.record.game, self.state.to_dict(), self.ply > 0,
                                  self.seats))
        self._think()
        return said

    @property
    def seats(self) -> Seats:
        return self.record.seats

    @property
    def state(self):
        return self.record.state

    @property
    def ply(self) -> int:
        return len(self.record.moves)

    # -- the one entry point ----------------------------------------------------------------------

    def handle(self, item: Command) -> list[Decision]:
        out = self._clocked(item, self._handle)  # the game clock moves with the game (referee_clock.py)
        if self.record.finished:  # a game lost on time: nobody thinks
            return out
        return out + self._think() + self._await_remote()

    def _handle(self, item: Command) -> list[Decision]:
        if isinstance(item, StableView):
            return self._taught(self._on_view(item.view), item.view)  # a piece lifted: where it may go
        if isinstance(item, SetTeaching):
            return self._on_set_teaching(item)
        if isinstance(item, PlayComputerMove):
            return self._on_computer_move(item)
        if isinstance(item, RemoteMoves):
            return self._on_remote_moves(item)
        if isinstance(item, RemoteOver):
            return self._on_remote_over(item)
        if isinstance(item, RemoteLeft):
            return self._on_remote_left(item)
        if isinstance(item, (Undo, ChooseUnseen)) and self.remote_game:
            return [self.refuse("undo" if isinstance(item, Undo) else "choose unseen moves", NO_TAKEBACK)]
        if isinstance(item, AskHint):
            return self._on_ask_hint(item.level)
        if isinstance(item, ShowHint):
            return self._on_show_hint(item)
        if isinstance(item, Confirm):
            return self._on_confirm(item.number, item.text)
        if isinstance(item, StartLesson):
            return self._on_start_lesson(item)
        if isinstance(item, StopLesson):
            return self._on_stop_lesson()
        if isinstance(item, (Undo, Declare)) and self._lesson is not None:
            return [self.refuse("undo" if isinstance(item, Undo) else f"declare {item.move}", IN_LESSON)]
        if isinstance(item, Undo):
            return self._on_undo()
        if isinstance(item, Declare):
            return self._on_declare(item.move)
        if isinstance(item, StartGame):
            self._lesson = None  # a new game ends a lesson under way
            return self._on_start(item)
        if isinstance(item, ChooseUnseen):
            return self._on_choose_unseen(item.first_ply, item.number)
        raise TypeError(f"referee: unknown command {item!r}")

    # -- board views --------------------------------------------------------------------------------

    def _on_view(self, view: View) -> list[Decision]:
        if self._lesson is not None:
            return self._on_view_lesson(view)  # only the lesson's step (tableref/referee_lesson.py)
        self.last_view = view
        if view != self._held_view:
            self._held_view = None
        else:
            # After an undo the board still shows the undone move: it is not to be accepted
            # again, the players are to put the pieces back.
            current = self.state.view(self.fidelity)
            wrong = current.diff(view.resolved(current))
            if wrong:
                fixes = tuple(SpaceFix(s, current.get_tokens(s), view.get_tokens(s)) for s in sorted(wrong))
                return self._status_change(("illegal", view), Illegal(self.record.id, self.ply, fixes))
            # The undone move left the board as it was (a ring put back where it started):
            # the board already shows the position restored.
            self._held_view = None
        if self._other_to_move() and view != self.state.view(self.fidelity):
            judged = self._on_view_computer(view)
            if judged is not None:
                return judged
        e = self._people_only(explain(self.state, view, self.fidelity, max_sequence=self.max_sequence), view)
        takeback = self._takeback_depth(view)
        if e.verdict is Verdict.UNCHANGED:
            self._choices = ()
            if self._status is not None and self._status[0] != "ok":
                return self._status_change(("ok", None), Restored(self.record.id, self.ply))
            self._status = ("ok", None)
            return []
        if e.verdict is Verdict.LEGAL and not takeback:
            return self._accept(e.candidates[0].moves, confirmed=False, alternatives=e.candidates[0].texts)
        if e.verdict in (Verdict.LEGAL, Verdict.AMBIGUOUS):
            choices = []
            for i, c in enumerate(e.candidates):
                words = self._describe_phrase(c.moves)
                choices.append(Choice(i + 1, c.text, words.text, equivalent=c.texts[1:], phrase=words))
            if takeback:
                taken = " ".join(self.record.moves[-takeback:])
                said = P("take back {moves}", moves=taken)
                choices.append(Choice(len(choices) + 1, f"takeback {taken}", said.text, takeback, phrase=said))
            self._choices = tuple(choices)
            self._choice_view = view
            return self._status_change(("ambiguous", view), Ambiguous(self.record.id, self.ply, self._choices))
        self._choices = ()
        if takeback == 1:
            return self._take_back(1)
        if takeback:
            # Several moves back at once is more likely a disturbed board than a wish:
            # the players must confirm it.
            taken = " ".join(self.record.moves[-takeback:])
            self._choices = (Choice(1, f"takeback {taken}", f"take back {taken}", takeback),)
            self._choice_view = view
            return self._status_change(("ambiguous", view), Ambiguous(self.record.id, self.ply, self._choices))
        if e.verdict is Verdict.PARTIAL and view.hidden:
            asked = self._out_of_sight(view, e.candidates)
            if asked:  # the board shows each of them done, but where the camera cannot see: ask
                self._choices, self._choice_view = asked, view
                return self._status_change(("ambiguous", view), Ambiguous(self.record.id, self.ply, asked))
        if e.verdict is Verdict.PARTIAL:
            texts = tuple(c.text for c in e.candidates)
            words = tuple(self._describe(c.moves) for c in e.candidates)
            return self._status_change(("partial", view), Partial(self.record.id, self.ply, texts, e.pending, words))
        replays = self._replay_choices(view)
        if replays:
            self._choices, self._choice_view = replays, view
            return self._status_change(("ambiguous", view), Ambiguous(self.record.id, self.ply, replays))
        if self._status == ("illegal", view):
            return []  # said already: the rule it breaks is not looked for again
        why = why_not(self.state, view, self.fidelity)  # the rule the board breaks, where one says why
        return self._status_change(("illegal", view), Illegal(self.record.id, self.ply, e.restore, why))

    def _out_of_sight(self, view: View, candidates: tuple) -> tuple[Choice, ...]:
        """The candidates the board shows done in full but for spaces hidden from the camera
        (a coin put on a repository behind a pile), as choices for the players to confirm. Never
        accepted unasked: a piece still in a player's hand looks alike (the question goes away
        when the board changes)."""
        current = self.state.view(self.fidelity)
        out = []
        for c in candidates:
            after = c.state.view(self.fidelity)
            if view.resolved(after) != after or not any(after.get_tokens(s) != current.get_tokens(s) for s in view.hidden):
                continue
            words = self._describe_phrase(c.moves)
            out.append(Choice(len(out) + 1, c.text, words.text, equivalent=c.texts[1:], phrase=words))
        return tuple(out)

    def _replay_choices(self, view: View) -> tuple[Choice, ...]:
        """A board no move explains, but one move from the position before the last does: the
        last move was accepted part-way (a hand that left the board mid-move, then came back to
        finish it). Offered as a question — take it back and record the finished move — never
        done unasked."""
        if not self.record.moves or self.remote_game:
            return ()
        before, last = self.record.states[-2], self.record.moves[-1]
        alt = explain(before, view, self.fidelity, max_sequence=1)
        if alt.verdict not in (Verdict.LEGAL, Verdict.AMBIGUOUS):
            return ()
        out = []
        for c in alt.candidates:
            if c.text == last:
                continue
            said = P("take back {last}: it was {move} ({words})", last=last, move=c.text,
                     words=self._describe_phrase(c.moves, before))
            out.append(Choice(len(out) + 1, f"takeback {last} then {c.text}", said.text, 1, then=c.text, phrase=said))
        return tuple(out)

    def _takeback_depth(self, view: View) -> int:
        """How many moves back the board shows an earlier position (0 if it does not; always 0 in
        a game with another table, whose journal holds the moves too)."""
        if self.remote_game:
            return 0
        current = self.record.states[-1].view(self.fidelity)
        for k in range(1, len(self.record.states)):
            earlier = self.record.states[-1 - k].view(self.fidelity)
            # A space hidden from the camera must not be one the takeback changes: unseen.
            if earlier.matches(view) and not any(earlier.get_tokens(s) != current.get_tokens(s) for s in view.hidden):
                return k
        return 0

    def _describe(self, moves: tuple | list, start: State | None = None) -> str:
        return self._describe_phrase(moves, start).text

    def _describe_phrase(self, moves: tuple | list, start: State | None = None) -> Phrase:
        """The moves in the games' words ("…; then …"), as a phrase for other languages."""
        parts: list[Phrase] = []
        s = self.state if start is None else start
        for m in moves:
            parts.append(s.move_phrase(m) if not parts else P("; then {move}", move=s.move_phrase(m)))
            s = s.successor(m)
        return parts[0] if len(parts) == 1 else P("{moves}", moves=Joined(tuple(parts), ""))  # none: ""

    def _status_change(self, status: tuple[str, Any], decision: Decision) -> list[Decision]:
        if status == self._status:
            return []
        self._status = status
        return [self._emit(decision)]

    # -- accepting and taking back ------------------------------------------------------------------

    def _accept(self, moves: tuple, *, confirmed: bool, alternatives: tuple[str, ...] = ()) -> list[Decision]:
        if self._turn is None:  # a person's move: whatever the computer was asked is outdated
            self._outdate()
        if len(moves) > 1:
            return self._accept_unseen(moves, confirmed, alternatives)
        out: list[Decision] = []
        for m in moves:
            before = self.state
            text, description = before.move_text(m), before.describe_move(m)
            after = before.apply(m)
            self.journal.record_move(self.record, text, after)  # durable before it is published
            before.forget()  # history now: its legal moves need not stay in memory all evening
            out.append(self._emit(Accepted(self.record.id, self.ply, text, description, after.to_dict(), confirmed)))
            if after.is_game_over():
                out.append(self._emit(GameOver(self.record.id, self.ply, after.outcome().to_dict())))
        self._choices = ()
        self._status = ("ok", None)
        return out

    def _accept_unseen(self, moves: tuple, confirmed: bool, alternatives: tuple[str, ...]) -> list[Decision]:
        """Several moves shown at once: recorded together, marked unseen. If more than one
        sequence reaches the board, the record keeps them all and the players are asked —
        a question that does not hold up play — never a guess written down as a fact."""
        steps, s = [], self.state
        for m in moves:
            after = s.apply(m)
            steps.append((s.move_text(m), s.describe_move(m), after))
            s = after
        first = self.ply
        group = self.journal.record_sequence(self.record, [(t, a) for t, _, a in steps], alternatives)
        out: list[Decision] = []
        for i, (text, description, after) in enumerate(steps):
            out.append(self._emit(Accepted(self.record.id, first + i + 1, text, description, after.to_dict(),
                                           confirmed, unseen=True)))
        if group is not None:
            out.append(self._emit(self._unseen_question(group)))
        if s.is_game_over():
            out.append(self._emit(GameOver(self.record.id, self.ply, s.outcome().to_dict())))
        self._choices = ()
        self._status = ("ok", None)
        return out

    def _unseen_question(self, group: UnseenGroup) -> UnseenMoves:
        before = self.record.states[group.ply]
        said = tuple(self._describe_phrase(parse_sequence(before, alt), before) for alt in group.alternatives)
        return UnseenMoves(self.record.id, self.ply, group.ply, group.count, group.alternatives,
                           tuple(p.text for p in said), group.chosen, phrases=said)

    def _on_choose_unseen(self, first_ply: int, number: int) -> list[Decision]:
        try:
            group = self.journal.choose_unseen(self.record, first_ply, number)
        except JournalError as exc:
            return [self.refuse(f"choose unseen moves {first_ply + 1}", str(exc))]
        return [self._emit(UnseenChosen(self.record.id, self.ply, group.ply,
                                        tuple(self.record.moves[group.ply:group.ply + group.count])))]

    def _take_back(self, depth: int) -> list[Decision]:
        out: list[Decision] = []
        self._outdate()
        for _ in range(depth):
            move, mover = self.record.moves[-1], self.record.states[-2].to_move
            self.journal.record_undo(self.record)
            out.append(self._emit(TakenBack(self.record.id, self.ply, move, self.state.to_dict(),
                                            self.seats.is_computer(mover))))
        self._choices = ()
        self._status = ("ok", None)
        return out

    # -- commands ---------------------------------------------------------------------------------

    def _on_confirm(self, number: int, text: str | None = None) -> list[Decision]:
        choice = next((c for c in self._choices if c.number == number), None)
        if choice is None:
            reason = "no question is open" if not self._choices else f"choose 1..{len(self._choices)}"
            return [self.refuse(f"confirm {number}", reason)]
        if text is not None and text != choice.text:
            return [self.refuse(f"confirm {number}", f"the question has changed ({number} is now {choice.text})")]
        if choice.takeback:
            out = self._take_back(choice.takeback)
            if not choice.then:
                return out
            e = explain(self.state, self._choice_view, self.fidelity, max_sequence=1)
            match = next((c for c in e.candidates if c.text == choice.then), None)
            if match is None:  # the journal and the board cannot disagree here, but never guess
                return out + [self.refuse(f"confirm {number}", "the board no longer shows that move")]
            return out + self._accept(match.moves, confirmed=True)
        e = explain(self.state, self._choice_view, self.fidelity, max_sequence=self.max_sequence)
        match = next((c for c in e.candidates if c.text == choice.text), None)
        if match is None:  # cannot happen unless the game moved on under the question
            return [self._emit(Rejected(self.record.id, self.ply, f"confirm {number}", "the board has changed"))]
        return self._accept(match.moves, confirmed=True, alternatives=match.texts)

    def _on_undo(self) -> list[Decision]:
        if not self.record.moves:
            return [self._emit(Rejected(self.record.id, self.ply, "undo", "no move to take back"))]
        out = self._take_back(self._undo_depth())
        if self.last_view is not None:  # tell the players what to put back, or that it is back
            self._status = ("undone", None)
            self._held_view = self.last_view
            out += self._on_view(self.last_view)
        return out

    def _on_declare(self, text: str) -> list[Decision]:
        if self._other_to_move():  # its moves are its own, declared by it when the board cannot show them
            who = "the other table" if self._remote_to_move() else "the computer"
            return [self._emit(Rejected(self.record.id, self.ply, f"declare {text}", f"{who} is to move"))]
        try:
            move = self.state.parse_move(text)
        except RulesError as exc:
            return [self._emit(Rejected(self.record.id, self.ply, f"declare {text}", str(exc)))]
        if move not in self.state.unseen_moves(self.fidelity):
            # Anything the board can show must be shown on the board, so the two never disagree.
            return [self._emit(Rejected(self.record.id, self.ply, f"declare {text}", "make this move on the board"))]
        return self._accept((move,), confirmed=True)

    def _on_start(self, cmd: StartGame) -> list[Decision]:
        try:
            game = get_game(cmd.game)
            opts = game.parse_options(cmd.options)
            state = game.default_setup(opts) if cmd.setup == "default" else game.start(opts)
        except RulesError as exc:
            return [self._emit(Rejected(self.record.id, self.ply, "new game", str(exc)))]
        try:
            seats = (cmd.seats or Seats()).checked(state.sides, where="seats")
        except ValueError as exc:
            return [self._emit(Rejected(self.record.id, self.ply, "new game", str(exc)))]
        if not self.record.finished:
            self.journal.finish(self.record)  # abandoned: finished without an outcome
        self._outdate()
        self._remote_reset()
        self.record = self.journal.new_game(state, opts, self.fidelity.value, seats)
        self._choices, self._status, self._held_view = (), None, None
        if cmd.board is not None:
            self.last_view = cmd.board
        elif self.last_view is not None:
            # The board as the old game left it is the players' to set up, never a first move
            # of the new game: held, as after an undo, until it changes.
            self._held_view = self.last_view
        out = [self._emit(NewGame(self.record.id, self.ply, self.record.game, self.state.to_dict(), False,
                                  self.seats))]
        if self.last_view is not None:
            out += self._on_view(self.last_view)
        return out

    def refuse(self, command: str, reason: str) -> Decision:
        """Publish that a command could not be carried out (the game is unchanged)."""
        return self._emit(Rejected(self.record.id, self.ply, command, reason))

    def _emit(self, decision: Decision) -> Decision:
        for callback in list(self._subscribers):
            try:
                callback(decision)
            except Exception:  # a broken subscriber must not stop the referee
                log.exception("subscriber %r failed on %s", callback, decision.kind)
        return decision


class _ViewMarker:
    """Where in the queue the newest pending board view is judged."""

    __slots__ = ()


class RefereeLoop:
    """Runs a :class:`Referee` in its own thread, fed by a queue. ``start()`` starts it.

    With ``latest_view_only`` (the default, for live sources) a board view still waiting
    when a newer one arrives is replaced by it: only the newest board matters, and a
    flooding source cannot bury the players' commands under stale views. Commands are
    never dropped. A recorded source whose every view must be judged passes False.
    """

    _STOP = object()

    def __init__(self, referee: Referee, *, latest_view_only: bool = True) -> None:
        self.referee = referee
        self.latest_view_only = latest_view_only
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._view_lock = threading.Lock()
        # (marker, newest view): the marker in the queue is where that view is judged
        self._pending: tuple[_ViewMarker, StableView] | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="referee", daemon=True)
            self._thread.start()

    def submit(self, item: Command) -> None:
        with self._view_lock:  # one lock for both, so the queue keeps the order of submission
            if self.latest_view_only and isinstance(item, StableView):
                if self._pending is not None:
                    self._pending = (self._pending[0], item)
                else:
                    marker = _ViewMarker()
                    self._pending = (marker, item)
                    self._queue.put(marker)
                return
            if self._pending is not None:
                # The view waiting now is judged before this command; a newer view must not
                # take its place ahead of the command (a new game's reset board judged by the
                # old game would take its moves back).
                self._queue.put(self._pending[1])
                self._pending = None
            self._queue.put(item)

    def stop(self, timeout: float | None = None) -> None:
        """Finish what is queued, then stop. Safe to call twice."""
        if self._thread is not None:
            self._queue.put(self._STOP)
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is self._STOP:
                return
            if isinstance(item, _ViewMarker):
                with self._view_lock:
                    if self._pending is None or self._pending[0] is not item:
                        continue  # its view was sealed ahead of a command
                    item, self._pending = self._pending[1], None
            try:
                self.referee.handle(item)
            except (RulesError, JournalError) as exc:
                log.error("referee could not handle %r: %s", item, exc)
                self.referee.refuse(type(item).__name__, str(exc))
            except Exception:  # the service must outlive one bad input; the error is logged
                log.exception("referee failed on %r", item)
