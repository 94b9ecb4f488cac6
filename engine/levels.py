"""The levels: from "a child can win" to the most a Raspberry Pi 4 core can afford.

A level's ``limit`` is a whole turn's budget: ``nodes`` simulations, or ``time`` seconds on the
clock the service passes in, whichever comes first. The node budgets are what the level *is*
(deterministic for a seed); the time caps keep a slow game on a Pi 4 core (about a quarter of
the bench machine's core) inside the think-time targets, so in Gygès and DRIFT the upper levels
are cut by time there. Figures: docs/opponent.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .api import Limit
from .errors import UnknownLevelError
from .mcts import SearchSettings


@dataclass(frozen=True)
class Level:
    number: int
    name: str
    description: str
    limit: Limit
    settings: SearchSettings = field(default_factory=SearchSettings)


LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", "a child can win: a glance at each move, no plan", Limit(nodes=40, time=0.15),
          SearchSettings(explore=1.2)),
    Level(2, "casual", "sees simple threats and wins", Limit(nodes=150, time=0.35)),
    Level(3, "club", "plans its turn and the reply", Limit(nodes=500, time=0.7)),
    Level(4, "strong", "deeper search in 1.3 s on a Pi 4 core", Limit(nodes=1500, time=1.3)),
    Level(5, "strongest", "all a Pi 4 core affords in 2.5 s", Limit(nodes=5000, time=2.5)),
)


def get_level(number: int | Level) -> Level:
    if isinstance(number, Level):
        return number
    for level in LEVELS:
        if level.number == number:
            return level
    known = ", ".join(str(lv.number) for lv in LEVELS)
    raise UnknownLevelError(f"no engine level {number!r} (levels: {known})")
