"""The page in the reader's language: the ``tableref_lang`` cookie (the page's language
chooser), else the browser's ``Accept-Language``, else English. Strings come from the same
catalogs as the spoken sentences (``tableref/i18n``); the page's scripts get the translations
of their own strings (``SCRIPT_MESSAGES``) in a JSON block."""

from __future__ import annotations

from typing import Any

from flask import request

from tableref.i18n import DEFAULT_LANGUAGE, catalog, languages

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
    # the players' names, as the page capitalises them
    "White", "Black", "South", "North", "Red", "Blue", "Green", "Yellow",
)


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
            "script_messages": c.messages(SCRIPT_MESSAGES)}
