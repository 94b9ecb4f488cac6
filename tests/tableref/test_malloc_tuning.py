"""tableref serve sets glibc's allocator for a long evening (tableref/malloc_tuning.py): two
arenas and a fixed mmap threshold, unless the operator's environment already says."""

from __future__ import annotations

import subprocess
import sys

from tableref.malloc_tuning import (
    ARENAS,
    M_ARENA_MAX,
    M_MMAP_THRESHOLD,
    MMAP_THRESHOLD,
    tune_malloc,
)


class FakeMallopt:
    def __init__(self, answer: int = 1) -> None:
        self.calls: list[tuple[int, int]] = []
        self.answer = answer

    def __call__(self, param: int, value: int) -> int:
        self.calls.append((param, value))
        return self.answer


def test_two_arenas_and_a_fixed_threshold_are_asked_of_mallopt():
    fake = FakeMallopt()
    done = tune_malloc(fake, environ={})
    assert fake.calls == [(M_ARENA_MAX, 2), (M_MMAP_THRESHOLD, 128 * 1024)]
    assert (done.arena_max, done.mmap_threshold) == (str(ARENAS), str(MMAP_THRESHOLD))


def test_the_environment_wins():
    fake = FakeMallopt()
    done = tune_malloc(fake, environ={"MALLOC_ARENA_MAX": "4"})
    assert fake.calls == [(M_MMAP_THRESHOLD, MMAP_THRESHOLD)]
    assert done.arena_max == "left to MALLOC_ARENA_MAX=4"


def test_not_glibc_or_refused_changes_nothing_and_says_so():
    assert tune_malloc(None, environ={}).arena_max == "not glibc: left as it is"
    assert tune_malloc(FakeMallopt(answer=0), environ={}).mmap_threshold == f"mallopt refused {MMAP_THRESHOLD}"


def test_this_machines_glibc_takes_both():
    code = ("from tableref.malloc_tuning import tune_malloc; d = tune_malloc(environ={}); "
            "print(d.arena_max, d.mmap_threshold)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    if "not glibc" in out.stdout:
        import pytest

        pytest.skip("not a glibc system")
    assert out.stdout.split() == [str(ARENAS), str(MMAP_THRESHOLD)]
