"""One error tree for everything the rules can refuse.

Every error is also a ``ValueError`` so callers that only care that the input
was bad can catch the built-in; callers that care *why* catch the subclass.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base of every error raised by :mod:`rules`."""


class MoveSyntaxError(RulesError):
    """The move text cannot be read at all (``"a9-zz"``)."""


class IllegalMoveError(RulesError):
    """The move reads fine but the rules do not allow it here."""


class AmbiguousMoveError(RulesError):
    """The move text fits several legal moves; ``candidates`` lists their texts."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


class InvalidStateError(RulesError):
    """A position (dict or file) is malformed or impossible."""


class InvalidBoardError(RulesError):
    """A board geometry file is malformed."""


class UnknownGameError(RulesError):
    """No game is registered under that name."""
