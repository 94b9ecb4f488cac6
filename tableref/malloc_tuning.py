"""glibc's allocator, set for a long-running service with many threads and large frames.

The club-evening soak (bench/soak_memory.py, docs/performance.md) found resident memory still
creeping after warm-up with Python's own allocations flat (tracemalloc): glibc gives each
thread that allocates an arena of its own (up to 8 per core; waitress has 70 workers) and
moves its mmap threshold up to the largest block freed (a camera frame is 2.7 MB), so freed
memory stays in many part-used arenas instead of going back. Two arenas and a fixed 128 KiB
threshold (large blocks always mmapped, returned on free) bound it. Set once at start-up,
before the threads: ``mallopt`` applies to arenas made afterwards.

Not glibc (musl, macOS), or ``MALLOC_ARENA_MAX`` / ``MALLOC_MMAP_THRESHOLD_`` already in the
environment (the operator's choice wins): nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
M_ARENA_MAX = -8
ARENAS = 2
MMAP_THRESHOLD = 128 * 1024  # glibc's starting value, held fixed


@dataclass(frozen=True)
class MallocTuning:
    """What :func:`tune_malloc` did: each setting applied, or why not."""

    arena_max: str
    mmap_threshold: str


def _glibc_mallopt() -> Callable[[int, int], int] | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018  (glibc only: musl has mallopt as a stub)
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt


def tune_malloc(mallopt: Callable[[int, int], int] | None | bool = True,
                environ: Mapping[str, str] = os.environ) -> MallocTuning:
    """Two arenas and a fixed mmap threshold, unless the environment sets them. ``mallopt``:
    the C function (default: this process's glibc's; ``None``: there is none)."""
    fn = _glibc_mallopt() if mallopt is True else mallopt
    done = []
    for env, param, value in (("MALLOC_ARENA_MAX", M_ARENA_MAX, ARENAS),
                              ("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, MMAP_THRESHOLD)):
        if env in environ:
            done.append(f"left to {env}={environ[env]}")
        elif not callable(fn):
            done.append("not glibc: left as it is")
        elif fn(param, value) == 1:  # mallopt returns 1 on success
            done.append(str(value))
        else:
            done.append(f"mallopt refused {value}")
    result = MallocTuning(*done)
    log.debug("malloc: arenas %s, mmap threshold %s", result.arena_max, result.mmap_threshold)
    return result
