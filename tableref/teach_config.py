"""``[teach]`` in the config: teaching at the table (docs/teaching.md). Read with
``tableref.config``'s reader helpers, as ``[opponent]`` is, so every error names its key.

``destinations``: when a piece of the player to move is lifted, show where it may go (the
page, a serial board's LEDs, the voice) and let the page show a piece's moves. On by default at
home; off by default on a club's tables (a board with ``[hub]`` set: a tournament), where it is
only on if the file says so. The page's admin toggle changes it for the service's run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TeachConfig:
    destinations: bool | None = None  # None: not in the file — on at home, off with [hub]

    def on(self, *, club: bool) -> bool:
        """Whether teaching starts on: the file's word, else on unless at a club."""
        return (not club) if self.destinations is None else self.destinations


def read_teach(reader: Any, t: Any) -> TeachConfig:
    """``t`` None: the defaults."""
    if t is None:
        return TeachConfig()
    value = t.get("destinations", bool, None)
    t.done()
    return TeachConfig(value)
