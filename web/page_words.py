"""The page's words beyond the live page's own strings (web/i18n.py): the replay and set-up
pages' scripts, the games' own words the scripts show (titles, options, board areas), the
referee's log lines as phrases, and dates in the reader's locale."""

from __future__ import annotations

import functools
from datetime import datetime, timezone
from typing import Any

from flask import request

from decisions import (
    Ambiguous, ComputerMove, Decision, GameOver, Hint, NewGame, Rejected, TakenBack, Thinking, UnseenChosen, UnseenMoves,
)
from rules import P, RulesError, State, game_names, get_game
from rules.phrase import Joined, Value
from tableref.i18n import DEFAULT_LANGUAGE, catalog, languages

# Strings common.js, live.js, replay.js and board.js write themselves, after SCRIPT_MESSAGES.
PAGE_MESSAGES = (
    # common.js: the PIN dialog and the admin button's tooltip
    "Choose an admin PIN", "Enter the admin PIN",
    "4 to 12 digits. Anyone on the network can watch; the PIN is needed to confirm moves, undo and start games.",
    "The PIN lets this phone or computer control the game.", "you control the game",
    "watching: enter the PIN to control the game",
    # live.js
    "a pile topped by {top}", "{space}: should hold {want} (the board shows {got})", "Round {n}", "{side}: {who}",
    "{phase} phase — do it on the board now", "{title}: game {id}", "Take which piece from {space}?", "default",
    # replay.js
    "cannot read the journal", "No games yet.", "{player} won", "draw", "abandoned", "in progress",
    "{player} won ({reason})", "a draw ({reason})", "{title} · game {id} · {n} moves · {result}", "{title} · game {id} · 1 move · {result}",
    "{n}. {player}: {move}", "Start position", "(never seen on its own)",
    "{n}. {player} (the computer): {move}", "{player}: the computer (level {n})",
    # board.js
    "space {id}",
)

# The set-up page's script (setup.js): sent to that page only.
SETUP_MESSAGES = (
    "read", "a piece, not named", "hidden behind a piece", "empty", "unreadable", "not read yet", "read: {tokens}",
    "Board locked: the sheet outline and every space are drawn on the picture.",
    "Looking for the four corner markers…", "Corner markers covered: reading is frozen until they are in view.",
    "No picture from the camera yet.", "Set-up mode: nothing is read until the empty board is learned.",
    "Verdicts read {s} s ago.", "put the {space} handle on the centre of {space}",
    "Exposure turned down {ev} stop for the sheet: its paper was too bright.",
    "Exposure turned up {ev} stop for the sheet: its paper was too dark.",
    "The board is small in the picture: at {space} a millimetre is {px} px, and this game's pieces are read from {need} "
    "px. Move the camera closer, or let the board fill more of the picture.",
    "Put the {space} handle on the centre of {space}.", "Done: {result}", "Failed: {result}",
    "{title}: the calibration is saved to {path}.", "{title}: the calibration is saved to {path} (not made yet).",
    "In use: {path} (reprojection error {px} px: {verdict}).", "In use: {path}.",
    "In use: none (an ideal pinhole); a measured lens is saved to {path}.", "Fitted: {path}.",
    "The fit is saved to {path}.",
    "Set-up: the empty board is learned; now lay out the pieces and learn their colours. The referee waits.",
    "Set-up: the camera is not calibrated yet. Clear the board and learn the empty board. The referee waits.",
    # the lens's verdicts (tableref/lens_setup.py)
    "good", "usable; for a better one hold the sheet flat and still, in good light, all over the frame",
    "poor: the sheet may be bent or blurred; measure again",
)


@functools.lru_cache(maxsize=1)
def game_words() -> tuple[str, ...]:
    """The games' own words the scripts show: titles, option names ("north captures") and
    help, the boards' areas ("reserve north"), as the scripts write them."""
    out: list[str] = []
    for name in game_names():
        game = get_game(name)
        out.append(game.title)
        for option, spec in game.options.items():
            out += [option.replace("_", " "), spec.help]
        out += [area.id.replace("_", " ") for area in game.board().areas]
    return tuple(dict.fromkeys(out))


def script_messages() -> tuple[str, ...]:
    """What this page's scripts translate beyond SCRIPT_MESSAGES."""
    setup = SETUP_MESSAGES if request.endpoint == "setup.setup_page" else ()
    return PAGE_MESSAGES + game_words() + setup


# -- the referee's log lines, as phrases (the CLI's words stay the decisions' own text) ----------

_REASONS = ("the board has changed", "no move to take back", "make this move on the board", "no question is open")


def log_phrase(d: Decision, state: State | None) -> Value | None:
    """The log's line for ``d`` as a phrase, for the decisions the page does not phrase itself
    (moves, illegal and part-way boards: web/live.py); ``state``: the position after it."""
    if isinstance(d, NewGame):
        title = get_game(d.game).title
        said: list[Value] = [P("{title}: game {id} resumed at move {ply}", title=P(title), id=d.game_id, ply=d.ply)
                             if d.resumed else P("{title}: game {id} started", title=P(title), id=d.game_id)]
        seats = getattr(d, "seats", None)
        for side, level in (seats.computers.items() if seats is not None else ()):
            said.append(P("; {player}: the computer, level {n}", player=P(side.capitalize()), n=level))
        return Joined(tuple(said), "")
    if isinstance(d, TakenBack):
        return P("took back {move} (the computer's move)" if getattr(d, "computer", False) else "took back {move}",
                 move=d.move)
    if isinstance(d, Ambiguous):
        return P("ambiguous — confirm one: {choices}",
                 choices="; ".join(f"[{c.number}] {c.text}" for c in d.choices))
    if isinstance(d, GameOver):
        outcome = state.outcome() if state is not None else None
        reason: Value = outcome.phrase if outcome is not None and outcome.phrase is not None \
            and outcome.reason == d.outcome.get("reason") else str(d.outcome.get("reason"))
        winner = d.outcome.get("winner")
        if winner is None:
            return P("game over: a draw ({reason})", reason=reason)
        return P("game over: {player} wins ({reason})", player=P(str(winner).capitalize()), reason=reason)
    if isinstance(d, Rejected):
        word, _, rest = d.command.partition(" ")
        command: Value = {"confirm": P("confirm {n}", n=rest), "declare": P("declare {move}", move=rest),
                          "undo": P("undo"), "new": P("new game")}.get(word, d.command)
        return P("{command} refused: {reason}", command=command,
                 reason=P(d.reason) if d.reason in _REASONS else d.reason)
    if isinstance(d, UnseenMoves):
        return P("moves {n}-… never seen one by one; which was played? {choices}", n=d.first_ply + 1,
                 choices="; ".join(f"[{i + 1}] {a}" for i, a in enumerate(d.alternatives)))
    if isinstance(d, UnseenChosen):
        return P("moves from {n} recorded as played: {moves}", n=d.first_ply + 1, moves=" ".join(d.moves))
    return _computer_phrase(d)


def _computer_phrase(d: Decision) -> Value | None:
    """The computer's lines (issue 30): thinking, its move to make on the board, a hint."""
    if isinstance(d, Thinking):
        side = P(d.side.capitalize())
        if d.purpose == "hint":
            return P("a hint for {side}: the computer (level {level}) is thinking", side=side, level=d.level)
        return P("the computer ({side}, level {level}) is thinking", side=side, level=d.level)
    if isinstance(d, (ComputerMove, Hint)):
        done = getattr(d, "done", 0)
        moves = Joined(tuple(Joined((s.move, " (", s.phrase if s.phrase is not None else s.description, ")"), "")
                             for s in d.steps[done:]), "; ")
        if isinstance(d, Hint):
            return P("hint for {side} (level {level}): {moves}", side=P(d.side.capitalize()), level=d.level,
                     moves=moves)
        return P("the computer ({side}, level {level}) plays again: {moves} — make it on the board" if d.repeated
                 else "the computer ({side}, level {level}) plays: {moves} — make it on the board",
                 side=P(d.side.capitalize()), level=d.level, moves=moves)
    return None


# -- dates ----------------------------------------------------------------------------------------

def played(timestamp: float, language: str) -> str:
    """When a game was played, in the server's time zone, as the reader's locale writes a short
    date and time ("29/11/2026 14:05" in French; English as the browser's region writes it)."""
    from babel import Locale, UnknownLocaleError
    from babel.dates import format_datetime

    when = datetime.fromtimestamp(timestamp, timezone.utc).astimezone()
    locale: Any = language
    for wanted, _ in request.accept_languages:  # the browser's region, if it speaks the page's language
        if wanted.replace("-", "_").split("_")[0].lower() == language:
            try:
                locale = Locale.parse(wanted.replace("-", "_"))
            except (ValueError, UnknownLocaleError):
                continue
            break
    return format_datetime(when, "short", tzinfo=when.tzinfo, locale=locale)


def replay_translations(record: Any) -> dict[str, dict[str, str]]:
    """A journalled game's move descriptions and outcome reason in the page's other languages:
    {language: {English text: its translation}} (the replay's "i18n")."""
    words: dict[str, Value] = {}
    for ply, text in enumerate(record.moves, start=1):
        before = record.states[ply - 1]
        try:
            said = before.move_phrase(before.parse_move(text))
        except RulesError:
            continue  # shown in English
        words[said.text] = said
    outcome = record.state.outcome()
    if outcome is not None and outcome.phrase is not None:
        words[outcome.reason] = outcome.phrase
    out = {}
    for language in languages():
        if language != DEFAULT_LANGUAGE:
            c = catalog(language)
            out[language] = {en: t for en, p in words.items() if (t := c.say(p)) != en}
    return out
