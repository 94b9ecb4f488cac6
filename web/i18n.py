"""The page in the reader's language: the ``tableref_lang`` cookie (the page's language
chooser), else the browser's ``Accept-Language``, else English. Strings come from the same
catalogs as the spoken sentences (``tableref/i18n``); the page's scripts get the translations
of their own strings (``SCRIPT_MESSAGES``) in a JSON block."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import request

from rules.phrase import Value
from tableref.i18n import DEFAULT_LANGUAGE, Catalog, catalog, languages
from tableref.i18n.pieces import piece_name

from .page_words import script_messages

COOKIE = "tableref_lang"
NAMES = {"en": "English", "fr": "Français"}  # each language in its own words

# Strings the scripts (common.js, live.js) write themselves; TR.t(s) looks them up.
SCRIPT_MESSAGES = (
    "Log out", "Admin PIN", "Choose PIN", "Game over", "Loading…",
    "Setup: place your pieces on the board", "Drift phase: turn the rivers on the board now",
    "Not a legal move — put the board back", "Part-way through a move… finish it on the board",
    "Which move was it? Choose one:", "Voice muted", "Voice on", "Mute the voice", "Unmute the voice",
    "Game over: {player} wins ({reason})", "Game over: a draw ({reason})", "{player} to move", "first to {n}",
    "first to {n} wins", "{player} played {move}", "Took back {move}", "resumed at move {ply}",
    "new game — make the first move on the board", "Looks like {move}", "Could be: {moves}",
    "(confirmed)", "Took back {move}: {todo}", "Took back {move}: put the board back as it was",
    "Moves the board cannot show ({n})", "Could be any of {n} moves ({moves}, …)",
    "Each leaves the board looking exactly as it was, so the sensors cannot tell it from no move: if you played "
    "one, record it here.",
    "Moves {first}–{last} were never seen one by one. Which did you play? (the game goes on meanwhile)",
    "{title} · game {id} · move {ply}",
    # the log's kinds of decision
    "accepted", "illegal", "partial", "ambiguous", "restored", "new game", "taken back", "game over", "unseen",
    "rejected", "board matches the game again",
    # the board's source, and the simulated board
    "simulated board connected", "board connected", "the board is changing: waiting for it to settle",
    "hand over the board: waiting for it to move away", "In hand:", "nothing", "Box:",
    # the players' names, as the page capitalises them
    "White", "Black", "South", "North", "Red", "Blue", "Green", "Yellow",
    # the toasts (common.js, live.js, replay.js)
    "You can control the game now.", "Logged out: watching only.",
    "No admin PIN yet: choose it in a browser on the Pi itself.",
    "Watching only: enter the admin PIN to move pieces.",
    "Empty space: pick up a piece first, or choose one from the box.",
    "Choose a game record file first.", "Imported as game {id}.",
)


def _opponent_messages() -> tuple[str, ...]:
    """The live page's words for the computer opponent (issue 30), with its levels' names and
    descriptions (GET /api/levels, in English: the dialog says them through TR.t)."""
    from engine import LEVELS  # pure and light

    return (
        "The computer is thinking…", "Make the computer's move on the board",
        "{player} (the computer, level {n}) plays:", "then make the computer's move: {moves}",
        "lift from {lift} · put down on {place}", "lift from here", "put down here",
        "Took back your move and the computer's reply", "Hint: what the computer (level {n}) would play",
        "Not played: make your own move on the board", "hint", "{player}: the computer (level {n})",
        "{player}: a person", "a person here", "the computer, level {n} ({name})",
        "thinking", "computer move",  # the log's kinds of the computer's decisions
        *(text for lv in LEVELS for text in (lv.name, lv.description)),
    )


SCRIPT_MESSAGES = SCRIPT_MESSAGES + _opponent_messages()


def _teach_messages() -> tuple[str, ...]:
    from .teach import SCRIPT_WORDS  # teaching's card (web/static/teach.js)

    return SCRIPT_WORDS


SCRIPT_MESSAGES = SCRIPT_MESSAGES + _teach_messages()


def _lesson_messages() -> tuple[str, ...]:
    from .lesson import SCRIPT_WORDS  # a first lesson's card (web/static/lesson.js)

    return SCRIPT_WORDS


SCRIPT_MESSAGES = SCRIPT_MESSAGES + _lesson_messages()


def _clock_messages() -> tuple[str, ...]:
    from .clock import SCRIPT_WORDS  # the game clock (web/static/clock.js)

    return SCRIPT_WORDS


SCRIPT_MESSAGES = SCRIPT_MESSAGES + _clock_messages()


def _remote_messages() -> tuple[str, ...]:
    from .remote import SCRIPT_WORDS  # another table (web/static/remote.js)

    return SCRIPT_WORDS


SCRIPT_MESSAGES = SCRIPT_MESSAGES + _remote_messages()


def page_language() -> str:
    shipped = languages()
    chosen = request.cookies.get(COOKIE, "")
    if chosen in shipped:
        return chosen
    return request.accept_languages.best_match(shipped, default=DEFAULT_LANGUAGE) or DEFAULT_LANGUAGE


def context() -> dict[str, Any]:
    """Template globals: ``_`` (translate), ``lang``, the chooser's ``languages``, and the
    scripts' ``script_messages``."""
    lang = page_language()
    c = catalog(lang)
    return {"_": c._, "lang": lang, "languages": [(code, NAMES.get(code, code)) for code in languages()],
            "script_messages": c.messages(SCRIPT_MESSAGES + script_messages())}


# -- texts from the rules and the referee, for the page's other languages --------------------------
#
# The live snapshot is one for every viewer, in English as the rules and the referee write it;
# beside it goes ``i18n``: {language: {English text: the text in that language}} for the texts it
# shows that the page's scripts cannot translate themselves (move descriptions, the outcome's
# reason, what to put back where, the choices, the moves the board cannot show, the log's moves).
# The scripts look each text up in the reader's language (``rt`` in live.js), English otherwise.

def translations(words: Mapping[str, Value], game: str | None, status: Mapping[str, Any],
                 log: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, dict[str, str]]:
    """``words``: English text -> its phrase (``rules.phrase``); ``status``: the snapshot's
    board status, whose hand lines (``arrows``, ``put``, ``take``) are said here with the
    pieces in the game's words; ``log``: the log's illegal and part-way lines, each with the
    board status it reported (said as what to do, like the card)."""
    out: dict[str, dict[str, str]] = {}
    for lang in languages():  # English too: its hand and log lines name the pieces in words
        c = catalog(lang)
        said = {en: c.say(p) for en, p in words.items()}
        said.update(hand_lines(c, game, status))
        for en, st in (log or {}).items():
            lines = [c.say(words[s]) if s in words else s for s in st.get("say") or ()]
            lines += hand_lines(c, game, st).values()
            todo = "; ".join(lines)
            why = st.get("why") if st.get("kind") == "illegal" else None
            if why:  # the rule the board breaks, as the decision's own line says it (rules/why.py)
                parts = [c.say(words[k]) if k in words else k for k in (why.get("said"), why.get("rule")) if k]
                reason = parts[0] + (f" ({parts[1]})" if len(parts) > 1 else "")
                said[en] = c._("illegal board — put back: {fixes} — {why}", fixes=todo, why=reason)
            elif st.get("kind") == "illegal":
                said[en] = c._("illegal board — put back: {fixes}", fixes=todo)
            elif todo:
                said[en] = c._("waiting: part-way to a move; still to do: {fixes}", fixes=todo)
            else:
                said[en] = c._("waiting: part-way to a move")
        out[lang] = {en: text for en, text in said.items() if text != en}
    return out


def hand_lines(c: Catalog, game: str | None, status: Mapping[str, Any]) -> dict[str, str]:
    """The status's hand lines, keyed by the English line live.js writes (``handText``)."""
    out: dict[str, str] = {}
    for a in status.get("arrows") or ():
        en = f"move {a['token']} from {a['from']} back to {a['to']}"
        out[en] = c._("move {token} from {from_} back to {to}", token=piece_name(c, game, a["token"]),
                      from_=a["from"], to=a["to"])
    for p in status.get("put") or ():
        out[f"put {p['token']} on {p['space']}"] = c._("put {token} on {space}",
                                                       token=piece_name(c, game, p["token"]), space=p["space"])
    for t in status.get("take") or ():
        if t["token"] == "occupied":
            out[f"take the piece off {t['space']}"] = c._("take the piece off {space}", space=t["space"])
        else:
            out[f"take {t['token']} off {t['space']}"] = c._("take {token} off {space}",
                                                            token=piece_name(c, game, t["token"]), space=t["space"])
    return out
