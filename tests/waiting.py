"""Polling for the tests that wait on a thread, a process or a page: one helper."""

from __future__ import annotations

import time


def wait_for(predicate, timeout: float, what: str = "the condition", interval: float = 0.05):
    """``predicate()``'s first true answer, polled every ``interval`` s; fails the test after
    ``timeout`` seconds, naming ``what`` it waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
