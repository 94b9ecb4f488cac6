"""A game's outcome said in the reader's language on the club pages. A board sends its outcome
as its rules wrote it (the English text: the record carries no phrase); the hub finds the
rules' phrase again by replaying the game's record — only where the replay ends with that very
text, so a resignation, a flag fall or the arbiter's word is shown as it was sent."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from rules.phrase import Phrase, Value
from tableref.hub.readable import BAD_DATA, Unreadable, replayed


class OutcomeWords:
    """``said(board, game, reason, say)``: the reason in ``say``'s language where the rules'
    phrase is found, else as sent. Each game is replayed once per outcome it had."""

    def __init__(self, store: Callable[[], Any]) -> None:
        self._store = store
        self._phrases: dict[tuple[str, int, str], Phrase | None] = {}
        self._lock = threading.Lock()

    def said(self, board: str, game: int | None, reason: str, say: Callable[[Value], str]) -> str:
        phrase = None if game is None else self._phrase(board, game, reason)
        return say(phrase) if phrase is not None else reason

    def _phrase(self, board: str, game: int, reason: str) -> Phrase | None:
        key = (board, game, reason)
        with self._lock:
            if key in self._phrases:
                return self._phrases[key]
        try:
            outcome = replayed(self._store().export(board, game)).outcome
        except (Unreadable, LookupError, *BAD_DATA):  # a game gone, or its record not the rules'
            outcome = None
        phrase = outcome.phrase if outcome is not None and outcome.reason == reason else None
        with self._lock:
            self._phrases[key] = phrase
        return phrase
