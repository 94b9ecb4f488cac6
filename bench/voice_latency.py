"""The referee's decision latency with the voice on equals the latency with it off.

    python3 bench/voice_latency.py [--reps N] [--pace S] [--level normal|quiet]

A scripted Annihilation game (26 moves, two scoring turns, game over) is played through the
stabiliser into a fresh referee, one stable view every ``--pace`` seconds (faster than speech,
so sentences queue up and stale ones are dropped). Each view's ``Referee.handle`` is timed:
the rules, the journal's commit and every subscriber. With the voice on, a :class:`Speaker`
is subscribed and running: real espeak-ng synthesis on its own thread, and a player that takes
as long as the sentence (``sleep`` for the WAV's length: a machine without a sound card plays
in real time like this). Runs alternate off/on. Prints p50/p95/max per mode, the cost of
``Speaker.on_decision`` itself, and what the speaker said, dropped and cut.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rules import Fidelity, View, get_game  # noqa: E402
from decisions import StableView  # noqa: E402
from tableref.journal import Journal  # noqa: E402
from tableref.referee import Referee  # noqa: E402
from tableref.sources.sim import SimulatedBoard, render_script  # noqa: E402
from tableref.stabiliser import Stabiliser  # noqa: E402
from tableref.voice import Speaker  # noqa: E402
from tableref.voice.audio import EspeakEngine, SubprocessRunner, read_wav  # noqa: E402

SCRIPT = ["0@f5", "0@b4", "8@W", "5@B", "1@W>a1", "1@B>g7", "a1-W>g7*>f6", "f6-g7>g6", "g6-f5x", "g7-B>d4",
          "2@W>b2", "d4-c4", "b2-W>a1", "0@c6", "a1-W>a1", "3@B>e5", "1@W>a1*>c1", "e5-B>g7", "c1-a1>g7x",
          "c4-c5", "a1-W>g7", "c5-d5", "g7-g6", "8@B>Wx", "g6-f5", "8@B>W"]


class RealTimePlayer(SubprocessRunner):
    """Real programs, but the player is ``sleep`` for the WAV's length: playing takes as long as
    on a speaker, with no sound card needed."""

    def which(self, name: str) -> str | None:
        return "/bin/sleep" if name == "aplay" else super().which(name)

    def spawn(self, argv):  # type: ignore[override]
        seconds = read_wav(Path(argv[-1])).duration
        return super().spawn(["sleep", f"{seconds:.3f}"])


def stable_views() -> list[View]:
    game = get_game("annihilation")
    state, moves = game.start(), []
    for text in SCRIPT:
        moves.append(state.parse_move(text))
        state = state.successor(moves[-1])
    script = render_script(game.start(), moves, fidelity=Fidelity.KIND, seed=4)
    stab, views = Stabiliser(), []
    for obs in SimulatedBoard(script).observations():
        v = stab.feed(obs)
        if v is not None:
            views.append(v)
    return views


def play(views: list[View], *, voice: bool, pace: float, level: str, tmp: Path,
         language: str = "en") -> tuple[list[float], list[float], Speaker | None]:
    handle, hook = [], []
    with Journal(tmp / f"j-{time.monotonic_ns()}.sqlite3") as journal:
        ref = Referee.start(journal, "annihilation", fidelity=Fidelity.KIND)
        speaker = None
        if voice:
            runner = RealTimePlayer()
            speaker = Speaker(runner, EspeakEngine(runner), language=language, level=level, work_dir=tmp / "voice")
            inner = speaker.on_decision

            def timed(d, inner=inner):
                t0 = time.perf_counter()
                inner(d)
                hook.append(time.perf_counter() - t0)

            ref.subscribe(timed)
            speaker.start()
        ref.greeting()
        for v in views:
            t0 = time.perf_counter()
            ref.handle(StableView(v))
            handle.append(time.perf_counter() - t0)
            time.sleep(pace)
        if speaker is not None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not speaker.idle:  # let the last sentences finish
                time.sleep(0.1)
            time.sleep(0.2)
            speaker.close()
    return handle, hook, speaker


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pace", type=float, default=0.3, help="seconds between stable views (default 0.3)")
    ap.add_argument("--level", choices=("quiet", "normal"), default="normal")
    ap.add_argument("--language", default="en", help="the speaker's language (fr: the games' French words)")
    args = ap.parse_args(argv)
    if shutil.which("espeak-ng") is None:
        print("voice_latency: espeak-ng is not installed (scripts/ensure-espeak); nothing measured")
        return 0
    views = stable_views()
    times: dict[str, list[float]] = {"off": [], "on": []}
    hooks: list[float] = []
    said, cut = 0, Counter()
    threads_before = threading.active_count()
    with tempfile.TemporaryDirectory() as d:
        for rep in range(args.reps):
            for mode in (("off", "on") if rep % 2 == 0 else ("on", "off")):
                h, k, sp = play(views, voice=mode == "on", pace=args.pace, level=args.level, tmp=Path(d),
                                language=args.language)
                times[mode] += h
                hooks += k
                if sp is not None:
                    said += sum(1 for s in sp.said if not s.cut)
                    cut.update(s.topic for s in sp.said if s.cut)
    decisions = len(views) * args.reps
    print(f"voice latency: Annihilation, {len(SCRIPT)} moves, {len(views)} stable views/game, {args.reps} games "
          f"per mode, a view every {args.pace} s, level {args.level}, language {args.language}, espeak-ng real, "
          "player real-time")
    print(f"{'mode':<5} {'views':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'mean ms':>8}")
    for mode, xs in times.items():
        print(f"{mode:<5} {len(xs):>6} {1000 * pct(xs, 50):8.2f} {1000 * pct(xs, 95):8.2f} "
              f"{1000 * max(xs):8.2f} {1000 * statistics.mean(xs):8.2f}")
    print(f"Speaker.on_decision: {len(hooks)} calls, p50 {1e6 * pct(hooks, 50):.1f} us, "
          f"max {1e6 * max(hooks):.1f} us")
    cuts = ", ".join(f"{n} {topic}" for topic, n in cut.items()) or "none"
    print(f"speech: {said} sentences said in full, {sum(cut.values())} cut ({cuts}), out of {decisions} "
          f"views' decisions (the rest dropped as superseded or stale: the latest state, not a backlog)")
    assert threading.active_count() <= threads_before + 1, "a voice thread was left running"
    return 0


if __name__ == "__main__":
    sys.exit(main())
