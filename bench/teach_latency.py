"""Teaching (issue 31, item 1): a piece lifted → where it may go, lit on the page.

    python3 bench/teach_latency.py [--trials N] [--games gyges,drift,annihilation]
    python3 bench/teach_latency.py --cpu-budget 0.25     # in a cgroup quota: a Pi 4's core (bench/budget.py)

A whole ``tableref serve`` Service (journal, referee thread, the HTTP server on a free port,
teaching on) and a client reading ``/api/events`` over a real socket as the page's EventSource
does. Each trial hands the referee the board with one piece of the player to move lifted — the
moment "the board's change reaches the referee" (the stabiliser's settle is before it and not
counted) — and times until the ``lifted`` decision (with its destinations: what the page lights)
reaches the client; then the piece is put back and the time until the client has the
``restored`` decision (the lights go) is timed too. Pieces: every movable piece of the default
position in turn (Gygès: the south rings; DRIFT: red's III from its home; Annihilation: white's
particles from its ex nihilo zone). The page's own drawing (a few SVG circles) is not in it.
Target: ≤ 150 ms p99 (issue 31). Prints ``label n p50 p99 max`` lines in ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, View, get_game  # noqa: E402
from rules.teach import destinations  # noqa: E402

TARGET_MS = 150.0
GAMES = ("gyges", "drift", "annihilation")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def lifts(game: str) -> tuple[View, list[View]]:
    """The default position's view and the views with one movable piece of the player to move
    lifted (each a board the referee answers with a Lifted that has destinations)."""
    state = get_game(game).default_setup()
    view = state.view(Fidelity.KIND)
    out = []
    for space in sorted(view):
        for token in sorted(set(view[space])):
            spaces = dict(view)
            toks = list(spaces[space])
            toks.remove(token)
            lifted = View({**spaces, space: toks})
            found = destinations(state, lifted, Fidelity.KIND)
            if found is not None and found.destinations:
                out.append(lifted)
    if not out:
        raise RuntimeError(f"{game}: no movable piece in the default position")
    return view, out


def trials_on(service: Any, client: Any, game: str, trials: int) -> tuple[list[float], list[float]]:
    """(lift → lifted, put back → restored) in ms, ``trials`` of each, on a started service."""
    from decisions import StableView

    start, lifted = lifts(game)
    shown, cleared = [], []
    for i in range(trials):
        for view, kind, into in ((lifted[i % len(lifted)], "lifted", shown), (start, "restored", cleared)):
            expected = len(client.arrivals) + (2 if kind == "lifted" else 1)  # partial, then lifted
            t0 = time.monotonic()
            service.submit(StableView(view, t0))
            if not client.wait_for(expected, 10):
                raise RuntimeError(f"{game} trial {i}: no {kind} decision reached the client")
            got = client.arrivals[expected - 1]
            if got.kind != kind:
                raise RuntimeError(f"{game} trial {i}: the client got {got.kind!r}, expected {kind!r}")
            into.append((got.at - t0) * 1000)
            time.sleep(0.02)
    return shown, cleared


def measure(trials: int = 40, games: tuple[str, ...] = GAMES, group: Any = None) -> dict[str, Any]:
    """Figures per game, in ms. ``group``: a bench.budget Group the service's threads run in."""
    import logging

    from bench.sse_latency import SseClient
    from tableref.serve import Service

    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    out: dict[str, Any] = {}
    for game in games:
        with tempfile.TemporaryDirectory() as tmp:
            service = Service(os.path.join(tmp, "j.sqlite3"), os.path.join(tmp, "admin.json"), game=game,
                              setup="default", new=True, teach=True, pin_hash="scrypt:1024:8:1")
            if group is not None:
                group.enter_thread()  # the service's threads start from here: all in the group
            try:
                service.start()
                url = service.serve_http("127.0.0.1", 0)
            finally:
                if group is not None:
                    group.leave_thread()
            client = SseClient("127.0.0.1", int(url.rstrip("/").rsplit(":", 1)[1])).start()
            try:
                time.sleep(1.0)  # the start position settles; the stream is open
                trials_on(service, client, game, 3)  # warm: the first lift computes the legal moves
                cpu0 = group.cpu_seconds() if group is not None else 0.0
                shown, cleared = trials_on(service, client, game, trials)
                cpu = (group.cpu_seconds() - cpu0) if group is not None else None
            finally:
                client.close()
                service.close()
        out[game] = {"n": len(shown), "lift_p50": statistics.median(shown), "lift_p99": pct(shown, 99),
                     "lift_max": max(shown), "back_p50": statistics.median(cleared), "back_p99": pct(cleared, 99),
                     "back_max": max(cleared),
                     "cpu_ms_per_trial": None if cpu is None else 1000 * cpu / len(shown)}
    return out


def print_figures(figures: dict[str, Any], budget: float | None) -> bool:
    where = f"at {budget:g} of a core" if budget else "full speed"
    print(f"# teaching: board change at the referee → decision at the page's event stream, ms ({where})")
    print(f"# target: lift → lit ≤ {TARGET_MS:g} ms p99 (issue 31)")
    ok = True
    for game, f in figures.items():
        print(f"{game} lift → lit {f['n']} {f['lift_p50']:.1f} {f['lift_p99']:.1f} {f['lift_max']:.1f}")
        print(f"{game} put back → cleared {f['n']} {f['back_p50']:.1f} {f['back_p99']:.1f} {f['back_max']:.1f}")
        if f.get("cpu_ms_per_trial") is not None:
            print(f"# {game}: {f['cpu_ms_per_trial']:.1f} ms of the service's CPU per lift and put back")
        ok = ok and f["lift_p99"] <= TARGET_MS
    print(f"# {'met' if ok else 'MISSED'}: every game's lift p99 ≤ {TARGET_MS:g} ms")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=40)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--cpu-budget", type=float, default=None,
                    help="run the service in a cgroup CPU quota of this share of one core (root; bench/budget.py)")
    args = ap.parse_args(argv)
    group = None
    if args.cpu_budget is not None:
        from bench.budget import Group

        try:
            group = Group.make(args.cpu_budget, f"tableref-bench-teach-{os.getpid()}")
        except OSError as exc:
            print(f"not measured at {args.cpu_budget:g} of a core: {exc}")
            return 2
    try:
        figures = measure(args.trials, tuple(g for g in args.games.split(",") if g), group)
    finally:
        if group is not None:
            time.sleep(0.2)
            group.remove()
    print_figures(figures, args.cpu_budget)
    return 0


if __name__ == "__main__":
    sys.exit(main())
