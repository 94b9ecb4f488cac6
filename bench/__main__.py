"""``python -m bench``: measure the whole chain, print one table, write the figures as JSON.

    python3 -m bench [--quick] [--json FILE] [--only explain,serial,vision,e2e,serve,opponent,clock]
    python3 -m bench --cpu-budget 0.25 [--quick]   # the same chain on a Pi's share of a core (bench/budget.py)

Sections (each row has its target, from the issue that set it, and met / MISSED):

* ``explain`` — explain p50/p99 per game (bench/explain.py), and the games' own benches
  (bench/annihilation_explain.py, drift_explain.py, annelids_explain.py), run as scripts;
* ``serial``  — frames/s parsed and through a pty, change to decision (bench/serial_bench.py);
* ``vision``  — watching fps and full-read ms on one core (1280x720; DRIFT 1920x1080), false accepts
  (bench/vision_speed.py, bench/vision_accuracy.py, when present);
* ``e2e``     — a board change to the decision arriving at an SSE client (bench/sse_latency.py);
* ``serve``   — ``tableref serve`` start-up time and peak resident memory (bench/serve_bench.py's
  ``one_run``, when present);
* ``opponent`` — the computer opponent's think time per turn, levels 1 and top, every game
  (bench/opponent.py; its strength tables are that script's own run);
* ``clock``   — the game clock's switch time against the moment the hand left the board, on the
  camera-model films (bench/clock_error.py, run as a script; issue 34).

A section that cannot run prints a ``not measured: <reason>`` row; no figure is ever made
up. ``--quick`` runs every section with small counts (a smoke run: figures are noisier).
The JSON (default bench/results/latest.json, not committed) holds every row and the machine.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DEFAULT_JSON = ROOT / "bench" / "results" / "latest.json"
FIDELITIES = ("occupancy", "kind", "identity")


@dataclass(frozen=True)
class Target:
    op: str  # "<=" or ">="
    limit: float
    unit: str
    source: str  # which issue set it

    def text(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"{'≤' if self.op == '<=' else '≥'} {self.limit:g}{unit} ({self.source})"

    def met(self, value: float) -> bool:
        return value <= self.limit if self.op == "<=" else value >= self.limit


@dataclass
class Row:
    section: str
    what: str
    figure: str  # as printed
    value: float | None = None  # the figure held against the target
    target: Target | None = None
    figures: dict[str, float] = field(default_factory=dict)

    @property
    def met(self) -> bool | None:
        if self.value is None or self.target is None:
            return None
        return self.target.met(self.value)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["target"] = self.target.text() if self.target else None
        d["met"] = self.met
        return d


def not_measured(section: str, what: str, reason: str) -> Row:
    return Row(section, what, f"not measured: {reason}")


# -- running the per-part scripts ------------------------------------------------------------------


def run_script(name: str, args: list[str], timeout: float = 1800) -> str:
    """Run ``bench/<name>`` as its own process (it keeps its own sys.path set-up); its stdout."""
    path = ROOT / "bench" / name
    if not path.exists():
        raise FileNotFoundError(f"bench/{name} is not there")
    proc = subprocess.run([sys.executable, str(path), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"bench/{name} exited {proc.returncode}: {tail[0]}")
    return proc.stdout


def stat_lines(text: str) -> dict[str, tuple[int, float, float, float]]:
    """Lines ending ``n p50 p99 max`` → {label: (n, p50, p99, max)}; the label is what precedes."""
    out: dict[str, tuple[int, float, float, float]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        try:
            n, p50, p99, mx = int(parts[-4]), float(parts[-3]), float(parts[-2]), float(parts[-1])
        except ValueError:
            continue
        out[" ".join(parts[:-4])] = (n, p50, p99, mx)
    return out


def ms_row(section: str, what: str, stats: tuple[int, float, float, float], target: Target | None,
           note: str = "") -> Row:
    n, p50, p99, mx = stats
    figure = f"p50 {p50:.2f} · p99 {p99:.2f} ms (max {mx:.1f}, n {n})" + (f"; {note}" if note else "")
    return Row(section, what, figure, p99, target, {"n": n, "p50_ms": p50, "p99_ms": p99, "max_ms": mx})


# -- explain -----------------------------------------------------------------------------------------

GAME_TARGETS = {
    "annihilation": Target("<=", 20, "ms p99", "issue 4"),
    "drift": Target("<=", 20, "ms p99", "issue 5"),
}


def section_explain(quick: bool) -> list[Row]:
    rows: list[Row] = []
    try:
        stats = stat_lines(run_script("explain.py", ["--games", "1" if quick else "10"]))
        games = sorted({label.split()[0] for label in stats if len(label.split()) == 2})
        for game in games:
            per_fid = {f: stats[f"{game} {f}"] for f in FIDELITIES if f"{game} {f}" in stats}
            worst = max(per_fid, key=lambda f: per_fid[f][2])
            rows.append(ms_row("explain", f"{game} explain (worst fidelity: {worst})", per_fid[worst],
                               GAME_TARGETS.get(game), "" if game in GAME_TARGETS else "no target stated"))
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        rows.append(not_measured("explain", "explain per game", str(exc)))
    rows += _dedicated("annihilation_explain.py", ["--games", "4" if quick else "40"],
                       [("annihilation explain, emit-heavy games", lambda s: _worst(s, "explain ")),
                        ("annihilation explain part-way (partial)", lambda s: s.get("partial kind"))],
                       Target("<=", 20, "ms p99", "issue 4"))
    rows += _dedicated("drift_explain.py", ["--games", "1", "--plies", "80"] if quick else ["--games", "5"],
                       [("drift explain, every move (3 players)", lambda s: s.get("every move"))],
                       Target("<=", 20, "ms p99", "issue 5"))
    rows += _dedicated("annelids_explain.py", ["--games", "2" if quick else "10"],
                       [("annelids explain, placement", lambda s: _worst(s, "place "))],
                       Target("<=", 5, "ms p99", "issue 6"))
    return rows


def _worst(stats: dict[str, tuple[int, float, float, float]], prefix: str):
    hits = [v for k, v in stats.items() if k.startswith(prefix)]
    return max(hits, key=lambda v: v[2]) if hits else None


def _dedicated(script: str, args: list[str], picks: list[tuple[str, Callable]], target: Target) -> list[Row]:
    try:
        stats = stat_lines(run_script(script, args))
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        return [not_measured("explain", what, str(exc)) for what, _ in picks]
    rows = []
    for what, pick in picks:
        got = pick(stats)
        rows.append(ms_row("explain", what, got, target) if got else
                    not_measured("explain", what, f"bench/{script} printed no such line"))
    return rows


# -- serial ------------------------------------------------------------------------------------------


def section_serial(quick: bool) -> list[Row]:
    args = ["--frames", "20000", "--trials", "5"] if quick else ["--frames", "100000", "--trials", "20"]
    try:
        out = run_script("serial_bench.py", args)
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        return [not_measured("serial", "serial link", str(exc))]
    rows = []
    rate = Target(">=", 200, "frames/s", "issue 7")
    for label, what in (("parser alone", "frames parsed (parser alone)"),
                        ("link through a pty", "frames through a pty (SerialBoard)")):
        m = re.search(rf"{label}:\s+([\d,]+) frames/s", out)
        rows.append(Row("serial", what, f"{int(m.group(1).replace(',', '')):,} frames/s",
                        float(m.group(1).replace(",", "")), rate) if m else
                    not_measured("serial", what, "bench/serial_bench.py printed no such line"))
    m = re.search(r"total minus settle\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)", out)
    n = re.search(r"over (\d+) moves", out)
    what = "change to decision after the settle (pty, firmware)"
    if m:
        p50, p99, mx = map(float, m.groups())
        rows.append(Row("serial", what, f"p50 {p50:.1f} · p99 {p99:.1f} ms (max {mx:.1f}, n {n.group(1) if n else '?'})",
                        p99, Target("<=", 50, "ms p99", "issue 7"), {"p50_ms": p50, "p99_ms": p99, "max_ms": mx}))
    else:
        rows.append(not_measured("serial", what, "no latency trial completed"))
    return rows


# -- vision ------------------------------------------------------------------------------------------


def _optional(module: str) -> Any:
    """A bench module that someone else may not have landed yet: imported only when asked for."""
    if not (ROOT / "bench" / f"{module}.py").exists():
        return None
    return importlib.import_module(f"bench.{module}")


def section_vision(quick: bool) -> list[Row]:
    try:
        speed = _optional("vision_speed")
        accuracy = _optional("vision_accuracy")
    except ImportError as exc:
        return [not_measured("vision", "camera", f"cannot import the camera benches: {exc}")]
    rows: list[Row] = []
    if speed is None:
        rows.append(not_measured("vision", "watching fps / full read ms", "bench/vision_speed.py is not there"))
    else:
        import cv2

        from rules import game_names

        cv2.setNumThreads(1)  # one core, as vision_speed.py measures it
        games = [g for g in speed.CAMERA_GAMES if g in game_names()]  # DRIFT too, filmed at 1080p
        for g in games[:1] if quick else games:
            size = "1920x1080" if g == "drift" else "1280x720"
            try:
                r = speed.bench_game(g, 60 if quick else 300, 12 if quick else 60)
            except Exception as exc:  # a camera bench that breaks is reported, the others still run
                rows.append(not_measured("vision", f"{g} camera speed", f"{type(exc).__name__}: {exc}"))
                continue
            rows.append(Row("vision", f"{g} watching, {size}, one core",
                            f"{r['watch_fps']:.0f} fps ({r['watch_ms']:.2f} ms/frame, p95 {r['watch_p95_ms']:.2f})",
                            r["watch_fps"], Target(">=", 60, "fps", "issue 8"), dict(r)))
            rows.append(Row("vision", f"{g} full board read, {size}",
                            f"p50 {r['read_p50']:.1f} · p95 {r['read_p95']:.1f} ms (max {r['read_max']:.1f})",
                            r["read_p50"], Target("<=", 30, "ms p50", "issue 8"), dict(r)))
    if accuracy is None:
        rows.append(not_measured("vision", "false accepts", "bench/vision_accuracy.py is not there"))
    else:
        from rules import game_names

        games = [g for g in accuracy.CAMERA_GAMES if g in game_names()]  # all five
        per_game = 10 if quick else 500
        try:
            total = accuracy.Tally()
            for g in games:
                total.add(accuracy.run_game(g, per_game, 10 if quick else 25, 0))
        except Exception as exc:  # as above: reported, not fatal to the table
            return rows + [not_measured("vision", "false accepts", f"{type(exc).__name__}: {exc}")]
        err = 100 * total.wrong / max(1, total.read)
        rows.append(Row("vision", f"false accepts ({total.frames} rendered frames, hard effects)",
                        f"{total.false_accepts} (space error {err:.3f} %, abstained "
                        f"{100 * total.abstained / max(1, total.frames):.1f} % of frames)",
                        float(total.false_accepts), Target("<=", 0, "", "issue 8"),
                        {"frames": total.frames, "false_accepts": total.false_accepts, "space_error_pct": err}))
    return rows


# -- end to end and serve ------------------------------------------------------------------------------


def section_e2e(quick: bool) -> list[Row]:
    what = "board change → decision at an SSE client, after the settle"
    try:
        from bench import sse_latency

        r = sse_latency.measure(trials=5 if quick else 20)
    except (OSError, RuntimeError, ImportError) as exc:
        return [not_measured("e2e", what, str(exc))]
    figure = (f"p50 {r['after_settle_p50']:.1f} · p99 {r['after_settle_p99']:.1f} ms (+ settle "
              f"{r['settle_ms']:.0f} ms = p99 {r['total_p99']:.0f} ms total, n {r['trials']:.0f})")
    # Issue 7's "decision <= 50 ms after the settle", plus the simulated board's scan interval:
    # a change waits up to one scan before it is read at all.
    target = Target("<=", 50 + r["scan_ms"], "ms p99", f"issue 7's 50 ms + one {r['scan_ms']:.0f} ms scan")
    return [Row("e2e", what, figure, r["after_settle_p99"], target, r)]


def section_serve(quick: bool) -> list[Row]:
    whats = ("serve start-up time", "serve resident memory (peak RSS)")
    try:
        serve = _optional("serve_bench")
    except ImportError as exc:
        return [not_measured("serve", w, f"cannot import bench/serve_bench.py: {exc}") for w in whats]
    if serve is None:
        return [not_measured("serve", w, "bench/serve_bench.py is not there") for w in whats]
    if not hasattr(serve, "one_run"):
        return [not_measured("serve", w, "bench/serve_bench.py has no one_run()") for w in whats]
    import statistics
    import tempfile

    runs = []
    try:
        for _ in range(1 if quick else 5):
            with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
                runs.append(serve.one_run(None, 1 if quick else 5, Path(tmp)))  # (start-up s, RSS, peak, stop s)
    except (SystemExit, OSError, subprocess.SubprocessError) as exc:  # serve_bench reports failures as SystemExit
        return [not_measured("serve", w, str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
                for w in whats]
    startup, rss, peak, stop = (statistics.median(col) for col in zip(*runs))
    figures = {"runs": len(runs), "startup_s": startup, "rss_mb": rss, "peak_rss_mb": peak, "stop_s": stop}
    return [
        Row("serve", whats[0], f"{startup:.2f} s (median of {len(runs)}; stops in {stop:.2f} s)", startup,
            Target("<=", 3, "s", "issue 11"), figures),
        Row("serve", whats[1], f"{peak:.0f} MB peak ({rss:.0f} MB after the requests)", peak,
            Target("<=", 200, "MB", "issue 11"), figures),
    ]


def section_opponent(quick: bool) -> list[Row]:
    """The computer opponent's think time per turn, levels 1 and top, every game, at a Pi 4's
    pace (its clock is this process's CPU time ÷ 0.25); bench/opponent.py has the strength."""
    try:
        from bench import opponent
    except ImportError as exc:
        return [not_measured("opponent", "think time per turn", f"cannot import bench/opponent.py: {exc}")]
    pace = 0.25
    rows = []
    for key, f in opponent.think_times(quick, levels=[1, opponent.TOP], pace=pace).items():
        limit = opponent.THINK_TARGET[int(key.rsplit("L", 1)[1])]
        pi = f["cpu_p95"] / pace
        rows.append(Row("opponent", f"{key} think time per turn (CPU ÷ {pace:g}: a Pi 4 core)",
                        f"p95 {pi:.2f} s on a Pi 4 (CPU here p50 {f['cpu_p50']:.3f} · p95 {f['cpu_p95']:.3f} s, n {f['n']})",
                        pi, Target("<=", limit, "s p95", "issue 30"), f))
    return rows


CLOCK_ARGS = {True: ["--games", "1", "--moves", "2", "--tilts", "25"], False: ["--games", "2", "--moves", "6"]}


def clock_rows(text: str) -> dict[str, dict[str, float]]:
    """bench/clock_error.py's rows: ``<engine> <tilt>`` or ``all`` → the switches (n, p50, p99,
    max ms), every move's (count, p50/p99/max ms), every move's against the arm alone (p50/p99 ms)
    and the wrong accepts."""
    out: dict[str, dict[str, float]] = {}
    for line in text.splitlines():
        parts = line.split()
        label = parts[0] if parts and parts[0] == "all" else " ".join(parts[:2])
        rest = parts[1:] if label == "all" else parts[2:]
        if len(rest) != 8:
            continue
        try:
            n, p50, p99, mx, moves = int(rest[0]), float(rest[1]), float(rest[2]), float(rest[3]), int(rest[4])
            every = [float(x) for x in rest[5].split("/")]
            arm = [float(x) for x in rest[6].split("/")]
            wrong = int(rest[7])
        except ValueError:
            continue  # the header
        out[label] = {"switches": n, "p50_ms": p50, "p99_ms": p99, "max_ms": mx, "moves": moves,
                      "every_p50_ms": every[0], "every_p99_ms": every[-2], "every_max_ms": every[-1],
                      "arm_p50_ms": arm[0], "arm_p99_ms": arm[-1], "wrong": wrong}
    return out


def section_clock(quick: bool) -> list[Row]:
    """The clock's error after a move (issue 34): its switch time against the hand leaving the
    board, on the camera-model films, Gygès and Anacund at three tilts (one in --quick)."""
    what = "clock switch time vs the hand leaving (camera films)"
    try:
        # bench/clock_error.py exits 1 over the bar or on a wrong accept: its table is read either way
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / "clock_error.py"), *CLOCK_ARGS[quick]],
                              cwd=ROOT, capture_output=True, text=True, timeout=7200)
    except (OSError, subprocess.SubprocessError) as exc:
        return [not_measured("clock", what, str(exc))]
    rows = clock_rows(proc.stdout)
    every = rows.get("all")
    if every is None or not every["switches"]:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return [not_measured("clock", what, f"bench/clock_error.py exited {proc.returncode}: {tail[0]}")]
    tilts = len({k.split()[1] for k in rows if k != "all"})
    figure = (f"p99 {every['p99_ms']:.0f} ms · p50 {every['p50_ms']:.0f} · max {every['max_ms']:.0f} ms "
              f"({every['switches']:.0f} switches of {every['moves']:.0f} moves, {tilts} tilt(s); "
              f"{every['wrong']:.0f} wrong accepts)")
    print(proc.stdout, file=sys.stderr, flush=True)  # the script's own table, per engine and tilt
    target = Target("<=", 100, "ms p99", "issue 34")
    # a wrong accept fails the row whatever the timing: the clock would have switched on a misread
    value = every["p99_ms"] if not every["wrong"] else float("inf")
    per_film = {f"p99_ms {k}": r["p99_ms"] for k, r in rows.items() if k != "all"}
    return [Row("clock", what, figure, value, target, {**every, **per_film})]


SECTIONS: dict[str, Callable[[bool], list[Row]]] = {
    "explain": section_explain, "serial": section_serial, "vision": section_vision,
    "e2e": section_e2e, "serve": section_serve, "opponent": section_opponent, "clock": section_clock,
}


# -- the machine, the table, the JSON ---------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = platform.processor() or platform.machine()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=10).stdout
        m = re.search(r"^Model name:\s*(.+)$", out, re.M)
        if m:
            model = m.group(1).strip()
    except (OSError, subprocess.SubprocessError):
        pass  # no lscpu: the platform's own name stands
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(),
            "system": f"{platform.system()} {platform.release()}", "load_before": list(os.getloadavg())}


def print_table(rows: list[Row]) -> None:
    targets = [r.target.text() if r.target else "—" for r in rows]
    widths = (8, max(len(r.what) for r in rows), max(len(r.figure) for r in rows), max(map(len, targets)))
    head = f"{'section':<{widths[0]}}  {'what':<{widths[1]}}  {'figure':<{widths[2]}}  {'target':<{widths[3]}}  met"
    print(head)
    print("-" * len(head))
    for r, target in zip(rows, targets):
        met = "—" if r.met is None else ("met" if r.met else "MISSED")
        print(f"{r.section:<{widths[0]}}  {r.what:<{widths[1]}}  {r.figure:<{widths[2]}}  {target:<{widths[3]}}  {met}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small counts: a smoke run (noisier figures)")
    ap.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"where to write the results (default {DEFAULT_JSON.relative_to(ROOT)})")
    ap.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated sections: {', '.join(SECTIONS)}")
    ap.add_argument("--cpu-budget", type=float, default=None, metavar="SHARE",
                    help="run the chain inside a cgroup CPU quota of SHARE of one core, beside full speed "
                         "(0.25: a Pi 4, 0.7: a Pi 5; bench/budget.py, needs root)")
    args = ap.parse_args(argv)
    if args.cpu_budget is not None:
        from bench import budget

        out = args.json if args.json != DEFAULT_JSON else DEFAULT_JSON.with_name(f"budget-{args.cpu_budget:g}.json")
        rc = budget.main(["--budget", str(args.cpu_budget), "--json", str(out), *(["--quick"] if args.quick else [])])
        from bench import opponent  # the opponent's think time in the same quota (its own probe)

        print()
        return rc or opponent.print_think(args.cpu_budget, args.quick)
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown or not chosen:
        ap.error(f"--only: unknown section {unknown[0]!r} (sections: {', '.join(SECTIONS)})" if unknown
                 else "--only: name at least one section")
    info = machine()
    print(f"{info['cpu']}, {info['cores']} cores, load {info['load_before'][0]:.2f}; python {info['python']}"
          f"{' (quick)' if args.quick else ''}", flush=True)
    rows: list[Row] = []
    started = time.time()
    for name in chosen:
        t0 = time.perf_counter()
        print(f"… {name}", file=sys.stderr, flush=True)
        rows += SECTIONS[name](args.quick)
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    info["load_after"] = list(os.getloadavg())
    print()
    print_table(rows)
    missed = [r for r in rows if r.met is False]
    unmeasured = [r for r in rows if r.value is None and r.figure.startswith("not measured")]
    print(f"\n{len(rows)} rows: {len(rows) - len(missed) - len(unmeasured)} measured and met or untargeted, "
          f"{len(missed)} missed, {len(unmeasured)} not measured; load after {info['load_after'][0]:.2f}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "tableref_bench": 1, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(time.time() - started, 1), "quick": args.quick, "sections": chosen, "machine": info,
        "rows": [r.to_dict() for r in rows],
    }, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
