"""The engine's errors: each a ``ValueError`` so a caller that guards bad input catches them."""

from __future__ import annotations


class EngineError(ValueError):
    """Something the engine cannot do as asked."""


class GameOverError(EngineError):
    """Asked to play a finished game, or a position with no legal move."""


class UnknownLevelError(EngineError):
    """A level number that is not one of ``LEVELS``."""
