"""The HTTP server's workers: waitress's ``ThreadedTaskDispatcher`` with two changes, both for
memory over an evening (issue 33, item 13; docs/performance.md, "An evening's viewers").

glibc gives every thread that frees memory a cache of freed blocks of its own (the tcache: up
to 7 blocks of each size up to 1 KiB, some 240 KB a thread), given back only when the thread
ends. With viewers coming and going, the service's memory in use climbed for hours while
Python's own objects stayed flat: run with that cache turned off
(``GLIBC_TUNABLES=glibc.malloc.tcache_count=0``) it was flat and 8 MB lower. So:

* a task goes to the worker that went idle **last** (:class:`LastInCondition`): waitress wakes
  the one idle longest, so the work rotated through all 70 workers and filled every one's cache
  in turn; now the short requests keep to the few workers busy at once;
* a worker that served a **long** task (an event stream: seconds to hours) ends once it is done
  and a new thread takes its place, so its cache goes back to the allocator with it. Its stack
  is glibc's cached one, reused; a thread costs tens of microseconds, a stream is seconds.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from waitress.task import ThreadedTaskDispatcher


class LastInCondition:
    """``threading.Condition``'s ``wait``/``notify``/``notify_all`` on a lock the caller holds,
    but ``notify`` wakes the thread that began waiting last (LIFO), not the first."""

    def __init__(self, lock: Any) -> None:
        self._lock = lock
        self._waiters: list[Any] = []  # one held lock per waiting thread, the newest last

    def wait(self, timeout: float | None = None) -> bool:
        waiter = threading.Lock()
        waiter.acquire()
        self._waiters.append(waiter)
        self._lock.release()
        woken = False
        try:
            woken = waiter.acquire(True, -1 if timeout is None else timeout)
        finally:
            self._lock.acquire()
            if not woken:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
                else:
                    woken = True  # notified as the wait ran out: the notify is not lost
        return woken

    def notify(self, n: int = 1) -> None:
        for _ in range(min(n, len(self._waiters))):
            self._waiters.pop().release()

    def notify_all(self) -> None:
        self.notify(len(self._waiters))


class Workers(ThreadedTaskDispatcher):
    """Most recently idle first; a worker whose task ran ``recycle_after`` seconds or more is
    replaced by a new thread (the module's docstring)."""

    recycle_after = 1.0  # seconds: event streams, not pages

    def __init__(self) -> None:
        super().__init__()
        self.queue_cv = LastInCondition(self.lock)
        self.recycled = 0

    def handler_thread(self, thread_no: int) -> None:
        # waitress's own loop (3.0), with the replacement after a long task.
        while True:
            with self.lock:
                while not self.queue and self.stop_count == 0:
                    self.active_count -= 1
                    self.queue_cv.wait()
                    self.active_count += 1
                if self.stop_count > 0:
                    self.active_count -= 1
                    self.stop_count -= 1
                    self.threads.discard(thread_no)
                    self.thread_exit_cv.notify()
                    return
                task = self.queue.popleft()
            began = time.monotonic()
            try:
                task.service()
            except BaseException:  # as waitress: a worker outlives its task, whatever it raised
                self.logger.exception("Exception when servicing %r", task)
            if time.monotonic() - began >= self.recycle_after:
                # The same number and the same place in the counts: this thread ends as active, the new
                # one starts active and idles as any worker does.
                try:
                    self.start_new_thread(self.handler_thread, thread_no)
                except RuntimeError:  # no thread to be had (the system's limit): this one goes on
                    continue
                with self.lock:
                    self.recycled += 1
                return
