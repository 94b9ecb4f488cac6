"""Where a soaked service's memory goes (bench/soak_memory.py ``--trace DIR``).

    python bench/soak_trace.py DIR serve [tableref serve's arguments]

runs ``tableref`` under tracemalloc (not with ``SOAK_TRACEMALLOC=0``: bench/soak_memory.py
``--counts``); each SIGUSR1 writes a snapshot, the live objects by type, the event log's size
and the allocators' figures into DIR; :func:`memory_report` diffs the one after warm-up
against the last.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def install(out: Path, trace: bool | None = None) -> None:
    """tracemalloc on (``trace``; by default unless ``SOAK_TRACEMALLOC=0``); each SIGUSR1 (after a full collection) writes out/N.snapshot
    (tracing) and out/N.json (gc's counts, the live objects by type, the allocators' figures)."""
    import gc
    import json as json_
    import signal
    import tracemalloc
    from collections import Counter

    out.mkdir(parents=True, exist_ok=True)
    taken = [0]
    if trace is None:
        trace = os.environ.get("SOAK_TRACEMALLOC") != "0"

    def dump(*_: object) -> None:
        gc.collect()
        n = taken[0] = taken[0] + 1
        if trace:
            tracemalloc.take_snapshot().dump(str(out / f"{n:03d}.snapshot"))
        objects = gc.get_objects()
        types = Counter(type(o).__name__ for o in objects)
        # The broadcaster's log (web/broadcast.py): its events' texts, the largest thing it keeps.
        payloads = [len(o.payload) for o in objects if type(o).__name__ == "Event" and hasattr(o, "payload")]
        del objects
        (out / f"{n:03d}.json").write_text(json_.dumps({"at": time.time(), "gc": gc.get_count(),
                                                        "objects": sum(types.values()), "allocator": allocator(),
                                                        "events": len(payloads), "event_bytes": sum(payloads),
                                                        "types": dict(types.most_common(200))}))

    if trace:
        tracemalloc.start(12)
    signal.signal(signal.SIGUSR1, dump)


def traced(argv: list[str]) -> int:
    """``soak_trace.py DIR ARGS...``: ``tableref ARGS...`` under :func:`install`, for
    :func:`memory_report` to diff."""
    install(Path(argv[0]))
    from tableref.cli import main

    return main(argv[1:])


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                               "fsmblks", "uordblks", "fordblks", "keepcost")]


def allocator() -> dict[str, float]:
    """This process's allocators, MB: glibc's (``mallinfo2``: ``sbrk`` main heap and thread
    arenas, in use and free inside them, mmapped blocks) and CPython's own arenas (1 MiB each,
    with the bytes of live objects in them)."""
    out: dict[str, float] = {}
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.mallinfo2.restype = _MallInfo2
        mi = libc.mallinfo2()
        out.update(glibc_arenas=mi.arena / 1e6, glibc_in_use=mi.uordblks / 1e6, glibc_free=mi.fordblks / 1e6,
                   glibc_mmapped=mi.hblkhd / 1e6, glibc_mmapped_blocks=mi.hblks)
    except (OSError, AttributeError, TypeError):
        pass  # not glibc
    out.update(_heaps())
    try:  # SQLite's own allocations (the journal's connections: page caches, statements)
        sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
        sqlite.sqlite3_memory_used.restype = sqlite.sqlite3_memory_highwater.restype = ctypes.c_int64
        out.update(sqlite_in_use=sqlite.sqlite3_memory_used() / 1e6,
                   sqlite_peak=sqlite.sqlite3_memory_highwater(0) / 1e6)
    except (OSError, AttributeError, TypeError):
        pass  # no libsqlite3 of its own (linked in statically)
    saved = os.dup(2)  # _debugmallocstats writes to the C stderr
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        stats = tmp.read().decode(errors="replace")
    for key, pattern in (("py_arenas", r"# arenas allocated current\s*=\s*([\d,]+)"),
                         ("py_in_use", r"# bytes in allocated blocks\s*=\s*([\d,]+)")):
        m = re.search(pattern, stats)
        if m:
            n = int(m[1].replace(",", ""))
            out[key] = n if key == "py_arenas" else n / 1e6
    return out


def _heaps() -> dict[str, float]:
    """glibc's ``malloc_info``: each arena's size (MB) and its free bytes, as ``heap<N>`` and
    ``heap<N>_free``."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
        libc.malloc_info.argtypes, libc.fclose.argtypes = [ctypes.c_int, ctypes.c_void_p], [ctypes.c_void_p]
    except (OSError, AttributeError, TypeError):
        return {}
    with tempfile.NamedTemporaryFile(suffix=".xml") as tmp:
        f = libc.fopen(tmp.name.encode(), b"w")
        if not f:
            return {}
        libc.malloc_info(0, f)
        libc.fclose(f)
        xml = Path(tmp.name).read_text()
    out = {}
    for nr, body in re.findall(r'<heap nr="(\d+)">(.*?)</heap>', xml, re.S):
        size = re.search(r'<system type="current" size="(\d+)"', body)
        free = sum(int(n) for n in re.findall(r'<total type="(?:fast|rest)" count="\d+" size="(\d+)"', body))
        if size:
            out[f"heap{nr}"], out[f"heap{nr}_free"] = int(size[1]) / 1e6, free / 1e6
    return out


def memory_report(out: Path, first: int, top: int = 12) -> str:
    """What grew between sample ``first`` (after warm-up) and the last: by line (tracing), by
    type, and in the allocators."""
    import json as json_
    import tracemalloc

    counts = sorted(out.glob("*.json"))
    if len(counts) <= first:
        return f"memory: {len(counts)} samples, too few to diff from #{first + 1}"
    a, b = counts[first], counts[-1]
    lines = []
    if a.with_suffix(".snapshot").exists() and b.with_suffix(".snapshot").exists():
        filt = [tracemalloc.Filter(False, tracemalloc.__file__),
                tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
        old = tracemalloc.Snapshot.load(str(a.with_suffix(".snapshot"))).filter_traces(filt)
        new = tracemalloc.Snapshot.load(str(b.with_suffix(".snapshot"))).filter_traces(filt)
        lines.append(f"traced memory {sum(s.size for s in old.statistics('filename')) / 1e6:.2f} MB at {a.stem} → "
                     f"{sum(s.size for s in new.statistics('filename')) / 1e6:.2f} MB at {b.stem}; grew most:")
        for st in new.compare_to(old, "traceback")[:top]:
            frame = next((f for f in reversed(st.traceback) if "/lib/python3" not in f.filename), st.traceback[-1])
            lines.append(f"  {st.size_diff / 1024:+8.1f} KB {st.count_diff:+6d} blocks  {frame.filename}:{frame.lineno}")
    ja, jb = (json_.loads(p.read_text()) for p in (a, b))
    grown = sorted(((jb["types"].get(t, 0) - n, t) for t, n in ja["types"].items()), reverse=True)[:top]
    lines.append(f"live objects {ja['objects']} → {jb['objects']} ({a.stem} → {b.stem}); by type: "
                 + ", ".join(f"{t} {d:+d}" for d, t in grown if d))
    alloc_a, alloc_b = ja.get("allocator", {}), jb.get("allocator", {})
    if alloc_b:
        lines.append("allocators: " + ", ".join(f"{k} {alloc_a.get(k, float('nan')):.1f} → {v:.1f}"
                                                for k, v in alloc_b.items()))
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(traced(sys.argv[1:]))
