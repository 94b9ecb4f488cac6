"""A board source whose reading fails is closed and opened again, with backoff, until it reads.

A camera whose capture throws or stops giving frames, an OpenCV error on one bad frame, a
GPIO matrix that errors: the :class:`Pump` (the service's "source" thread) hands the failure to
:class:`Retries`, which counts the failures in a row, says each once in the log (a new reason,
or reaching the longest wait; never a traceback every second), and gives the wait before the
next try: 1, 2, 5, 10, 20, then every 30 s. The source is shown ``reconnecting`` meanwhile,
with the one-line reason and the attempt count; once it reads again it is shown as it reads.

Nothing of the game is touched: the journal and the referee carry on, and the first view after
the source is back is judged like any other. A failure that cannot pass by itself (a camera
that is not plugged in) is tried every 30 s for as long as the service runs: a USB device can
be plugged in later, and a try every 30 s costs nothing. A source that is a recording (a board
script, a video file) is not reopened: it would play again from its start.
"""

from __future__ import annotations

import logging
import math
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules import Observation, View

from decisions import Command, StableView
from .stabiliser import Stabiliser

if TYPE_CHECKING:
    from .service import Feed, SourceStatus

log = logging.getLogger("tableref.service")  # the service's log, where its sources are watched

RECONNECTING = "reconnecting"


class SourceLost(RuntimeError):
    """A live source stopped giving readings (a camera with no more frames): opened again."""


@dataclass(frozen=True)
class Backoff:
    """The waits before each try, in seconds (the last one repeats); ``healthy_after``: a source
    that read this long since it was last opened is counted afresh when it next fails."""

    delays: tuple[float, ...] = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0)
    healthy_after: float = 30.0

    def __post_init__(self) -> None:
        if not self.delays or not all(isinstance(d, (int, float)) and math.isfinite(d) and d >= 0
                                      for d in self.delays):
            raise ValueError(f"backoff delays must be seconds >= 0, at least one, got {self.delays!r}")
        if not self.healthy_after >= 0:
            raise ValueError(f"healthy_after must be seconds >= 0, got {self.healthy_after!r}")

    def delay(self, attempt: int) -> float:
        """The wait after the ``attempt``-th failure in a row (1 is the first)."""
        return float(self.delays[min(max(attempt, 1), len(self.delays)) - 1])

    @property
    def longest(self) -> float:
        return float(self.delays[-1])


def one_line(exc: BaseException, limit: int = 160) -> str:
    """An error's first non-empty line (OpenCV's messages run over several), or its type's name."""
    text = next((line.strip() for line in str(exc).splitlines() if line.strip()), "") or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def said_all(exc: BaseException) -> bool:
    """A camera's own "cannot open" (not plugged in, a file that is not a video): its one line
    says all there is, a traceback would only bury it. Other errors keep theirs, once a series."""
    if isinstance(exc, SourceLost):
        return True
    capture = sys.modules.get("vision.camera.capture")  # not imported: then it cannot be its error
    return capture is not None and isinstance(exc, capture.CaptureError)


class Retries:
    """One source's failures in a row: what to log, what to show, how long to wait."""

    def __init__(self, name: str, backoff: Backoff, logger: logging.Logger) -> None:
        self.name, self.backoff, self.log = name, backoff, logger
        self.attempt = 0  # failures in a row; 0: reading normally
        self.reason = ""

    def failed(self, exc: BaseException, read_for: float) -> float:
        """Count a failure of a source that read for ``read_for`` seconds since it was (re)opened;
        returns the seconds to wait before opening it again."""
        if read_for >= self.backoff.healthy_after:
            self.attempt = 0  # it had been reading well: this is a new failure, not a long series
        self.attempt += 1
        reason, kind = one_line(exc), type(exc).__name__
        delay = self.backoff.delay(self.attempt)
        if self.attempt == 1:
            # The traceback once per series, for a bug hiding behind a device error.
            self.log.warning("source %s failed: %s: %s; opening it again in %g s", self.name, kind, reason, delay,
                             exc_info=None if said_all(exc) else exc)
        elif reason != self.reason:
            self.log.warning("source %s still failing (attempt %d), now: %s: %s; next try in %g s", self.name,
                             self.attempt, kind, reason, delay)
        elif delay == self.backoff.longest and self.backoff.delay(self.attempt - 1) < delay:
            self.log.warning("source %s still failing after %d attempts (%s); trying every %g s", self.name,
                             self.attempt, reason, delay)
        else:
            self.log.debug("source %s: attempt %d failed: %s", self.name, self.attempt, reason)
        self.reason = reason
        return delay

    def detail(self, delay: float) -> str:
        """The status detail the page shows while waiting to try again."""
        tries = f"{self.attempt} failed attempt{'' if self.attempt == 1 else 's'}"
        return f"{self.reason}; {tries}, next try in {delay:g} s"

    def read_again(self) -> bool:
        """The source gave a reading: the series is over. True if there was one."""
        if not self.attempt:
            return False
        self.log.info("source %s reads again after %d failed attempt%s (last: %s)", self.name, self.attempt,
                      "" if self.attempt == 1 else "s", self.reason)
        self.attempt, self.reason = 0, ""
        return True


class Pump:
    """One thread ("source") reading a feed: each observation goes through the stabiliser,
    each stable view to ``submit`` (the referee's queue). A failing device never takes the
    service down: a reopenable feed is released and opened again after ``backoff``'s wait,
    shown ``reconnecting`` meanwhile; any other is shown failed."""

    def __init__(self, feed: Feed, stabiliser: Stabiliser, submit: Callable[[Command], None], *,
                 backoff: Backoff | None = None) -> None:
        self.feed, self.stabiliser, self.submit = feed, stabiliser, submit
        self.retries = Retries(feed.name, backoff or Backoff(), log)
        self._stopping = threading.Event()  # the backoff waits on it: stop() is never slept through
        self._thread: threading.Thread | None = None
        self._reopened = False  # opened again after a failure: its next word of its own ends the series
        feed.subscribe_status(self._on_status)

    def _on_status(self, status: SourceStatus) -> None:
        # A camera says what its lock sees once it reads frames again, long before the board is
        # still enough for an observation: that is reading again.
        if self._reopened and status.state not in (RECONNECTING, "failed", "closed"):
            self._reopened = False
            self.retries.read_again()

    def start(self, *, failed: BaseException | None = None) -> None:
        """Read the started feed; ``failed``: its ``start()`` raised this (retried like any failure)."""
        if self._thread is None:
            self._stopping.clear()
            self._thread = threading.Thread(target=self._run, args=(failed,), name="source", daemon=True)
            self._thread.start()

    def _run(self, failed: BaseException | None) -> None:
        feed, opened = self.feed, time.monotonic()
        while not self._stopping.is_set():
            if failed is not None:
                if not feed.reopenable:
                    log.error("source %s failed: %s", feed.name, one_line(failed),
                              exc_info=None if said_all(failed) else failed)
                    feed.set_status("failed", False, one_line(failed))
                    return
                delay = self._lost(failed, time.monotonic() - opened)
                if self._stopping.wait(delay):
                    return
                opened, failed = time.monotonic(), None
                try:
                    feed.reopen()
                except Exception as exc:  # still not there: wait longer
                    failed = exc
                    continue
                self._reopened = True
                if self._stopping.is_set():  # stop() came while it was opening: let it go again
                    feed.release()
                    return
            try:
                for obs in feed.observations():
                    if self._reopened:
                        self._reopened = False
                        self.retries.read_again()
                        if feed.status.state == RECONNECTING:
                            feed.set_status("connected", True)  # for a feed that says nothing more itself
                    view = self.stabiliser.feed(obs)
                    if view is not None:
                        self.submit(StableView(view, obs.time, self.stabiliser.made))
                return  # the source ended (a recording played out) or was stopped
            except Exception as exc:  # a device error must not take the page and the journal down
                if self._stopping.is_set():
                    return  # torn down under it by stop()
                failed = exc

    def _lost(self, exc: BaseException, read_for: float) -> float:
        """Count the failure, let the device go, show it; the seconds to wait before reopening."""
        feed = self.feed
        self._reopened = False
        delay = self.retries.failed(exc, read_for)
        # Readings from before the gap and after it are not one spell: nothing is known meanwhile.
        self.stabiliser.feed(Observation(View(), time.monotonic(), feed.fidelity, feed.kind,
                                         frozenset({"(the source is reconnecting)"})))
        try:
            feed.release()
        except Exception as gone:  # already broken: what matters is opening it again
            log.debug("source %s: releasing it: %s", feed.name, one_line(gone))
        feed.set_status(RECONNECTING, False, self.retries.detail(delay))
        return delay

    def stop(self, timeout: float = 5.0) -> None:
        """End the feed's observations (or the wait before reopening it) and wait for the
        thread. Safe twice."""
        self._stopping.set()
        self.feed.stop()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
