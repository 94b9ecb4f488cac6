"""Wiring: a source's observations → stabiliser → referee (in its own thread) → subscribers.

This is the only module that starts threads; the pieces it joins are plain objects that
take their inputs as parameters.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from rules import Observation

from .decisions import Decision, StableView
from .referee import Referee, RefereeLoop
from .stabiliser import Stabiliser


def default_journal_path() -> Path:
    """``$TABLEREF_JOURNAL``, else ``$XDG_DATA_HOME/tableref/journal.sqlite3``."""
    if os.environ.get("TABLEREF_JOURNAL"):
        return Path(os.environ["TABLEREF_JOURNAL"])
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(data) / "tableref" / "journal.sqlite3"


def play_observations(
    referee: Referee,
    observations: Iterable[Observation],
    stabiliser: Stabiliser,
    *,
    on_decision: Callable[[Decision], None] | None = None,
    on_loop: Callable[[RefereeLoop], None] | None = None,
) -> None:
    """Feed a source through the stabiliser into a referee running in its own thread,
    until the source ends; then let the referee finish what is queued. ``on_loop`` is
    handed the running loop, for whatever else sends commands (a panel's buttons)."""
    if on_decision is not None:
        referee.subscribe(on_decision)
    loop = RefereeLoop(referee)
    loop.start()
    if on_loop is not None:
        on_loop(loop)
    try:
        for obs in observations:
            view = stabiliser.feed(obs)
            if view is not None:
                loop.submit(StableView(view, obs.time))
    finally:
        loop.stop()
