"""Timers for blinking LEDs, buzzer patterns and long presses.

The panel never sleeps: it asks a :class:`Scheduler` to call it back later. On the Pi that is a
:class:`ThreadScheduler` (one thread, started by ``start()``); in tests and simulations a
:class:`ManualScheduler`, whose time moves only when ``advance()`` is called, so a two-second
blink pattern is checked in microseconds and always the same way.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class Timer:
    """A pending call; ``cancel()`` stops it if it has not run yet."""

    __slots__ = ("due", "fn", "cancelled")

    def __init__(self, due: float, fn: Callable[[], None]) -> None:
        self.due = due
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class Scheduler(Protocol):
    def now(self) -> float: ...

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer: ...


class _Heap:
    """Timers in due order; ties keep the order they were scheduled in."""

    def __init__(self) -> None:
        self._items: list[tuple[float, int, Timer]] = []
        self._seq = itertools.count()

    def push(self, timer: Timer) -> None:
        heapq.heappush(self._items, (timer.due, next(self._seq), timer))

    def peek_due(self) -> float | None:
        while self._items and self._items[0][2].cancelled:
            heapq.heappop(self._items)
        return self._items[0][0] if self._items else None

    def pop(self) -> Timer:
        return heapq.heappop(self._items)[2]

    def clear(self) -> None:
        self._items.clear()


def _run(timer: Timer) -> None:
    if timer.cancelled:
        return
    try:
        timer.fn()
    except Exception:  # one broken callback must not stop the panel's clock
        log.exception("scheduled call %r failed", timer.fn)


class ManualScheduler:
    """Time stands still until :meth:`advance`; due calls run in time order, in the caller's
    thread. Calls scheduled by a running call run in the same advance if they fall due."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._heap = _Heap()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = Timer(self._now + max(0.0, delay), fn)
        self._heap.push(timer)
        return timer

    def advance(self, seconds: float) -> None:
        end = self._now + seconds
        while True:
            due = self._heap.peek_due()
            if due is None or due > end + 1e-9:
                break
            timer = self._heap.pop()
            self._now = max(self._now, timer.due)
            _run(timer)
        self._now = end

    def pending(self) -> int:
        """How many calls are still to run (cancelled ones excluded)."""
        return sum(1 for _, _, t in self._heap._items if not t.cancelled)


class ThreadScheduler:
    """One daemon thread running calls when they fall due. ``start()`` starts it, ``close()``
    stops it (pending calls are dropped); both are safe twice. Calls made before ``start()``
    wait for it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._heap = _Heap()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False

    def now(self) -> float:
        return self._clock()

    def call_later(self, delay: float, fn: Callable[[], None]) -> Timer:
        timer = Timer(self._clock() + max(0.0, delay), fn)
        with self._cond:
            self._heap.push(timer)
            self._cond.notify()
        return timer

    def start(self) -> None:
        with self._cond:
            if self._thread is not None:
                return
            self._stopping = False
            self._thread = threading.Thread(target=self._loop, name="panel-timers", daemon=True)
        self._thread.start()

    def close(self) -> None:
        with self._cond:
            thread, self._thread = self._thread, None
            self._stopping = True
            self._heap.clear()
            self._cond.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(2.0)

    def __enter__(self) -> "ThreadScheduler":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _loop(self) -> None:
        while True:
            with self._cond:
                if self._stopping:
                    return
                due = self._heap.peek_due()
                wait = None if due is None else due - self._clock()
                if wait is None or wait > 0:
                    self._cond.wait(wait)
                    continue
                timer = self._heap.pop()
            _run(timer)  # outside the lock: the call may schedule more
