"""``[opponent]`` in the config: the computer's hints and pace (docs/opponent.md). Read with
``tableref.config``'s reader helpers, as ``[voice]`` is, so every error names its key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from decisions.seats import MAX_LEVEL, MIN_LEVEL


@dataclass(frozen=True)
class OpponentConfig:
    hint_level: int = 2  # the level a page's "what would the computer play?" searches at
    time_scale: float = 1.0  # every level's time limit times this (a slower Pi than a Pi 4: more)


def read_opponent(reader: Any, t: Any) -> OpponentConfig:
    """``t`` None: the defaults."""
    if t is None:
        return OpponentConfig()
    level = reader.whole(t, "hint_level", OpponentConfig.hint_level, least=MIN_LEVEL)
    if level > MAX_LEVEL:
        raise reader.error(t.path("hint_level"), f"expected a level {MIN_LEVEL}..{MAX_LEVEL}, got {level}")
    scale = reader.number(t, "time_scale", OpponentConfig.time_scale, positive=True)
    t.done()
    return OpponentConfig(level, scale)
