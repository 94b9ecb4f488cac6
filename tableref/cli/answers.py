"""Answering the referee's questions from the terminal (``referee-serial``).

A board that reads occupancy only (the reference wiring) cannot tell some moves apart — the
first Gygès move often — and the referee asks which was played: without a way to answer, the
game is stuck. ``referee-serial`` takes the answer on its standard input: a choice's number
(``1``, ``2``, …) and Enter confirms it, ``u`` takes the last move back. The prompt goes to
stderr, so ``--json`` output stays one decision a line. Where nobody can answer (stdin closed,
or the process runs in the background of a terminal), the first question says the way that
works: ``tableref serve`` with a serial config, whose page asks.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from decisions import Ambiguous, Command, Confirm, Decision, Undo

NOBODY = ("nobody can answer here (standard input is closed, or this runs in the background): run "
          "referee-serial in a terminal, or `tableref serve --config FILE` with [source] kind = \"serial\", "
          "whose page asks")


def can_answer(stdin: Any) -> bool:
    """Whether lines can be read from ``stdin`` without stopping the process: a terminal only
    when this process is in its foreground (a background read would be stopped by SIGTTIN)."""
    try:
        fd = stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    if os.isatty(fd):
        try:
            return os.tcgetpgrp(fd) == os.getpgrp()
        except OSError:
            return False
    return True  # a pipe or a file: a script's answers


class TerminalAnswers:
    """A referee subscriber: on a question, prompts and reads the answer from ``stdin`` (its
    own thread, started at the first question) and ``submit``s it (``RefereeLoop.submit``)."""

    def __init__(self, submit: Callable[[Command], None] | None = None, *, stdin: TextIO | None = None,
                 err: TextIO | None = None, readable: bool | None = None) -> None:
        self.submit = submit  # set once the referee's loop runs
        self.stdin = stdin if stdin is not None else sys.stdin
        self.err = err if err is not None else sys.stderr
        self._readable = can_answer(self.stdin) if readable is None else readable
        self._question: Ambiguous | None = None
        self._lock = threading.Lock()
        self._reader: threading.Thread | None = None
        self._closed = False  # stdin ended: no more answers
        self._said_nobody = False

    def on_decision(self, decision: Decision) -> None:
        with self._lock:
            self._question = decision if isinstance(decision, Ambiguous) else None
        if not isinstance(decision, Ambiguous):
            return
        if not self._readable or self._closed:
            if not self._said_nobody:
                self._said_nobody = True
                self._say(f"tableref: {NOBODY}")
            return
        numbers = "/".join(str(c.number) for c in decision.choices)
        self._say(f"     answer {numbers} (the move played) and Enter; u: take the last move back")
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, name="answers", daemon=True)
            self._reader.start()

    def _read(self) -> None:
        for line in self.stdin:
            self.answer(line)
        self._closed = True

    def answer(self, line: str) -> None:
        """One line typed: a choice's number, or ``u``; anything else is asked again."""
        word = line.strip().lower()
        if not word:
            return
        with self._lock:
            question = self._question
        if word in ("u", "undo"):
            self._send(Undo())
            return
        choice = next((c for c in question.choices if str(c.number) == word), None) if question else None
        if choice is None:
            hint = ("no question is open" if question is None
                    else "type " + "/".join(str(c.number) for c in question.choices) + ", or u")
            self._say(f"     ? {word!r}: {hint}")
            return
        self._send(Confirm(choice.number, choice.text))  # tied to the question shown

    def _send(self, command: Command) -> None:
        if self.submit is not None:
            self.submit(command)

    def _say(self, text: str) -> None:
        print(text, file=self.err, flush=True)
