"""One writing process per journal: ``<journal>.lock``, locked with ``flock`` for as long as a
writer (``run``, ``serve``, ``referee-serial``, ``import``) has the journal open.

Two processes referee-ing one journal both append the next move of the same game (SQLite then
refuses the second: ``UNIQUE constraint failed``). The lock refuses the second process before it
writes anything, naming the PID that holds it. The kernel drops an ``flock`` when its process
dies, however it dies, so a lock file left behind by a killed process never blocks: only a
living holder does. Readers (``games``, ``replay``, ``export``, the page) take no lock: SQLite's
WAL lets them read beside the writer.

Within one process the lock is counted, not taken twice (an ``flock`` on a second descriptor
would refuse its own process): the service and its page, or a test's several journals, share it.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

from .journal import JournalError


class JournalInUse(JournalError):
    """Another living process writes this journal."""


_held: dict[Path, list] = {}  # resolved lock path -> [file descriptor, count]
_guard = threading.Lock()


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".lock")


def hold(journal: str | Path) -> "Hold":
    """Take the journal's lock for this process (or count one more holder of it), or raise
    :class:`JournalInUse` naming the PID that has it."""
    path = lock_path(Path(journal)).resolve()
    with _guard:
        entry = _held.get(path)
        if entry is not None:
            entry[1] += 1
            return Hold(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Not inherited (os.open's descriptors are close-on-exec): a voice player or the
            # computer's worker process outliving a killed service does not keep the lock.
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise JournalError(f"{journal}: cannot open the journal's lock file {path}: {exc.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"PID {holder}" if holder else "another process"
            raise JournalInUse(f"{journal}: journal in use by {who} (another tableref writing it): stop that "
                               "one first, or give this one its own --journal FILE") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        _held[path] = [fd, 1]
        return Hold(path)


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class Hold:
    """This process's share of a journal's lock; ``release()`` is safe twice."""

    def __init__(self, path: Path) -> None:
        self._path: Path | None = path

    def release(self) -> None:
        with _guard:
            path, self._path = self._path, None
            entry = _held.get(path) if path is not None else None
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] == 0:
                del _held[path]
                os.close(entry[0])  # the flock goes with the descriptor; the file stays (no race on unlink)
