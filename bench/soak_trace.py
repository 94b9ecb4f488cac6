"""Where a soaked service's memory goes (bench/soak_memory.py ``--trace DIR``).

    python bench/soak_trace.py DIR serve [tableref serve's arguments]

runs ``tableref`` under tracemalloc; each SIGUSR1 writes a snapshot and the live objects by
type into DIR; :func:`memory_report` diffs the one after warm-up against the last.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def install(out: Path) -> None:
    """tracemalloc on; each SIGUSR1 (after a full collection) writes out/N.snapshot and
    out/N.json (gc's counts, the live objects by type)."""
    import gc
    import json as json_
    import signal
    import tracemalloc
    from collections import Counter

    out.mkdir(parents=True, exist_ok=True)
    taken = [0]

    def dump(*_: object) -> None:
        gc.collect()
        n = taken[0] = taken[0] + 1
        tracemalloc.take_snapshot().dump(str(out / f"{n:03d}.snapshot"))
        types = Counter(type(o).__name__ for o in gc.get_objects())
        (out / f"{n:03d}.json").write_text(json_.dumps({"at": time.time(), "gc": gc.get_count(),
                                                        "objects": sum(types.values()),
                                                        "types": dict(types.most_common(200))}))

    tracemalloc.start(12)
    signal.signal(signal.SIGUSR1, dump)


def traced(argv: list[str]) -> int:
    """``soak_trace.py DIR ARGS...``: ``tableref ARGS...`` under :func:`install`, for
    :func:`memory_report` to diff."""
    install(Path(argv[0]))
    from tableref.cli import main

    return main(argv[1:])


def memory_report(out: Path, first: int, top: int = 12) -> str:
    """What grew between snapshot ``first`` (after warm-up) and the last: by line, by type."""
    import json as json_
    import tracemalloc

    shots = sorted(out.glob("*.snapshot"))
    if len(shots) <= first:
        return f"memory: {len(shots)} snapshots, too few to diff from #{first + 1}"
    a, b = shots[first], shots[-1]
    filt = [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap>")]
    old = tracemalloc.Snapshot.load(str(a)).filter_traces(filt)
    new = tracemalloc.Snapshot.load(str(b)).filter_traces(filt)
    lines = [(f"traced memory {sum(s.size for s in old.statistics('filename')) / 1e6:.2f} MB at {a.stem} → "
              f"{sum(s.size for s in new.statistics('filename')) / 1e6:.2f} MB at {b.stem}; grew most:")]
    for st in new.compare_to(old, "traceback")[:top]:
        frame = next((f for f in reversed(st.traceback) if "/lib/python3" not in f.filename), st.traceback[-1])
        lines.append(f"  {st.size_diff / 1024:+8.1f} KB {st.count_diff:+6d} blocks  {frame.filename}:{frame.lineno}")
    ja, jb = (json_.loads(p.with_suffix(".json").read_text()) for p in (a, b))
    grown = sorted(((jb["types"].get(t, 0) - n, t) for t, n in ja["types"].items()), reverse=True)[:top]
    lines.append(f"live objects {ja['objects']} → {jb['objects']}; by type: "
                 + ", ".join(f"{t} {d:+d}" for d, t in grown if d))
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(traced(sys.argv[1:]))
