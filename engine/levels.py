"""The levels: from "a child can win" to the most a Raspberry Pi 4 core can afford.

A level's ``limit`` is a whole turn's budget: ``nodes`` simulations, or ``time`` seconds on the
clock the service passes in, whichever comes first. The node budgets are what the level *is*
(deterministic for a seed); the time caps keep a slow game on a Pi 4 core (about a quarter of
the bench machine's core) inside the think-time targets, so in the slow games every level is
cut by time there and the caps only double from level to level.

Twice the search alone is not a clear step (an MCTS whose leaves are judged by a heuristic gains
little from it: the bench measured ~50 %), so the levels below the top also *slip*, as Stockfish's
skill levels do: with the level's ``slip`` chance, a turn slips — one move of it is one of the
search's second to fourth choices (a move it thought worth playing, not a random one) instead of
its first. A game whose search separates the levels by itself, or whose turns are several moves,
keeps its own chances (``Knowledge.slips``), and a game may let the slip come at a turn's first
choice (``slip_early``: DRIFT), be any move but the first choice (``slip_among`` None:
Annihilation, whose next choices read all but as good as its first), or go on for the rest of
the turn (``slip_turn``: DRIFT, where one move off cost next to nothing). A proven win is never
passed over, nor a loss at once played. The top level never slips; a hint (``analyse``) never
does. Figures: docs/opponent.md.
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
    slip: float = 0.0  # the chance that a move of the turn is a plausible one, not the best

    def __post_init__(self) -> None:
        if not 0.0 <= self.slip < 1.0:
            raise ValueError(f"Level.slip must be in [0, 1), got {self.slip}")


LEVELS: tuple[Level, ...] = (
    Level(1, "beginner", "a child can win: a glance at each move, no plan", Limit(nodes=40, time=0.15),
          SearchSettings(explore=1.2), slip=0.85),
    Level(2, "casual", "sees simple threats and wins", Limit(nodes=150, time=0.35), slip=0.65),
    Level(3, "club", "plans its turn and the reply", Limit(nodes=500, time=0.7), slip=0.45),
    Level(4, "strong", "deeper search in 1.3 s on a Pi 4 core", Limit(nodes=1500, time=1.3), slip=0.25),
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
