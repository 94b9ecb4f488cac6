"""The live table: what the page shows, kept up to date from the referee's decisions.

:class:`LiveTable` subscribes to the referee (``on_decision`` runs on the referee's thread),
keeps one snapshot of everything the live page draws, and publishes each change to the
:class:`~web.broadcast.Broadcaster` that SSE clients read. Commands from the page go out
through ``submit`` (the referee's queue): the web never judges a board itself.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rules import MORE, OCCUPIED, Fidelity, Joined, P, RulesError, SpaceFix, State, get_game, named_in_part
from rules.phrase import Value
from decisions import (
    Accepted, Ambiguous, AskHint, Command, ComputerMove, Confirm, Decision, Declare, GameOver, Hint, Illegal, Lifted,
    NewGame, Partial, ChooseUnseen, Rejected, Restored, Seats, SetTeaching, StartGame, StartLesson, StopLesson,
    TakenBack, Thinking, Undo, UnseenChosen, UnseenMoves,
)

from .boards import palette, space_labels
from .broadcast import Broadcaster
from .i18n import translations
from .page_words import log_phrase
from .simboard import SimBoard
from .lesson import LessonDesk, log_line as lesson_log
from .clock import CLOCK_DECISIONS, ClockDesk
from decisions.clock import PauseClock, ResumeClock
from .teach import TeachDesk
from .remote import RemoteDesk, remote_log

log = logging.getLogger(__name__)

SETUPS = ("start", "default")


class LiveTable:
    def __init__(
        self,
        *,
        game_id: int,
        state: State,
        moves: Sequence[str],
        options: Mapping[str, Any],
        fidelity: Fidelity,
        submit: Callable[[Command], None],
        broadcaster: Broadcaster | None = None,
        sim: SimBoard | None = None,
        on_sim_edit: Callable[[], None] | None = None,
        journal_path: Path | None = None,
        history: int = 30,
        teach: bool = True,
    ) -> None:
        self.fidelity = fidelity
        self.broadcaster = broadcaster or Broadcaster()
        self.sim = sim
        self.journal_path = journal_path
        self._submit = submit
        self._on_sim_edit = on_sim_edit
        self._lock = threading.RLock()
        self._recent: deque[dict[str, Any]] = deque(maxlen=history)
        self._question: list[dict[str, Any]] = []
        self._unseen: list[dict[str, Any]] = []  # open "which moves were played?" questions
        self._names: dict[str, Any] = {}  # the club hub's pairing: {"players": {side: name}, "round": n}
        self._status: dict[str, Any] = {"kind": "ok"}
        self._notice: dict[str, Any] | None = None
        self._last: dict[str, Any] | None = None
        self._pending_options: tuple[str, dict[str, Any]] | None = None  # of a new game asked for
        self._source: dict[str, Any] = {"name": sim.source if sim else "board", "status": "steady",
                                        "text": "simulated board connected" if sim else "board connected"}
        # The texts shown that come from the rules or the referee, English -> phrase, per part of
        # the page: said in the reader's language through the snapshot's "i18n" (web/i18n.py).
        self._words: dict[str, dict[str, Value]] = {"last": {}, "question": {}, "status": {}, "log": {}, "unseen": {},
                                                    "computer": {}}
        self._seats = Seats()
        # The computer's turn to carry out (or its thinking), and a hint: each {"side", "level",
        # "steps": [{move, description, lift, place}], "done"}, drawn on the board like a move.
        self._computer: dict[str, Any] | None = None
        self._hint: dict[str, Any] | None = None
        self._reply_taken: list[str] = []  # the computer's moves an undo has just taken back, in play order
        self._log_status: dict[str, dict[str, Any]] = {}  # the log's illegal and part-way lines
        self._i18n: dict[str, dict[str, str]] | None = None
        self.teach = TeachDesk(teach)  # teaching: on or off, and the piece the board shows lifted (web/teach.py)
        self.lesson = LessonDesk()  # a first lesson's step (web/lesson.py)
        self.clock = ClockDesk()  # the game clock (web/clock.py)
        self.remote = RemoteDesk()  # another table's turn, and the link to it (web/remote.py)
        self._set_game(game_id, state, list(moves), dict(options))

    # -- the referee's side ------------------------------------------------------------------

    def on_decision(self, decision: Decision) -> None:
        """Referee subscriber: fold the decision into the snapshot, then publish it."""
        if isinstance(decision, Lifted):  # shown on the board, never a line of the log
            with self._lock:
                self.teach.fold(decision)
                snapshot = self._snapshot()
            self.broadcaster.publish("decision", {"decision": decision.to_dict(), "live": snapshot})
            return
        if isinstance(decision, CLOCK_DECISIONS):  # the game clock: shown large, never a line of the log
            with self._lock:
                self.clock.fold(decision)
                snapshot = self._snapshot()
            self.broadcaster.publish("decision", {"decision": decision.to_dict(), "live": snapshot})
            return
        with self._lock:
            self.clock.fold(decision)
            self.teach.fold(decision)
            self.lesson.fold(decision)
            self._fold(decision)
            steps_said = self.remote.fold(decision)
            if steps_said:
                self._words["computer"] = steps_said
            entry = {**decision.to_dict(), "text": decision.text().strip()}
            self._recent.appendleft({"kind": decision.kind, "text": entry["text"], "ply": decision.ply,
                                     "game_id": decision.game_id})
            if isinstance(decision, (Illegal, Partial)):
                self._log_status[entry["text"]] = {**self._status, "words": dict(self._words["status"])}
            # the log's other lines in the page's words (a lesson's: web/lesson.py)
            said = log_phrase(decision, self._state) or lesson_log(decision) or remote_log(decision)
            if said is not None:
                self._words["log"][entry["text"]] = said
            shown = {r["text"] for r in self._recent}
            self._words["log"] = {k: v for k, v in self._words["log"].items() if k in shown}
            self._log_status = {k: v for k, v in self._log_status.items() if k in shown}
            self._i18n = None
            snapshot = self._snapshot()
        self.broadcaster.publish("decision", {"decision": entry, "live": snapshot})

    def _fold(self, d: Decision) -> None:
        # An undo takes back the computer's reply, then the person's move, one decision each:
        # the person's says it took the reply with it ("reply").
        reply, self._reply_taken = self._reply_taken, []
        if isinstance(d, NewGame):
            state = get_game(d.game).from_dict(d.position)
            moves, self._unseen = self._journal_moves(d.game_id) if d.resumed else ([], [])
            if self._pending_options is not None and self._pending_options[0] == d.game:
                options = self._pending_options[1]
            else:
                options = self._options if d.game == self._game else {}
            self._pending_options = None
            self._set_game(d.game_id, state, moves, options)
            self._seats, self._computer, self._hint = d.seats, None, None
            self._last = {"kind": d.kind, "text": d.text(), "highlight": []}
            self._question, self._status = [], {"kind": "ok"}
        elif isinstance(d, Accepted):
            before = self._state
            highlight = _spaces(before, d.move)
            self._state = get_game(self._game).from_dict(d.position)
            self._moves.append(d.move)
            self._position_changed()
            self._last = {"kind": d.kind, "text": d.text().strip(), "move": d.move, "description": d.description,
                          "confirmed": d.confirmed, "player": before.to_move, "highlight": highlight}
            self._question, self._status = [], {"kind": "ok"}
            self._said_move(before, d)
            self._hint = None
            if self._computer is not None and self._computer["side"] != before.to_move:
                self._computer = None  # a person moved: the computer's last turn is history
        elif isinstance(d, TakenBack):
            self._state = get_game(self._game).from_dict(d.position)
            if self._moves:
                self._moves.pop()
            self._unseen = [u for u in self._unseen if u["first_ply"] + u["count"] <= len(self._moves)]
            self._position_changed()
            self._last = {"kind": d.kind, "text": f"took back {d.move}", "move": d.move,
                          "highlight": _spaces(self._state, d.move), "computer": d.computer,
                          "reply": " ".join(reply) if reply and not d.computer else None}
            self._reply_taken = [d.move, *reply] if d.computer else []
            self._question, self._status = [], {"kind": "ok"}
            self._computer, self._hint = None, None
        elif isinstance(d, GameOver):
            self._last = {**(self._last or {}), "kind": "game_over", "outcome": d.outcome}
        elif isinstance(d, Ambiguous):
            self._question = [{**c.to_dict(), "spaces": [] if c.takeback else _spaces(self._state, c.text)}
                              for c in d.choices]
            self._words["question"] = {c.description: c.phrase for c in d.choices if c.phrase is not None}
            self._status = {"kind": "ambiguous"}
        elif isinstance(d, Partial):
            self._question = []
            self._status = {"kind": "partial", "candidates": list(d.candidates), **_fixes(d.pending, self._state)}
            self._words["status"] = _fix_words(d.pending, self._state)
        elif isinstance(d, Illegal):
            self._question = []
            why, why_words = _why(d)
            self._status = {"kind": "illegal", **_fixes(d.restore, self._state), **why}
            self._words["status"] = {**_fix_words(d.restore, self._state), **why_words}
        elif isinstance(d, Restored):
            self._question, self._status = [], {"kind": "ok"}
        elif isinstance(d, UnseenMoves):
            asked = _unseen_question(d.first_ply, d.count, d.alternatives, d.descriptions)
            self._unseen = [u for u in self._unseen if u["first_ply"] != d.first_ply] + [asked]
            self._words["unseen"].update({p.text: p for p in d.phrases})
        elif isinstance(d, UnseenChosen):
            self._unseen = [u for u in self._unseen if u["first_ply"] != d.first_ply]
            self._moves[d.first_ply:d.first_ply + len(d.moves)] = list(d.moves)
        elif isinstance(d, Rejected):
            self._notice = {"text": f"{d.command} refused: {d.reason}", "at": time.time()}
        elif isinstance(d, Thinking):
            shown = {"side": d.side, "level": d.level, "thinking": True, "steps": [], "done": 0}
            if d.purpose == "hint":
                self._hint = shown
            else:
                self._computer = shown
        elif isinstance(d, (ComputerMove, Hint)):
            shown = {"side": d.side, "level": d.level, "thinking": False, "steps": [s.to_dict() for s in d.steps],
                     "done": getattr(d, "done", 0), "repeated": getattr(d, "repeated", False),
                     "evaluation": round(d.evaluation, 2)}
            self._words["computer"] = {s.description: s.phrase for s in d.steps if s.phrase is not None}
            if isinstance(d, Hint):
                self._hint = shown
            else:
                self._computer = shown

    def _said_move(self, before: State, d: Accepted) -> None:
        """The accepted move's description as a phrase (for the card and the log's line)."""
        try:
            said = before.move_phrase(before.parse_move(d.move))
        except RulesError:
            return  # a move this position cannot read: shown in English
        if said.text != d.description:
            return
        self._words["last"] = {d.description: said}
        how = ([P(" (confirmed)")] if d.confirmed else []) + ([P(" (never seen on its own)")] if d.unseen else [])
        self._words["log"][d.text().strip()] = Joined((f"{d.ply}. {d.move:<10} ", said, *how), "")

    def _journal_moves(self, game_id: int) -> tuple[list[str], list[dict[str, Any]]]:
        """A resumed game's moves and its open unseen-moves questions, from the journal."""
        if self.journal_path is None:
            return [], []
        from tableref.journal import Journal, JournalError  # the web's own read connection

        try:
            with Journal(self.journal_path) as journal:
                record = journal.load(game_id)
        except JournalError as exc:
            log.error("live table: cannot read the moves of game %s: %s", game_id, exc)
            return [], []
        # Resumed: the notations stand for their descriptions (the page's own words came with the decision).
        questions = [_unseen_question(g.ply, g.count, g.alternatives, g.alternatives) for g in record.unseen
                     if g.is_open]
        return list(record.moves), questions

    def _set_game(self, game_id: int, state: State, moves: list[str], options: dict[str, Any]) -> None:
        self._game_id, self._game, self._state = game_id, state.game_name, state
        self._moves, self._options = moves, options
        game = get_game(self._game)
        self._title, self._players = game.title, list(game.players)
        self._position_changed()

    def _position_changed(self) -> None:
        s = self._state
        self._view = s.view(Fidelity.KIND).to_dict()
        self._labels = space_labels(self._game, s.to_dict())
        outcome = s.outcome()
        self._outcome = outcome.to_dict() if outcome else None
        # Moves the board cannot show, offered as buttons: those made off the board (resigning,
        # ending a turn), and those that leave the board looking as it did (a ring that lands
        # on one of its height and puts it back where the mover started) — the sensors cannot
        # tell them from no move, so the players record them here.
        self._declarable = []
        self._position_words: dict[str, Value] = {outcome.reason: outcome.phrase} if outcome and outcome.phrase else {}
        for m in s.unseen_moves(self.fidelity):
            why = P("made off the board") if not s.move_spaces(m) else P("the board looks the same after it")
            said = s.move_phrase(m)
            self._declarable.append({"move": s.move_text(m), "description": said.text, "why": why.text})
            self._position_words.update({said.text: said, why.text: why})
        self._i18n = None

    # -- what the page reads -------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self._snapshot()

    def _snapshot(self) -> dict[str, Any]:
        s = self._state
        position = s.to_dict()
        return {
            "game": self._game, "title": self._title, "players": self._players, "game_id": self._game_id,
            "ply": len(self._moves), "fidelity": self.fidelity.value, "options": dict(self._options),
            "position": position, "view": self._view, "labels": self._labels,
            "to_move": s.to_move, "phase": s.phase, "scores": dict(s.scores()), "target": position.get("target"),
            "outcome": self._outcome, "moves": list(self._moves), "last": self._last,
            "question": list(self._question), "unseen": list(self._unseen), "names": dict(self._names),
            "board_status": dict(self._status), "notice": self._notice,
            "recent": list(self._recent), "source": dict(self._source),
            "sim": self.sim.to_dict() if self.sim else None, "declarable": list(self._declarable),
            "seats": self._seats.to_dict(), "computer": self._computer, "hint": self._hint,
            "teach": self.teach.to_dict(), "lesson": self.lesson.to_dict(), "clock": self.clock.to_dict(),
            "remote": self.remote.to_dict(),
            "i18n": self._translations(),
        }

    def _translations(self) -> dict[str, dict[str, str]]:
        if self._i18n is None:
            words = dict(self._position_words)
            open_ = {c["description"] for u in self._unseen for c in u["choices"]}
            self._words["unseen"] = {k: v for k, v in self._words["unseen"].items() if k in open_}
            for part in ("last", "question", "status", "log", "unseen", "computer"):
                words.update(self._words[part])
            for st in self._log_status.values():
                words.update(st["words"])
            words.update(self.lesson.words)
            self._i18n = translations(words, self._game, self._status, self._log_status)
        return self._i18n

    # -- commands from the page ----------------------------------------------------------------

    def confirm(self, number: int) -> None:
        # Tie the answer to the question shown, so a board change in between cannot
        # turn it into an answer to another question.
        shown = next((c.get("text") for c in self._question if c.get("number") == number), None)
        self._submit(Confirm(number, shown))

    def undo(self) -> None:
        self._submit(Undo())

    def choose_unseen(self, first_ply: int, number: int) -> None:
        self._submit(ChooseUnseen(first_ply, number))

    def declare(self, move: str) -> None:
        self._submit(Declare(move))

    @property
    def state(self) -> State:
        return self._state

    @property
    def seats(self) -> Seats:
        return self._seats

    def set_teaching(self, on: bool) -> None:
        """Teaching on or off for the service's run (the page's toggle): the referee is told,
        every page shows it."""
        with self._lock:
            self.teach.set(on)
            snapshot = self._snapshot()
        self._submit(SetTeaching(on))
        self.broadcaster.publish("board", {"live": snapshot})

    def ask_hint(self, level: int) -> None:
        """What would the computer play for the person to move (shown, never played)."""
        self._submit(AskHint(level))

    def new_game(self, game_name: str, options: Mapping[str, Any] | Sequence[str], setup: str,
                 seats: Seats | None = None, clock: str | None = None) -> dict[str, Any]:
        """Check the game, options and seats (``RulesError``/``SeatError`` say what is wrong),
        set the simulated board up for it, then ask the referee for the new game."""
        if setup not in SETUPS:
            raise RulesError(f"setup must be one of {', '.join(SETUPS)}, got {setup!r}")
        game = get_game(game_name)
        opts = game.parse_options(options)
        start = game.default_setup(opts) if setup == "default" else game.start(opts)
        seats = (seats or Seats()).checked(start.sides)
        with self._lock:
            self._pending_options = (game_name, dict(opts))
        if self.sim is None:
            self._submit(StartGame(game_name, opts, setup, seats=seats, clock=clock))
            return opts
        # The new game is asked for first, carrying the board it sets up: the old game closes
        # as it stood and never judges the reset board (it would read it as a takeback).
        board = start.view(self.fidelity)
        self._submit(StartGame(game_name, opts, setup, board=board, seats=seats, clock=clock))
        self.sim.reset(board, palette(game_name, opts), game.board())
        self._sim_changed()
        return opts

    def pause_clock(self, pause: bool) -> None:
        """The admin stops or starts every clock (web/clock.py)."""
        self._submit(PauseClock() if pause else ResumeClock())

    def start_lesson(self, game_name: str) -> None:
        """The game's first lesson (rules/lessons.py): a new game from its start, the simulated board
        set up for it, as for a new game."""
        from rules.lessons import lesson  # checked against the rules once, when first asked

        found = lesson(game_name)
        start = found.start()
        with self._lock:
            self._pending_options = (game_name, dict(found.options))
        if self.sim is None:
            self._submit(StartLesson(game_name))
            return
        board = start.view(self.fidelity)
        self._submit(StartLesson(game_name, board))
        self.sim.reset(board, palette(game_name, found.options), get_game(game_name).board())
        self._sim_changed()

    def stop_lesson(self) -> None:
        self._submit(StopLesson())

    def sim_edit(self, action: str, space: str | None = None, token: str | None = None,
                 to: str | None = None, over: bool | None = None) -> None:
        """One edit of the simulated board (``SimBoardError`` if it cannot be made)."""
        if self.sim is None:
            raise LookupError("this service has no simulated board")
        sim = self.sim
        if action == "take":
            sim.take(space, token)
        elif action == "put":
            sim.put(space, token)
        elif action == "move":
            taken = sim.take(space, token)
            try:
                sim.put(to, taken)
            except ValueError:
                sim.put(space, taken)  # put it back where it was: the edit is all or nothing
                raise
        elif action == "discard":
            sim.discard(token)
        elif action == "hand_over":
            sim.set_hand_over(bool(over))
        elif action == "reset":
            sim.reset(self._state.view(self.fidelity))
        else:
            raise ValueError(f"unknown simulated-board action {action!r}")
        self._sim_changed()

    def _sim_changed(self) -> None:
        if self._on_sim_edit is not None:
            self._on_sim_edit()
        self.broadcaster.publish("board", {"live": self.snapshot()})

    def set_players(self, players: Mapping[str, str], round_: int | None) -> None:
        """The players' names of the game, from the round's pairing the club hub pushed."""
        with self._lock:
            names = {"players": dict(players), "round": round_}
            if names == self._names:
                return
            self._names = names
            snapshot = self._snapshot()
        self.broadcaster.publish("board", {"live": snapshot})

    def set_remote_link(self, link: dict[str, Any]) -> None:
        """The link to another table (tableref/remote/client.py): published when it changes."""
        with self._lock:
            if link == self.remote.link:
                return
            self.remote.link = link
            snapshot = self._snapshot()
        self.broadcaster.publish("board", {"live": snapshot})

    def set_source_status(self, status: str, text: str) -> None:
        """The source's state (steady, settling, hand, lost): published when it changes."""
        with self._lock:
            if (self._source["status"], self._source["text"]) == (status, text):
                return
            self._source = {**self._source, "status": status, "text": text}
            snapshot = self._snapshot()
        self.broadcaster.publish("source", {"live": snapshot})


def _unseen_question(first_ply: int, count: int, alternatives: Sequence[str],
                     descriptions: Sequence[str]) -> dict[str, Any]:
    return {"first_ply": first_ply, "count": count,
            "choices": [{"number": i + 1, "text": a, "description": w}
                        for i, (a, w) in enumerate(zip(alternatives, descriptions))]}


def _spaces(state: State, text: str) -> list[str]:
    """Every space a move (or space-separated sequence) touches, from ``state``."""
    spaces: set[str] = set()
    try:
        for part in text.split():
            move = state.parse_move(part)
            spaces |= state.move_spaces(move)
            state = state.successor(move)
    except RulesError:
        return sorted(spaces)
    return sorted(spaces)


SEVERAL = P("Several pieces moved: no single move explains the board")


def _why(d: Illegal) -> tuple[dict[str, Any], dict[str, Value]]:
    """Why the board is illegal, beside what to put back (rules/why.py): the rule it breaks —
    the attempt and why in the game's words, and the rule text's own with its section — or
    that several pieces moved; with their phrases, for the page's other languages."""
    why = d.why
    if why is not None and why.reason is not None:
        r = why.reason
        rule = P("{section}: “{quote}”", section=P(r.rule.section), quote=P(r.rule.quote))
        return ({"why": {"said": r.said.text, "rule": rule.text, "id": r.rule.id, "game": r.rule.game}},
                {r.said.text: r.said, rule.text: rule})
    if why is not None and why.several:
        return {"why": {"said": SEVERAL.text, "several": True}}, {SEVERAL.text: SEVERAL}
    return {}, {}


def _fix_words(fixes: Sequence[SpaceFix], state: State) -> dict[str, Value]:
    """The game's own fix lines (DRIFT's river turns) as phrases, by their English."""
    out: dict[str, Value] = {}
    for f in fixes:
        said = state.fix_phrase(f)
        if said is not None:
            out[said.text] = said
    return out


def _fixes(fixes: Sequence[SpaceFix], state: State | None = None) -> dict[str, Any]:
    """The fixes, and the hand movements that make them: the game's own words where it has
    them (DRIFT: "turn the inner river one arrow clockwise"), an arrow where a piece missing on
    one space is the piece too many on another, else a piece to put down or take off."""
    missing: list[tuple[str, str]] = []
    extra: list[tuple[str, str]] = []
    say: list[str] = []
    for f in fixes:
        words = state.describe_fix(f) if state is not None else None
        if words:
            say.append(words)
            continue
        want = Counter(f.expected)
        # A piece the camera saw but could not name ("occupied" in a kind view) may be any
        # piece that is missing here: it is never asked to be put down again, and only the
        # unnamed pieces nothing missing accounts for are asked to be taken off.
        named = OCCUPIED in want
        got = Counter(t for t in f.observed if t != MORE and (named or t != OCCUPIED))
        unnamed = 0 if named else sum(1 for t in f.observed if t == OCCUPIED)
        short = list((want - got).elements())
        if MORE not in f.observed:  # a pile's top is seen, not what is missing beneath it
            missing += [(f.space, t) for t in short[unnamed:]]
        extra += [(f.space, t) for t in (got - want).elements()]
        extra += [(f.space, OCCUPIED)] * max(0, unnamed - len(short))
    arrows = []
    for src, token in list(extra):
        # A piece named in part ("blue:?", a tail whose cap the camera does not see) is the
        # missing piece its name begins.
        part = named_in_part(token)
        dst = next((m for m in missing if m[1] == token or part is not None and m[1].startswith(part)), None)
        if dst is not None:
            missing.remove(dst)
            extra.remove((src, token))
            arrows.append({"from": src, "to": dst[0], "token": token})
    return {
        "fixes": [f.to_dict() for f in fixes],
        "say": say,
        "arrows": arrows,
        "put": [{"space": s, "token": t} for s, t in missing],
        "take": [{"space": s, "token": t} for s, t in extra],
    }
