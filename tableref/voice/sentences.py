"""What the referee says: decisions turned into short sentences, in the configured language.

:class:`Narrator` follows the game from the decisions alone (each carries the position it
leaves) and turns each into :class:`Utterance` values: the text, the *topic* (a newer sentence
of a topic makes an older one still waiting stale), the least *level* at which it is said and
the sound *cue* played before it. Every sentence comes from the message catalog
(:mod:`tableref.i18n`), the games' own words too: a move is said by its description
(``State.move_phrase``, exactly ``describe_move`` in English) and DRIFT's river fixes by
``State.fix_phrase``, each template looked up in the catalog.

Levels: ``quiet`` says illegal boards and what to put back, obligations, reminders (DRIFT's
drift), the computer's move (or the other table's) to carry out and game over; ``normal`` also every accepted move,
score change, new game, takeback, question, hint and refusal; ``off`` says nothing. The
computer's *thinking* is never said (docs/voice.md: no level searches longer than the sentence).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rules import MORE, OCCUPIED, RulesError, SpaceFix, State, get_game
from decisions import (
    Accepted, Ambiguous, ComputerMove, Decision, GameOver, Hint, Illegal, LessonDone, LessonStep, Lifted, NewGame,
    Partial, Rejected, Restored, Step, TakenBack,
)
from decisions.clock import ClockWarning, FlagFall
from decisions.remote import MatchEnded, RemoteTurn
from decisions.seats import Seat
from tableref.i18n import Catalog, catalog
from tableref.i18n.pieces import piece_name, player_name

from .teach import lifted_sentence

log = logging.getLogger(__name__)

LEVELS = ("off", "quiet", "normal")

# Topics: a newer utterance of a topic replaces an older one still waiting; some topics also
# make others stale (an accepted move makes a waiting "illegal" sentence wrong).
# The computer's move ("computer") and a hint stay true until a move is made: a move, an undo
# or a new game makes them stale, an illegal board does not (the move is said again after it).
SUPERSEDES: Mapping[str, frozenset[str]] = {
    "status": frozenset({"status"}),
    "move": frozenset({"move", "status", "computer", "hint"}),
    "score": frozenset({"score"}),
    "reminder": frozenset({"reminder"}),
    "over": frozenset({"status", "over"}),
    "undo": frozenset({"move", "score", "status", "undo", "over", "computer", "hint"}),
    "game": frozenset({"move", "score", "status", "undo", "over", "reminder", "game", "notice", "computer", "hint",
                       "lesson"}),
    "notice": frozenset({"notice"}),
    "computer": frozenset({"computer"}),
    "hint": frozenset({"hint"}),
    "clock": frozenset({"clock"}),  # the game clock: time left, a flag fall (docs/clock.md)
    "lesson": frozenset({"lesson"}),  # a first lesson's step: the newest is what to do now
}


@dataclass(frozen=True)
class Utterance:
    text: str
    topic: str  # a key of SUPERSEDES
    level: str  # "quiet": said at quiet and normal; "normal": at normal only
    cue: str | None = None  # chime played first: accepted, illegal, drift, over, computer
    ply: int = 0

    def said_at(self, level: str) -> bool:
        return level != "off" and (self.level == "quiet" or level == "normal")


@dataclass(frozen=True)
class Reminder:
    """A hand-carried phase the players must not forget (the panel's ``reminders`` hook)."""

    phase: str
    start: str  # msgid, said on entry and every reminder interval while the phase lasts
    done: str  # msgid, said when an accepted move leaves the phase
    cue: str = "drift"


REMINDERS: Mapping[str, Reminder] = {
    "drift": Reminder("drift", "End of the round: turn the three rivers", "Drift done"),
}

RIVERS = {"outer": "outer", "middle": "middle", "inner": "inner"}
MAX_FIXES = 3  # said one by one; past that "and N more"


class Narrator:
    """Decisions in, utterances out. Not thread-safe: one speaker thread calls it."""

    def __init__(self, language: str = "en") -> None:
        self.c: Catalog = catalog(language)
        self.game: str | None = None
        self.state: State | None = None
        self.phase: str | None = None
        self._said_status: str | None = None  # the last board status spoken: illegal, obligation
        self._taken: list[tuple[str, bool]] = []  # this undo's moves taken back so far: (move, the computer's)
        self._ended: str | None = None  # the table that just left the match (said with the new game)
        self.ply = 0

    @property
    def language(self) -> str:
        return self.c.language

    @property
    def reminder(self) -> Reminder | None:
        """The reminder of the phase the game is in, if any."""
        return REMINDERS.get(self.phase or "")

    def reminder_utterance(self) -> Utterance | None:
        r = self.reminder
        if r is None:
            return None
        return Utterance(self.c._(r.start), "reminder", "quiet", r.cue, self.ply)

    # -- decisions -----------------------------------------------------------------------------

    def on(self, d: Decision) -> list[Utterance]:
        self.ply = d.ply
        try:
            return self._on(d)
        except (RulesError, KeyError, TypeError, ValueError) as exc:  # a sentence missed, never the referee
            log.error("voice: cannot phrase the %s decision: %s", d.kind, exc)
            return []

    def _on(self, d: Decision) -> list[Utterance]:
        c = self.c
        if not isinstance(d, TakenBack):
            self._taken = []  # an undo's takebacks come one after another: anything else ends them
        if isinstance(d, MatchEnded):  # said with the new game that follows it (which would make it stale)
            self._ended = d.table
            return []
        if isinstance(d, NewGame):
            ended, self._ended = self._ended, None
            self.game = d.game
            self._said_status = None
            title = c._(get_game(d.game).title)  # the games' titles are in the catalog too
            text = c._("{title} resumed at move {ply}", title=title, ply=d.ply) if d.resumed \
                else c._("New game: {title}", title=title)
            if d.seats.computers:
                text = f"{text}. {self._computer_seats(d.seats.computers)}"
            if d.seats.remotes:  # who plays what, before the first move comes from across town
                text = f"{text}. {self._remote_seats(d.seats.remotes)}"
            if ended is not None:  # the other table left the match: said at every level
                text = f"{c._('{table} ended the match', table=ended)}. {text}"
            out = [Utterance(text, "game", "normal" if ended is None else "quiet", None, d.ply)]
            return out + self._enter(d.position, d.ply, accepted=False)
        position = getattr(d, "position", None)
        if self.game is None and isinstance(position, Mapping) and isinstance(position.get("game"), str):
            self.game = position["game"]  # joined mid-game: the position names its game
        if self.game is None:
            return []
        if isinstance(d, Accepted):
            before = self.state
            self._said_status = None
            out = [Utterance(self._move_sentence(before, d), "move", "normal", "accepted", d.ply)]
            out += self._enter(d.position, d.ply, accepted=True)
            out += self._scores(before, self.state, d.ply)
            return out
        if isinstance(d, TakenBack):
            self._said_status = None
            self._taken.insert(0, (d.move, d.computer))  # taken back last first: kept in the order played
            out = [Utterance(self._taken_back(d.move), "undo", "normal", None, d.ply)]
            return out + self._enter(d.position, d.ply, accepted=False)
        if isinstance(d, (ComputerMove, RemoteTurn)):
            return [self._computer_move(d)]
        if isinstance(d, Hint):
            text = c._("Hint: {moves}", moves=self._steps(d.steps))
            return [Utterance(text, "hint", "normal", None, d.ply)]
        if isinstance(d, Illegal):
            self._said_status = "illegal"
            fixes = self._fixes(d.restore, back=True)
            why = d.why
            if why is not None and why.reason is not None:  # the rule it breaks, in the game's words
                text = c._("Illegal: {fixes}; {why}", fixes=fixes, why=c.say(why.reason.said))
            elif why is not None and why.several:
                text = c._("Illegal: {fixes}; several pieces moved", fixes=fixes)
            else:
                text = c._("Illegal: {fixes}", fixes=fixes)
            return [Utterance(text, "status", "quiet", "illegal", d.ply)]
        if isinstance(d, Partial):
            text = self._obligation(d)
            if text is None or text == self._said_status:
                return []  # a piece in a hand, or the same obligation again (one segment lifted)
            self._said_status = text
            return [Utterance(text, "status", "quiet", None, d.ply)]
        if isinstance(d, Lifted):  # teaching: how many spaces the piece in the hand may go to
            text, level = lifted_sentence(c, d)
            return [Utterance(text, "status", level, None, d.ply)]
        if isinstance(d, Restored):
            if self._said_status is None:
                return []
            self._said_status = None
            return [Utterance(c._("The board is right again"), "status", "quiet", None, d.ply)]
        if isinstance(d, Ambiguous):
            n = len(d.choices)
            text = c.n_("Which move? {n} choice to confirm", "Which move? {n} choices to confirm", n)
            return [Utterance(text, "status", "normal", None, d.ply)]
        if isinstance(d, GameOver):
            return [Utterance(self._game_over(d.outcome), "over", "quiet", "over", d.ply)]
        if isinstance(d, Rejected):
            return [Utterance(c._("Refused: {command}", command=d.command), "notice", "normal", None, d.ply)]
        if isinstance(d, ClockWarning):  # said at every level: a player must hear it while thinking
            left = c.n_("{player}: {n} minute left", "{player}: {n} minutes left", d.seconds // 60,
                        player=self.player(d.side)) if d.seconds % 60 == 0 else \
                c.n_("{player}: {n} second left", "{player}: {n} seconds left", d.seconds, player=self.player(d.side))
            return [Utterance(left, "clock", "quiet", None, d.ply)]
        if isinstance(d, LessonStep):  # a first lesson: what just happened, then what to do now
            said = [c.say(p) for p in (d.wrong_phrase if d.repeated else d.then_phrase, d.do_phrase) if p is not None]
            return [Utterance(" ".join(said), "lesson", "quiet", "computer" if d.by == "lesson" else None, d.ply)]
        if isinstance(d, LessonDone):
            if d.stopped:
                return [Utterance(c._("lesson stopped"), "lesson", "quiet", None, d.ply)]
            said = [c.say(p) for p in (d.then_phrase, d.end_phrase) if p is not None]
            return [Utterance(" ".join(said + [c._("Lesson done")]), "lesson", "quiet", None, d.ply)]
        if isinstance(d, FlagFall):
            return [Utterance(c._("{player} loses on time", player=self.player(d.side)), "clock", "quiet", "over",
                              d.ply)]
        return []

    def _enter(self, position: Mapping[str, Any], ply: int, *, accepted: bool) -> list[Utterance]:
        """Follow the position; entering or leaving a reminder phase is said."""
        assert self.game is not None
        self.state = get_game(self.game).from_dict(position)
        phase = self.state.phase
        before, self.phase = self.phase, phase
        if phase == before:
            return []
        out = []
        left = REMINDERS.get(before or "")
        if left is not None and accepted:
            out.append(Utterance(self.c._(left.done), "reminder", "quiet", None, ply))
        entered = REMINDERS.get(phase)
        if entered is not None:
            out.append(Utterance(self.c._(entered.start), "reminder", "quiet", entered.cue, ply))
        return out

    # -- the computer ----------------------------------------------------------------------------

    def _computer_seats(self, computers: Mapping[str, int]) -> str:
        """"The computer plays North at level 1" (each seat it plays)."""
        seats = [self.c._("{player} at level {level}", player=self.player(side), level=level)
                 for side, level in computers.items()]
        said = seats[0] if len(seats) == 1 else self.c._("{items} and {last}", items=", ".join(seats[:-1]),
                                                           last=seats[-1])
        return self.c._("The computer plays {seats}", seats=said)

    def _remote_seats(self, remotes: Mapping[str, Seat]) -> str:
        """"table-b plays North" (each other table, with the sides it plays)."""
        tables: dict[str, list[str]] = {}
        for side, seat in remotes.items():
            tables.setdefault(seat.table or self.c._("the other table"), []).append(self.player(side))
        said = [self.c._("{table} plays {sides}", table=table, sides=self._and(sides)) for table, sides in tables.items()]
        return ". ".join(said)

    def _and(self, items: list[str]) -> str:
        return items[0] if len(items) == 1 else self.c._("{items} and {last}", items=", ".join(items[:-1]),
                                                           last=items[-1])

    def _computer_move(self, d: ComputerMove | RemoteTurn) -> Utterance:
        """The computer's turn (or the other table's, in a game between two boards) for a person
        to carry out: said in full when first shown (quiet level: nobody at the table knows it
        otherwise), again after a wrong board, and the next step once a step of a turn of
        several is made."""
        c, todo = self.c, d.steps[d.done:]
        remote = isinstance(d, RemoteTurn)
        if d.repeated:
            text = c._("Not that move: the other table played {moves}" if remote
                       else "Not that move: the computer plays {moves}", moves=self._steps(todo))
        elif d.done:
            return Utterance(c._("Next: {move}", move=self._step(todo[0])), "computer", "quiet", None, d.ply)
        elif remote:
            text = c.n_("The other table played: {moves}. Please make the move.",
                        "The other table played: {moves}. Please make the moves.", len(todo), moves=self._steps(todo))
        else:
            text = c.n_("The computer plays: {moves}. Please make the move.",
                        "The computer plays: {moves}. Please make the moves.", len(todo), moves=self._steps(todo))
        return Utterance(text, "computer", "quiet", "computer", d.ply)

    def _steps(self, steps: Sequence[Step]) -> str:
        """Every step of a turn, in order: "X, then Y"."""
        said = [self._step(s) for s in steps]
        return ", ".join([said[0], *(self.c._("then {move}", move=s) for s in said[1:])]) if said else ""

    def _step(self, step: Step) -> str:
        if self.language == "en" and step.description:
            return spoken(step.description)
        if step.phrase is not None:  # the game's own words, in this language
            return spoken(self.c.say(step.phrase), self.c)
        return self.notation(step.move)

    def _taken_back(self, move: str) -> str:
        """"Took back a1-a2 and the computer's reply c6-d4": an undo takes back a person's
        move with the computer's reply, said as one (the second takeback would otherwise
        replace the first, both of topic "undo")."""
        mine = [m for m, computer in self._taken if not computer]
        its = [m for m, computer in self._taken if computer]
        if not its:
            return self.c._("Took back {move}", move=move)
        if not mine:
            return self.c._("Took back the computer's move {move}", move=", ".join(its))
        return self.c._("Took back {move} and the computer's reply {reply}", move=", ".join(mine),
                        reply=", ".join(its))

    # -- phrases -------------------------------------------------------------------------------

    def player(self, name: str) -> str:
        return player_name(self.c, name)

    def _move_sentence(self, before: State | None, d: Accepted) -> str:
        if self.language == "en" and d.description:
            return spoken(d.description)
        if before is not None:
            try:  # the game's own description, in this language
                return spoken(self.c.say(before.move_phrase(before.parse_move(d.move))), self.c)
            except RulesError:
                pass  # a move the position followed cannot read: say the notation
        who = self.player(before.to_move) if before is not None else ""
        move = self.notation(d.move)
        return self.c._("{player} plays {move}", player=who, move=move) if who else move

    def notation(self, text: str) -> str:
        """A move's notation made speakable: "@" said as the catalog's "on", chain marks as pauses
        ("1@W>a1*>c1": "1 on W, a1, c1" — "1 en W, a1, c1")."""
        on = f" {self.c._('on')} "
        return " ".join(text.replace("@", on).replace("*", "").replace(">", ", ").split())

    def _scores(self, before: State | None, after: State | None, ply: int) -> list[Utterance]:
        if before is None or after is None:
            return []
        old, new = dict(before.scores()), dict(after.scores())
        if not new or old == new:
            return []
        gains = [self.c._("{player} scores {points}", player=self.player(p), points=new[p] - old.get(p, 0))
                 for p in new if new[p] > old.get(p, 0)]
        text = ". ".join([*gains, self.totals(new)])
        return [Utterance(text, "score", "normal", None, ply)]

    def totals(self, scores: Mapping[str, int]) -> str:
        return ", ".join(self.c._("{player} {score}", player=self.player(p), score=s) for p, s in scores.items())

    def _game_over(self, outcome: Mapping[str, Any]) -> str:
        winner = outcome.get("winner")
        # The reason, in this language, where the position followed is the one that ended
        # (its outcome carries the reason as a phrase; the decision only its English).
        ended = self.state.outcome() if self.state is not None else None
        if ended is not None and ended.phrase is not None and ended.reason == outcome.get("reason"):
            reason = self.c.say(ended.phrase)
            text = self.c._("Game over: a draw ({reason})", reason=reason) if winner is None else \
                self.c._("Game over: {player} wins ({reason})", player=self.player(winner), reason=reason)
        else:
            text = self.c._("Game over: a draw") if winner is None else \
                self.c._("Game over: {player} wins", player=self.player(winner))
        scores = outcome.get("scores") or {}
        return f"{text}. {self.totals(scores)}" if scores else text

    def _obligation(self, d: Partial) -> str | None:
        """What the players must still do, or None for a piece merely in a hand."""
        if self.game == "annelids" and self.state is not None:
            text = self._annelid_removal(d.candidates)
            if text:
                return text
        if not d.pending:
            return None
        return self.c._("Still to do: {fixes}", fixes=self._fixes(d.pending, back=False))

    def _annelid_removal(self, candidates: Sequence[str]) -> str | None:
        from rules.games.annelids import Remove

        assert self.state is not None
        removals = []
        for text in candidates:
            try:
                move = self.state.parse_move(text)
            except RulesError:
                continue
            if isinstance(move, Remove):
                removals.append(move)
        if len(removals) != 1 or len(candidates) != 1:
            return None
        a = self.state.annelid(removals[0].tail)  # type: ignore[attr-defined]
        return self.c.n_("Remove the {colour} annelid from {tail}: {n} segment",
                         "Remove the {colour} annelid from {tail}: {n} segments", len(a.segments),
                         colour=self.c._(a.colour), tail=a.tail)  # a colour mid-sentence: "l'annélide bleu"

    def _fixes(self, fixes: Sequence[SpaceFix], *, back: bool) -> str:
        c = self.c
        parts: list[str] = []
        for f in fixes:
            words = self.state.fix_phrase(f) if self.state is not None else None
            if words is not None:  # the game's own words (DRIFT: "turn the inner river one arrow clockwise")
                parts.append(c.say(words))
                continue
            if f.space.startswith("rotation:"):
                river = f.space.split(":", 1)[1]
                name = c._(RIVERS[river]) if river in RIVERS else river
                parts.append(c._("turn the {river} river back", river=name) if back
                             else c._("turn the {river} river", river=name))
                continue
            missing, extra = differences(f)
            for token in missing:
                msg = "put the {piece} back on {space}" if back else "put the {piece} on {space}"
                parts.append(c._(msg, piece=self.piece(token), space=f.space))
            for token in extra:
                parts.append(c._("take the {piece} off {space}", piece=self.piece(token), space=f.space))
        if not parts:
            return c._("set the board back")
        if len(parts) > MAX_FIXES:
            rest = len(parts) - MAX_FIXES
            parts = parts[:MAX_FIXES] + [c.n_("{n} more", "{n} more", rest)]
        if len(parts) == 1:
            return parts[0]
        return c._("{items} and {last}", items=", ".join(parts[:-1]), last=parts[-1])

    def piece(self, token: str) -> str:
        """A token in words: "double ring", "White 8", "Red II", "blue tail", "gold coin"."""
        return piece_name(self.c, self.game, token)


def differences(f: SpaceFix) -> tuple[list[str], list[str]]:
    """Tokens missing from and too many on a space. An unnamed piece (OCCUPIED) stands for any
    one expected token; a pile's MORE hides what is beneath, so nothing is missing under it."""
    want, got = Counter(f.expected), Counter(t for t in f.observed if t != MORE)
    unnamed = got.pop(OCCUPIED, 0) if OCCUPIED not in want else 0
    missing, extra = list((want - got).elements()), list((got - want).elements())
    covered = min(unnamed, len(missing))  # each unnamed piece is one of the missing ones
    missing, extra = missing[covered:], extra + [OCCUPIED] * (unnamed - covered)
    if MORE in f.observed:
        missing = []
    return missing, extra


def spoken(text: str, c: Catalog | None = None) -> str:
    """A rules text made speakable: arrows and "vs" in words (the catalog's "to": "vers")."""
    to = f" {c._('to')} " if c is not None else " to "
    return " ".join(text.replace("→", to).replace(" vs ", " versus ").split())
