"""What the service integrates against: limits in, results out (python-chess's engine shapes)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """Whichever bound comes first; ``None`` means no bound of that kind."""

    time: float | None = None  # seconds on the clock passed in
    nodes: int | None = None  # search iterations (simulations)

    def __post_init__(self) -> None:
        if self.time is not None and self.time < 0:
            raise ValueError(f"Limit.time must be ≥ 0, got {self.time}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"Limit.nodes must be ≥ 1, got {self.nodes}")


@dataclass(frozen=True)
class PlayResult:
    """A whole turn: every move the player makes before the turn passes (or the game ends)."""

    moves: tuple
    texts: tuple[str, ...]  # each move's notation, from the state that plays it
    evaluation: float  # the mover's expected result in [0, 1] (1 = sure win) after search
    nodes: int  # simulations run in all
    time: float  # clock seconds used (0.0 when no clock was given)
    level: int | None
    stopped: bool = False  # stop() cut the search short (the turn is still legal and whole)


@dataclass(frozen=True)
class Analysis:
    """For a hint and for "show me": the root's moves ranked, best first."""

    best: PlayResult
    ranked: tuple  # of (move, text, visits, value), for the first move of the turn
