"""The club pages' words in the reader's language: the templates' through ``_`` and the
script's (hub.js, and common.js's PIN dialog) in a JSON block, from the same catalogs as a
board's own page (``tableref/i18n``; the language as ``web/i18n.py`` picks it)."""

from __future__ import annotations

from typing import Any

from tableref.i18n import catalog
from web.i18n import page_language
from web.page_words import PAGE_MESSAGES

# Strings hub.js writes itself.
HUB_MESSAGES = (
    "{side}: computer, level {n}", "no pairing", "offline", "online", "draw", "{who} wins", "{who} to move",
    "paused", "{who} lost on time", "{rules} · game {game} · move {ply}", "{rules} game {game}, move {ply}",
    ", last {move}", "{n} tables, {online} online, {over} games over", "broker: {link}",
    # the hub's link to the broker (tableref/hub/hub.py) and a table's status (its last decision)
    "starting", "subscribing", "connected", "refused", "partial", "illegal", "ambiguous",
    "(take back)", "The board's moves do not replay through the rules: {why}",
    "Corrected by the arbiter ({n}); the board sent: {moves}", "moves from {n}: {moves}", "result: {what}",
    "result: back to the record's", "back to the record's own", "Corrected", "none",
    "Round {n} created", "Round {n} created (clock {clock})", "{n} pairings in round {round}",
    "Round {round} pushed to {n} boards", "Result saved",
)


# Strings common.js writes on every page (the admin button, the PIN dialog's outcome) beyond
# web/page_words.py's PAGE_MESSAGES, which the club pages get too.
COMMON_MESSAGES = ("Log out", "Admin PIN", "Choose PIN", "You can control the game now.", "Logged out: watching only.",
                   "No admin PIN yet: choose it in a browser on the Pi itself.")


def context() -> dict[str, Any]:
    """Template globals: ``_`` (translate), ``lang`` and the scripts' ``script_messages``."""
    lang = page_language()
    c = catalog(lang)
    return {"_": c._, "lang": lang, "script_messages": c.messages(HUB_MESSAGES + COMMON_MESSAGES + PAGE_MESSAGES)}
